/** `toonlens decode FILE.toon [--out FILE] [--json]`: strictly decodes TOON and prints (or writes) the JSON value. */
import { flag, stringValue } from './args';
import { printJson } from './jsonOut';
import { engineCommand, readToon, strictDecode, writeFileAtomic } from './engineArgs';

const HELP = `Usage: toonlens decode FILE.toon [--out FILE] [--json]

Strictly decodes a TOON file and prints (or writes) the JSON value.

Options:
  --out FILE   write the JSON to FILE (atomically) instead of printing it
  --json       with --out, print {"written": FILE}
  -h, --help   show this help

Examples:
  toonlens decode orders.toon
  toonlens decode orders.toon --out orders.json

Exit status: 0 when it decodes, 1 when not (invalid_toon) or on an error (bad_request, input_not_found, io).
`;

export const run = engineCommand('decode', HELP, { json: { type: 'boolean' }, out: { type: 'string' } }, async (p, io) => {
  const { text, name } = readToon(p, io);
  const value = strictDecode(text, name);
  const json = JSON.stringify(value, null, 2) + '\n';
  const out = stringValue(p, 'out');
  if (out !== undefined) {
    writeFileAtomic(io, out, json);
    if (!flag(p, 'json')) io.stdout(`wrote ${out}\n`);
    else printJson(io, { written: out });
  } else io.stdout(json);
  return 0;
});

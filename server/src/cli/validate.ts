/** `toonlens validate FILE.toon [--json]`: a strict decode check with the official decoder. */
import { flag } from './args';
import { engineCommand, readToon, strictDecode } from './engineArgs';

const HELP = `Usage: toonlens validate FILE.toon [--json]

Strictly decodes a TOON file with the official decoder.

Options:
  --json       print {"valid": true, "file": …}, or the error envelope (code invalid_toon)
  -h, --help   show this help

Examples:
  toonlens validate orders.toon
  toonlens validate orders.toon --json

Exit status: 0 when it decodes, 1 when not (invalid_toon) or on an error (bad_request, input_not_found, io).
`;

export const run = engineCommand('validate', HELP, { json: { type: 'boolean' } }, async (p, io) => {
  const { text, name } = readToon(p, io);
  strictDecode(text, name);
  io.stdout(flag(p, 'json') ? JSON.stringify({ valid: true, file: name }, null, 2) + '\n' : `${name}: valid TOON\n`);
  return 0;
});

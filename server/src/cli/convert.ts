/** `toonlens convert <file|--stdin> [--json] [--mode lossless|record|budget]`: markdown to a TOON candidate (verdict.v1). */
import { flag, stringValue } from './args';
import { convertDocument } from '../core/markdown/engine';
import { printJson } from './jsonOut';
import { COMMON, DELIMITERS, EXIT_LINE, MODES, TOKEN_OPTIONS, engineCommand, engineOptions, failOnList, failOnMatches, readInput, summary, writeFileAtomic } from './engineArgs';

const HELP = `Usage: toonlens convert <file | - | --stdin> [--json] [options]

Converts a markdown document to a TOON candidate (verdict.v1, schema 1.0).

Options:
  --mode lossless|record|budget    default lossless
  --delimiter auto|comma|tab|pipe  default auto (shortest valid; ties comma, tab, pipe)
  --target-chars N                 budget target in characters (budget mode needs a target)
  --target-tokens N                budget target in tokens
  --allow-lossy                    let budget mode compress semantically when lossless misses the target
  --out FILE                       write the candidate to FILE (atomically)
  --json                           print the verdict JSON
  --stdin, -                       read the document from standard input
  --fail-on LIST                   exit 1 when the verdict or a warning severity is in LIST
  --chars-per-token LIST           ratio estimates to report (default 3.5,4,4.5)
${TOKEN_OPTIONS}
  -h, --help                       show this help

Examples:
  toonlens convert config-table.md --out config-table.toon
  toonlens convert AGENTS.md --json --mode record --delimiter tab
  toonlens convert AGENTS.md --json --mode budget --target-tokens 800 --allow-lossy

${EXIT_LINE}
`;

export const run = engineCommand(
  'convert',
  HELP,
  {
    ...COMMON,
    mode: { type: 'string', choices: MODES },
    delimiter: { type: 'string', choices: DELIMITERS },
    'target-chars': { type: 'string' },
    'target-tokens': { type: 'string' },
    'allow-lossy': { type: 'boolean' },
    out: { type: 'string' },
  },
  async (p, io) => {
    const failOn = failOnList(p);
    const opts = engineOptions(p, undefined);
    const input = await readInput(p, io);
    opts.sourceType = input.sourceType;
    const v = convertDocument(input.text, opts);
    const out = stringValue(p, 'out');
    if (out !== undefined && v.toon_candidate !== null) writeFileAtomic(io, out, v.toon_candidate + '\n');
    if (flag(p, 'json')) printJson(io, v);
    else {
      io.stdout(summary(v, input.name));
      if (out === undefined && v.toon_candidate !== null) io.stdout(`\n${v.toon_candidate}\n`);
      else if (out !== undefined) io.stdout(v.toon_candidate !== null ? `wrote ${out}\n` : `nothing written to ${out}: no candidate (${v.verdict})\n`);
    }
    return failOnMatches(failOn, [v.verdict], v.warnings) ? 1 : 0;
  },
);

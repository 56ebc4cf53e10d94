/** `toonlens profile <file|--stdin> [--json]`: a markdown document's profile and lossless candidate (verdict.v1). */
import path from 'node:path';
import { flag } from './args';
import { profileDocument } from '../core/markdown/engine';
import { printJson } from './jsonOut';
import { markdownFindings } from './findings';
import { ConfigLoader } from '../node/config';
import { EMPTY_CONFIG } from '../core/config';
import { LineIndex } from '../core/lineIndex';
import type { CoreDiagnostic } from '../core/types';
import { COMMON, EXIT_LINE, TOKEN_OPTIONS, engineCommand, engineOptions, failOnList, failOnMatches, readInput, summary } from './engineArgs';

/** A text's findings as `toonlens check` prints them (line:column severity code message), for profile's summary. */
function findingLines(text: string, findings: CoreDiagnostic[]): string[] {
  if (findings.length === 0) return ['  findings: none'];
  const index = new LineIndex(text);
  const lines = [`  findings (as toonlens check reports them): ${findings.length}`];
  for (const d of findings) {
    const at = index.positionAt(d.range.start);
    lines.push(`    ${at.line + 1}:${at.character + 1} ${d.severity} ${d.code} ${d.message}`);
  }
  return lines;
}

const HELP = `Usage: toonlens profile <file | - | --stdin> [--json] [--fail-on LIST] [--chars-per-token LIST]

Profiles a markdown document and measures its lossless TOON candidate (verdict.v1, schema 1.0,
toon_candidate null).

Options:
  --json                 print the verdict JSON
  --stdin, -             read the document from standard input
  --fail-on LIST         exit 1 when the verdict or a warning severity is in LIST (e.g. split_first,warning)
  --chars-per-token LIST ratio estimates to report (default 3.5,4,4.5)
${TOKEN_OPTIONS}
  -h, --help             show this help

Examples:
  toonlens profile AGENTS.md
  toonlens profile AGENTS.md --json --fail-on split_first,warning
  cat notes.md | toonlens profile --stdin --json

${EXIT_LINE}
`;

export const run = engineCommand('profile', HELP, COMMON, async (p, io) => {
  const failOn = failOnList(p);
  const input = await readInput(p, io);
  const opts = engineOptions(p, input.sourceType);
  const v = profileDocument(input.text, opts);
  if (flag(p, 'json')) printJson(io, v);
  else {
    // The findings of the file as check reports them (its config's agent files, token notes and rule levels).
    const abs = input.sourceType === 'stdin' ? undefined : path.resolve(io.cwd, input.name);
    const loaded = abs !== undefined ? new ConfigLoader().forFile(abs) : { config: EMPTY_CONFIG, problems: [] };
    const { sourceType: _sourceType, ...engine } = opts;
    io.stdout(summary(v, input.name, findingLines(input.text, markdownFindings(input.text, abs, loaded, { engine }))));
  }
  return failOnMatches(failOn, [v.verdict], v.warnings) ? 1 : 0;
});

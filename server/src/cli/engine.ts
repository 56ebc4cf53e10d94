/**
 * `toonlens profile | convert | plan | validate | decode`: the verdict engine on the
 * command line, a drop-in for the producer's commands where they overlap.
 *
 * Exit codes: 0 for every representable verdict (refused included); 1 for I/O,
 * argument or internal failures (with {"error":{"code","message"}} on stdout under
 * --json, the producer's codes: bad_request, input_not_found, invalid_toon, internal; io is ours)
 * and when --fail-on matches.
 */
import path from 'node:path';
import { decode } from '@toon-format/toon';
import type { CliIO } from './io';
import { clampOrDefault } from '../core/settingRanges';
import { CliError, defineCommand, flag, stringValue, usageError, type OptionDefs, type ParsedArgs } from './args';
import { readInputText } from './input';
import { WriteRefused, writeOutputFile } from '../node/safeWrite';
import { displayWidth, truncateToWidth } from './textWidth';
import { convertDocument, planOnce, profileDocument, type EngineOptions, type EngineMode, type PlanResult, type VerdictV1 } from '../core/markdown/engine';
import { VERDICTS } from '../core/markdown/policy';
import { TOKENIZERS, tokenizer, type TokenizerName } from '../core/tokens';
import { maxOf } from '../core/arrays';
import { printJson } from './jsonOut';
import { compactTables } from '../core/markdown/compactTable';
import { markdownFindings } from './findings';
import { ConfigLoader } from '../node/config';
import { EMPTY_CONFIG } from '../core/config';
import { LineIndex } from '../core/lineIndex';
import { WARNING_DIAGNOSTICS } from '../core/markdown/rules';
import type { CoreDiagnostic } from '../core/types';

const MODES = ['lossless', 'record', 'budget'] as const;
const DELIMITERS = ['auto', 'comma', 'tab', 'pipe'] as const;

const COMMON: OptionDefs = {
  json: { type: 'boolean' },
  stdin: { type: 'boolean' },
  'fail-on': { type: 'string' },
  'chars-per-token': { type: 'string' },
  tokenizer: { type: 'string', choices: TOKENIZERS },
  'min-token-savings': { type: 'string' },
  'min-token-savings-pct': { type: 'string' },
};

function str(p: ParsedArgs, name: string): string | undefined {
  return stringValue(p, name);
}

function positiveInt(p: ParsedArgs, name: string): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) === 0) throw usageError(`--${name} must be a positive integer, not '${v}'`);
  return Number(v);
}

const SEVERITIES = ['info', 'warning'];

function failOnList(p: ParsedArgs): string[] {
  const v = str(p, 'fail-on');
  if (v === undefined) return [];
  const items = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const x of items) {
    if (!(VERDICTS as readonly string[]).includes(x) && !SEVERITIES.includes(x)) {
      throw usageError(`--fail-on accepts verdicts (${VERDICTS.join(', ')}) and severities (${SEVERITIES.join(', ')}), got '${x}'`);
    }
  }
  return items;
}

/** Engine options from the flags (choices of --mode and --delimiter are checked by the parser). */
function engineOptions(p: ParsedArgs, sourceType: EngineOptions['sourceType']): EngineOptions {
  const opts: EngineOptions = { sourceType };
  const mode = str(p, 'mode');
  if (mode !== undefined) opts.mode = mode as EngineMode;
  const delim = str(p, 'delimiter');
  if (delim !== undefined) opts.delimiter = delim as EngineOptions['delimiter'];
  const targetChars = positiveInt(p, 'target-chars');
  const targetTokens = positiveInt(p, 'target-tokens');
  if (targetChars !== undefined) opts.targetChars = targetChars;
  if (targetTokens !== undefined) opts.targetTokens = targetTokens;
  if (flag(p, 'allow-lossy')) opts.allowLossy = true;
  if (opts.mode === 'budget' && opts.targetChars === undefined && opts.targetTokens === undefined) {
    throw usageError('--mode budget needs --target-chars and/or --target-tokens');
  }
  const tok = str(p, 'tokenizer');
  if (tok !== undefined) opts.tokenizer = tok as TokenizerName;
  const minTok = str(p, 'min-token-savings');
  if (minTok !== undefined) {
    if (!/^-?\d+$/.test(minTok)) throw usageError(`--min-token-savings must be an integer, not '${minTok}'`);
    opts.minTokenSavings = clampOrDefault('minTokenSavings', Number(minTok));
  }
  const minPct = str(p, 'min-token-savings-pct');
  if (minPct !== undefined) {
    const n = /^\d+(?:\.\d+)?$/.test(minPct) ? Number(minPct) : NaN;
    if (!(n >= 0 && n <= 100)) throw usageError(`--min-token-savings-pct must be a number from 0 to 100, not '${minPct}'`);
    opts.minTokenSavingsPct = n;
  }
  const cpt = str(p, 'chars-per-token');
  if (cpt !== undefined) {
    const list = cpt.split(',').map((x) => Number(x.trim()));
    if (!list.length || list.some((x) => !Number.isFinite(x) || x <= 0)) throw usageError(`--chars-per-token needs positive numbers, not '${cpt}'`);
    opts.charsPerToken = list;
  }
  return opts;
}

async function readInput(p: ParsedArgs, io: CliIO): Promise<{ text: string; sourceType: EngineOptions['sourceType']; name: string }> {
  const positionals = p.positionals.filter((x) => x !== '-');
  if (flag(p, 'stdin') || (p.positionals.length === 1 && p.positionals[0] === '-')) {
    if (positionals.length) throw usageError('give a file or --stdin, not both');
    return { text: await io.readStdin(), sourceType: 'stdin', name: '<stdin>' };
  }
  if (positionals.length !== 1) throw usageError(positionals.length ? 'give exactly one file' : 'missing input: give a file or --stdin');
  const name = positionals[0]!;
  const file = path.resolve(io.cwd, name);
  const text = readInputText(name, file);
  const ext = path.extname(file).toLowerCase();
  return { text, sourceType: ext === '.md' || ext === '.markdown' || ext === '.mdx' ? 'markdown' : 'text', name };
}

/** Atomic write of an --out file through the one writer (node/safeWrite.ts writeOutputFile): never replaces a device or a read-only file. */
export function writeFileAtomic(io: CliIO, target: string, content: string): void {
  try {
    writeOutputFile(path.resolve(io.cwd, target), Buffer.from(content, 'utf8'));
  } catch (e) {
    throw new CliError('io', `cannot write ${target}: ${e instanceof WriteRefused ? e.message : ((e as NodeJS.ErrnoException).code ?? (e as Error).message)}`);
  }
}

function failOnMatches(list: string[], verdicts: string[], warnings: { severity: string }[]): boolean {
  if (!list.length) return false;
  return verdicts.some((v) => list.includes(v)) || warnings.some((w) => list.includes(w.severity));
}

function pct(x: number): string {
  return `${x > 0 ? '+' : ''}${x}%`;
}

/** Real counts print plain, estimates with "~". */
function tokenApprox(estimator: string): string {
  return estimator.startsWith('tokenx@') ? '~' : '';
}

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

/**
 * Profile's text summary: the verdict and its figures, the verdict's own notes (warnings no finding shows, such
 * as negative_savings), then the file's findings exactly as `toonlens check` reports them.
 */
function summary(v: VerdictV1, name: string, findings?: string[]): string {
  const lines = [
    `${name}: ${v.verdict}${v.safe_to_auto_apply ? ' (safe to auto-apply)' : ''}`,
    `  profile ${v.profile.name}${v.profile.title ? ` — ${v.profile.title}` : ''}, mode ${v.mode}, delimiter ${v.delimiter === null ? 'none' : JSON.stringify(v.delimiter)}`,
    `  chars ${v.measured_chars.source} → ${v.measured_chars.toon} (savings ${v.measured_chars.savings}, ${pct(v.measured_chars.savings_pct)})`,
    `  tokens ${tokenApprox(v.token_estimates.estimator)}${v.token_estimates.source} → ${tokenApprox(v.token_estimates.estimator)}${v.token_estimates.toon} (${v.token_estimates.estimator})`,
  ];
  if (v.flags.target_reached !== null) lines.push(`  target reached: ${v.flags.target_reached}`);
  for (const w of v.warnings) {
    if (findings && WARNING_DIAGNOSTICS.has(w.code)) continue;
    const at = w.range ? ` line ${w.range.line_start}` : '';
    lines.push(`  ${w.severity} ${w.code}${at}: ${w.message}${w.evidence ? ` (${w.evidence})` : ''}`);
  }
  if (findings) lines.push(...findings);
  return lines.join('\n') + '\n';
}

function planTable(plan: PlanResult, name: string, source: string): string {
  // The sections' plan alone: the whole-document verdict (its composed candidate) is not shown here.
  const cp = plan.contextPlan;
  const rows = cp.sections.map((s, i) => {
    const heading = s.kind === 'section' ? s.heading ?? '' : `(${s.kind})`;
    const m = s.measured_chars;
    const t = plan.sections[i]?.tokens;
    return [
      truncateToWidth(heading, 40),
      s.profile ?? '-',
      s.verdict ?? '-',
      s.action,
      m ? `${m.source} → ${m.toon}` : '-',
      m ? pct(m.savings_pct) : '-',
      t && s.action === 'convert' ? `${tokenApprox(t.estimator)}${t.savings}` : '-',
    ];
  });
  const head = ['section', 'profile', 'verdict', 'action', 'chars before → after', 'savings', 'tokens saved'];
  // Columns are measured in terminal cells, so CJK and emoji headings keep the table aligned.
  const widths = head.map((h, i) => maxOf(rows.map((r) => displayWidth(r[i]!)), displayWidth(h)));
  const fmt = (r: string[]) => r.map((c, i) => c + ' '.repeat(widths[i]! - displayWidth(c))).join('  ').trimEnd();
  const out = [`${name}: ${cp.sections.length} sections`, fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)];
  out.push('');
  out.push(`net: ${cp.net.source} → ${cp.net.hybrid} chars (savings ${cp.net.savings}, ${pct(cp.net.savings_pct)})`);
  const nt = plan.tokens;
  out.push(`tokens: ${nt.source} → ${nt.hybrid} (savings ${nt.savings}, ${nt.estimator})`);
  const compact = compactTables(source);
  if (compact.edits.length) {
    const tok = tokenizer(plan.tokenizer);
    const saved = tok.count(source) - tok.count(compact.text);
    out.push(`compact tables (markdown kept, same HTML): ${compact.edits.length} table${compact.edits.length === 1 ? '' : 's'}, ${source.length} → ${compact.text.length} chars, tokens saved ${tokenApprox(tok.estimator)}${saved}`);
  }
  out.push(`hybrid recommended: ${cp.recommend_hybrid ? 'yes' : 'no'}; safe to auto-apply: ${cp.safe_to_auto_apply ? 'yes' : 'no'}; reassembly verified: ${cp.reassembly_verified ? 'yes' : 'no'}`);
  return out.join('\n') + '\n';
}

const EXIT_LINE = `Exit status: 0 for every representable verdict (refused included), 1 when --fail-on matches or on an
error (bad_request, input_not_found, io, internal; under --json as {"error":{"code","message"}} on stdout).`;

/** The token options of profile, convert and plan. */
const TOKEN_OPTIONS = `  --tokenizer o200k_base|cl100k_base|estimate
                         how tokens are counted (default o200k_base; estimate = the producer's
                         tokenx estimate, which turns the token gate off)
  --min-token-savings N  token gate: saving fewer real tokens gives token_regression (default 1)
  --min-token-savings-pct P
                         token floor: saving under P % of the section's real tokens gives
                         token_regression too (default 5; 0 turns it off)`;

const HELP: Record<string, string> = {
  profile: `Usage: toonlens profile <file | - | --stdin> [--json] [--fail-on LIST] [--chars-per-token LIST]

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
`,
  convert: `Usage: toonlens convert <file | - | --stdin> [--json] [options]

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
`,
  plan: `Usage: toonlens plan <file | - | --stdin> [--json] [--out HYBRID.md] [--fail-on LIST]

Measures every heading-bounded section standalone and assembles the hybrid document
(verdict.v1 schema 1.1 with context_plan). Without --json a table is printed, one row per section.

Options:
  --out FILE             write the hybrid document to FILE (atomically)
  --json                 print the plan JSON
  --delimiter auto|comma|tab|pipe
  --stdin, -             read the document from standard input
  --fail-on LIST         exit 1 when the document verdict, a section verdict or a warning severity is in LIST
  --chars-per-token LIST ratio estimates to report (default 3.5,4,4.5)
${TOKEN_OPTIONS}
  -h, --help             show this help

Examples:
  toonlens plan AGENTS.md
  toonlens plan AGENTS.md --out AGENTS.hybrid.md
  toonlens plan AGENTS.md --json --fail-on review

${EXIT_LINE}
`,
  validate: `Usage: toonlens validate FILE.toon [--json]

Strictly decodes a TOON file with the official decoder.

Options:
  --json       print {"valid": true, "file": …}, or the error envelope (code invalid_toon)
  -h, --help   show this help

Examples:
  toonlens validate orders.toon
  toonlens validate orders.toon --json

Exit status: 0 when it decodes, 1 when not (invalid_toon) or on an error (bad_request, input_not_found, io).
`,
  decode: `Usage: toonlens decode FILE.toon [--out FILE] [--json]

Strictly decodes a TOON file and prints (or writes) the JSON value.

Options:
  --out FILE   write the JSON to FILE (atomically) instead of printing it
  --json       with --out, print {"written": FILE}
  -h, --help   show this help

Examples:
  toonlens decode orders.toon
  toonlens decode orders.toon --out orders.json

Exit status: 0 when it decodes, 1 when not (invalid_toon) or on an error (bad_request, input_not_found, io).
`,
};

type Handler = (p: ParsedArgs, io: CliIO) => Promise<number>;

/** The producer's exit contract: every failure exits 1 (under --json with the error envelope on stdout). */
function command(name: string, options: OptionDefs, handler: Handler): (argv: string[], io: CliIO) => Promise<number> {
  return defineCommand({ name, options, help: HELP[name]!, errorExit: 1 }, handler);
}

export const runProfile = command('profile', COMMON, async (p, io) => {
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

export const runConvert = command(
  'convert',
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
    const out = str(p, 'out');
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

export const runPlan = command('plan', { ...COMMON, out: { type: 'string' }, delimiter: { type: 'string', choices: DELIMITERS } }, async (p, io) => {
  const failOn = failOnList(p);
  const input = await readInput(p, io);
  const opts = engineOptions(p, input.sourceType);
  const plan = planOnce(input.text, opts);
  const out = str(p, 'out');
  if (out !== undefined) writeFileAtomic(io, out, plan.hybrid);
  if (flag(p, 'json')) printJson(io, plan.verdict);
  else {
    io.stdout(planTable(plan, input.name, input.text));
    if (out !== undefined) io.stdout(`wrote ${out}\n`);
  }
  // Read only for --fail-on: a text plan builds no whole-document verdict it does not print.
  if (!failOn.length) return 0;
  const cp = plan.verdict.context_plan!;
  const verdicts = [plan.verdict.verdict, ...cp.sections.map((s) => s.verdict).filter((x): x is NonNullable<typeof x> => x !== null)];
  const warnings = [...plan.verdict.warnings, ...cp.sections.flatMap((s) => s.warnings)];
  return failOnMatches(failOn, verdicts, warnings) ? 1 : 0;
});

function readToon(p: ParsedArgs, io: CliIO): { text: string; name: string } {
  if (p.positionals.length !== 1) throw usageError(p.positionals.length ? 'give exactly one .toon file' : 'missing FILE.toon');
  const name = p.positionals[0]!;
  return { text: readInputText(name, path.resolve(io.cwd, name)).replace(/\r?\n$/, ''), name };
}

/** The official decoder in strict mode; a failure is the CLI's invalid_toon error (shared with the MCP server). */
export function strictDecode(text: string, name: string): unknown {
  try {
    return decode(text, { strict: true });
  } catch (e) {
    const line = (e as { line?: number }).line;
    throw new CliError('invalid_toon', `${name}${line ? `:${line}` : ''}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export const runValidate = command('validate', { json: { type: 'boolean' } }, async (p, io) => {
  const { text, name } = readToon(p, io);
  strictDecode(text, name);
  io.stdout(flag(p, 'json') ? JSON.stringify({ valid: true, file: name }, null, 2) + '\n' : `${name}: valid TOON\n`);
  return 0;
});

export const runDecode = command('decode', { json: { type: 'boolean' }, out: { type: 'string' } }, async (p, io) => {
  const { text, name } = readToon(p, io);
  const value = strictDecode(text, name);
  const json = JSON.stringify(value, null, 2) + '\n';
  const out = str(p, 'out');
  if (out !== undefined) {
    writeFileAtomic(io, out, json);
    if (!flag(p, 'json')) io.stdout(`wrote ${out}\n`);
    else printJson(io, { written: out });
  } else io.stdout(json);
  return 0;
});

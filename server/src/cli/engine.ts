/**
 * `toonlens profile | convert | plan | validate | decode`: the verdict engine on the
 * command line, a drop-in for the producer's commands where they overlap.
 *
 * Exit codes: 0 for every representable verdict (refused included); 1 for I/O,
 * argument or internal failures (with {"error":{"code","message"}} on stdout under
 * --json) and when --fail-on matches.
 */
import { closeSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { decode } from '@toon-format/toon';
import type { CliIO } from './io';
import { convertDocument, planDocument, profileDocument, type EngineOptions, type PlanResult, type VerdictV1 } from '../core/markdown/engine';
import { VERDICTS } from '../core/policy';

class CliError extends Error {
  constructor(
    readonly code: 'usage' | 'io' | 'invalid_toon' | 'internal',
    message: string,
  ) {
    super(message);
  }
}

interface Parsed {
  positional: string[];
  flags: Map<string, string | true>;
}

const VALUE_FLAGS = new Set(['--mode', '--delimiter', '--target-chars', '--target-tokens', '--out', '--fail-on', '--chars-per-token']);
const BOOL_FLAGS = new Set(['--json', '--stdin', '--allow-lossy', '--help', '-h']);

function parseArgs(argv: string[], allowed: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a.startsWith('-') && a !== '-') {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(0, eq) : a;
      if (!allowed.includes(name) && name !== '--help' && name !== '-h') throw new CliError('usage', `unknown option '${name}'`);
      if (VALUE_FLAGS.has(name)) {
        const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
        if (v === undefined) throw new CliError('usage', `option '${name}' needs a value`);
        flags.set(name, v);
      } else if (BOOL_FLAGS.has(name)) flags.set(name, true);
    } else positional.push(a);
  }
  return { positional, flags };
}

function str(p: Parsed, name: string): string | undefined {
  const v = p.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

function nonNegativeInt(p: Parsed, name: string): number | undefined {
  const v = str(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new CliError('usage', `${name} must be a non-negative integer, got '${v}'`);
  return Number(v);
}

const SEVERITIES = ['info', 'warning'];

function failOnList(p: Parsed): string[] {
  const v = str(p, '--fail-on');
  if (v === undefined) return [];
  const items = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const x of items) {
    if (!(VERDICTS as readonly string[]).includes(x) && !SEVERITIES.includes(x)) {
      throw new CliError('usage', `--fail-on accepts verdicts (${VERDICTS.join(', ')}) and severities (${SEVERITIES.join(', ')}), got '${x}'`);
    }
  }
  return items;
}

function engineOptions(p: Parsed, sourceType: EngineOptions['sourceType']): EngineOptions {
  const opts: EngineOptions = { sourceType };
  const mode = str(p, '--mode');
  if (mode !== undefined) {
    if (mode !== 'lossless' && mode !== 'record' && mode !== 'budget') throw new CliError('usage', `--mode must be lossless, record or budget, got '${mode}'`);
    opts.mode = mode;
  }
  const delim = str(p, '--delimiter');
  if (delim !== undefined) {
    if (!['auto', 'comma', 'tab', 'pipe'].includes(delim)) throw new CliError('usage', `--delimiter must be auto, comma, tab or pipe, got '${delim}'`);
    opts.delimiter = delim as EngineOptions['delimiter'];
  }
  opts.targetChars = nonNegativeInt(p, '--target-chars');
  opts.targetTokens = nonNegativeInt(p, '--target-tokens');
  if (opts.targetChars === undefined) delete opts.targetChars;
  if (opts.targetTokens === undefined) delete opts.targetTokens;
  if (p.flags.has('--allow-lossy')) opts.allowLossy = true;
  if (opts.mode === 'budget' && opts.targetChars === undefined && opts.targetTokens === undefined) {
    throw new CliError('usage', '--mode budget needs --target-chars and/or --target-tokens');
  }
  const cpt = str(p, '--chars-per-token');
  if (cpt !== undefined) {
    const list = cpt.split(',').map((x) => Number(x.trim()));
    if (!list.length || list.some((x) => !Number.isFinite(x) || x <= 0)) throw new CliError('usage', `--chars-per-token needs positive numbers, got '${cpt}'`);
    opts.charsPerToken = list;
  }
  return opts;
}

async function readInput(p: Parsed, io: CliIO): Promise<{ text: string; sourceType: EngineOptions['sourceType']; name: string }> {
  if (p.flags.has('--stdin')) {
    if (p.positional.length) throw new CliError('usage', 'give a file or --stdin, not both');
    return { text: await io.readStdin(), sourceType: 'stdin', name: '<stdin>' };
  }
  if (p.positional.length !== 1) throw new CliError('usage', p.positional.length ? 'give exactly one file' : 'missing input: give a file or --stdin');
  const file = path.resolve(io.cwd, p.positional[0]!);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new CliError('io', `cannot read ${p.positional[0]}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const ext = path.extname(file).toLowerCase();
  return { text, sourceType: ext === '.md' || ext === '.markdown' || ext === '.mdx' ? 'markdown' : 'text', name: p.positional[0]! };
}

/** Atomic write: a temp file in the same folder, then rename over the target. */
export function writeFileAtomic(io: CliIO, target: string, content: string): void {
  const abs = path.resolve(io.cwd, target);
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.${Date.now()}.tmp`);
  try {
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, content);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, abs);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* the temp file may not exist */
    }
    throw new CliError('io', `cannot write ${target}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function failOnMatches(list: string[], verdicts: string[], warnings: { severity: string }[]): boolean {
  if (!list.length) return false;
  return verdicts.some((v) => list.includes(v)) || warnings.some((w) => list.includes(w.severity));
}

function pct(x: number): string {
  return `${x > 0 ? '+' : ''}${x}%`;
}

function summary(v: VerdictV1, name: string): string {
  const lines = [
    `${name}: ${v.verdict}${v.safe_to_auto_apply ? ' (safe to auto-apply)' : ''}`,
    `  profile ${v.profile.name}${v.profile.title ? ` — ${v.profile.title}` : ''}, mode ${v.mode}, delimiter ${v.delimiter === null ? 'none' : JSON.stringify(v.delimiter)}`,
    `  chars ${v.measured_chars.source} → ${v.measured_chars.toon} (savings ${v.measured_chars.savings}, ${pct(v.measured_chars.savings_pct)})`,
    `  tokens ~${v.token_estimates.source} → ~${v.token_estimates.toon} (${v.token_estimates.estimator})`,
  ];
  if (v.flags.target_reached !== null) lines.push(`  target reached: ${v.flags.target_reached}`);
  for (const w of v.warnings) {
    const at = w.range ? ` line ${w.range.line_start}` : '';
    lines.push(`  ${w.severity} ${w.code}${at}: ${w.message}${w.evidence ? ` (${w.evidence})` : ''}`);
  }
  return lines.join('\n') + '\n';
}

function planTable(plan: PlanResult, name: string): string {
  const v = plan.verdict;
  const cp = v.context_plan!;
  const rows = cp.sections.map((s, i) => {
    const heading = s.kind === 'section' ? s.heading ?? '' : `(${s.kind})`;
    const m = s.measured_chars;
    const tokensSaved = plan.sections[i]?.verdict?.token_estimates.savings ?? 0;
    return [
      heading.length > 40 ? heading.slice(0, 39) + '…' : heading,
      s.profile ?? '-',
      s.verdict ?? '-',
      s.action,
      m ? `${m.source} → ${m.toon}` : '-',
      m ? pct(m.savings_pct) : '-',
      m && s.action === 'convert' ? `~${tokensSaved}` : '-',
    ];
  });
  const head = ['section', 'profile', 'verdict', 'action', 'chars before → after', 'savings', '~tokens saved'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [`${name}: ${cp.sections.length} sections`, fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)];
  out.push('');
  out.push(`net: ${cp.net.source} → ${cp.net.hybrid} chars (savings ${cp.net.savings}, ${pct(cp.net.savings_pct)})`);
  out.push(`hybrid recommended: ${cp.recommend_hybrid ? 'yes' : 'no'}; safe to auto-apply: ${cp.safe_to_auto_apply ? 'yes' : 'no'}; reassembly verified: ${cp.reassembly_verified ? 'yes' : 'no'}`);
  return out.join('\n') + '\n';
}

const HELP: Record<string, string> = {
  profile: `Usage: toonlens profile <file | --stdin> [--json] [--fail-on LIST] [--chars-per-token LIST]

Profiles a markdown document and measures its lossless TOON candidate (verdict.v1, schema 1.0,
toon_candidate null).
  --json                 print the verdict JSON
  --fail-on LIST         exit 1 when the verdict or a warning severity is in LIST (e.g. split_first,warning)
  --chars-per-token LIST ratio estimates to report (default 3.5,4,4.5)
`,
  convert: `Usage: toonlens convert <file | --stdin> [--json] [options]

Converts a markdown document to a TOON candidate (verdict.v1, schema 1.0).
  --mode lossless|record|budget   default lossless
  --delimiter auto|comma|tab|pipe default auto (shortest valid; ties comma, tab, pipe)
  --target-chars N --target-tokens N   budget targets (budget mode needs one)
  --allow-lossy          let budget mode compress semantically when lossless misses the target
  --out FILE             write the candidate to FILE (atomically)
  --json                 print the verdict JSON
  --fail-on LIST         exit 1 when the verdict or a warning severity is in LIST
  --chars-per-token LIST ratio estimates to report (default 3.5,4,4.5)
`,
  plan: `Usage: toonlens plan <file | --stdin> [--json] [--out HYBRID.md] [--fail-on LIST]

Measures every heading-bounded section standalone and assembles the hybrid document
(verdict.v1 schema 1.1 with context_plan).
  --out FILE             write the hybrid document to FILE (atomically)
  --json                 print the plan JSON; without it a table is printed
  --delimiter auto|comma|tab|pipe
  --fail-on LIST         exit 1 when the document verdict, a section verdict or a warning severity is in LIST
  --chars-per-token LIST ratio estimates to report (default 3.5,4,4.5)
`,
  validate: `Usage: toonlens validate FILE.toon [--json]

Strictly decodes a TOON file with the official decoder. Exit 0 when it decodes, 1 when not.
`,
  decode: `Usage: toonlens decode FILE.toon [--out FILE] [--json]

Strictly decodes a TOON file and prints (or writes) the JSON value.
`,
};

function reportError(io: CliIO, json: boolean, e: unknown): number {
  const err = e instanceof CliError ? e : new CliError('internal', e instanceof Error ? e.message : String(e));
  if (json) io.stdout(JSON.stringify({ error: { code: err.code, message: err.message } }, null, 2) + '\n');
  else io.stderr(`toonlens: ${err.message}\n`);
  return 1;
}

type Handler = (p: Parsed, io: CliIO) => Promise<number>;

function command(name: string, allowed: string[], handler: Handler): (argv: string[], io: CliIO) => Promise<number> {
  return async (argv, io) => {
    const json = argv.includes('--json');
    try {
      const p = parseArgs(argv, allowed);
      if (p.flags.has('--help') || p.flags.has('-h')) {
        io.stdout(HELP[name]!);
        return 0;
      }
      return await handler(p, io);
    } catch (e) {
      return reportError(io, json, e);
    }
  };
}

const COMMON = ['--json', '--stdin', '--fail-on', '--chars-per-token'];

export const runProfile = command('profile', COMMON, async (p, io) => {
  const failOn = failOnList(p);
  const input = await readInput(p, io);
  const v = profileDocument(input.text, engineOptions(p, input.sourceType));
  io.stdout(p.flags.has('--json') ? JSON.stringify(v, null, 2) + '\n' : summary(v, input.name));
  return failOnMatches(failOn, [v.verdict], v.warnings) ? 1 : 0;
});

export const runConvert = command(
  'convert',
  [...COMMON, '--mode', '--delimiter', '--target-chars', '--target-tokens', '--allow-lossy', '--out'],
  async (p, io) => {
    const failOn = failOnList(p);
    const input = await readInput(p, io);
    const opts = engineOptions(p, input.sourceType);
    const v = convertDocument(input.text, opts);
    const out = str(p, '--out');
    if (out !== undefined && v.toon_candidate !== null) writeFileAtomic(io, out, v.toon_candidate + '\n');
    if (p.flags.has('--json')) io.stdout(JSON.stringify(v, null, 2) + '\n');
    else {
      io.stdout(summary(v, input.name));
      if (out === undefined && v.toon_candidate !== null) io.stdout(`\n${v.toon_candidate}\n`);
      else if (out !== undefined) io.stdout(v.toon_candidate !== null ? `wrote ${out}\n` : `nothing written to ${out}: no candidate (${v.verdict})\n`);
    }
    return failOnMatches(failOn, [v.verdict], v.warnings) ? 1 : 0;
  },
);

export const runPlan = command('plan', [...COMMON, '--out', '--delimiter'], async (p, io) => {
  const failOn = failOnList(p);
  const input = await readInput(p, io);
  const opts = engineOptions(p, input.sourceType);
  const plan = planDocument(input.text, opts);
  const out = str(p, '--out');
  if (out !== undefined) writeFileAtomic(io, out, plan.hybrid);
  if (p.flags.has('--json')) io.stdout(JSON.stringify(plan.verdict, null, 2) + '\n');
  else {
    io.stdout(planTable(plan, input.name));
    if (out !== undefined) io.stdout(`wrote ${out}\n`);
  }
  const cp = plan.verdict.context_plan!;
  const verdicts = [plan.verdict.verdict, ...cp.sections.map((s) => s.verdict).filter((x): x is NonNullable<typeof x> => x !== null)];
  const warnings = [...plan.verdict.warnings, ...cp.sections.flatMap((s) => s.warnings)];
  return failOnMatches(failOn, verdicts, warnings) ? 1 : 0;
});

function readToon(p: Parsed, io: CliIO): { text: string; name: string } {
  if (p.positional.length !== 1) throw new CliError('usage', p.positional.length ? 'give exactly one .toon file' : 'missing FILE.toon');
  const name = p.positional[0]!;
  try {
    return { text: readFileSync(path.resolve(io.cwd, name), 'utf8').replace(/\r?\n$/, ''), name };
  } catch (e) {
    throw new CliError('io', `cannot read ${name}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
}

function strictDecode(text: string, name: string): unknown {
  try {
    return decode(text, { strict: true });
  } catch (e) {
    const line = (e as { line?: number }).line;
    throw new CliError('invalid_toon', `${name}${line ? `:${line}` : ''}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

export const runValidate = command('validate', ['--json'], async (p, io) => {
  const { text, name } = readToon(p, io);
  strictDecode(text, name);
  io.stdout(p.flags.has('--json') ? JSON.stringify({ valid: true, file: name }, null, 2) + '\n' : `${name}: valid TOON\n`);
  return 0;
});

export const runDecode = command('decode', ['--json', '--out'], async (p, io) => {
  const { text, name } = readToon(p, io);
  const value = strictDecode(text, name);
  const json = JSON.stringify(value, null, 2) + '\n';
  const out = str(p, '--out');
  if (out !== undefined) {
    writeFileAtomic(io, out, json);
    if (!p.flags.has('--json')) io.stdout(`wrote ${out}\n`);
    else io.stdout(JSON.stringify({ written: out }, null, 2) + '\n');
  } else io.stdout(json);
  return 0;
});

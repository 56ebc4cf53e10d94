/**
 * What the engine commands (`toonlens profile | convert | plan | validate | decode`, the verdict engine on the
 * command line, a drop-in for the producer's commands where they overlap) share: their options, input readers,
 * the verdict summary, the --out writer and the exit contract.
 *
 * Exit codes: 0 for every representable verdict (refused included); 1 for I/O,
 * argument or internal failures (with {"error":{"code","message"}} on stdout under
 * --json, the producer's codes: bad_request, input_not_found, invalid_toon, internal; io is ours)
 * and when --fail-on matches.
 */
import { formatInt, formatPercent } from '../core/format';
import path from 'node:path';
import { decode } from '@toon-format/toon';
import type { CliIO } from './io';
import { clampOrDefault } from '../core/settingRanges';
import { CliError, defineCommand, flag, stringValue, usageError, type OptionDefs, type ParsedArgs } from './args';
import { readInputText } from './input';
import { WriteRefused, writeOutputFile } from '../node/safeWrite';
import type { EngineOptions, EngineMode, VerdictV1 } from '../core/markdown/engine';
import { VERDICTS } from '../core/markdown/policy';
import { TOKENIZERS, type TokenizerName } from '../core/tokens';
import { WARNING_DIAGNOSTICS } from '../core/markdown/rules';
import { errorMessage } from '../core/errors';
import { measuredSourceType } from '../core/files';

export const MODES = ['lossless', 'record', 'budget'] as const;
export const DELIMITERS = ['auto', 'comma', 'tab', 'pipe'] as const;

/** The options profile, convert and plan all take. */
export const COMMON: OptionDefs = {
  json: { type: 'boolean' },
  stdin: { type: 'boolean' },
  'fail-on': { type: 'string' },
  'chars-per-token': { type: 'string' },
  tokenizer: { type: 'string', choices: TOKENIZERS },
  'min-token-savings': { type: 'string' },
  'min-token-savings-pct': { type: 'string' },
};

export function str(p: ParsedArgs, name: string): string | undefined {
  return stringValue(p, name);
}

function positiveInt(p: ParsedArgs, name: string): number | undefined {
  const v = stringValue(p, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) === 0) throw usageError(`--${name} must be a positive integer, not '${v}'`);
  return Number(v);
}

const SEVERITIES = ['info', 'warning'];

export function failOnList(p: ParsedArgs): string[] {
  const v = stringValue(p, 'fail-on');
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
export function engineOptions(p: ParsedArgs, sourceType: EngineOptions['sourceType']): EngineOptions {
  const opts: EngineOptions = { sourceType };
  const mode = stringValue(p, 'mode');
  if (mode !== undefined) opts.mode = mode as EngineMode;
  const delim = stringValue(p, 'delimiter');
  if (delim !== undefined) opts.delimiter = delim as EngineOptions['delimiter'];
  const targetChars = positiveInt(p, 'target-chars');
  const targetTokens = positiveInt(p, 'target-tokens');
  if (targetChars !== undefined) opts.targetChars = targetChars;
  if (targetTokens !== undefined) opts.targetTokens = targetTokens;
  if (flag(p, 'allow-lossy')) opts.allowLossy = true;
  if (opts.mode === 'budget' && opts.targetChars === undefined && opts.targetTokens === undefined) {
    throw usageError('--mode budget needs --target-chars and/or --target-tokens');
  }
  const tok = stringValue(p, 'tokenizer');
  if (tok !== undefined) opts.tokenizer = tok as TokenizerName;
  const minTok = stringValue(p, 'min-token-savings');
  if (minTok !== undefined) {
    if (!/^-?\d+$/.test(minTok)) throw usageError(`--min-token-savings must be an integer, not '${minTok}'`);
    opts.minTokenSavings = clampOrDefault('minTokenSavings', Number(minTok));
  }
  const minPct = stringValue(p, 'min-token-savings-pct');
  if (minPct !== undefined) {
    const n = /^\d+(?:\.\d+)?$/.test(minPct) ? Number(minPct) : NaN;
    if (!(n >= 0 && n <= 100)) throw usageError(`--min-token-savings-pct must be a number from 0 to 100, not '${minPct}'`);
    opts.minTokenSavingsPct = n;
  }
  const cpt = stringValue(p, 'chars-per-token');
  if (cpt !== undefined) {
    const list = cpt.split(',').map((x) => Number(x.trim()));
    if (!list.length || list.some((x) => !Number.isFinite(x) || x <= 0)) throw usageError(`--chars-per-token needs positive numbers, not '${cpt}'`);
    opts.charsPerToken = list;
  }
  return opts;
}

/** The markdown input of profile, convert and plan: one file, `-` or --stdin. */
export async function readInput(p: ParsedArgs, io: CliIO): Promise<{ text: string; sourceType: EngineOptions['sourceType']; name: string }> {
  const positionals = p.positionals.filter((x) => x !== '-');
  if (flag(p, 'stdin') || (p.positionals.length === 1 && p.positionals[0] === '-')) {
    if (positionals.length) throw usageError('give a file or --stdin, not both');
    return { text: await io.readStdin(), sourceType: 'stdin', name: '<stdin>' };
  }
  if (positionals.length !== 1) throw usageError(positionals.length ? 'give exactly one file' : 'missing input: give a file or --stdin');
  const name = positionals[0]!;
  const file = path.resolve(io.cwd, name);
  const text = readInputText(name, file);
  return { text, sourceType: measuredSourceType(file), name };
}

/** Atomic write of an --out file through the one writer (node/safeWrite.ts writeOutputFile): never replaces a device or a read-only file. */
export function writeFileAtomic(io: CliIO, target: string, content: string): void {
  try {
    writeOutputFile(path.resolve(io.cwd, target), Buffer.from(content, 'utf8'));
  } catch (e) {
    throw new CliError('io', `cannot write ${target}: ${e instanceof WriteRefused ? e.message : ((e as NodeJS.ErrnoException).code ?? (e as Error).message)}`);
  }
}

export function failOnMatches(list: string[], verdicts: string[], warnings: { severity: string }[]): boolean {
  if (!list.length) return false;
  return verdicts.some((v) => list.includes(v)) || warnings.some((w) => list.includes(w.severity));
}

export function pct(x: number): string {
  return formatPercent(x, { signed: true });
}

/** Real counts print plain, estimates with "~". */
export function tokenApprox(estimator: string): string {
  return estimator.startsWith('tokenx@') ? '~' : '';
}

/**
 * Profile's text summary: the verdict and its figures, the verdict's own notes (warnings no finding shows, such
 * as negative_savings), then the file's findings exactly as `toonlens check` reports them.
 */
export function summary(v: VerdictV1, name: string, findings?: string[]): string {
  const lines = [
    `${name}: ${v.verdict}${v.safe_to_auto_apply ? ' (safe to auto-apply)' : ''}`,
    `  profile ${v.profile.name}${v.profile.title ? ` — ${v.profile.title}` : ''}, mode ${v.mode}, delimiter ${v.delimiter === null ? 'none' : JSON.stringify(v.delimiter)}`,
    `  chars ${formatInt(v.measured_chars.source)} → ${formatInt(v.measured_chars.toon)} (savings ${formatInt(v.measured_chars.savings)}, ${pct(v.measured_chars.savings_pct)})`,
    `  tokens ${tokenApprox(v.token_estimates.estimator)}${formatInt(v.token_estimates.source)} → ${tokenApprox(v.token_estimates.estimator)}${formatInt(v.token_estimates.toon)} (${v.token_estimates.estimator})`,
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

/** The exit contract, as the help of profile, convert and plan states it. */
export const EXIT_LINE = `Exit status: 0 for every representable verdict (refused included), 1 when --fail-on matches or on an
error (bad_request, input_not_found, io, internal; under --json as {"error":{"code","message"}} on stdout).`;

/** The token options of profile, convert and plan. */
export const TOKEN_OPTIONS = `  --tokenizer o200k_base|cl100k_base|estimate
                         how tokens are counted (default o200k_base; estimate = the producer's
                         tokenx estimate, which turns the token gate off)
  --min-token-savings N  token gate: saving fewer real tokens gives token_regression (default 1)
  --min-token-savings-pct P
                         token floor: saving under P % of the section's real tokens gives
                         token_regression too (default 5; 0 turns it off)`;

type Handler = (p: ParsedArgs, io: CliIO) => Promise<number>;

/** The producer's exit contract: every failure exits 1 (under --json with the error envelope on stdout). */
export function engineCommand(name: string, help: string, options: OptionDefs, handler: Handler): (argv: string[], io: CliIO) => Promise<number> {
  return defineCommand({ name, options, help, errorExit: 1 }, handler);
}

/** The one .toon file validate and decode read, without its final newline. */
export function readToon(p: ParsedArgs, io: CliIO): { text: string; name: string } {
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
    throw new CliError('invalid_toon', `${name}${line ? `:${line}` : ''}: ${errorMessage(e)}`);
  }
}

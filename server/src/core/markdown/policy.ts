/**
 * The producer's decision policy (docs/engine.md: #4-candidate-and-measurement, #decision-policy, #plan-and-hybrid), in one place.
 *
 * The engine calls these functions to decide, and the verdict rules call the same
 * functions to recompute what a document should say, so the two can never drift.
 * Every decision is made from integers and warning codes, never from rounded
 * wire percentages.
 */
import { KEEP_CODES, SPLIT_CODES, TOKEN_DECIDED_CODES, WARNING_SEVERITY } from './rules';

/** Frozen: a conversion must save at least this percentage (unrounded) to be recommended. */
export const MIN_CONVERT_SAVINGS_PCT = 5;

/** Default `toonlens.minTokenSavings`: a conversion must save at least this many real tokens, else token_regression. */
export const DEFAULT_MIN_TOKEN_SAVINGS = 1;

/**
 * Default `toonlens.minTokenSavingsPct`: with a real tokenizer a conversion must also save at least this percentage
 * of its section's real tokens, else token_regression (the character policy's 5 %, decided on what a model reads).
 */
export const DEFAULT_MIN_TOKEN_SAVINGS_PCT = 5;

/**
 * The token floor: whether `source → toon` real tokens misses the minimum saving (`minTokens` tokens, or `minPct`
 * percent of the source's tokens; 0 turns the percentage off). The percentage is compared in integers,
 * (source − toon) × 100 < pct × source, so no rounding decides.
 */
export function underTokenFloor(source: number, toon: number, minTokens: number, minPct: number): boolean {
  const saved = source - toon;
  return saved < minTokens || (minPct > 0 && saved * 100 < minPct * source);
}

export type Verdict = 'convert' | 'keep_markdown' | 'split_first' | 'review' | 'refused';
export type Mode = 'lossless' | 'record' | 'budget';
export type { WarningSeverity } from './rules';

export const VERDICTS: readonly Verdict[] = ['convert', 'keep_markdown', 'split_first', 'review', 'refused'];

/** The v1 warning registry (code → severity) and the codes that decide split_first, read off the markdown rules. */
export { WARNING_SEVERITY, SPLIT_CODES };

/** Warning code of a `<!-- toonlens: keep -->` marker: the verdict is keep_markdown, whatever the savings. */
export const KEEP_MARKER_CODE = 'keep_marker';

export interface WarningLike {
  code: string;
  severity?: string;
}

/** Unrounded savings percent; 0 when the source is empty. */
export function rawSavingsPct(source: number, toon: number): number {
  return source === 0 ? 0 : ((source - toon) / source) * 100;
}

/** Wire rounding: one decimal, half up, and never −0. */
export function roundPct(x: number): number {
  const r = Math.round(x * 10) / 10;
  return Object.is(r, -0) ? 0 : r;
}

export interface DecisionInputs {
  /** Step 1 applies: budget mode, the lossless attempt missed the target, lossy not allowed. */
  refused: boolean;
  /** Source characters (integer). */
  source: number;
  /** Candidate characters (integer). */
  toon: number;
  warnings: readonly WarningLike[];
}

/** Which step of the decision policy (docs/engine.md#decision-policy) decided, for explanations in hovers and quick-fix titles. */
export interface Decision {
  verdict: Verdict;
  because: string;
}

/** The decision policy (docs/engine.md#decision-policy): the first rule that matches wins. */
export function decide(inputs: DecisionInputs): Decision {
  if (inputs.refused) return { verdict: 'refused', because: 'budget target missed losslessly and lossy output not allowed' };
  const keep = inputs.warnings.find((w) => KEEP_CODES.includes(w.code));
  if (keep) return { verdict: 'keep_markdown', because: keep.code === KEEP_MARKER_CODE ? 'the section says <!-- toonlens: keep -->' : `warning \`${keep.code}\`` };
  const split = inputs.warnings.find((w) => SPLIT_CODES.includes(w.code));
  if (split) return { verdict: 'split_first', because: `warning \`${split.code}\`` };
  const savings = inputs.source - inputs.toon;
  if (savings <= 0) return { verdict: 'keep_markdown', because: `savings ${savings} ≤ 0` };
  const pct = rawSavingsPct(inputs.source, inputs.toon);
  // With a real tokenizer the 5 % is decided on tokens: a token_savings warning records that the token floor holds.
  const byTokens = inputs.warnings.some((w) => TOKEN_DECIDED_CODES.includes(w.code));
  if (pct < MIN_CONVERT_SAVINGS_PCT && !byTokens) {
    return { verdict: 'keep_markdown', because: `savings ${pct.toFixed(2)}% < ${MIN_CONVERT_SAVINGS_PCT}%` };
  }
  const warning = inputs.warnings.find((w) => !TOKEN_DECIDED_CODES.includes(w.code));
  if (warning) return { verdict: 'review', because: `warning \`${warning.code}\`` };
  if (pct < MIN_CONVERT_SAVINGS_PCT) return { verdict: 'convert', because: `saves ${pct.toFixed(2)}% of characters and the token floor of real tokens (\`token_savings\`), with no other warning` };
  return { verdict: 'convert', because: `saves ${pct.toFixed(2)}% with no warning` };
}

/** Severity of a warning as the registry says; falls back to the recorded one for unknown codes. */
export function warningSeverity(w: WarningLike): string | undefined {
  return WARNING_SEVERITY[w.code] ?? w.severity;
}

export interface SafetyInputs {
  verdict: string;
  mode: string;
  lossless: boolean;
  valid: boolean;
  /** measured_chars.savings (integer). */
  savings: number;
  warnings: readonly WarningLike[];
}

export interface SafetyDecision {
  safe: boolean;
  /** The first clause that fails, in words ("warning `duplicate_rule` has severity warning"), or why it holds. */
  because: string;
}

/**
 * safe_to_auto_apply = verdict convert ∧ mode lossless ∧ flags.lossless ∧ flags.valid ∧ savings > 0
 * ∧ no warning of severity warning. Uses the recorded severity of each warning (the wire is the contract).
 */
export function safeToAutoApply(i: SafetyInputs): SafetyDecision {
  if (i.verdict !== 'convert') return { safe: false, because: `verdict is ${i.verdict}` };
  if (i.mode !== 'lossless') return { safe: false, because: `mode is ${i.mode}` };
  if (!i.lossless) return { safe: false, because: 'flags.lossless is false' };
  if (!i.valid) return { safe: false, because: 'flags.valid is false' };
  if (!(i.savings > 0)) return { safe: false, because: `savings ${i.savings} ≤ 0` };
  const w = i.warnings.find((x) => x.severity === 'warning');
  if (w) return { safe: false, because: `warning \`${w.code}\` has severity warning` };
  return { safe: true, because: 'convert, lossless, valid, saves, no warning-severity warning' };
}

/** Plan (docs/engine.md#plan-and-hybrid): a section converts iff its verdict is convert and its candidate is valid and present. */
export function sectionAction(verdict: string, valid: boolean, hasCandidate: boolean): 'convert' | 'keep' {
  return verdict === 'convert' && valid && hasCandidate ? 'convert' : 'keep';
}

/** Plan (docs/engine.md#plan-and-hybrid): recommend_hybrid = ≥ 1 converted section ∧ net savings > 0 ∧ unrounded net percent ≥ MIN. */
export function recommendHybrid(converted: number, netSource: number, netHybrid: number): boolean {
  const savings = netSource - netHybrid;
  return converted >= 1 && savings > 0 && rawSavingsPct(netSource, netHybrid) >= MIN_CONVERT_SAVINGS_PCT;
}

/** Plan (docs/engine.md#plan-and-hybrid): plan safe_to_auto_apply. */
export function planSafeToAutoApply(
  recommend: boolean,
  converted: number,
  allConvertedSafe: boolean,
  reassemblyVerified: boolean,
): boolean {
  return recommend && converted >= 1 && allConvertedSafe && reassemblyVerified;
}

/**
 * verdict.v1 objects (the schema, and docs/engine.md#decision-policy): field order matches the producer's
 * wire output exactly; decisions come from policy.ts.
 */
import { decide, MIN_CONVERT_SAVINGS_PCT, rawSavingsPct, safeToAutoApply, underTokenFloor, type Verdict } from './policy';
import { measureChars, tokenEstimates, type MeasuredChars, type TokenEstimates } from './measure';
import type { ProfileName, Stats } from './stats';
import type { VerdictWarning, WarningRange } from './warnings';
import { sortWarnings } from './rules';
import { BUDGET_REFUSED } from './rules/budgetRefused';
import { NEGATIVE_SAVINGS } from './rules/negativeSavings';
import { TARGET_NOT_REACHED } from './rules/targetNotReached';
import { tokenRegressionWarning } from './rules/tokenRegression';
import { tokenSavingsWarning } from './rules/tokenSavings';
import type { DelimiterChar } from './candidate';
import type { Tokenizer } from '../tokens';

export type { VerdictWarning, WarningRange };
export type EngineMode = 'lossless' | 'record' | 'budget';
export type SourceType = 'markdown' | 'text' | 'stdin' | 'paste';

export interface VerdictProfile {
  name: ProfileName;
  title: string | null;
  source_type: SourceType;
  stats: Stats;
}

export interface PlanSection {
  heading: string | null;
  kind: 'frontmatter' | 'preamble' | 'section';
  range: WarningRange;
  profile: ProfileName | null;
  verdict: Verdict | null;
  action: 'convert' | 'keep';
  measured_chars: MeasuredChars | null;
  warnings: VerdictWarning[];
  safe_to_auto_apply: boolean;
}

export interface ContextPlan {
  sections: PlanSection[];
  net: { source: number; hybrid: number; savings: number; savings_pct: number };
  recommend_hybrid: boolean;
  reassembly_verified: boolean;
  safe_to_auto_apply: boolean;
}

/** The verdict.v1 wire object. */
export interface VerdictV1 {
  schema_version: string;
  verdict: Verdict;
  safe_to_auto_apply: boolean;
  profile: VerdictProfile;
  measured_chars: MeasuredChars;
  token_estimates: TokenEstimates;
  toon_candidate: string | null;
  warnings: VerdictWarning[];
  flags: { lossless: boolean; valid: boolean; target_reached: boolean | null };
  mode: EngineMode;
  delimiter: DelimiterChar | null;
  context_plan?: ContextPlan;
}

// The measurement warnings are their rules' (./rules); re-exported for the engine.
export { NEGATIVE_SAVINGS } from './rules/negativeSavings';
export { LOSSY_APPLIED } from './rules/lossyApplied';
export { TARGET_NOT_REACHED } from './rules/targetNotReached';
export { BUDGET_REFUSED } from './rules/budgetRefused';
export { tokenRegressionWarning } from './rules/tokenRegression';
export { LOW_COVERAGE_THRESHOLD, lowCoverageWarning } from './rules/lowCoverage';

export interface VerdictInputs {
  schemaVersion: '1.0' | '1.1';
  profile: VerdictProfile;
  sourceChars: number;
  /** Token counts are advisory and computed on first read of token_estimates. */
  sourceTokens: () => number;
  /** Length of the measured candidate (for refusals: the lossless attempt). */
  candidateChars: number;
  /** The candidate text, built only when the response carries it. */
  candidateText: () => string;
  candidateTokens: () => number;
  valid: boolean;
  delimiter: DelimiterChar;
  /** Analysis warnings (duplicate, vague, long, split) plus low_coverage/lossy_applied when they apply. */
  warnings: VerdictWarning[];
  mode: EngineMode;
  lossless: boolean;
  /** null when no target was requested. */
  targetReached: boolean | null;
  refused: boolean;
  /** Whether toon_candidate carries the text (convert responses) or null (profile, plan). */
  includeCandidate: boolean;
  ratios?: readonly number[];
  /** The tokenizer counting sourceTokens/candidateTokens (default: the tokenx estimate). */
  tokenizer?: Tokenizer;
  /** The token gate's minimum saving; the gate runs only with a real tokenizer and a positive character saving. */
  minTokenSavings?: number;
  /** The token gate's minimum saving as a percentage of the section's real tokens (default: none). */
  minTokenSavingsPct?: number;
  /**
   * Count the tokens now and hold token_estimates as a plain value (the engine cache: its lenses read every
   * section's tokens anyway, and an object with an accessor is a dictionary-mode object many times larger with two
   * closures, where a plain literal is a fraction of that: docs/performance.md, "Markdown server memory").
   */
  eagerTokens?: boolean;
}

/** Assembles a verdict: negative_savings / target_not_reached / budget_refused appended, the decision policy (docs/engine.md#decision-policy) decided. */
export function buildVerdict(i: VerdictInputs): VerdictV1 {
  const toon = i.candidateChars;
  const warnings = [...i.warnings];
  if (i.sourceChars - toon < 0) warnings.push(NEGATIVE_SAVINGS);
  // The token gate: where characters say the candidate saves, real tokens must agree, by the floor's tokens and percent.
  if (!i.refused && i.tokenizer?.real && i.minTokenSavings !== undefined && i.sourceChars - toon > 0) {
    const st = i.sourceTokens();
    const tt = i.candidateTokens();
    const pct = i.minTokenSavingsPct ?? 0;
    const charPct = rawSavingsPct(i.sourceChars, toon);
    if (underTokenFloor(st, tt, i.minTokenSavings, pct)) warnings.push(tokenRegressionWarning(st, tt, i.tokenizer.name, i.minTokenSavings, pct));
    // The floor holds in real tokens: the character 5 % no longer decides (token_savings records it on the wire).
    // With the percentage off (0) no token share is asked for, so the character policy's 5 % stays.
    else if (pct > 0 && charPct < MIN_CONVERT_SAVINGS_PCT) warnings.push(tokenSavingsWarning(st, tt, i.tokenizer.name, charPct, i.minTokenSavings, pct));
  }
  if (i.refused) warnings.push(BUDGET_REFUSED);
  else if (i.targetReached === false) warnings.push(TARGET_NOT_REACHED);
  const sorted = sortWarnings(warnings);
  const { verdict } = decide({ refused: i.refused, source: i.sourceChars, toon, warnings: sorted });
  const measured = measureChars(i.sourceChars, toon);
  const safe = safeToAutoApply({ verdict, mode: i.mode, lossless: i.lossless, valid: i.valid, savings: measured.savings, warnings: sorted }).safe;
  const ratios = i.ratios;
  const sourceChars = i.sourceChars;
  const estimator = i.tokenizer?.estimator;
  // Token counts are advisory and cost a tokenizer pass: an accessor pair computes them on first
  // read and memoizes. It sits in the literal, so the wire order is kept, and it is enumerable, so
  // JSON.stringify, schema validation and deep equality all read it.
  if (i.eagerTokens) {
    const fields = {
      schema_version: i.schemaVersion,
      verdict,
      safe_to_auto_apply: safe,
      profile: i.profile,
      measured_chars: measured,
      toon_candidate: i.includeCandidate && !i.refused ? i.candidateText() : null,
      warnings: sorted,
      flags: { lossless: i.lossless, valid: i.valid, target_reached: i.targetReached },
      mode: i.mode,
      delimiter: i.refused ? null : i.delimiter,
    };
    return verdictLiteral(fields, tokenEstimates(i.sourceTokens(), i.candidateTokens(), sourceChars, toon, ratios, estimator));
  }
  let estimates: TokenEstimates | undefined;
  return {
    schema_version: i.schemaVersion,
    verdict,
    safe_to_auto_apply: safe,
    profile: i.profile,
    measured_chars: measured,
    get token_estimates(): TokenEstimates {
      return (estimates ??= tokenEstimates(i.sourceTokens(), i.candidateTokens(), sourceChars, toon, ratios, estimator));
    },
    set token_estimates(value: TokenEstimates) {
      estimates = value;
    },
    toon_candidate: i.includeCandidate && !i.refused ? i.candidateText() : null,
    warnings: sorted,
    flags: { lossless: i.lossless, valid: i.valid, target_reached: i.targetReached },
    mode: i.mode,
    delimiter: i.refused ? null : i.delimiter,
  };
}

/** A verdict literal with token_estimates as a plain value, in the wire's field order. */
export function verdictLiteral(f: Omit<VerdictV1, 'token_estimates'>, te: TokenEstimates): VerdictV1 {
  return {
    schema_version: f.schema_version,
    verdict: f.verdict,
    safe_to_auto_apply: f.safe_to_auto_apply,
    profile: f.profile,
    measured_chars: f.measured_chars,
    token_estimates: te,
    toon_candidate: f.toon_candidate,
    warnings: f.warnings,
    flags: f.flags,
    mode: f.mode,
    delimiter: f.delimiter,
    ...(f.context_plan !== undefined ? { context_plan: f.context_plan } : {}),
  };
}

/** Whether a verdict holds its token_estimates as a plain value (counted already; see VerdictInputs.eagerTokens). */
export function tokensSettled(v: VerdictV1): boolean {
  return Object.getOwnPropertyDescriptor(v, 'token_estimates')?.get === undefined;
}

/** A copy of a verdict with some fields replaced, keeping the field order and a lazy token_estimates lazy. */
export function withFields(v: VerdictV1, fields: Partial<VerdictV1>): VerdictV1 {
  // A plain literal, as the original is (no accessor to keep lazy).
  if (tokensSettled(v)) return Object.assign(verdictLiteral(v, v.token_estimates), fields);
  // Reading the copy's estimate reads the original's, which computes once and memoizes.
  let estimates: TokenEstimates | undefined = fields.token_estimates;
  const out: VerdictV1 = {
    schema_version: v.schema_version,
    verdict: v.verdict,
    safe_to_auto_apply: v.safe_to_auto_apply,
    profile: v.profile,
    measured_chars: v.measured_chars,
    get token_estimates(): TokenEstimates {
      return (estimates ??= v.token_estimates);
    },
    set token_estimates(value: TokenEstimates) {
      estimates = value;
    },
    toon_candidate: v.toon_candidate,
    warnings: v.warnings,
    flags: v.flags,
    mode: v.mode,
    delimiter: v.delimiter,
    ...(v.context_plan !== undefined ? { context_plan: v.context_plan } : {}),
  };
  for (const key of Object.keys(fields) as (keyof VerdictV1)[]) {
    if (key !== 'token_estimates') (out as unknown as Record<string, unknown>)[key] = fields[key];
  }
  return out;
}

/**
 * Measurement (docs/engine.md#4-candidate-and-measurement): exact character counts decide; token counts (real BPE counts unless
 * the tokenizer is `estimate`) add the token gate (see engine.ts) and are reported in token_estimates.
 */
import { rawSavingsPct, roundPct } from './policy';
import { TOKENX_VERSION, estimateTokens } from '../tokens';

export { TOKENX_VERSION, estimateTokens };
/** The estimator of `--tokenizer estimate` (the producer's). */
export const ESTIMATOR = `tokenx@${TOKENX_VERSION}`;
export const DEFAULT_CHARS_PER_TOKEN: readonly number[] = [3.5, 4, 4.5];

export interface MeasuredChars {
  source: number;
  toon: number;
  savings: number;
  savings_pct: number;
}
export interface RatioEstimate {
  chars_per_token: number;
  source: number;
  toon: number;
  savings: number;
  savings_pct: number;
}
export interface TokenEstimates {
  estimator: string;
  source: number;
  toon: number;
  savings: number;
  savings_pct: number;
  ratio_estimates: RatioEstimate[];
}

/** Integer rounding that never yields −0. */
function roundInt(x: number): number {
  const r = Math.round(x);
  return Object.is(r, -0) ? 0 : r;
}

export function measureChars(source: number, toon: number): MeasuredChars {
  return { source, toon, savings: source - toon, savings_pct: roundPct(rawSavingsPct(source, toon)) };
}

export function tokenEstimates(
  sourceTokens: number,
  toonTokens: number,
  sourceChars: number,
  toonChars: number,
  ratios: readonly number[] = DEFAULT_CHARS_PER_TOKEN,
  estimator: string = ESTIMATOR,
): TokenEstimates {
  return {
    estimator,
    source: sourceTokens,
    toon: toonTokens,
    savings: sourceTokens - toonTokens,
    savings_pct: roundPct(rawSavingsPct(sourceTokens, toonTokens)),
    ratio_estimates: ratios.map((r) => ({
      chars_per_token: r,
      source: roundInt(sourceChars / r),
      toon: roundInt(toonChars / r),
      savings: roundInt((sourceChars - toonChars) / r),
      savings_pct: roundPct(rawSavingsPct(sourceChars, toonChars)),
    })),
  };
}

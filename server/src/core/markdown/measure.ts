/**
 * Measurement (verdict-engine.md §4): exact character counts decide; token estimates are advisory.
 */
import { estimateTokenCount } from 'tokenx';
import { rawSavingsPct, roundPct } from '../policy';

/**
 * The pinned tokenx version (package.json pins it exactly; tokenx does not export its
 * package.json, so a test compares this with node_modules/tokenx/package.json).
 */
export const TOKENX_VERSION = '1.3.0';
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

/** tokenx estimate of a text; 0 for the empty string. Never throws. */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  try {
    return estimateTokenCount(text);
  } catch {
    return Math.round(text.length / 4);
  }
}

export function tokenEstimates(
  sourceTokens: number,
  toonTokens: number,
  sourceChars: number,
  toonChars: number,
  ratios: readonly number[] = DEFAULT_CHARS_PER_TOKEN,
): TokenEstimates {
  return {
    estimator: ESTIMATOR,
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

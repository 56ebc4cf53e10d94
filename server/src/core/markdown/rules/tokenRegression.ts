/** token_regression: the candidate saves characters but not real tokens (ToonLens's own code; the registry is open). */
import { CODES } from '../../codes';
import type { VerdictWarning } from '../warnings';
import type { MeasurementRule } from './types';

export const tokenRegression: MeasurementRule = {
  warning: 'token_regression',
  scope: 'measurement',
  severity: 'warning',
  decides: 'review',
  description: CODES['toon/token-regression'].description,
  // No range of its own: on the heading line, as information (the verdict already says review).
  diagnostic: { code: 'toon/token-regression', at: 'heading', severity: 'info', withSuggestion: false, tokenNote: true },
};

/**
 * token_regression: the candidate saves characters but fewer than `min` real tokens, or under `pct` percent of the
 * section's real tokens (the token floor, policy.ts `underTokenFloor`). Severity warning, so the decision policy
 * (docs/engine.md#decision-policy) decides `review` (never `convert`) and safe_to_auto_apply is false; the figures
 * are in `evidence`.
 */
export function tokenRegressionWarning(source: number, toon: number, tokenizerName: string, min: number, pct = 0): VerdictWarning {
  const saved = source - toon;
  const n = Math.abs(saved);
  const units = `${n} token${n === 1 ? '' : 's'}`;
  const what = saved < 0 ? `costs ${units}` : saved === 0 ? 'saves no tokens' : `saves only ${units}`;
  // Under the percentage but not under the count: say which bar it missed.
  const share = saved >= min && saved > 0 ? `, under ${pct}% of its tokens` : '';
  return {
    code: 'token_regression',
    severity: 'warning',
    message: `TOON saves characters but ${what} in ${tokenizerName} (${source} → ${toon})${share}.`,
    suggestion: 'Keep this as markdown: converting saves a model too few tokens to be worth a harder read.',
    evidence: `${tokenizerName}: ${source} → ${toon} tokens (saving ${saved}, minimum ${min}${pct > 0 ? ` and ${pct}% of ${source}` : ''})`,
  };
}

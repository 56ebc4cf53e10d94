/**
 * token_savings: with a real tokenizer the 5 % floor is decided on real tokens, not characters: the segment saves
 * characters (fewer than 5 % of them) and clears the token floor, so the character 5 % does not keep it markdown
 * (ToonLens's own code; the registry is open). Severity info: it is the record, on the wire, of a decision the
 * verdict rules recompute from it.
 */
import type { VerdictWarning } from '../warnings';
import type { MeasurementRule } from './types';

export const TOKEN_SAVINGS_CODE = 'token_savings';

export const tokenSavings: MeasurementRule = {
  warning: TOKEN_SAVINGS_CODE,
  scope: 'measurement',
  severity: 'info',
  decides: 'convert',
  description:
    "with a real tokenizer, the candidate saves under 5 % of the section's characters but at least `toonlens.minTokenSavings` tokens and `toonlens.minTokenSavingsPct` % of its real tokens: the 5 % is decided on real tokens, so the character policy's 5 % does not keep it markdown (ToonLens's own code; the registry is open)",
};

/** The token_savings warning: the figures that decided, in tokens and in characters. */
export function tokenSavingsWarning(source: number, toon: number, tokenizerName: string, charPct: number, min: number, pct: number): VerdictWarning {
  const saved = source - toon;
  const share = source === 0 ? 0 : (saved * 100) / source;
  return {
    code: TOKEN_SAVINGS_CODE,
    severity: 'info',
    message: `Decided on real tokens: TOON saves ${saved} of ${source} ${tokenizerName} tokens (${share.toFixed(1)}%), though only ${charPct.toFixed(1)}% of the characters.`,
    evidence: `${tokenizerName}: ${source} → ${toon} tokens (saving ${saved}, minimum ${min} and ${pct}% of ${source})`,
  };
}

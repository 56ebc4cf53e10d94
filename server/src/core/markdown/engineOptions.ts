/**
 * The engine's options as the measurement reads them: each with its default applied, and the key of the
 * options a standalone section measurement depends on.
 */
import { DEFAULT_MIN_TOKEN_SAVINGS, DEFAULT_MIN_TOKEN_SAVINGS_PCT } from './policy';
import { tokenizer, type Tokenizer } from '../tokens';
import { DEFAULT_CHARS_PER_TOKEN } from './measure';
import type { EngineOptions } from './engineTypes';

export function tokenizerOf(opts: EngineOptions): Tokenizer {
  return tokenizer(opts.tokenizer);
}

export function minTokenSavingsOf(opts: EngineOptions): number {
  const m = opts.minTokenSavings;
  return typeof m === 'number' && Number.isFinite(m) ? m : DEFAULT_MIN_TOKEN_SAVINGS;
}

export function minTokenSavingsPctOf(opts: EngineOptions): number {
  const m = opts.minTokenSavingsPct;
  return typeof m === 'number' && Number.isFinite(m) && m >= 0 ? m : DEFAULT_MIN_TOKEN_SAVINGS_PCT;
}

export function ratiosOf(opts: EngineOptions): readonly number[] {
  return opts.charsPerToken && opts.charsPerToken.length ? opts.charsPerToken.filter((r) => Number.isFinite(r) && r > 0) : DEFAULT_CHARS_PER_TOKEN;
}

export function targetMet(opts: EngineOptions, chars: number, tokens: () => number): boolean {
  if (opts.targetChars !== undefined && chars > opts.targetChars) return false;
  if (opts.targetTokens !== undefined && tokens() > opts.targetTokens) return false;
  return true;
}

export function hasTarget(opts: EngineOptions): boolean {
  return opts.targetChars !== undefined || opts.targetTokens !== undefined;
}

export function optionsKey(opts: EngineOptions): string {
  return JSON.stringify([opts.delimiter ?? 'auto', opts.sourceType ?? 'markdown', ratiosOf(opts), tokenizerOf(opts).name, minTokenSavingsOf(opts), minTokenSavingsPctOf(opts)]);
}

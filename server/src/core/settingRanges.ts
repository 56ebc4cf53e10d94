/**
 * The documented range of every numeric setting (docs/safety.md#setting-ranges), one table for the editor's
 * `toonlens.*` settings (lsp/settings.ts), `.toonlens.json` (core/config.ts) and the CLI's flags: a value
 * above the range is taken as its maximum, below it as its minimum, and a value that is not a finite number
 * (or not above an exclusive minimum) as the default. A workspace can never raise a limit past the range.
 */
import { DEFAULT_MIN_TOKEN_SAVINGS, DEFAULT_MIN_TOKEN_SAVINGS_PCT } from './markdown/policy';

export interface NumericRange {
  readonly min: number;
  /** The minimum itself is not allowed (a size of 0 means nothing). */
  readonly minExclusive?: boolean;
  readonly max: number;
  readonly default: number;
  /** What the number counts, for messages and docs. */
  readonly unit: string;
}

/** The reader's hard cap (node/files.ts MAX_INPUT_BYTES) in megabytes: no setting reads more. */
export const MAX_FILE_SIZE_MB_CEILING = 64;

export const SETTING_RANGES = {
  maxFileSizeMB: { min: 0, minExclusive: true, max: MAX_FILE_SIZE_MB_CEILING, default: 50, unit: 'megabytes' },
  'codeLens.minSavingsPct': { min: 0, max: 100, default: 0, unit: 'percent' },
  // Negative: a conversion may cost up to that many tokens (the CLI's --min-token-savings=-100 is lenient).
  minTokenSavings: { min: -100_000, max: 100_000, default: DEFAULT_MIN_TOKEN_SAVINGS, unit: 'tokens' },
  minTokenSavingsPct: { min: 0, max: 100, default: DEFAULT_MIN_TOKEN_SAVINGS_PCT, unit: 'percent' },
} as const satisfies Record<string, NumericRange>;

export type NumericSetting = keyof typeof SETTING_RANGES;

/**
 * `value` inside the range of `setting`; `undefined` when it is no usable number (the caller's default
 * applies: the setting's default, or the project's value it would have overridden).
 */
export function clampSetting(setting: NumericSetting, value: unknown): number | undefined {
  const r: NumericRange = SETTING_RANGES[setting];
  if (typeof value !== 'number' || Number.isNaN(value)) return undefined;
  if (r.minExclusive ? value <= r.min : value < r.min) return r.minExclusive ? undefined : r.min;
  return Math.min(value, r.max);
}

/** {@link clampSetting}, falling back to the setting's default. */
export function clampOrDefault(setting: NumericSetting, value: unknown): number {
  return clampSetting(setting, value) ?? SETTING_RANGES[setting].default;
}

/** negative_savings: the TOON candidate is longer than its source. */
import type { VerdictWarning } from '../warnings';
import type { MeasurementRule } from './types';

export const negativeSavings: MeasurementRule = {
  warning: 'negative_savings',
  scope: 'measurement',
  severity: 'warning',
  decides: 'review',
  description: 'the TOON candidate has more characters than the source',
};

export const NEGATIVE_SAVINGS: VerdictWarning = {
  code: 'negative_savings',
  severity: 'warning',
  message: 'TOON output is larger than the source text for this input.',
};

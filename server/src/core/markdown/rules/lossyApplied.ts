/** lossy_applied: the candidate came from a record or lossy model, not the lossless one. */
import type { VerdictWarning } from '../warnings';
import type { MeasurementRule } from './types';

export const lossyApplied: MeasurementRule = {
  warning: 'lossy_applied',
  scope: 'measurement',
  severity: 'warning',
  decides: 'review',
  description: 'the output used semantic compression (record or lossy steps) and is not lossless',
};

export const LOSSY_APPLIED: VerdictWarning = {
  code: 'lossy_applied',
  severity: 'warning',
  message: 'Output used semantic compression and is not lossless.',
};

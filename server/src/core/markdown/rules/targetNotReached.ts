/** target_not_reached: a budget target was asked for and the output misses it. */
import type { VerdictWarning } from '../warnings';
import type { MeasurementRule } from './types';

export const targetNotReached: MeasurementRule = {
  warning: 'target_not_reached',
  scope: 'measurement',
  severity: 'warning',
  decides: 'review',
  description: 'a character or token target was requested and the output does not reach it',
};

export const TARGET_NOT_REACHED: VerdictWarning = {
  code: 'target_not_reached',
  severity: 'warning',
  message: 'Target was not reached; the budget is probably below the retained semantic payload.',
};

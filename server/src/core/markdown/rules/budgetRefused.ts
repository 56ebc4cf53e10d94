/** budget_refused: budget mode could not reach the target losslessly and lossy output was not allowed. */
import type { VerdictWarning } from '../warnings';
import type { MeasurementRule } from './types';

export const budgetRefused: MeasurementRule = {
  warning: 'budget_refused',
  scope: 'measurement',
  severity: 'warning',
  // The refusal itself is decided from the budget inputs (step 1 of the policy); the warning records it.
  decides: 'review',
  description: 'budget mode: the target cannot be reached losslessly and lossy output was not permitted (the verdict is refused)',
};

export const BUDGET_REFUSED: VerdictWarning = {
  code: 'budget_refused',
  severity: 'warning',
  message: 'The budget target cannot be reached losslessly and lossy output was not permitted.',
  suggestion: 'Allow lossy output to compress semantically, or raise the target.',
};

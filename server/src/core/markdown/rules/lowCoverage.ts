/** low_coverage: the candidate keeps too little of the source's letters and digits. */
import type { VerdictWarning } from '../warnings';
import type { MeasurementRule } from './types';

/** Coverage below this raises low_coverage (docs/engine.md#5-warnings). */
export const LOW_COVERAGE_THRESHOLD = 0.7;

export const lowCoverage: MeasurementRule = {
  warning: 'low_coverage',
  scope: 'measurement',
  severity: 'warning',
  decides: 'review',
  description: `the candidate retains less than ${LOW_COVERAGE_THRESHOLD * 100}% of the source's letters and digits`,
};

export function lowCoverageWarning(ratio: number): VerdictWarning {
  return {
    code: 'low_coverage',
    severity: 'warning',
    message: `Output retains ~${Math.round(ratio * 100)}% of the source's content characters.`,
    suggestion: 'Use lossless mode, or review what was dropped before trusting the savings.',
  };
}

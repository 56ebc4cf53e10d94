/** split_candidate: a section mixing several triggers, or policy with procedure. */
import { CODES } from '../../codes';
import { splitCandidateWarning } from '../warnings';
import type { SliceRule } from './types';

export const splitCandidate: SliceRule = {
  warning: 'split_candidate',
  scope: 'slice',
  severity: 'info',
  decides: 'split_first',
  description: CODES['toon/split-candidate'].description,
  diagnostic: { code: 'toon/split-candidate', at: 'heading', withSuggestion: true, agentAdvice: true, alwaysOnAdvice: true },
  check: ({ parsed, section }) => (parsed.blocks.length > 0 ? splitCandidateWarning(parsed, section) : null),
};

/** duplicate_rule: a rule repeated (after normalization) or nearly repeated in the document. */
import { CODES } from '../../codes';
import { duplicateRuleWarnings } from '../warnings';
import type { DocumentRule } from './types';

export const duplicateRule: DocumentRule = {
  warning: 'duplicate_rule',
  scope: 'document',
  severity: 'warning',
  decides: 'review',
  description: CODES['toon/duplicate-rule'].description,
  diagnostic: { code: 'toon/duplicate-rule', at: 'range', withSuggestion: true, agentAdvice: true },
  check: duplicateRuleWarnings,
};

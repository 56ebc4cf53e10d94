/** vague_rule: an instruction without an action, condition or check ("be careful", "as appropriate"). */
import { CODES } from '../../codes';
import { vagueRuleWarningSteps, vagueRuleWarnings } from '../warnings';
import type { SliceRule } from './types';

export const vagueRule: SliceRule = {
  warning: 'vague_rule',
  scope: 'slice',
  severity: 'warning',
  decides: 'review',
  description: CODES['toon/vague-rule'].description,
  diagnostic: { code: 'toon/vague-rule', at: 'range', withSuggestion: true, agentAdvice: true },
  check: ({ parsed, section }) => vagueRuleWarnings(parsed, section),
  checkSteps: ({ parsed, section }) => vagueRuleWarningSteps(parsed, section),
};

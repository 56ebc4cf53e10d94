/** long_section: a section too long for one instruction block (characters, lines or bullets). */
import { CODES } from '../../codes';
import { longSectionWarning } from '../warnings';
import type { SliceRule } from './types';

export const longSection: SliceRule = {
  warning: 'long_section',
  scope: 'slice',
  severity: 'info',
  decides: 'split_first',
  description: CODES['toon/long-section'].description,
  diagnostic: { code: 'toon/long-section', at: 'heading', withSuggestion: true, agentAdvice: true, alwaysOnAdvice: true },
  check: ({ parsed, raw, headingEnd, section }) => (parsed.blocks.length > 0 ? longSectionWarning(parsed, raw, headingEnd, section) : null),
};

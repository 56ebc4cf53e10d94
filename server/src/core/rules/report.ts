import type { RuleSet } from '../types';

/** Rules for report documents (placeholder until the rule set lands). */
export const reportRules: RuleSet = () => [];

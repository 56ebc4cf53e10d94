import type { RuleSet } from '../types';

/** Rules for verdict documents (placeholder until the rule set lands). */
export const verdictRules: RuleSet = () => [];

import type { RuleSet } from '../types';

/** Rules for critique documents (placeholder until the rule set lands). */
export const critiqueRules: RuleSet = () => [];

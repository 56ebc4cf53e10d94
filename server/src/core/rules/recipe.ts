import type { RuleSet } from '../types';

/** Rules for update_recipe_build arguments (placeholder until the rule set lands). */
export const recipeInputRules: RuleSet = () => [];
/** Rules for review_recipe_build results (placeholder until the rule set lands). */
export const recipeOutputRules: RuleSet = () => [];

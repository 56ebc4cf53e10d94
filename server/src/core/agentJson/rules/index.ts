/** The rule set of each document kind; schema validation runs before these. */
import type { DocumentKind, RuleSet } from '../../types';
import { verdictRules } from './verdict';
import { reportRules } from './report';
import { critiqueRules } from './critique';
import { recipeInputRules, recipeOutputRules } from './recipe';

export const RULES: Record<DocumentKind, RuleSet> = {
  verdict: verdictRules,
  report: reportRules,
  critique: critiqueRules,
  'recipe-input': recipeInputRules,
  'recipe-output': recipeOutputRules,
};

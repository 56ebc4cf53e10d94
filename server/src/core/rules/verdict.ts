/**
 * Rules for verdict documents (verdict.v1): every verdict/* and plan/* code of
 * diagnostics.md, recomputed from the document's own integers and warning codes with
 * the producer's policy (../policy.ts). Schema validation runs separately; these rules
 * skip whatever they cannot evaluate and never throw.
 */
import type { Finding, RuleContext, RuleSet } from '../types';
import { deriveVerdict, isObj } from './verdict/derive';
import { documentRules } from './verdict/document';
import { planRules } from './plan';
import { runRules, type VerdictRule } from './verdict/table';

/** The whole table: document rules, then plan rules. */
export const VERDICT_RULES: readonly VerdictRule[] = [...documentRules, ...planRules];

export const verdictRules: RuleSet = (value: unknown, _ctx: RuleContext): Finding[] => {
  if (!isObj(value)) return [];
  let derived;
  try {
    derived = deriveVerdict(value);
  } catch {
    return [];
  }
  return runRules(VERDICT_RULES, { value, derived });
};

export { deriveVerdict } from './verdict/derive';

/**
 * Rules for verdict documents (verdict.v1): every verdict/* and plan/* code of
 * diagnostics.md, recomputed from the document's own integers and warning codes with
 * the producer's policy (../policy.ts). Schema validation runs separately; these rules
 * skip whatever they cannot evaluate and never throw.
 */
import type { RuleSet } from '../../types';
import { deriveVerdict, isObj } from './verdict/derive';
import { documentRules } from './verdict/document';
import { planRules } from './plan';
import type { VerdictDoc, VerdictRule } from './verdict/table';
import { ruleSet } from './rule';

/** The whole table: document rules, then plan rules. */
export const VERDICT_RULES: readonly VerdictRule[] = [...documentRules, ...planRules];

export const verdictRules: RuleSet = ruleSet(VERDICT_RULES, (value): VerdictDoc | undefined => (isObj(value) ? { value, derived: deriveVerdict(value) } : undefined));

export { deriveVerdict } from './verdict/derive';

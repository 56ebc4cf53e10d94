/**
 * The markdown rules, in registry order (docs/engine.md#5-warnings): the order warnings are listed in on the
 * wire, and every list the engine, the policy and the diagnostics keep about warnings, read off the rows.
 */
import type { DiagnosticCode } from '../../codes';
import type { VerdictWarning } from '../warnings';
import { budgetRefused } from './budgetRefused';
import { duplicateRule } from './duplicateRule';
import { keepMarker } from './keepMarker';
import { longSection } from './longSection';
import { lossyApplied } from './lossyApplied';
import { lowCoverage } from './lowCoverage';
import { markdownOnly } from './markdownOnly';
import { negativeSavings } from './negativeSavings';
import { splitCandidate } from './splitCandidate';
import { targetNotReached } from './targetNotReached';
import { tokenRegression } from './tokenRegression';
import { tokenSavings } from './tokenSavings';
import type { MarkdownRule, RuleDiagnostic, SliceRule, SliceRuleInput, WarningSeverity } from './types';
import { vagueRule } from './vagueRule';

export type { MarkdownRule, RuleDiagnostic, SliceRule, SliceRuleInput, WarningSeverity } from './types';

/** Every markdown rule, in registry order. */
export const MARKDOWN_RULES: readonly MarkdownRule[] = [
  duplicateRule,
  vagueRule,
  longSection,
  splitCandidate,
  lowCoverage,
  lossyApplied,
  negativeSavings,
  targetNotReached,
  budgetRefused,
  tokenRegression,
  tokenSavings,
  keepMarker,
  markdownOnly,
];

/** The rules decided from one section's text, in the order their warnings are collected. */
export const SLICE_RULES: readonly SliceRule[] = MARKDOWN_RULES.filter((r): r is SliceRule => r.scope === 'slice');

/** The v1 warning registry: code → severity (docs/engine.md#5-warnings). */
export const WARNING_SEVERITY: Readonly<Record<string, WarningSeverity>> = Object.fromEntries(MARKDOWN_RULES.map((r) => [r.warning, r.severity]));

/** Warning codes that send a verdict to split_first. */
export const SPLIT_CODES: readonly string[] = MARKDOWN_RULES.filter((r) => r.decides === 'split_first').map((r) => r.warning);

/** Warning codes that keep a section as markdown whatever its savings. */
export const KEEP_CODES: readonly string[] = MARKDOWN_RULES.filter((r) => r.decides === 'keep_markdown').map((r) => r.warning);

/** Warning codes that record a decision on real tokens: they send nothing to review and lift the character 5 %. */
export const TOKEN_DECIDED_CODES: readonly string[] = MARKDOWN_RULES.filter((r) => r.decides === 'convert').map((r) => r.warning);

/** Warning order on the wire: by code (registry order), then by position. */
export const WARNING_ORDER: readonly string[] = MARKDOWN_RULES.map((r) => r.warning);

/** Engine warning code → how it is shown as a diagnostic, for the warnings that are. */
export const WARNING_DIAGNOSTICS: ReadonlyMap<string, RuleDiagnostic> = new Map(MARKDOWN_RULES.flatMap((r) => (r.diagnostic ? [[r.warning, r.diagnostic] as const] : [])));

/** The rule of a diagnostic code, when a markdown rule reports it. */
export function ruleOfDiagnostic(code: string): MarkdownRule | undefined {
  return MARKDOWN_RULES.find((r) => r.diagnostic?.code === code);
}

/** Diagnostic codes of the agent-file advice (shown on files agents load only). */
export const AGENT_ADVICE_CODES: readonly DiagnosticCode[] = MARKDOWN_RULES.flatMap((r) => (r.diagnostic?.agentAdvice ? [r.diagnostic.code] : []));

/** A section's slice-rule warnings (slice-relative), in rule order. */
export function sliceRuleWarnings(input: SliceRuleInput): VerdictWarning[] {
  const steps = sliceRuleWarningSteps(input);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** {@link sliceRuleWarnings} with a yield after each rule and inside a rule's long walk (a huge section's rules are steps of a time-sliced plan). */
export function* sliceRuleWarningSteps(input: SliceRuleInput): Generator<void, VerdictWarning[], void> {
  const out: VerdictWarning[] = [];
  for (const rule of SLICE_RULES) {
    const w = rule.checkSteps ? yield* rule.checkSteps(input) : rule.check(input);
    if (w) {
      if (Array.isArray(w)) for (const x of w) out.push(x);
      else out.push(w);
    }
    yield;
  }
  return out;
}

export function sortWarnings(ws: VerdictWarning[]): VerdictWarning[] {
  const rank = (c: string) => {
    const i = WARNING_ORDER.indexOf(c);
    return i < 0 ? WARNING_ORDER.length : i;
  };
  return ws
    .map((w, i) => ({ w, i }))
    .sort((a, b) => rank(a.w.code) - rank(b.w.code) || (a.w.range?.char_start ?? Infinity) - (b.w.range?.char_start ?? Infinity) || a.i - b.i)
    .map((x) => x.w);
}

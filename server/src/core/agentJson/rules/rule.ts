/**
 * The one rule shape of every document kind: `Rule { code, severity, check }`. A rule takes its code and
 * default severity from the catalogue (../codes.ts) and its `check` returns hits — message, target, fixes —
 * to which the runner adds the code and the severity. A kind's rule set prepares what its rules read once
 * (the parsed object, derived fields, a walk of the payload) and runs its table with {@link runRules}.
 *
 * Every kind writes a row the same way: `{ ...ruleCode(code), check }` (`ruleCode` in ../../codes.ts spreads the
 * code and its catalogue severity); the verdict and plan tables add the formula they check (`rule`).
 */
import { CODES, type DiagnosticCode } from '../../codes';
import type { Finding, JsonFix, JsonTarget, RuleContext, RuleSet, Severity } from '../../types';

/** A finding as a rule reports it; the runner adds the rule's code and severity (unless overridden here). */
export interface RuleHit {
  message: string;
  target: JsonTarget;
  fixes?: JsonFix[];
  severity?: Severity;
}

/**
 * A rule: code and default severity from the catalogue, and a check over what its kind's rule set prepared.
 * `Out` is the hits, except for rules that share one pass over a large document (report rules return that
 * pass's hooks, which collect the hits).
 */
export interface Rule<D, Out = RuleHit[]> {
  readonly code: DiagnosticCode;
  /** The catalogue's default severity for the code; a hit may override it. */
  readonly severity: Severity;
  check(doc: D): Out;
}

/** A hit at the value at `path` (with fixes when given). */
export function hitAt(message: string, path: JsonTarget['path'], fixes?: JsonFix[]): RuleHit {
  return fixes && fixes.length ? { message, target: { path }, fixes } : { message, target: { path } };
}

/** A rule's hits as findings (its code, its severity unless a hit overrides it), appended to `out`. */
export function pushFindings(out: Finding[], rule: Pick<Rule<unknown>, 'code' | 'severity'>, hits: readonly RuleHit[]): void {
  for (const h of hits) {
    const f: Finding = { code: rule.code, severity: h.severity ?? rule.severity, message: h.message, target: h.target };
    if (h.fixes && h.fixes.length) f.fixes = h.fixes;
    out.push(f);
  }
}

/** A finding of `code` at its catalogue severity (for checks that report several codes from one walk). */
export function findingOf(code: DiagnosticCode, hit: RuleHit): Finding {
  const out: Finding[] = [];
  pushFindings(out, { code, severity: CODES[code].severity }, [hit]);
  return out[0]!;
}

/** Runs a rule table; a rule that throws on an unforeseen shape is skipped, never fatal. */
export function runRules<D>(rules: readonly Rule<D>[], doc: D): Finding[] {
  const out: Finding[] = [];
  for (const r of rules) {
    let hits: RuleHit[];
    try {
      hits = r.check(doc);
    } catch {
      continue;
    }
    pushFindings(out, r, hits);
  }
  return out;
}

/**
 * A kind's rule set from its table: `prepare` reads what the rules share from the parsed value (undefined:
 * nothing to check, e.g. a root the schema already rejects), then every rule runs on it.
 */
export function ruleSet<D>(rules: readonly Rule<D>[], prepare: (value: unknown, ctx: RuleContext) => D | undefined): RuleSet {
  return (value, ctx) => {
    let doc: D | undefined;
    try {
      doc = prepare(value, ctx);
    } catch {
      return [];
    }
    return doc === undefined ? [] : runRules(rules, doc);
  };
}

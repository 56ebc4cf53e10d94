/** The shape of a verdict rule table: small named rules, each with its code and severity. */
import type { Finding, JsonFix, JsonPath, JsonTarget, Severity } from '../../types';
import type { DerivedVerdict, Obj } from './derive';

/** What every rule sees: the parsed document (an object) and its derived fields, computed once. */
export interface VerdictDoc {
  value: Obj;
  derived: DerivedVerdict;
}

/** A finding as a rule reports it; the runner adds code and the rule's severity (unless overridden). */
export interface RuleHit {
  message: string;
  target: JsonTarget;
  fixes?: JsonFix[];
  severity?: Severity;
}

export interface VerdictRule {
  code: string;
  severity: Severity;
  /** One line: what the rule checks (diagnostics.md). */
  rule: string;
  check(doc: VerdictDoc): RuleHit[];
}

/** Runs a rule table; a rule that throws on an unforeseen shape is skipped, never fatal. */
export function runRules(rules: readonly VerdictRule[], doc: VerdictDoc): Finding[] {
  const out: Finding[] = [];
  for (const r of rules) {
    let hits: RuleHit[];
    try {
      hits = r.check(doc);
    } catch {
      continue;
    }
    for (const h of hits) {
      const f: Finding = { code: r.code, severity: h.severity ?? r.severity, message: h.message, target: h.target };
      if (h.fixes && h.fixes.length) f.fixes = h.fixes;
      out.push(f);
    }
  }
  return out;
}

/** A JSON-looking rendering of a value for messages. */
export function show(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined) return 'absent';
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/** The unattended fix that sets a derived field to its derived value. */
export function setFix(path: JsonPath, value: unknown, because: string, name = String(path[path.length - 1])): JsonFix {
  return { title: `Set ${name} to ${show(value)} — ${because}`, edits: [{ path, value }], fixAll: true };
}

/** A derived-field mismatch: message "<name> is X; should be Y: because", with the fix. */
export function mismatch(path: JsonPath, recorded: unknown, derived: unknown, because: string, name?: string): RuleHit {
  const n = name ?? String(path[path.length - 1]);
  return {
    message: `${n} is ${show(recorded)}; should be ${show(derived)}: ${because}`,
    target: { path },
    fixes: [setFix(path, derived, because, n)],
  };
}

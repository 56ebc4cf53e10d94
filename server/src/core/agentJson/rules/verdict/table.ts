/** The shape of the verdict and plan rule tables: small named rules (../rule.ts), each with its code and severity from the catalogue. */
import type { JsonFix, JsonPath } from '../../../types';
import type { Rule, RuleHit } from '../rule';
import type { DerivedVerdict, Obj } from './derive';

/** What every rule sees: the parsed document (an object) and its derived fields, computed once. */
export interface VerdictDoc {
  value: Obj;
  derived: DerivedVerdict;
}

export type { RuleHit };

/** A verdict or plan rule: the uniform rule shape, plus the formula it checks (shown by the hover explainer). */
export interface VerdictRule extends Rule<VerdictDoc> {
  /** One line: the formula the rule checks. */
  rule: string;
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

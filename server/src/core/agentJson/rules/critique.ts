/**
 * Cross-field rules for cowork-harness critique reports (critique-report.schema.json, draft-07).
 * Schema-shape errors (types, enums, required, additionalProperties) belong to the schema pass;
 * these rules only read values whose type is already right and skip anything else, so they
 * never throw whatever the document holds.
 */
import type { JsonFix, RuleSet } from '../../types';
import { hitAt, ruleSet, type Rule, type RuleHit } from './rule';
import { ruleCode } from '../../codes';
import { isObject } from '../../json/value';
export { isObject };

/** The fields that name the outcome; exactly one is present in a well-formed report. */
export const OUTCOME_FIELDS = ['infraFailure', 'evaluatorError', 'evaluatorModel'] as const;
/** The outcome fields that mean "no critique was produced" (items must be []). */
export const FAILURE_FIELDS = ['infraFailure', 'evaluatorError'] as const;
/** The four priced model workloads whose sum is costUsd.totalUsd. */
export const COST_PARTS = ['taskTurnUsd', 'reflectionTurnUsd', 'evaluatorPass1Usd', 'evaluatorPass2Usd'] as const;
/** Tolerance of the cost-total rule (floating-point sums of dollar amounts). */
export const COST_TOLERANCE = 1e-9;
/** sha256/16: the first 16 lowercase hex characters of a SHA-256. */
export const FINGERPRINT_RE = /^[0-9a-f]{16}$/;

type Obj = Record<string, unknown>;

function has(o: Obj, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}
function isNum(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}
/** The items array's entries that are objects, with their index. */
function objectItems(root: Obj): [number, Obj][] {
  const items = root.items;
  if (!Array.isArray(items)) return [];
  const out: [number, Obj][] = [];
  items.forEach((it, i) => {
    if (isObject(it)) out.push([i, it]);
  });
  return out;
}

/** The cost breakdown as the rules and the hover read it; undefined when costUsd cannot be evaluated. */
export interface CostSummary {
  /** The parts present with a numeric value, in schema order. */
  parts: { name: (typeof COST_PARTS)[number]; value: number }[];
  /** The parts absent from costUsd. */
  absent: (typeof COST_PARTS)[number][];
  /** Sum of the parts present, rounded to 15 significant digits (drops binary-float noise, far inside the tolerance). */
  sum: number;
  totalUsd: number | undefined;
  complete: boolean | undefined;
  /** Whether totalUsd equals the sum within {@link COST_TOLERANCE}. */
  matches: boolean | undefined;
}

/** Reads costUsd; undefined when it is absent, not an object, or a part holds a non-number. */
export function summarizeCost(root: unknown): CostSummary | undefined {
  if (!isObject(root) || !isObject(root.costUsd)) return undefined;
  const cost = root.costUsd;
  const parts: CostSummary['parts'] = [];
  const absent: CostSummary['absent'] = [];
  for (const name of COST_PARTS) {
    if (!has(cost, name)) absent.push(name);
    else if (isNum(cost[name])) parts.push({ name, value: cost[name] as number });
    else return undefined; // a part of the wrong type: the schema reports it, the sum means nothing
  }
  const raw = parts.reduce((s, p) => s + p.value, 0);
  const sum = Number(raw.toPrecision(15));
  const totalUsd = isNum(cost.totalUsd) ? cost.totalUsd : undefined;
  const complete = typeof cost.complete === 'boolean' ? cost.complete : undefined;
  const matches = totalUsd === undefined ? undefined : Math.abs(totalUsd - raw) <= COST_TOLERANCE;
  return { parts, absent, sum, totalUsd, complete, matches };
}

/** "a + b + c", or "no parts (none present)". */
export function describeParts(parts: CostSummary['parts']): string {
  return parts.length ? parts.map((p) => p.name).join(' + ') : 'no parts (none present)';
}

type CritiqueRule = Rule<Obj>;

/** critique/outcome — exactly one of infraFailure / evaluatorError / evaluatorModel; items [] on a failure branch. */
export const outcomeRule: CritiqueRule = {
  ...ruleCode('critique/outcome'),
  check(root) {
    const out: RuleHit[] = [];
    const present = OUTCOME_FIELDS.filter((k) => has(root, k));
    if (present.length === 0) {
      out.push({
        message: 'No outcome field: exactly one of infraFailure / evaluatorError / evaluatorModel must be present.',
        target: { path: [], part: 'missing', property: 'evaluatorModel' },
      });
    }
    for (const extra of present.slice(1)) {
      out.push({
        message: `${extra} alongside ${present[0]}: exactly one of infraFailure / evaluatorError / evaluatorModel may be present.`,
        target: { path: [extra], part: 'key' },
      });
    }
    const failure = FAILURE_FIELDS.find((k) => has(root, k));
    if (failure && Array.isArray(root.items) && root.items.length > 0) {
      out.push(
        hitAt(
          `items has ${root.items.length} entr${root.items.length === 1 ? 'y' : 'ies'} but ${failure} is present: no critique was produced, items must be [].`,
          ['items'],
        ),
      );
    }
    return out;
  },
};

/** critique/cost-total — when complete is true, the parts present sum to totalUsd (±1e-9). */
export const costTotalRule: CritiqueRule = {
  ...ruleCode('critique/cost-total'),
  check(root) {
    const c = summarizeCost(root);
    if (!c || c.complete !== true || c.totalUsd === undefined || c.matches !== false) return [];
    const fix: JsonFix = {
      title: `Set totalUsd to ${c.sum} — the sum of ${describeParts(c.parts)}`,
      edits: [{ path: ['costUsd', 'totalUsd'], value: c.sum }],
      fixAll: true,
    };
    return [
      hitAt(
        `totalUsd ${c.totalUsd} ≠ ${c.sum}, the sum of ${describeParts(c.parts)} (complete is true).`,
        ['costUsd', 'totalUsd'],
        [fix],
      ),
    ];
  },
};

/** critique/cost-incomplete — complete false: the total undercounts true spend. */
export const costIncompleteRule: CritiqueRule = {
  ...ruleCode('critique/cost-incomplete'),
  check(root) {
    if (!isObject(root.costUsd) || root.costUsd.complete !== false) return [];
    const total = root.costUsd.totalUsd;
    const onTotal = isNum(total);
    return [
      hitAt(
        onTotal
          ? `costUsd.complete is false: totalUsd ${total} undercounts true spend (a workload was unpriced).`
          : 'costUsd.complete is false: totalUsd undercounts true spend (a workload was unpriced).',
        onTotal ? ['costUsd', 'totalUsd'] : ['costUsd', 'complete'],
      ),
    ];
  },
};

/** critique/canary — a pass ignored a trusted instruction. */
export const canaryRule: CritiqueRule = {
  ...ruleCode('critique/canary'),
  check(root) {
    const integrity = root.evaluatorIntegrity;
    if (!isObject(integrity)) return [];
    const out: RuleHit[] = [];
    for (const [key, pass] of [['pass1Canary', 'pass 1'], ['pass2Canary', 'pass 2']] as const) {
      if (integrity[key] === false) {
        out.push(
          hitAt(
            `${key} is false: evaluator ${pass} ignored a trusted instruction; an empty or mild critique may be adversarial silencing.`,
            ['evaluatorIntegrity', key],
          ),
        );
      }
    }
    return out;
  },
};

/** critique/self-report — pass 2 was skipped, so no item can come from the self-report. */
export const selfReportRule: CritiqueRule = {
  ...ruleCode('critique/self-report'),
  check(root) {
    if (root.selfReportStatus !== 'unavailable') return [];
    return objectItems(root)
      .filter(([, it]) => it.source === 'self-report')
      .map(([i]) =>
        hitAt(
          'source is self-report but selfReportStatus is unavailable (pass 2 skipped): expected source evaluator.',
          ['items', i, 'source'],
        ),
      );
  },
};

/** critique/fidelity-mismatch — the graded turn recorded a different tier than the one critique pinned. */
export const fidelityMismatchRule: CritiqueRule = {
  ...ruleCode('critique/fidelity-mismatch'),
  check(root) {
    const graded = root.gradedEffectiveFidelity;
    const fidelity = root.fidelity;
    if (typeof graded !== 'string' || typeof fidelity !== 'string' || graded === fidelity) return [];
    return [
      hitAt(
        `gradedEffectiveFidelity "${graded}" ≠ fidelity "${fidelity}": the graded turn ran on a different tier than critique pinned.`,
        ['gradedEffectiveFidelity'],
      ),
    ];
  },
};

/** critique/fingerprint-format — sha256/16: 16 lowercase hex characters. */
export const fingerprintFormatRule: CritiqueRule = {
  ...ruleCode('critique/fingerprint-format'),
  check: (root) =>
    objectItems(root)
      .filter(([, it]) => typeof it.findingFingerprint === 'string' && !FINGERPRINT_RE.test(it.findingFingerprint))
      .map(([i, it]) => {
        const fp = it.findingFingerprint as string;
        const hint = /^[0-9a-fA-F]{16}$/.test(fp) ? ` (lowercase: ${fp.toLowerCase()})` : ` (${fp.length} characters)`;
        return hitAt(
          `findingFingerprint "${fp}" is not 16 lowercase hex characters${hint}.`,
          ['items', i, 'findingFingerprint'],
        );
      }),
};

/** critique/citation-unresolved — the cited excerpt did not resolve verbatim (DROPPED section). */
export const citationUnresolvedRule: CritiqueRule = {
  ...ruleCode('critique/citation-unresolved'),
  check: (root) =>
    objectItems(root)
      .filter(([, it]) => it.citationResolved === false)
      .map(([i]) =>
        hitAt(
          'citationResolved is false: the cited evidence did not resolve verbatim; transparency only, do not act on as-is.',
          ['items', i, 'citationResolved'],
        ),
      ),
};

/** critique/skill-not-invoked — the graded run may never have used the selected skill. */
export const skillNotInvokedRule: CritiqueRule = {
  ...ruleCode('critique/skill-not-invoked'),
  check(root) {
    if (root.skillInvocationObserved !== false) return [];
    const skill = typeof root.gradedSkill === 'string' ? ` ${root.gradedSkill}` : '';
    return [
      hitAt(
        `skillInvocationObserved is false: the graded run never mentioned skill${skill}; the critique may grade a run that did not use it.`,
        ['skillInvocationObserved'],
      ),
    ];
  },
};

/** Every critique rule, in the order of the codes catalogue. */
export const CRITIQUE_RULES: readonly CritiqueRule[] = [
  outcomeRule,
  costTotalRule,
  costIncompleteRule,
  canaryRule,
  selfReportRule,
  fidelityMismatchRule,
  fingerprintFormatRule,
  citationUnresolvedRule,
  skillNotInvokedRule,
];

/** Rules for critique documents: a non-object root yields nothing (the schema pass reports it). */
export const critiqueRules: RuleSet = ruleSet(CRITIQUE_RULES, (value) => (isObject(value) ? value : undefined));

/**
 * Every derived field of a verdict.v1 document, recomputed in one pass from the
 * document's own integers, warning codes, mode and flags (docs/engine.md: #4-candidate-and-measurement, #decision-policy, #plan-and-hybrid).
 *
 * The rules compare each recorded field with its derived value, the quick fixes set
 * each field to it, and the hovers show it. A derived value never depends on another
 * *recorded* derived field: safe_to_auto_apply uses the derived verdict, savings_pct the
 * derived savings, and so on. So one defect raises one finding, and applying every
 * fix at once converges (the inputs do not change, so neither do the derived values).
 *
 * Never throws: whatever cannot be evaluated (wrong types, missing objects) is left
 * undefined, and the rules that need it skip.
 */
import {
  decide,
  planSafeToAutoApply,
  rawSavingsPct,
  recommendHybrid,
  roundPct,
  safeToAutoApply,
  sectionAction,
  MIN_CONVERT_SAVINGS_PCT,
  VERDICTS,
  type Decision,
  type Verdict,
  type SafetyDecision,
  type WarningLike,
} from '../../../markdown/policy';
import { isObject as isObj } from '../../../json/value';
export { isObj };

export type Obj = Record<string, unknown>;

/** The recorded verdict when it is one of the closed set (else the schema reports it). */
function recordedVerdict(v: unknown): Verdict | undefined {
  return typeof v === 'string' && (VERDICTS as readonly string[]).includes(v) ? (v as Verdict) : undefined;
}


/** A non-negative integer (a character count), else undefined. */
export function count(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : undefined;
}

export function finite(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** Tolerance of a wire percentage around the unrounded value: one-decimal rounding moves it at most 0.05. */
export const PCT_TOLERANCE = 0.05 + 1e-9;

/** Whether a recorded wire percentage agrees with the unrounded one (any one-decimal rounding is accepted). */
export function pctAgrees(recorded: number, raw: number): boolean {
  return Math.abs(recorded - raw) <= PCT_TOLERANCE;
}

/** A savings measurement recomputed from two integer counts. */
export interface Measure {
  source: number;
  /** measured_chars.toon, or net.hybrid for the plan's net. */
  toon: number;
  savings: number;
  /** Unrounded percent: decides. */
  rawPct: number;
  /** Wire percent (one decimal, half up). */
  pct: number;
}

export function measure(source: unknown, toon: unknown): Measure | undefined {
  const s = count(source);
  const t = count(toon);
  if (s === undefined || t === undefined) return undefined;
  const rawPct = rawSavingsPct(s, t);
  return { source: s, toon: t, savings: s - t, rawPct, pct: roundPct(rawPct) };
}

export function measureOf(mc: unknown): Measure | undefined {
  return isObj(mc) ? measure(mc.source, mc.toon) : undefined;
}

/** The warnings as decision inputs, or undefined when the array cannot be read (not an array, an item without a string code). */
export function warningInputs(ws: unknown): readonly WarningLike[] | undefined {
  if (!Array.isArray(ws)) return undefined;
  // Usually every warning already reads as a decision input ({code, severity} strings): then the array
  // itself is the input (the policy only reads code and severity), and nothing is copied.
  let asIs = true;
  for (const w of ws) {
    if (!isObj(w) || typeof w.code !== 'string') return undefined;
    if (w.severity !== undefined && typeof w.severity !== 'string') asIs = false;
  }
  if (asIs) return ws as readonly WarningLike[];
  const out: WarningLike[] = [];
  for (const w of ws as Obj[]) out.push(typeof w.severity === 'string' ? { code: w.code as string, severity: w.severity } : { code: w.code as string });
  return out;
}

export interface DerivedSection {
  index: number;
  frontmatter: boolean;
  measure?: Measure;
  /** The recomputed standalone verdict (lossless mode, never refused). */
  decision?: Decision;
  /** decision's verdict, else the recorded one when it cannot be recomputed. */
  verdict?: string;
  /** convert iff the (derived) verdict is convert; frontmatter keep. Falls back to the recorded action. */
  action?: 'convert' | 'keep';
  /** Whether `action` was derived (a fix may set it) or only read back. */
  actionDerived: boolean;
  safety?: SafetyDecision;
  /**
   * When the recorded verdict is one of the closed set but not the derived one: the action and safety that
   * follow from the RECORDED verdict. A recorded action or safe_to_auto_apply that agrees with either this or
   * the derived value is explained by the wrong verdict (verdict/decision's one finding, whose fix sets them
   * too); only one that agrees with neither is a defect of its own.
   */
  recorded?: { verdict: Verdict; action: 'convert' | 'keep'; safety?: SafetyDecision };
}

export interface DerivedPlan {
  sections: DerivedSection[];
  net?: Measure;
  /** Sections whose action is convert; undefined when some action cannot be known. */
  converted?: number;
  recommend?: boolean;
  recommendBecause?: string;
  allConvertedSafe?: boolean;
  reassemblyVerified?: boolean;
  safe?: boolean;
  safeBecause?: string;
}

export interface DerivedVerdict {
  measure?: Measure;
  warnings?: readonly WarningLike[];
  /** Step 1 of the decision policy (docs/engine.md#decision-policy) applies: mode budget and a budget_refused warning. */
  refused?: boolean;
  decision?: Decision;
  /** decision's verdict, else the recorded one. */
  verdict?: string;
  /** safe_to_auto_apply from the RECORDED verdict (what the recorded field is checked against). */
  safety?: SafetyDecision;
  /** safe_to_auto_apply once the verdict is the derived one, when that differs (the verdict/decision fix sets it too). */
  safetyAfterDecision?: SafetyDecision;
  plan?: DerivedPlan;
}

/** Section flags are not on the wire: a measured section is lossless (plans run in lossless mode) and its candidate valid. */
const SECTION_MODE = 'lossless';

export function deriveSection(s: unknown, index: number): DerivedSection {
  const out: DerivedSection = { index, frontmatter: false, actionDerived: false };
  if (!isObj(s)) return out;
  if (s.kind === 'frontmatter') {
    out.frontmatter = true;
    out.action = 'keep';
    out.actionDerived = true;
    out.safety = { safe: false, because: 'frontmatter is never measured' };
    return out;
  }
  out.measure = measureOf(s.measured_chars);
  const warnings = warningInputs(s.warnings);
  if (out.measure && warnings) {
    out.decision = decide({ refused: false, source: out.measure.source, toon: out.measure.toon, warnings });
  }
  out.verdict = out.decision?.verdict ?? (typeof s.verdict === 'string' ? s.verdict : undefined);
  if (out.verdict !== undefined) {
    out.action = sectionAction(out.verdict, true, true);
    out.actionDerived = true;
  } else if (s.action === 'convert' || s.action === 'keep') {
    out.action = s.action;
  }
  if (out.verdict !== undefined) out.safety = sectionSafety(out.measure, warnings, out.verdict);
  const recorded = recordedVerdict(s.verdict);
  if (out.decision && recorded !== undefined && recorded !== out.decision.verdict) {
    out.recorded = { verdict: recorded, action: sectionAction(recorded, true, true), safety: sectionSafety(out.measure, warnings, recorded) };
  }
  return out;
}

/** A measured section's safe_to_auto_apply for a verdict (a top-level function: no closure per section). */
function sectionSafety(m: Measure | undefined, warnings: readonly WarningLike[] | undefined, verdict: string): SafetyDecision | undefined {
  return m && warnings ? safeToAutoApply({ verdict, mode: SECTION_MODE, lossless: true, valid: true, savings: m.savings, warnings }) : undefined;
}

export function derivePlan(plan: Obj): DerivedPlan {
  const out: DerivedPlan = { sections: [] };
  const sections = Array.isArray(plan.sections) ? plan.sections : undefined;
  if (sections) out.sections = sections.map((s, i) => deriveSection(s, i));
  const net = isObj(plan.net) ? plan.net : undefined;
  out.net = net ? measure(net.source, net.hybrid) : undefined;
  if (sections && out.sections.every((d) => d.action !== undefined)) {
    out.converted = out.sections.filter((d) => d.action === 'convert').length;
    let allSafe: boolean | undefined = true;
    for (const d of out.sections) {
      if (d.action !== 'convert') continue;
      const recorded = isObj(sections[d.index]) ? (sections[d.index] as Obj).safe_to_auto_apply : undefined;
      const safe = d.safety?.safe ?? (typeof recorded === 'boolean' ? recorded : undefined);
      if (safe === undefined) { allSafe = undefined; break; }
      if (!safe) allSafe = false;
    }
    out.allConvertedSafe = allSafe;
  }
  if (out.converted !== undefined && out.net) {
    out.recommend = recommendHybrid(out.converted, out.net.source, out.net.toon);
    out.recommendBecause = recommendReason(out.converted, out.net);
  }
  if (typeof plan.reassembly_verified === 'boolean') out.reassemblyVerified = plan.reassembly_verified;
  if (out.recommend !== undefined && out.converted !== undefined && out.allConvertedSafe !== undefined && out.reassemblyVerified !== undefined) {
    out.safe = planSafeToAutoApply(out.recommend, out.converted, out.allConvertedSafe, out.reassemblyVerified);
    out.safeBecause = planSafeReason(out.recommend, out.converted, out.allConvertedSafe, out.reassemblyVerified);
  }
  return out;
}

function recommendReason(converted: number, net: Measure): string {
  if (converted < 1) return 'no section converts';
  if (net.savings <= 0) return `net savings ${net.savings} ≤ 0`;
  if (net.rawPct < MIN_CONVERT_SAVINGS_PCT) return `net savings ${net.rawPct.toFixed(2)}% < ${MIN_CONVERT_SAVINGS_PCT}%`;
  return `${converted} converting section${converted === 1 ? "" : "s"}, net saves ${net.rawPct.toFixed(2)}% ≥ ${MIN_CONVERT_SAVINGS_PCT}%`;
}

function planSafeReason(recommend: boolean, converted: number, allSafe: boolean, verified: boolean): string {
  if (!recommend) return 'recommend_hybrid is false';
  if (converted < 1) return 'no section converts';
  if (!allSafe) return 'a converted section is not safe to auto-apply';
  if (!verified) return 'reassembly_verified is false';
  return 'hybrid recommended, every converted section safe, reassembly verified';
}

/** All derived fields of a verdict document. `value` is the whole parsed document. */
export function deriveVerdict(value: unknown): DerivedVerdict {
  const out: DerivedVerdict = {};
  if (!isObj(value)) return out;
  out.measure = measureOf(value.measured_chars);
  out.warnings = warningInputs(value.warnings);
  if (typeof value.mode === 'string' && out.warnings) {
    out.refused = value.mode === 'budget' && out.warnings.some((w) => w.code === 'budget_refused');
  }
  if (out.measure && out.warnings && out.refused !== undefined) {
    out.decision = decide({ refused: out.refused, source: out.measure.source, toon: out.measure.toon, warnings: out.warnings });
  }
  out.verdict = out.decision?.verdict ?? (typeof value.verdict === 'string' ? value.verdict : undefined);
  const flags = isObj(value.flags) ? value.flags : undefined;
  // safe_to_auto_apply derives from the RECORDED verdict: a wrong verdict alone is one verdict/decision finding.
  const basis = recordedVerdict(value.verdict) ?? out.verdict;
  if (
    basis !== undefined && typeof value.mode === 'string' && flags &&
    typeof flags.lossless === 'boolean' && typeof flags.valid === 'boolean' && out.measure && out.warnings
  ) {
    const inputs = { mode: value.mode, lossless: flags.lossless, valid: flags.valid, savings: out.measure.savings, warnings: out.warnings };
    out.safety = safeToAutoApply({ verdict: basis, ...inputs });
    // What safe_to_auto_apply becomes once the verdict is corrected (the verdict/decision fix sets both).
    if (out.verdict !== basis) out.safetyAfterDecision = safeToAutoApply({ verdict: out.verdict!, ...inputs });
  }
  if (isObj(value.context_plan)) out.plan = derivePlan(value.context_plan);
  return out;
}

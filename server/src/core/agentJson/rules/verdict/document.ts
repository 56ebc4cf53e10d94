/**
 * verdict/* rules: the whole-document fields of a verdict.v1 object (profile, convert
 * and plan responses alike). Each rule recomputes from integers and warning codes
 * (./derive.ts), never from the rounded wire percentages.
 */
import { decode } from '@toon-format/toon';
import { rawSavingsPct, WARNING_SEVERITY } from '../../../markdown/policy';
import type { JsonPath } from '../../../types';
import { count, finite, isObj, pctAgrees, type Measure } from './derive';
import { mismatch, show, type RuleHit, type VerdictDoc, type VerdictRule } from './table';
import { ruleCode } from '../../../codes';
import { errorMessage } from '../../../errors';

/** Why savings_pct has its value, for messages and fix titles. */
export function pctBecause(m: Measure, savingsName = 'savings'): string {
  if (m.source === 0) return 'source is 0';
  return `${savingsName} ${m.savings} / source ${m.source} × 100 = ${m.rawPct.toFixed(3)}, one decimal`;
}

export function savingsBecause(m: Measure, toonName = 'toon'): string {
  return `source ${m.source} − ${toonName} ${m.toon}`;
}

/** measured_chars.savings of one measured object (top level or a plan section), against source − toon. */
export function savingsHit(base: JsonPath, mc: unknown, m: Measure | undefined, prefix: string): RuleHit[] {
  if (!isObj(mc) || !m) return [];
  const savings = finite(mc.savings);
  if (savings === undefined || savings === m.savings) return [];
  return [mismatch([...base, 'savings'], mc.savings, m.savings, savingsBecause(m), `${prefix}savings`)];
}

/** measured_chars.savings_pct of one measured object, against the unrounded percent (±0.05). */
export function savingsPctHit(base: JsonPath, mc: unknown, m: Measure | undefined, prefix: string): RuleHit[] {
  if (!isObj(mc) || !m) return [];
  const pct = finite(mc.savings_pct);
  if (pct === undefined || pctAgrees(pct, m.rawPct)) return [];
  return [mismatch([...base, 'savings_pct'], mc.savings_pct, m.pct, pctBecause(m), `${prefix}savings_pct`)];
}

/**
 * Whether the document's top-level warnings have one with `code`. The codes are collected once per
 * VerdictDoc (a fresh object per check; a profile response can carry tens of thousands of warnings and
 * several rules ask), which answers exactly what `ws.some((w) => isObj(w) && w.code === code)` would.
 */
function hasCode(doc: VerdictDoc, code: string): boolean {
  let codes = topLevelCodes.get(doc);
  if (!codes) {
    codes = new Set();
    const ws = doc.value.warnings;
    if (Array.isArray(ws)) for (const w of ws) if (isObj(w) && typeof w.code === 'string') codes.add(w.code);
    topLevelCodes.set(doc, codes);
  }
  return codes.has(code);
}
const topLevelCodes = new WeakMap<VerdictDoc, Set<string>>();

function firstLine(s: string): string {
  const l = s.split('\n')[0] ?? s;
  return l.length > 120 ? `${l.slice(0, 117)}…` : l;
}

export const documentRules: readonly VerdictRule[] = [
  {
    ...ruleCode('verdict/safe-to-auto-apply'),
    rule: 'safe_to_auto_apply = convert ∧ mode lossless ∧ flags.lossless ∧ flags.valid ∧ savings > 0 ∧ no warning-severity warning',
    check({ value, derived }) {
      const s = derived.safety;
      if (!s || typeof value.safe_to_auto_apply !== 'boolean' || value.safe_to_auto_apply === s.safe) return [];
      // A wrong verdict is verdict/decision's one finding, and its fix sets safe_to_auto_apply along with it:
      // a value that is already what the corrected verdict gives is no defect either. Only a value that
      // follows from neither verdict is one of its own, against what the corrected verdict gives.
      const after = derived.safetyAfterDecision;
      if (after) return value.safe_to_auto_apply === after.safe ? [] : [mismatch(['safe_to_auto_apply'], value.safe_to_auto_apply, after.safe, after.because)];
      return [mismatch(['safe_to_auto_apply'], value.safe_to_auto_apply, s.safe, s.because)];
    },
  },
  {
    ...ruleCode('verdict/savings'),
    rule: 'measured_chars.savings = source − toon',
    check({ value, derived }) {
      return savingsHit(['measured_chars'], value.measured_chars, derived.measure, 'measured_chars.');
    },
  },
  {
    ...ruleCode('verdict/savings-pct'),
    rule: 'measured_chars.savings_pct = (source − toon) / source × 100, one decimal (±0.05)',
    check({ value, derived }) {
      return savingsPctHit(['measured_chars'], value.measured_chars, derived.measure, 'measured_chars.');
    },
  },
  {
    ...ruleCode('verdict/token-arithmetic'),
    rule: 'token_estimates savings = source − toon; ratio rows = measured chars / chars_per_token, rounded',
    check({ value, derived }) {
      const te = value.token_estimates;
      if (!isObj(te)) return [];
      const hits: RuleHit[] = [];
      const base: JsonPath = ['token_estimates'];
      const s = count(te.source);
      const t = count(te.toon);
      if (s !== undefined && t !== undefined) {
        const savings = finite(te.savings);
        if (savings !== undefined && savings !== s - t) {
          hits.push({ message: `token_estimates.savings is ${savings}; should be ${s - t} (source ${s} − toon ${t})`, target: { path: [...base, 'savings'] } });
        }
        const pct = finite(te.savings_pct);
        const raw = rawSavingsPct(s, t);
        if (pct !== undefined && !pctAgrees(pct, raw)) {
          hits.push({ message: `token_estimates.savings_pct is ${pct}; should be ${raw.toFixed(1)} ((source − toon) / source × 100)`, target: { path: [...base, 'savings_pct'] } });
        }
      }
      const m = derived.measure;
      if (m && Array.isArray(te.ratio_estimates)) {
        te.ratio_estimates.forEach((row, i) => {
          if (!isObj(row)) return;
          const r = finite(row.chars_per_token);
          if (r === undefined || r <= 0) return;
          const rs = m.source / r;
          const rt = m.toon / r;
          const p: JsonPath = [...base, 'ratio_estimates', i];
          const near = (x: unknown, want: number) => finite(x) === undefined || Math.abs((x as number) - want) <= 0.5 + 1e-9;
          const at = `at ${r} chars/token`;
          if (!near(row.source, rs)) hits.push({ message: `source is ${show(row.source)}; should be ${Math.round(rs)} (${m.source} chars ${at})`, target: { path: [...p, 'source'] } });
          if (!near(row.toon, rt)) hits.push({ message: `toon is ${show(row.toon)}; should be ${Math.round(rt)} (${m.toon} chars ${at})`, target: { path: [...p, 'toon'] } });
          if (!near(row.savings, rs - rt)) hits.push({ message: `savings is ${show(row.savings)}; should be ${Math.round(rs - rt)} (unrounded source − toon ${at})`, target: { path: [...p, 'savings'] } });
          const pct = finite(row.savings_pct);
          if (pct !== undefined && !pctAgrees(pct, rawSavingsPct(rs, rt))) {
            hits.push({ message: `savings_pct is ${pct}; should be ${m.pct} (from the unrounded ratio values)`, target: { path: [...p, 'savings_pct'] } });
          }
        });
      }
      return hits;
    },
  },
  {
    ...ruleCode('verdict/candidate-length'),
    rule: 'measured_chars.toon = toon_candidate length (UTF-16 code units) when the candidate is present',
    check({ value }) {
      const c = value.toon_candidate;
      const mc = value.measured_chars;
      if (typeof c !== 'string' || !isObj(mc)) return [];
      const toon = count(mc.toon);
      if (toon === undefined || toon === c.length) return [];
      return [{ message: `measured_chars.toon is ${toon}; should be ${c.length}, the toon_candidate's length`, target: { path: ['measured_chars', 'toon'] } }];
    },
  },
  {
    ...ruleCode('verdict/candidate-decode'),
    rule: 'flags.valid agrees with a strict TOON decode of toon_candidate',
    check({ value }) {
      const c = value.toon_candidate;
      const flags = value.flags;
      if (typeof c !== 'string' || !isObj(flags) || typeof flags.valid !== 'boolean') return [];
      let error: string | undefined;
      try {
        decode(c, { strict: true });
      } catch (e) {
        error = errorMessage(e);
      }
      if (flags.valid && error !== undefined) {
        return [{ message: `flags.valid is true but toon_candidate fails a strict TOON decode: ${firstLine(error)}`, target: { path: ['flags', 'valid'] } }];
      }
      if (!flags.valid && error === undefined) {
        return [{ message: 'flags.valid is false but toon_candidate decodes strictly', target: { path: ['flags', 'valid'] }, severity: 'warning' }];
      }
      return [];
    },
  },
  {
    ...ruleCode('verdict/refused-shape'),
    rule: 'refused ⇒ toon_candidate null and delimiter null; delimiter null ⇒ refused',
    check({ value }) {
      const v = value.verdict;
      if (typeof v !== 'string') return [];
      const hits: RuleHit[] = [];
      if (v === 'refused') {
        if (value.toon_candidate !== null && value.toon_candidate !== undefined) {
          hits.push({ message: 'a refused verdict has no output: toon_candidate should be null', target: { path: ['toon_candidate'] } });
        }
        if (value.delimiter !== null && value.delimiter !== undefined) {
          hits.push({ message: `delimiter is ${show(value.delimiter)}; should be null on a refused verdict`, target: { path: ['delimiter'] } });
        }
      } else if (value.delimiter === null) {
        hits.push({ message: `delimiter is null but verdict is ${v}: only refused verdicts have no delimiter`, target: { path: ['delimiter'] } });
      }
      return hits;
    },
  },
  {
    ...ruleCode('verdict/decision'),
    rule: 'verdict = the decision policy recomputed from the integer counts and the warning codes',
    check({ value, derived }) {
      const d = derived.decision;
      if (!d || typeof value.verdict !== 'string' || value.verdict === d.verdict) return [];
      const because = value.verdict === 'refused' && !derived.refused
        ? `refused needs mode budget and a budget_refused warning; policy: ${d.because}`
        : d.because;
      const hit = mismatch(['verdict'], value.verdict, d.verdict, because);
      // Crossing the refused boundary also changes the shape (toon_candidate, delimiter),
      // which cannot be derived: offer the fix, but not unattended.
      if ((value.verdict === 'refused') !== (d.verdict === 'refused')) for (const f of hit.fixes ?? []) f.fixAll = false;
      // safe_to_auto_apply follows the verdict: the fix corrects it in the same edit, so it leaves no new error.
      const after = derived.safetyAfterDecision;
      if (after && derived.safety && value.safe_to_auto_apply === derived.safety.safe && value.safe_to_auto_apply !== after.safe) {
        for (const f of hit.fixes ?? []) {
          f.edits.push({ path: ['safe_to_auto_apply'], value: after.safe });
          f.title += ` (and safe_to_auto_apply to ${after.safe})`;
        }
      }
      return [hit];
    },
  },
  {
    ...ruleCode('verdict/lossless-flag'),
    rule: 'mode lossless ⇒ flags.lossless; a lossy_applied warning ⇒ not flags.lossless',
    check(doc) {
      const { value } = doc;
      const flags = value.flags;
      if (!isObj(flags) || typeof flags.lossless !== 'boolean') return [];
      if (value.mode === 'lossless' && !flags.lossless) {
        return [{ message: 'flags.lossless is false in mode lossless; should be true', target: { path: ['flags', 'lossless'] } }];
      }
      if (flags.lossless && hasCode(doc, 'lossy_applied')) {
        return [{ message: 'flags.lossless is true with a lossy_applied warning; should be false', target: { path: ['flags', 'lossless'] } }];
      }
      return [];
    },
  },
  {
    ...ruleCode('verdict/target-reached'),
    rule: 'target_not_reached ⇒ target_reached false; target_reached false ⇒ target_not_reached or budget_refused',
    check(doc) {
      const { value } = doc;
      const flags = value.flags;
      if (!isObj(flags)) return [];
      const tr = flags.target_reached;
      if (hasCode(doc, 'target_not_reached') && tr !== false) {
        if (!('target_reached' in flags)) {
          return [{ message: 'flags.target_reached is missing; should be false (a target_not_reached warning is present)', target: { path: ['flags'], part: 'missing', property: 'target_reached' } }];
        }
        return [{ message: `flags.target_reached is ${show(tr)}; should be false (a target_not_reached warning is present)`, target: { path: ['flags', 'target_reached'] } }];
      }
      if (tr === false && !hasCode(doc, 'target_not_reached') && !hasCode(doc, 'budget_refused')) {
        return [{ message: 'flags.target_reached is false without a target_not_reached or budget_refused warning', target: { path: ['flags', 'target_reached'] } }];
      }
      return [];
    },
  },
  {
    ...ruleCode('verdict/unknown-warning-code'),
    rule: 'a warning code outside the v1 registry (tolerated; its recorded severity decides)',
    check({ value }) {
      const hits: RuleHit[] = [];
      // `base` is built only for a finding (a plan has thousands of sections, almost all without one).
      const scan = (ws: unknown, base: () => JsonPath) => {
        if (!Array.isArray(ws)) return;
        for (let i = 0; i < ws.length; i++) {
          const w: unknown = ws[i]; // a hole reads undefined: not an object, skipped
          if (isObj(w) && typeof w.code === 'string' && !Object.prototype.hasOwnProperty.call(WARNING_SEVERITY, w.code)) {
            hits.push({ message: `warning code ${show(w.code)} is not in the v1 registry; its severity ${show(w.severity)} is used`, target: { path: [...base(), i, 'code'] } });
          }
        }
      };
      scan(value.warnings, () => ['warnings']);
      const plan = value.context_plan;
      if (isObj(plan) && Array.isArray(plan.sections)) {
        const sections = plan.sections;
        for (let i = 0; i < sections.length; i++) {
          const s: unknown = sections[i];
          if (isObj(s) && Array.isArray(s.warnings) && s.warnings.length > 0) scan(s.warnings, () => ['context_plan', 'sections', i, 'warnings']);
        }
      }
      return hits;
    },
  },
  {
    ...ruleCode('verdict/schema-version'),
    rule: 'context_plan present ⇔ schema_version ≥ 1.1',
    check({ value }) {
      const sv = value.schema_version;
      const m = typeof sv === 'string' ? /^1\.(\d+)$/.exec(sv) : null;
      if (!m) return [];
      const minor = Number(m[1]);
      const hasPlan = value.context_plan !== undefined && value.context_plan !== null;
      if (hasPlan && minor < 1) {
        return [{ message: `schema_version is ${show(sv)} with a context_plan; plans are "1.1"`, target: { path: ['schema_version'] } }];
      }
      if (!hasPlan && minor >= 1) {
        return [{ message: `schema_version ${show(sv)} without context_plan: add the plan, or use "1.0" (profile and convert responses)`, target: { path: [], part: 'missing', property: 'context_plan' } }];
      }
      return [];
    },
  },
];

/**
 * plan/* rules: the context_plan of a schema 1.1 verdict (docs/engine.md#plan-and-hybrid).
 *
 * Reading of what is not on the wire: sections carry no flags, so a measured section is
 * taken as lossless (plans run in lossless mode) with a valid, present candidate — the
 * section's safety is the whole-document formula with mode lossless, flags true, its own
 * savings and warnings, and its action is convert iff its verdict is convert.
 * reassembly_verified is taken as recorded (it cannot be recomputed without the source).
 */
import type { JsonPath } from '../../types';
import { count, finite, isObj, pctAgrees, type DerivedSection, type Obj } from './verdict/derive';
import { savingsHit, savingsPctHit, savingsBecause } from './verdict/document';
import { mismatch, show, type RuleHit, type VerdictDoc, type VerdictRule } from './verdict/table';
import { ruleCode } from '../../codes';

const SECTIONS: JsonPath = ['context_plan', 'sections'];
const MEASURED_FIELDS = ['profile', 'verdict', 'measured_chars'] as const;

interface Range {
  lineStart?: number;
  lineEnd?: number;
  charStart?: number;
  charEnd?: number;
}

function readRange(r: unknown): Range | undefined {
  if (!isObj(r)) return undefined;
  return { lineStart: count(r.line_start), lineEnd: count(r.line_end), charStart: count(r.char_start), charEnd: count(r.char_end) };
}

function plan(value: Obj): Obj | undefined {
  return isObj(value.context_plan) ? value.context_plan : undefined;
}

/**
 * Each section object with its index and derived fields (sections that are not objects are skipped).
 * The section's path is `sectionPath(i)`, built only for a finding (a plan has thousands of sections).
 */
function eachSection(doc: VerdictDoc, fn: (s: Obj, d: DerivedSection, i: number) => void): void {
  const p = plan(doc.value);
  const derived = doc.derived.plan;
  if (!p || !derived || !Array.isArray(p.sections)) return;
  const sections = p.sections;
  for (let i = 0; i < sections.length; i++) {
    const s = sections[i]; // a hole reads undefined: not an object, skipped
    const d = derived.sections[i];
    if (isObj(s) && d) fn(s, d, i);
  }
}

/** The path of section `i`, with more segments. */
function sectionPath(i: number, ...rest: (string | number)[]): JsonPath {
  return [...SECTIONS, i, ...rest];
}

function heading(s: Obj, i: number): string {
  return typeof s.heading === 'string' ? `section ${i} (${JSON.stringify(s.heading)})` : `section ${i} (${String(s.kind)})`;
}

export const planRules: readonly VerdictRule[] = [
  {
    ...ruleCode('plan/partition'),
    rule: 'section ranges partition [0, net.source) in order, lines contiguous from 1 with line_start ≤ line_end',
    check(doc) {
      const p = plan(doc.value);
      if (!p || !Array.isArray(p.sections)) return [];
      const hits: RuleHit[] = [];
      const netSource = isObj(p.net) ? count(p.net.source) : undefined;
      // The previous section's ends (undefined: unknown), in locals: nothing is allocated per section.
      let prevKnown = true;
      let prevCharEnd: number | undefined = 0;
      let prevLineEnd: number | undefined = 0;
      const sections = p.sections;
      for (let i = 0; i < sections.length; i++) {
        const s = sections[i];
        const range = isObj(s) && isObj(s.range) ? s.range : undefined;
        if (!range) {
          prevKnown = false;
          continue;
        }
        const charStart = count(range.char_start);
        const charEnd = count(range.char_end);
        const lineStart = count(range.line_start);
        const lineEnd = count(range.line_end);
        if (charStart !== undefined && prevKnown && prevCharEnd !== undefined && charStart !== prevCharEnd) {
          const why = i === 0 ? 'the first section starts at 0'
            : `${charStart > prevCharEnd ? 'a gap' : 'an overlap'}: section ${i - 1} ends at ${prevCharEnd}`;
          hits.push({ message: `char_start is ${charStart}; should be ${prevCharEnd} (${why})`, target: { path: sectionPath(i, 'range', 'char_start') } });
        }
        if (charStart !== undefined && charEnd !== undefined && charStart > charEnd) {
          hits.push({ message: `char_end ${charEnd} is before char_start ${charStart}`, target: { path: sectionPath(i, 'range', 'char_end') } });
        }
        if (lineStart !== undefined && prevKnown && prevLineEnd !== undefined && lineStart !== prevLineEnd + 1) {
          hits.push({ message: `line_start is ${lineStart}; should be ${prevLineEnd + 1} (${i === 0 ? 'lines start at 1' : `section ${i - 1} ends on line ${prevLineEnd}`})`, target: { path: sectionPath(i, 'range', 'line_start') } });
        }
        if (lineStart !== undefined && lineEnd !== undefined && lineStart > lineEnd) {
          hits.push({ message: `line_end ${lineEnd} is before line_start ${lineStart}`, target: { path: sectionPath(i, 'range', 'line_end') } });
        }
        prevKnown = true;
        prevCharEnd = charEnd;
        prevLineEnd = lineEnd;
      }
      const last = p.sections.length - 1;
      if (netSource !== undefined) {
        if (last < 0) {
          if (netSource > 0) hits.push({ message: `no sections, but net.source is ${netSource}: the sections must cover the document`, target: { path: SECTIONS } });
        } else {
          const r = isObj(p.sections[last]) ? readRange((p.sections[last] as Obj).range) : undefined;
          if (r?.charEnd !== undefined && r.charEnd !== netSource) {
            hits.push({ message: `the last section's char_end is ${r.charEnd}; should be net.source ${netSource}`, target: { path: [...SECTIONS, last, 'range', 'char_end'] } });
          }
        }
      }
      return hits;
    },
  },
  {
    ...ruleCode('plan/frontmatter-shape'),
    rule: 'frontmatter: profile, verdict, measured_chars null and action keep; other sections: none of them null',
    check(doc) {
      const hits: RuleHit[] = [];
      eachSection(doc, (s, _d, i) => {
        if (s.kind === 'frontmatter') {
          for (const f of MEASURED_FIELDS) {
            if (f in s && s[f] !== null) hits.push({ message: `${f} is ${show(s[f])}; should be null on a frontmatter section (never measured)`, target: { path: sectionPath(i, f) } });
          }
          if (typeof s.action === 'string' && s.action !== 'keep') {
            hits.push({ message: `action is ${show(s.action)}; should be "keep" on a frontmatter section`, target: { path: sectionPath(i, 'action') } });
          }
        } else if (s.kind === 'section' || s.kind === 'preamble') {
          for (const f of MEASURED_FIELDS) {
            if (s[f] === null) hits.push({ message: `${f} is null on a ${s.kind}; only frontmatter is unmeasured`, target: { path: sectionPath(i, f) } });
          }
        }
      });
      return hits;
    },
  },
  {
    ...ruleCode('verdict/decision'),
    rule: "a section's verdict = the decision policy on its standalone measurement (lossless, never refused); the fix also sets action and safe_to_auto_apply where they followed the wrong verdict",
    check(doc) {
      const hits: RuleHit[] = [];
      eachSection(doc, (s, d, i) => {
        if (!d.decision || typeof s.verdict !== 'string' || s.verdict === d.decision.verdict) return;
        const hit = mismatch(sectionPath(i, 'verdict'), s.verdict, d.decision.verdict, d.decision.because, 'verdict');
        // The fields that followed the recorded verdict follow the corrected one in the same edit, so the fix
        // leaves no new finding behind (plan/action and plan/section-safe-to-auto-apply do not report them).
        const follow: { field: string; value: unknown }[] = [];
        if (d.recorded && d.action && s.action === d.recorded.action && s.action !== d.action) follow.push({ field: 'action', value: d.action });
        const safe = s.safe_to_auto_apply;
        if (d.recorded?.safety && d.safety && safe === d.recorded.safety.safe && safe !== d.safety.safe) follow.push({ field: 'safe_to_auto_apply', value: d.safety.safe });
        for (const f of follow.length ? (hit.fixes ?? []) : []) {
          for (const x of follow) f.edits.push({ path: sectionPath(i, x.field), value: x.value });
          f.title += ` (and ${follow.map((x) => `${x.field} to ${show(x.value)}`).join(', ')})`;
        }
        hits.push(hit);
      });
      return hits;
    },
  },
  {
    ...ruleCode('plan/action'),
    rule: 'action convert ⇔ section verdict convert',
    check(doc) {
      const hits: RuleHit[] = [];
      eachSection(doc, (s, d, i) => {
        if (d.frontmatter || !d.actionDerived || !d.action) return;
        if ((s.action === 'convert' || s.action === 'keep') && s.action !== d.action) {
          // It follows the recorded verdict, which is wrong: one defect, reported (and fixed) by verdict/decision.
          if (d.recorded && s.action === d.recorded.action) return;
          hits.push(mismatch(sectionPath(i, 'action'), s.action, d.action, `verdict is ${d.verdict}`, 'action'));
        }
      });
      return hits;
    },
  },
  {
    ...ruleCode('plan/section-arithmetic'),
    rule: 'section measured_chars: source = char_end − char_start, savings = source − toon, savings_pct from them',
    check(doc) {
      const hits: RuleHit[] = [];
      eachSection(doc, (s, d, i) => {
        if (d.frontmatter || !isObj(s.measured_chars)) return;
        const mc = s.measured_chars;
        const range = s.range;
        const src = count(mc.source);
        if (src !== undefined && isObj(range)) {
          const charStart = count(range.char_start);
          const charEnd = count(range.char_end);
          if (charStart !== undefined && charEnd !== undefined && charEnd >= charStart && src !== charEnd - charStart) {
            hits.push({ message: `measured_chars.source is ${src}; should be ${charEnd - charStart}, the slice length (char_end − char_start)`, target: { path: sectionPath(i, 'measured_chars', 'source') } });
          }
        }
        // The base path is built only when there is something to report (savingsHit/savingsPctHit return [] otherwise).
        const m = d.measure;
        if (!m) return;
        const savings = finite(mc.savings);
        const pct = finite(mc.savings_pct);
        if ((savings === undefined || savings === m.savings) && (pct === undefined || pctAgrees(pct, m.rawPct))) return;
        const base = sectionPath(i, 'measured_chars');
        hits.push(...savingsHit(base, mc, m, 'measured_chars.'), ...savingsPctHit(base, mc, m, 'measured_chars.'));
      });
      return hits;
    },
  },
  {
    ...ruleCode('plan/section-safe-to-auto-apply'),
    rule: "a section's safe_to_auto_apply = the whole-document formula on its standalone measurement",
    check(doc) {
      const hits: RuleHit[] = [];
      eachSection(doc, (s, d, i) => {
        if (d.safety && typeof s.safe_to_auto_apply === 'boolean' && s.safe_to_auto_apply !== d.safety.safe) {
          // It follows the recorded verdict, which is wrong: one defect, reported (and fixed) by verdict/decision.
          if (d.recorded?.safety && s.safe_to_auto_apply === d.recorded.safety.safe) return;
          hits.push(mismatch(sectionPath(i, 'safe_to_auto_apply'), s.safe_to_auto_apply, d.safety.safe, d.safety.because, 'safe_to_auto_apply'));
        }
      });
      return hits;
    },
  },
  {
    ...ruleCode('plan/net-arithmetic'),
    rule: 'net.savings = source − hybrid, savings_pct from them; net.source = measured_chars.source; hybrid = source when nothing converts',
    check({ value, derived }) {
      const p = plan(value);
      const dp = derived.plan;
      if (!p || !dp || !isObj(p.net)) return [];
      const net = p.net;
      const base: JsonPath = ['context_plan', 'net'];
      const hits: RuleHit[] = [];
      const m = dp.net;
      if (m) {
        const savings = typeof net.savings === 'number' ? net.savings : undefined;
        if (savings !== undefined && savings !== m.savings) {
          hits.push(mismatch([...base, 'savings'], savings, m.savings, savingsBecause(m, 'hybrid'), 'net.savings'));
        }
        hits.push(...savingsPctHit(base, net, m, 'net.'));
        const docSource = isObj(value.measured_chars) ? count(value.measured_chars.source) : undefined;
        if (docSource !== undefined && docSource !== m.source) {
          hits.push({ message: `net.source is ${m.source}; should be ${docSource}, the document's measured_chars.source`, target: { path: [...base, 'source'] } });
        }
        if (dp.converted === 0 && m.toon !== m.source) {
          hits.push({ message: `net.hybrid is ${m.toon}; should be ${m.source}: no section converts, so the hybrid is the source`, target: { path: [...base, 'hybrid'] } });
        }
      }
      return hits;
    },
  },
  {
    ...ruleCode('plan/recommend-hybrid'),
    rule: 'recommend_hybrid = some section converts ∧ net savings > 0 ∧ unrounded net percent ≥ MIN_CONVERT_SAVINGS_PCT',
    check({ value, derived }) {
      const p = plan(value);
      const dp = derived.plan;
      if (!p || dp?.recommend === undefined || typeof p.recommend_hybrid !== 'boolean' || p.recommend_hybrid === dp.recommend) return [];
      return [mismatch(['context_plan', 'recommend_hybrid'], p.recommend_hybrid, dp.recommend, dp.recommendBecause ?? '')];
    },
  },
  {
    ...ruleCode('plan/safe-to-auto-apply'),
    rule: 'plan safe_to_auto_apply = recommend_hybrid ∧ converted > 0 ∧ every converted section safe ∧ reassembly_verified',
    check({ value, derived }) {
      const p = plan(value);
      const dp = derived.plan;
      if (!p || dp?.safe === undefined || typeof p.safe_to_auto_apply !== 'boolean' || p.safe_to_auto_apply === dp.safe) return [];
      return [mismatch(['context_plan', 'safe_to_auto_apply'], p.safe_to_auto_apply, dp.safe, dp.safeBecause ?? '', 'context_plan.safe_to_auto_apply')];
    },
  },
  {
    ...ruleCode('plan/warning-range'),
    rule: "a section warning's range lies inside its section (whole-document coordinates)",
    check(doc) {
      const hits: RuleHit[] = [];
      eachSection(doc, (s, _d, i) => {
        const ws = s.warnings;
        if (!Array.isArray(ws) || ws.length === 0) return;
        // Most warnings carry no range (negative_savings): the section's range is read only for one that does.
        let sec: Range | undefined | null = null;
        for (let j = 0; j < ws.length; j++) {
          const w = ws[j];
          if (!isObj(w) || !isObj(w.range)) continue;
          if (sec === null) sec = readRange(s.range);
          if (!sec) return;
          const r = readRange(w.range)!;
          const where = `${heading(s, i)}`;
          const target = { path: sectionPath(i, 'warnings', j, 'range') };
          if (r.charStart !== undefined && r.charEnd !== undefined && sec.charStart !== undefined && sec.charEnd !== undefined) {
            if (r.charStart < sec.charStart || r.charEnd > sec.charEnd || r.charStart > r.charEnd) {
              hits.push({ message: `warning chars [${r.charStart}, ${r.charEnd}) lie outside ${where} [${sec.charStart}, ${sec.charEnd})`, target });
              continue;
            }
          }
          if (r.lineStart !== undefined && sec.lineStart !== undefined && sec.lineEnd !== undefined) {
            // The producer writes line_end as the line of the exclusive char_end: a warning that runs
            // to the end of its section may end on the line after the section's last line.
            const endsAtSectionEnd = r.charEnd !== undefined && r.charEnd === sec.charEnd;
            const maxEnd = sec.lineEnd + (endsAtSectionEnd ? 1 : 0);
            const lineEnd = r.lineEnd ?? r.lineStart;
            if (r.lineStart < sec.lineStart || r.lineStart > sec.lineEnd || lineEnd > maxEnd || lineEnd < r.lineStart) {
              hits.push({ message: `warning lines ${r.lineStart}–${lineEnd} lie outside ${where} lines ${sec.lineStart}–${sec.lineEnd}`, target });
            }
          }
        }
      });
      return hits;
    },
  },
];

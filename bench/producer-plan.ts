/**
 * A findings-heavy verdict plan derived from a REAL producer plan (doc2toon 0.4.x output recorded in
 * test/fixtures/corpus/doc2toon): the sections of `realistic/AGENTS.md`'s plan are repeated, each copy
 * shifted to the next stretch of a document made of that many copies (ranges, lines, warning ranges), and
 * the document's and the net's figures scaled, so the repeated plan is consistent (ToonLens finds nothing).
 * Then seeded defects of the kinds a producer bug makes are planted in the copies (a copy not shifted, a
 * section's savings_pct rounded wrong, a verdict without its action, a warning range of the unshifted
 * copy, …): the result has ~1,800 findings spread over the whole document, as a real broken plan would.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CORPUS_DIR } from '../test/paths';
import { Rng } from './prng';

type Obj = Record<string, any>;

export const PRODUCER_PLAN_SOURCE = 'upstream__fixtures__agent-context__realistic__AGENTS.md.plan.json';

const pct = (savings: number, source: number) => (source === 0 ? 0 : Math.round((1000 * savings) / source) / 10);

function scaleMeasure(m: Obj, k: number, toonKey: 'toon' | 'hybrid'): Obj {
  const source = m.source * k;
  const toon = m[toonKey] * k;
  return { ...m, source, [toonKey]: toon, savings: source - toon, savings_pct: pct(source - toon, source) };
}

function shiftRange(r: Obj | undefined, chars: number, lines: number): Obj | undefined {
  if (!r) return r;
  return { line_start: r.line_start + lines, line_end: r.line_end + lines, char_start: r.char_start + chars, char_end: r.char_end + chars };
}

export interface ProducerPlan {
  text: string;
  copies: number;
  sections: number;
  planted: number;
}

/**
 * The plan, printed like the producer prints it (2-space indent), about `targetBytes` long.
 * `defectsPerCopy` 0 gives the consistent plan (for a test that it really has no findings).
 */
export function producerPlanJson(targetBytes: number, seed = 1787, defectsPerCopy = 3.6): ProducerPlan {
  // The size of one more copy, measured (numbers grow a little with the offsets; close enough).
  const one = buildPlan(1, seed, 0).text.length;
  const perCopy = buildPlan(3, seed, 0).text.length / 2 - one / 2;
  return buildPlan(Math.max(1, Math.round((targetBytes - one) / perCopy) + 1), seed, defectsPerCopy);
}

function buildPlan(copies: number, seed: number, defectsPerCopy: number): ProducerPlan {
  const base = JSON.parse(readFileSync(join(CORPUS_DIR, PRODUCER_PLAN_SOURCE), 'utf8')) as Obj;
  const secs = base.context_plan.sections as Obj[];
  const span = base.measured_chars.source as number;
  const lines = secs[secs.length - 1]!.range.line_end as number;
  const r = new Rng(seed);
  const sections: Obj[] = [];
  let planted = 0;
  for (let k = 0; k < copies; k++) {
    const unshifted = defectsPerCopy > 0 && k > 0 && r.chance(0.08);
    const dc = unshifted ? 0 : k * span;
    const dl = unshifted ? 0 : k * lines;
    const copy = secs.map((s) => {
      const c: Obj = { ...s, range: shiftRange(s.range, dc, dl) };
      if (Array.isArray(s.warnings)) c.warnings = s.warnings.map((w: Obj) => (w.range ? { ...w, range: shiftRange(w.range, k * span, k * lines) } : w));
      return c;
    });
    if (unshifted) planted++;
    // Section-level defects: Poisson-ish count per copy, each on a random section of the copy.
    let n = Math.floor(defectsPerCopy - (unshifted ? 1 : 0));
    if (r.next() < defectsPerCopy - (unshifted ? 1 : 0) - n) n++;
    for (let d = 0; d < n; d++) {
      const s = copy[r.int(0, copy.length - 1)]!;
      const mc = s.measured_chars as Obj | null;
      switch (r.int(0, 4)) {
        case 0: // savings_pct rounded the other way
          if (mc) s.measured_chars = { ...mc, savings_pct: Math.round((mc.savings_pct + 0.1) * 10) / 10 };
          break;
        case 1: // savings computed as toon − source
          if (mc) s.measured_chars = { ...mc, savings: -mc.savings };
          break;
        case 2: // the verdict changed, the action not
          s.verdict = s.verdict === 'convert' ? 'keep_markdown' : 'convert';
          break;
        case 3: // safe_to_auto_apply flipped
          s.safe_to_auto_apply = !s.safe_to_auto_apply;
          break;
        default: // a warning range left in the coordinates of the unshifted section
          if (k > 0 && Array.isArray(s.warnings) && s.warnings.some((w: Obj) => w.range)) {
            s.warnings = s.warnings.map((w: Obj) => (w.range ? { ...w, range: shiftRange(w.range, -k * span, -k * lines) } : w));
          } else s.safe_to_auto_apply = !s.safe_to_auto_apply;
      }
      planted++;
    }
    sections.push(...copy);
  }
  const doc: Obj = {
    ...base,
    profile: { ...base.profile, stats: Object.fromEntries(Object.entries(base.profile.stats as Obj).map(([key, v]) => [key, (v as number) * copies])) },
    measured_chars: scaleMeasure(base.measured_chars, copies, 'toon'),
    token_estimates: {
      ...scaleMeasure(base.token_estimates, copies, 'toon'),
      ratio_estimates: (base.token_estimates.ratio_estimates as Obj[]).map((e) => {
        // chars / chars_per_token, rounded, as the producer computes them.
        const source = Math.round((base.measured_chars.source * copies) / e.chars_per_token);
        const toon = Math.round((base.measured_chars.toon * copies) / e.chars_per_token);
        const savings = Math.round((base.measured_chars.source * copies - base.measured_chars.toon * copies) / e.chars_per_token);
        return { ...e, source, toon, savings, savings_pct: pct(base.measured_chars.source - base.measured_chars.toon, base.measured_chars.source) };
      }),
    },
    warnings: (base.warnings as Obj[]).filter((w) => !w.range),
    context_plan: { ...base.context_plan, sections, net: scaleMeasure(base.context_plan.net, copies, 'hybrid') },
  };
  return { text: JSON.stringify(doc, null, 2) + '\n', copies, sections: sections.length, planted };
}

/**
 * The plan of a document: each section's row of `context_plan` read from its standalone measurement, the
 * net figures, and the hybrid document and whole-document verdict built on first read.
 */
import { planSafeToAutoApply, recommendHybrid, rawSavingsPct, roundPct } from './policy';
import { NO_WARNINGS, sliceSourceTokens, type SliceAnalysis } from './analysis';
import { assembleHybrid, joinHybrid } from './plan';
import type { Slice } from './slices';
import { withFields, type ContextPlan, type PlanSection, type VerdictV1 } from './verdict';
import { shiftWarning, type DuplicateFinding, type VerdictWarning } from './warnings';
import type { BlockSummary, EngineOptions, PlanResult, SectionResult, TokenFigures } from './engineTypes';
import type { BlockFence } from './blockConvert';
import { optionsKey, tokenizerOf } from './engineOptions';
import { docDuplicates, docDuplicateSteps, documentVerdict, type DocAnalysis } from './documentVerdict';
import { blocksOf, candidateOf, figuresOf, segmentOf, standaloneSection, verdictOf, type StandaloneSection } from './sectionMeasure';

function shiftVerdict(v: VerdictV1, s: Slice): VerdictV1 {
  if ((s.charStart === 0 && s.lineStart === 1) || !v.warnings.some((w) => w.range)) return v;
  return withFields(v, { warnings: v.warnings.map((w) => shiftWarning(w, s.charStart, s.lineStart - 1)) });
}

/** A section's row of `context_plan.sections`. */
function planRow(x: SectionResult): PlanSection {
  const s = x.slice;
  const range = { line_start: s.lineStart, line_end: s.lineEnd, char_start: s.charStart, char_end: s.charEnd };
  const v = x.verdict;
  if (!v) return { heading: null, kind: 'frontmatter', range, profile: null, verdict: null, action: 'keep', measured_chars: null, warnings: [], safe_to_auto_apply: false };
  return {
    heading: s.kind === 'section' ? x.analysis.headingText ?? s.heading : null,
    kind: s.kind,
    range,
    profile: v.profile.name,
    verdict: v.verdict,
    action: x.action,
    measured_chars: v.measured_chars,
    warnings: v.warnings,
    safe_to_auto_apply: v.safe_to_auto_apply,
  };
}

/**
 * A section of a plan: its slice and analysis, and the standalone section it reads everything else from — the
 * verdict (shifted into document coordinates on first read when it has located warnings), the action, the
 * token figures (counted on first read unless known) and the candidate (rebuilt from the slice text on each
 * read: it is not kept). A class (getters on its prototype) rather than a literal with accessors: such a
 * literal is a dictionary-mode object with a closure per accessor, ten times the size, kept for every
 * section of the plan.
 */
class PlannedSection implements SectionResult {
  constructor(
    readonly slice: Slice,
    readonly analysis: SliceAnalysis,
    private readonly st: StandaloneSection | null,
  ) {}
  /** Whether the record's located warnings are shifted into document coordinates (not at the document's start). */
  private get moved(): boolean {
    const s = this.slice;
    return this.st !== null && this.st.located && !(s.charStart === 0 && s.lineStart === 1);
  }
  /** Built on each read (not kept): in document coordinates, its located warnings shifted to the slice. */
  get verdict(): VerdictV1 | null {
    const st = this.st;
    if (!st) return null;
    const v = verdictOf(this.analysis, st);
    return this.moved ? shiftVerdict(v, this.slice) : v;
  }
  get measurement(): object | null {
    return this.st;
  }
  get candidate(): string | null {
    return this.st ? candidateOf(this.analysis, this.st) : null;
  }
  get blocks(): BlockFence[] | null {
    return this.st ? (blocksOf(this.analysis, this.st)?.blocks ?? null) : null;
  }
  get blockSummary(): BlockSummary | null {
    return this.st?.blockSummary ?? null;
  }
  get action(): 'convert' | 'keep' {
    return this.st ? this.st.action : 'keep';
  }
  get tokens(): TokenFigures | null {
    const st = this.st;
    return st ? figuresOf(this.analysis, st) : null;
  }
  /** The verdict's warnings in document coordinates, without building the verdict (none for frontmatter). */
  get warnings(): VerdictWarning[] {
    const st = this.st;
    if (!st || st.warnings === NO_WARNINGS) return [];
    return this.moved ? st.warnings.map((w) => shiftWarning(w, this.slice.charStart, this.slice.lineStart - 1)) : st.warnings;
  }
  /** Exactly the text Convert writes in place of the slice (the slice text for frontmatter). */
  segment(): string {
    return this.st ? segmentOf(this.analysis, this.st) : this.analysis.raw;
  }
}

/**
 * A section's verdict warnings in document coordinates (what `section.verdict.warnings` holds), read without
 * building the verdict for a section of an engine plan (the diagnostics read every section's).
 */
export function sectionWarnings(s: SectionResult): VerdictWarning[] {
  return s instanceof PlannedSection ? s.warnings : (s.verdict?.warnings ?? []);
}

/**
 * An object that stands for a section's standalone measurement: the same while the slice's text and the
 * options are unchanged, through the position shifts of later plans (what a cache of text made from the
 * verdict can key on: the verdict object itself is built on each read).
 */
export function sectionMeasurement(s: SectionResult): object | null {
  return s instanceof PlannedSection ? s.measurement : s.verdict;
}

export function buildPlan(d: DocAnalysis, opts: EngineOptions, standalones?: readonly (StandaloneSection | undefined)[]): PlanResult {
  const lossOpts: EngineOptions = { ...opts, mode: 'lossless' };
  const sections: SectionResult[] = [];
  const okey = optionsKey(lossOpts);
  const tok = tokenizerOf(lossOpts);
  const memos: (StandaloneSection | undefined)[] = [];
  const slices = d.slices;
  let converted = 0;
  let allSafe = true;
  for (let i = 0; i < slices.length; i++) {
    const s = slices[i]!;
    const a = d.analyses[i]!;
    if (s.kind === 'frontmatter') {
      sections.push(new PlannedSection(s, a, null));
      memos.push(undefined);
      continue;
    }
    const st = standalones?.[i] ?? standaloneSection(a, lossOpts, okey);
    memos.push(st);
    // (position-free figures: read from the standalone verdict, so no section's verdict is shifted for them)
    if (st.action === 'convert') {
      converted++;
      if (!st.safe) allSafe = false;
    }
    const placed = st.section;
    if (placed && placed.slice === s) {
      sections.push(placed);
      continue;
    }
    // The verdict in document coordinates: the standalone one unless it has located warnings, which are shifted
    // when read (the diagnostics read them; lenses, the status bar and a burst of keystrokes whose diagnostics
    // never run do not, so an edit does not copy a verdict per section after it).
    const section = new PlannedSection(s, a, st);
    sections.push(section);
    st.section = section;
    st.row = undefined;
  }
  const assembly = assembleHybrid(
    d.text,
    sections.map((x, i) => {
      const st = memos[i];
      return st?.action === 'convert' ? { slice: x.slice, converted: { length: st.toonChars, ok: st.segmentOk } } : { slice: x.slice };
    }),
  );
  const source = d.text.length;
  const hybridLen = assembly.length;
  const recommend = recommendHybrid(converted, source, hybridLen);
  // The rows are built on first read (the CLI's JSON and the whole-document verdict read them; lenses, the
  // status bar and diagnostics do not), each remembered with its section so an unchanged section's row is reused.
  let rows: PlanSection[] | undefined;
  const rowAt = (x: SectionResult, i: number): PlanSection => {
    const st = memos[i];
    if (st?.section !== x) return planRow(x);
    return (st.row ??= planRow(x));
  };
  const plan: ContextPlan = {
    get sections(): PlanSection[] {
      return (rows ??= sections.map(rowAt));
    },
    net: { source, hybrid: hybridLen, savings: source - hybridLen, savings_pct: roundPct(rawSavingsPct(source, hybridLen)) },
    recommend_hybrid: recommend,
    reassembly_verified: assembly.verified,
    safe_to_auto_apply: planSafeToAutoApply(recommend, converted, allSafe, assembly.verified),
  };
  const countPlan = (): PlanResult['tokens'] => {
    let source = 0;
    let hybrid = 0;
    d.analyses.forEach((a, i) => {
      const n = sliceSourceTokens(a, tok);
      source += n;
      hybrid += memos[i]?.action === 'convert' ? sections[i]!.tokens!.toon : n;
    });
    return { tokenizer: tok.name, estimator: tok.estimator, source, hybrid, savings: source - hybrid };
  };
  let hybrid: string | undefined;
  const isConverted = (i: number) => memos[i]?.action === 'convert';
  const segmentAt = (i: number) => (sections[i] as PlannedSection).segment();
  let planTokens: PlanResult['tokens'] | undefined;
  let verdict: VerdictV1 | undefined;
  let duplicates: DuplicateFinding[] | undefined;
  // The whole-document verdict (its composed candidate, cross-section duplicates) and the hybrid text are
  // built on first read (enumerable accessors, memoized): lenses, diagnostics and the status bar read only
  // the sections and contextPlan, so an edit does not re-compose the whole document for them.
  const result = {
    get verdict(): VerdictV1 {
      return (verdict ??= withFields(documentVerdict(d, lossOpts, false), { schema_version: '1.1', context_plan: plan }));
    },
    contextPlan: plan,
    get hybrid(): string {
      return (hybrid ??= joinHybrid(d.text, slices, isConverted, segmentAt));
    },
    sections,
    tokenizer: tok.name,
    get tokens(): PlanResult['tokens'] {
      return (planTokens ??= countPlan());
    },
    get duplicates(): DuplicateFinding[] {
      return (duplicates ??= docDuplicates(d));
    },
  };
  // Not enumerable: a plan compares (and serializes) by its data, not by a function of its own.
  Object.defineProperty(result, 'duplicateSteps', {
    enumerable: false,
    *value(): Generator<void, DuplicateFinding[], void> {
      if (duplicates === undefined) {
        const found = yield* docDuplicateSteps(d);
        duplicates ??= found;
      }
      return duplicates;
    },
  });
  return result as PlanResult;
}

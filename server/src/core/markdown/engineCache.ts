/**
 * The engine cache: one per open document, planning it incrementally (slice analyses memoized by text and
 * carried by position across edits) and in steps a caller can spread over the event loop.
 */
import { clearTokenMergeCaches } from '../tokens';
import { analysisSteps, analyzeSliceAt, holdsDetail, relocateAnalysis, releaseDetail, textHash, type PreAnalysis, type SliceAnalysis } from './analysis';
import { resliceAfterEdit, sliceDocument, type Slice, type SliceCarry } from './slices';
import type { VerdictV1 } from './verdict';
import { beyondLatin1, compactSlice, latin1Copy } from './text';
import type { DuplicateMemo } from './warnings';
import type { EngineOptions, PlanProgress, PlanResult } from './engineTypes';
import { optionsKey } from './engineOptions';
import { documentVerdict, type DocAnalysis } from './documentVerdict';
import { standaloneSection, standaloneWarmSteps, LARGE_SLICE_CHARS, type StandaloneSection } from './sectionMeasure';
import { buildPlan } from './planBuild';

/** Runs a step generator to its end, synchronously. */
export function runSteps<T>(steps: Generator<unknown, T, void>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * From this document length on, a completed plan empties the tokenizer's merge cache (see clearTokenMergeCaches):
 * a smaller document's words are a few hundred entries, kept for the next document.
 */
export const RELEASE_MERGE_CACHE_CHARS = 256 * 1024;

/** The longest piece a run of all-Latin-1 slices shares when a text is held compactly ({@link EngineCache.compactText}). */
const COMPACT_RUN_CHARS = 256 * 1024;

/** How many slices carried over from the previous slicing a plan's steps pass between two yields. */
const CARRIED_PER_YIELD = 256;
/** A plan analyses and measures its slices in runs of this many (their details are released after each run). */
export const PLAN_RUN = 2048;

/**
 * One slicing of a document's text, with what is known for each slice so far: its analysis and its standalone
 * verdict (for the options `standaloneKey`), carried by position from the previous slicing for the slices the
 * re-slicing kept (see `SliceCarry`), filled in as a plan analyses and measures the others.
 */
interface Slicing {
  text: string;
  slices: Slice[];
  known: (SliceAnalysis | undefined)[];
  standalones: (StandaloneSection | undefined)[];
  standaloneKey: string;
}

/** Slice analyses by the hash of their text: one analysis, or the few whose texts share a hash. */
type SliceMemo = Map<number, SliceAnalysis | SliceAnalysis[]>;

function memoFind(m: SliceMemo, hash: number, ok: (a: SliceAnalysis) => boolean): SliceAnalysis | undefined {
  const b = m.get(hash);
  if (b === undefined) return undefined;
  if (Array.isArray(b)) return b.find(ok);
  return ok(b) ? b : undefined;
}

function memoAdd(m: SliceMemo, a: SliceAnalysis): void {
  const b = m.get(a.hash);
  if (b === undefined) m.set(a.hash, a);
  else if (Array.isArray(b)) {
    if (!b.includes(a)) b.push(a);
  } else if (b !== a) m.set(a.hash, [b, a]);
}

/**
 * The engine for one document: memoizes slice analyses by slice kind + text, so after a
 * one-character edit only the touched slice is parsed, encoded and decoded again.
 *
 * Sized by what the document needs, not by a global cap: a plan keeps exactly the analyses of
 * the slices of the version it measured (a generation), so the cache holds one entry per distinct
 * slice of the document, however large, and drops the rest when the plan completes. Analyses made
 * by a plan that was abandoned half-way (time-sliced, superseded by a newer version) are kept until
 * the next completed plan, which reuses them. An analysis keeps no copy of its slice text: it reads it
 * from the version it was last planned in (each plan points the analyses it uses at its own version, so
 * no old version of the document stays alive through the cache), and the memo is keyed by a hash of the
 * text, a hit confirmed by comparing the texts.
 *
 * `planSteps` is the plan as a generator that yields after every slice, so a caller can spread a
 * large document over many turns of the event loop and stop when the result is no longer wanted.
 */
export class EngineCache {
  /**
   * Analyses of the slices of the last completed plan. Their memo by hash ({@link genMap}) is built on the first
   * lookup after that plan and dropped when the next one completes: an idle document holds no map of its slices
   * (a few hundred bytes per slice), and an edit's first lookup builds one from the hashes
   * the analyses keep (no text is hashed again).
   */
  private genList: readonly SliceAnalysis[] = [];
  private genMemo: SliceMemo | null = null;
  /** Analyses made since (by plans not yet completed, or by profile/convert). */
  private fresh: SliceMemo = new Map();
  /** The last completed plan: its text, options key, result and the document analysis the result reads (lazily: the hybrid, the verdict). */
  private last: { text: string; key: string; result: PlanResult; doc: DocAnalysis } | null = null;
  private readonly duplicateMemo: { last?: DuplicateMemo } = {};
  private prevSlicing: Slicing | null = null;
  /** The rope {@link compactText} last made (so an idle document is not compacted again). */
  private compacted: string | null = null;
  private made = 0;
  private lookups = 0;
  /** A large slice's parse, rules and rule warnings made in steps of their own, for the lookup that follows them (see preAnalyse). */
  private preAnalysed: { slice: Slice; hash: number; pre: PreAnalysis } | null = null;

  /** @param _maxEntries ignored (the cache is sized by the document; kept for callers that still pass a bound). */
  constructor(_maxEntries?: number) {}

  /**
   * Slices of `text`, re-scanning only around the change since the last call, with the analyses known for
   * them: a slice the re-slicing carried over unchanged (before the edit, or after it and shifted) has the
   * analysis its previous self had, found by position, so only the slices around the edit are looked up by
   * their text (hashing a slice's text costs as much as reading it: a lookup of every slice per keystroke
   * would hash the whole document). The returned array is filled in as the slices get analysed.
   */
  private slicesOf(text: string): Slicing {
    const prev = this.prevSlicing;
    if (prev && prev.text === text) return prev;
    let slicing: Slicing;
    if (prev) {
      const carry: SliceCarry = { head: 0, tail: 0, prevTail: 0 };
      const slices = resliceAfterEdit(prev.text, prev.slices, text, carry);
      const known = new Array<SliceAnalysis | undefined>(slices.length);
      const standalones = new Array<StandaloneSection | undefined>(slices.length);
      for (let i = 0; i < carry.head; i++) {
        known[i] = prev.known[i];
        standalones[i] = prev.standalones[i];
      }
      for (let i = carry.tail, j = carry.prevTail; i < slices.length; i++, j++) {
        known[i] = prev.known[j];
        standalones[i] = prev.standalones[j];
      }
      slicing = { text, slices, known, standalones, standaloneKey: prev.standaloneKey };
    } else {
      const slices = sliceDocument(text);
      slicing = { text, slices, known: new Array(slices.length), standalones: new Array(slices.length), standaloneKey: '' };
    }
    this.prevSlicing = slicing;
    return slicing;
  }

  /**
   * The analysis of slice `i`: the one carried with the slicing when it fits, else looked up by text (which
   * forgets the standalone verdict carried with it). Says whether it was carried.
   */
  private analysisAt(next: SliceMemo | null, sl: Slicing, i: number): boolean {
    const s = sl.slices[i]!;
    const headingEnd = s.headingEnd - s.charStart;
    const a = sl.known[i];
    if (a !== undefined && a.kind === s.kind && a.headingEnd === headingEnd && a.length === s.charEnd - s.charStart) {
      // The same text, in this version: read from here on, so the version it was read from can go.
      relocateAnalysis(a, sl.text, s.charStart);
      if (next) memoAdd(next, a);
      return true;
    }
    sl.known[i] = this.lookup(next, sl.text, s);
    sl.standalones[i] = undefined;
    return false;
  }

  /**
   * The analysis of a slice not carried by position: found by the hash of its text (confirmed by comparing the
   * texts: a collision never reuses a wrong analysis), else made, reading its text from this version.
   */
  private lookup(next: SliceMemo | null, text: string, s: Slice): SliceAnalysis {
    this.lookups++;
    const kind = s.kind;
    const headingEnd = s.headingEnd - s.charStart;
    const length = s.charEnd - s.charStart;
    const raw = text.slice(s.charStart, s.charEnd);
    const pre = this.preAnalysed?.slice === s ? this.preAnalysed : null;
    this.preAnalysed = null;
    const hash = pre ? pre.hash : textHash(raw);
    const ok = (a: SliceAnalysis) => a.kind === kind && a.headingEnd === headingEnd && a.length === length && a.raw === raw;
    let a = (next && memoFind(next, hash, ok)) ?? memoFind(this.fresh, hash, ok) ?? memoFind(this.genMap(), hash, ok);
    if (a) relocateAnalysis(a, text, s.charStart);
    else {
      a = analyzeSliceAt(text, s.charStart, length, kind, headingEnd, hash, pre ? pre.pre : undefined);
      this.made++;
      memoAdd(this.fresh, a);
    }
    // The slicer's heading text is almost always the parse's: one string for both (shifted slices copy it).
    if (s.heading !== null && s.heading === a.headingText) s.heading = a.headingText;
    if (next) memoAdd(next, a);
    return a;
  }

  /**
   * Before slice `i` is analysed: when it is a large slice that neither the slicing carried nor a memo holds, its
   * parse, rules and rule warnings in steps of their own ({@link analysisSteps}; the analysis then starts from
   * them), so no plan step parses or analyses a huge section whole. Yields `progress` after each step.
   */
  private *preAnalyse<P>(next: SliceMemo | null, sl: Slicing, i: number, progress: P): Generator<P, void, void> {
    const s = sl.slices[i]!;
    const length = s.charEnd - s.charStart;
    if (length < LARGE_SLICE_CHARS) return;
    const headingEnd = s.headingEnd - s.charStart;
    const a = sl.known[i];
    if (a !== undefined && a.kind === s.kind && a.headingEnd === headingEnd && a.length === length) return;
    const raw = sl.text.slice(s.charStart, s.charEnd);
    const hash = textHash(raw);
    const ok = (m: SliceAnalysis) => m.kind === s.kind && m.headingEnd === headingEnd && m.length === length && m.raw === raw;
    if ((next && memoFind(next, hash, ok)) ?? memoFind(this.fresh, hash, ok) ?? memoFind(this.genMap(), hash, ok)) return;
    yield progress;
    const steps = analysisSteps(raw, s.kind, headingEnd);
    for (;;) {
      const r = steps.next();
      if (r.done) {
        this.preAnalysed = { slice: s, hash, pre: r.value };
        break;
      }
      yield progress;
    }
    yield progress;
  }

  /** The last completed plan's analyses by the hash of their text, built when first needed. */
  private genMap(): SliceMemo {
    if (!this.genMemo) {
      const m: SliceMemo = new Map();
      for (const a of this.genList) memoAdd(m, a);
      this.genMemo = m;
    }
    return this.genMemo;
  }

  private analyzeAll(text: string): DocAnalysis {
    const sl = this.slicesOf(text);
    for (let i = 0; i < sl.slices.length; i++) this.analysisAt(null, sl, i);
    return { text, slices: sl.slices, analyses: sl.known as SliceAnalysis[], duplicateMemo: this.duplicateMemo };
  }

  /**
   * The plan of `text` as steps: one yield after each slice is analysed and after each is
   * measured, then the document-level composition. Returning early (`steps.return()`) leaves the
   * cache consistent and keeps the analyses made so far for the next plan.
   */
  *planSteps(text: string, opts: EngineOptions = {}): Generator<PlanProgress, PlanResult, void> {
    text = String(text ?? '');
    const okey = JSON.stringify(opts);
    if (this.last && this.last.text === text && this.last.key === okey) return this.last.result;
    const sl = this.slicesOf(text);
    const slices = sl.slices;
    const total = 2 * slices.length;
    const next: SliceMemo = new Map();
    // Slices carried over from the previous slicing cost next to nothing: a yield (a turn's deadline check)
    // after each slice that was analysed or measured, and after every CARRIED_PER_YIELD carried ones.
    let carried = 0;
    let done = 0;
    // Each section's standalone verdict (memoized on its analysis, and carried by position with it) is what
    // the plan spends most on.
    const lossOpts: EngineOptions = { ...opts, mode: 'lossless' };
    const key = optionsKey(lossOpts);
    if (sl.standaloneKey !== key) {
      sl.standalones.fill(undefined);
      sl.standaloneKey = key;
    }
    const standalones = sl.standalones;
    // In runs of PLAN_RUN slices: every slice of the run analysed, then every section of it measured, then the
    // run's details (parse, model, candidates: what only the measuring reads) released. Not all slices at once:
    // the details of every section would be held until the plan completed. Not one slice at a time either:
    // alternating the two steps slice by slice makes a cold plan slower (the token
    // counting's lookups in the tokenizer's ranks, run between the parses, ran slower).
    for (let from = 0; from < slices.length; from += PLAN_RUN) {
      const to = Math.min(slices.length, from + PLAN_RUN);
      for (let i = from; i < to; i++) {
        done++;
        yield* this.preAnalyse(next, sl, i, { done, total });
        if (!this.analysisAt(next, sl, i) || ++carried % CARRIED_PER_YIELD === 0) yield { done, total };
      }
      for (let i = from; i < to; i++) {
        done++;
        if (slices[i]!.kind === 'frontmatter' || standalones[i] !== undefined) {
          if (++carried % CARRIED_PER_YIELD === 0) yield { done, total };
          continue;
        }
        // A large section's candidates and counts first, a step each (memoized where the measurement reads them).
        yield* standaloneWarmSteps(sl.known[i]!, lossOpts, key, { done, total });
        // Token figures counted now (the lenses read every section's): the verdicts are plain objects.
        standalones[i] = standaloneSection(sl.known[i]!, lossOpts, key, true);
        yield { done, total };
      }
      if (to < slices.length) for (let i = from; i < to; i++) if (holdsDetail(sl.known[i]!)) releaseDetail(sl.known[i]!);
    }
    const analyses = sl.known as SliceAnalysis[];
    const doc: DocAnalysis = { text, slices, analyses, duplicateMemo: this.duplicateMemo };
    const result = buildPlan(doc, opts, standalones);
    // The generation turns over: the cache now holds exactly this version's slices, each holding only what the
    // plan's readers need (releaseDetail; the slices carried from the last plan were released then).
    for (const a of analyses) if (holdsDetail(a)) releaseDetail(a);
    this.genList = analyses.slice();
    this.genMemo = null;
    this.fresh = new Map();
    this.last = { text, key: okey, result, doc };
    // A large document's words filled the tokenizer's merge cache; the next plan (an edit) counts a section or two.
    if (text.length >= RELEASE_MERGE_CACHE_CHARS) clearTokenMergeCaches();
    return result;
  }

  plan(text: string, opts: EngineOptions = {}): PlanResult {
    return runSteps(this.planSteps(text, opts));
  }

  /**
   * The last completed plan's text, held as the pieces its analyses read: consecutive all-Latin-1 slices share a
   * one-byte piece (up to {@link COMPACT_RUN_CHARS}), a slice with a character beyond Latin-1 gets one of its own
   * ({@link compactSlice}: one byte a character except its lines with such a character); every analysis is
   * pointed at its piece, and the slicing, the plan memo and the plan itself at the rope of them all. Returns that
   * rope (equal to `text`) for the document to hold instead of `text`, so `text` — two bytes a character in V8 as
   * soon as one character is beyond Latin-1 — can be collected; undefined when `text` is not the last plan's or
   * is held as compactly already (all Latin-1, or this rope). A later plan reads it like any text (V8 flattens it
   * when something first scans it whole, as an edit does).
   */
  compactText(text: string): string | undefined {
    const sl = this.prevSlicing;
    const last = this.last;
    if (!sl || !last || sl.text !== text || last.text !== text || sl.text === this.compacted) return undefined;
    const { slices, known } = sl;
    // One scan: which slices have a character beyond Latin-1 (the slices must tile the text, every one analysed).
    const wide = new Uint8Array(slices.length);
    let any = false;
    let end = 0;
    for (let i = 0; i < slices.length; i++) {
      const s = slices[i]!;
      if (s.charStart !== end || !known[i]) return undefined;
      end = s.charEnd;
      if (beyondLatin1(text, s.charStart, s.charEnd)) {
        wide[i] = 1;
        any = true;
      }
    }
    if (end !== text.length || !any) return undefined;
    let rope = '';
    for (let i = 0; i < slices.length; ) {
      const start = slices[i]!.charStart;
      if (wide[i]) {
        const piece = compactSlice(text, start, slices[i]!.charEnd);
        relocateAnalysis(known[i]!, piece, 0);
        rope += piece;
        i++;
        continue;
      }
      let j = i + 1;
      while (j < slices.length && !wide[j] && slices[j]!.charEnd - start <= COMPACT_RUN_CHARS) j++;
      const piece = latin1Copy(text, start, slices[j - 1]!.charEnd);
      for (let k = i; k < j; k++) relocateAnalysis(known[k]!, piece, slices[k]!.charStart - start);
      rope += piece;
      i = j;
    }
    sl.text = rope;
    last.text = rope;
    last.doc.text = rope;
    this.compacted = rope;
    return rope;
  }

  profile(text: string, opts: EngineOptions = {}): VerdictV1 {
    return documentVerdict(this.analyzeAll(String(text ?? '')), { ...opts, mode: 'lossless' }, false);
  }

  convert(text: string, opts: EngineOptions = {}): VerdictV1 {
    return documentVerdict(this.analyzeAll(String(text ?? '')), opts, true);
  }

  /** Slices analysed by this cache so far (each miss of the slice memo; tests observe incremental re-analysis). */
  get analysed(): number {
    return this.made;
  }

  /** Slices looked up by their text so far (those not carried over by position from the previous slicing). */
  get lookedUp(): number {
    return this.lookups;
  }

  /** Slice analyses held (the last plan's slices, plus any made since). */
  get size(): number {
    const all = new Set<SliceAnalysis>();
    for (const a of this.genList) all.add(a);
    for (const b of this.fresh.values()) for (const a of Array.isArray(b) ? b : [b]) all.add(a);
    return all.size;
  }
}

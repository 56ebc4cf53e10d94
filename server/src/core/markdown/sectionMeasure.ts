/**
 * A section's standalone measurement: the lossless verdict of one slice on its own, measured on the segment
 * Convert writes in its place, kept as one compact record per section ({@link StandaloneSection}) from which
 * the verdict, the token figures, the candidate and the segment are rebuilt when read.
 */
import { sectionAction, type Verdict } from './policy';
import type { Tokenizer } from '../tokens';
import { bodyCandidatesOf, NO_WARNINGS, sliceSourceTokens, type SliceAnalysis } from './analysis';
import { delimitersFor, type DelimiterChar } from './candidate';
import { convertedSegment, segmentChecks, sliceEol } from './plan';
import { buildVerdict, tokensSettled, verdictLiteral, NEGATIVE_SAVINGS, type PlanSection, type SourceType, type VerdictV1 } from './verdict';
import type { VerdictWarning } from './warnings';
import { measureChars, tokenEstimates } from './measure';
import type { BlockSummary, EngineOptions, SectionResult, TokenFigures } from './engineTypes';
import { blockConversion, blockSegmentChecks, type BlockConversion, type BlockFence, type BlockOptions } from './blockConvert';
import { parseSlice } from './blocks';
import { MARKDOWN_ONLY_CODE } from './rules/markdownOnly';
import { minTokenSavingsOf, minTokenSavingsPctOf, optionsKey, ratiosOf, tokenizerOf } from './engineOptions';

/** What every section measured with one set of options shares: the tokenizer, the ratios, the source type. */
interface VerdictContext {
  tok: Tokenizer;
  ratios: readonly number[];
  sourceType: SourceType;
  /** What block conversion reads: the tokenizer, the delimiters and the token floor. */
  blockOptions: BlockOptions;
}

const contexts = new Map<string, VerdictContext>();

/** The shared context of an options key (a handful exist per process). */
function contextOf(key: string, opts: EngineOptions): VerdictContext {
  let c = contexts.get(key);
  if (!c) {
    if (contexts.size >= 32) contexts.clear();
    const tok = tokenizerOf(opts);
    const blockOptions = { tok, delims: delimitersFor(opts.delimiter), minTokens: minTokenSavingsOf(opts), minPct: minTokenSavingsPctOf(opts) };
    contexts.set(key, (c = { tok, ratios: ratiosOf(opts), sourceType: opts.sourceType ?? 'markdown', blockOptions }));
  }
  return c;
}

const VERDICTS: readonly Verdict[] = ['convert', 'keep_markdown', 'split_first', 'review', 'refused'];
const DELIMITERS: readonly (DelimiterChar | null)[] = [null, ',', '\t', '|'];
// The record's small fields, packed into one small integer: verdict (3 bits), delimiter (2), and five flags.
const DELIM_SHIFT = 3;
const SAFE = 1 << 5;
const VALID = 1 << 6;
const LOCATED = 1 << 7;
const CONVERT = 1 << 8;
const SEGMENT_OK = 1 << 9;
const BLOCKS = 1 << 10;

/** What a record made with tokens counted on first read keeps (the CLI's planDocument: a `plan --json` never counts them). */
interface LazyVerdict {
  full: VerdictV1;
  /** `full`'s token figures, once read. */
  figures: TokenFigures | undefined;
}

/**
 * A slice's standalone lossless measurement, as one compact record: what lenses, diagnostics, the status bar
 * and the next edit read for every section (verdict code, safety, validity, the segment's length, token counts,
 * warnings where there are any). The verdict.v1 object is built from it (and the analysis) when read, and not
 * kept ({@link verdictOf}); so are the candidate and the segment Convert writes ({@link candidateOf},
 * {@link segmentOf}): pure functions of the slice text. One stays per section of every open document: the
 * verdict code, the delimiter and the flags are one packed integer, and the slice's own token count is its
 * analysis's.
 */
export class StandaloneSection {
  private readonly bits: number;
  /**
   * What the last plan built for this section at one slice object: a later plan whose slicing kept that very
   * object (the slices before an edit) reuses the section and its row instead of building them again.
   */
  section: SectionResult | undefined = undefined;
  row: PlanSection | undefined = undefined;

  constructor(
    readonly ctx: VerdictContext,
    /** The verdict object itself, for verdicts whose tokens are counted on first read (the CLI's planDocument). */
    readonly lazy: LazyVerdict | null,
    verdict: Verdict,
    safe: boolean,
    valid: boolean,
    /** The delimiter of the section's best body candidate; null when nothing encodes (the verdict then says `,`). */
    delimiter: DelimiterChar | null,
    /** The segment's length (measured_chars.toon). */
    readonly toonChars: number,
    /** The segment's token count (-1 when `lazy` counts it on first read). */
    readonly toonTokens: number,
    /** The verdict's warnings (slice-relative, sorted); shared arrays for most sections (see compactWarnings). */
    readonly warnings: VerdictWarning[],
    /** Whether a warning has a range (which a section elsewhere than the document's start shifts). */
    located: boolean,
    /** The section's action in a plan (the same at every position). */
    action: 'convert' | 'keep',
    /** The segment's check (see segmentChecks), made when it was built for a converted section. */
    segmentOk: boolean,
    /** Whether the section converts by block (its tables and lists fenced, the prose kept). */
    byBlocks: boolean,
    /** The tables and lists it fences, when it converts by block. */
    readonly blockSummary: BlockSummary | null = null,
  ) {
    this.bits =
      VERDICTS.indexOf(verdict) |
      (DELIMITERS.indexOf(delimiter) << DELIM_SHIFT) |
      (safe ? SAFE : 0) |
      (valid ? VALID : 0) |
      (located ? LOCATED : 0) |
      (action === 'convert' ? CONVERT : 0) |
      (segmentOk ? SEGMENT_OK : 0) |
      (byBlocks ? BLOCKS : 0);
  }
  get byBlocks(): boolean {
    return (this.bits & BLOCKS) !== 0;
  }
  get verdict(): Verdict {
    return VERDICTS[this.bits & 7]!;
  }
  get delimiter(): DelimiterChar | null {
    return DELIMITERS[(this.bits >> DELIM_SHIFT) & 3]!;
  }
  get safe(): boolean {
    return (this.bits & SAFE) !== 0;
  }
  get valid(): boolean {
    return (this.bits & VALID) !== 0;
  }
  get located(): boolean {
    return (this.bits & LOCATED) !== 0;
  }
  get action(): 'convert' | 'keep' {
    return this.bits & CONVERT ? 'convert' : 'keep';
  }
  get segmentOk(): boolean {
    return (this.bits & SEGMENT_OK) !== 0;
  }
}

/** Equal element by element. */
function sameElements<T>(x: readonly T[], y: readonly T[]): boolean {
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** A verdict's sorted warnings as a record keeps them: the shared empty array, or the analysis's own array when it is the same list. */
function compactWarnings(ws: VerdictWarning[], a: SliceAnalysis): VerdictWarning[] {
  if (ws.length === 0) return NO_WARNINGS;
  if (ws.length === 1 && ws[0] === NEGATIVE_SAVINGS) return ONLY_NEGATIVE_SAVINGS;
  if (sameElements(ws, a.ownWarnings)) return a.ownWarnings;
  if (sameElements(ws, a.localDuplicates)) return a.localDuplicates;
  return ws;
}

/**
 * The warnings of a section whose only warning is that TOON is larger (most sections of real markdown that keep
 * markdown: 4,968 of the 5,904 of the bench's corpus document), shared by their records. Never written: verdicts
 * built from a record get a copy of it ({@link verdictOf}).
 */
const ONLY_NEGATIVE_SAVINGS: VerdictWarning[] = [NEGATIVE_SAVINGS];

/** A record's warnings as a verdict may hold them: the shared arrays copied. */
function ownedWarnings(ws: VerdictWarning[]): VerdictWarning[] {
  return ws === NO_WARNINGS ? [] : ws === ONLY_NEGATIVE_SAVINGS ? [NEGATIVE_SAVINGS] : ws;
}

/** The section's standalone verdict.v1 (slice-relative warnings), built from its record: the same fields, in the same order. */
export function verdictOf(a: SliceAnalysis, st: StandaloneSection): VerdictV1 {
  if (st.lazy) return st.lazy.full;
  const c = st.ctx;
  return verdictLiteral(
    {
      schema_version: '1.0',
      verdict: st.verdict,
      safe_to_auto_apply: st.safe,
      profile: { name: a.profile, title: a.title, source_type: c.sourceType, stats: a.stats },
      measured_chars: measureChars(a.length, st.toonChars),
      toon_candidate: null,
      warnings: ownedWarnings(st.warnings),
      flags: { lossless: true, valid: st.valid, target_reached: null },
      mode: 'lossless',
      delimiter: st.delimiter ?? ',',
    },
    tokenEstimates(a.sourceTokens(c.tok), st.toonTokens, a.length, st.toonChars, c.ratios, c.tok.estimator),
  );
}

/** The section's token figures: its markdown against the segment Convert writes. */
export function figuresOf(a: SliceAnalysis, st: StandaloneSection): TokenFigures {
  const tok = st.ctx.tok;
  const lazy = st.lazy;
  if (lazy) return (lazy.figures ??= tokenFigures(lazy.full, tok));
  const source = a.sourceTokens(tok);
  return { tokenizer: tok.name, estimator: tok.estimator, source, toon: st.toonTokens, savings: source - st.toonTokens };
}

/** The section's TOON candidate, rebuilt from the slice text (null when nothing encodes). */
export function candidateOf(a: SliceAnalysis, st: StandaloneSection): string | null {
  return st.delimiter === null ? null : bodyCandidatesOf(a).text(st.delimiter);
}

/** The block conversion of a section that converts by block, rebuilt from the slice text (the same as measured). */
export function blocksOf(a: SliceAnalysis, st: StandaloneSection): BlockConversion | null {
  if (!st.byBlocks || a.kind === 'frontmatter') return null;
  return blockConversion(a.raw, parseSlice(a.raw, a.kind === 'section'), st.ctx.blockOptions);
}

/** Exactly the text Convert writes in place of the slice (what measured_chars.toon counts), rebuilt from the slice text. */
export function segmentOf(a: SliceAnalysis, st: StandaloneSection): string {
  if (st.byBlocks) return blocksOf(a, st)?.segment ?? a.raw;
  const c = candidateOf(a, st);
  return c === null ? a.raw : convertedSegment(a.raw, a.headingEnd, c);
}

/** Extra characters CRLF line ends add to `t` beyond those they add to `ref` (0 in LF documents). */
function eolExtra(raw: string, t: string, ref: string): number {
  if (sliceEol(raw) !== '\r\n' || t === ref) return 0;
  let n = 0;
  for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) n++;
  for (let i = ref.indexOf('\n'); i >= 0; i = ref.indexOf('\n', i + 1)) n--;
  return n;
}

/**
 * A section's best body candidate: valid before invalid; among valid ones the fewest real tokens of the segment
 * Convert would write (with a real tokenizer) or characters (estimate), ties in delimiter order (comma first).
 * Null when nothing encodes. When tokens decided, the winner's segment and its token count come with it (the
 * verdict's token figures are that count: the segment is not tokenized twice).
 */
function bestSectionCandidate(a: SliceAnalysis, delims: readonly DelimiterChar[], tok: Tokenizer): { text: string; delimiter: DelimiterChar; valid: boolean; segment?: string; segmentTokens?: number } | null {
  const set = a.bodyCandidates;
  const encoded = delims.map((d) => ({ d, t: set.text(d) })).filter((x): x is { d: DelimiterChar; t: string } => x.t !== null);
  if (encoded.length === 0) return null;
  // Tokens are counted only where they can change the answer: the encodings differ and one of them, written
  // as the segment, saves characters (else the verdict is keep_markdown whatever the tokens: the shortest stands).
  // (The segment adds the same heading, fences and line ends to every encoding: one segment gives the overhead.)
  const differ = encoded.some((e) => e.t !== encoded[0]!.t);
  const first = differ && tok.real ? convertedSegment(a.raw, a.headingEnd, encoded[0]!.t) : undefined;
  const overhead = first !== undefined ? first.length - encoded[0]!.t.length : 0;
  const byTokens = first !== undefined && encoded.some((e) => e.t.length + overhead + eolExtra(a.raw, e.t, encoded[0]!.t) < a.raw.length);
  const ranked = encoded
    .map((e, i) => {
      if (!byTokens) return { ...e, cost: e.t.length, segment: undefined };
      const segment = i === 0 ? first! : convertedSegment(a.raw, a.headingEnd, e.t);
      return { ...e, cost: tok.count(segment), segment };
    })
    .sort((x, y) => x.cost - y.cost || delims.indexOf(x.d) - delims.indexOf(y.d));
  const pick = ranked.find((e) => set.valid(e.d));
  const e = pick ?? ranked[0]!;
  return { text: e.t, delimiter: e.d, valid: pick !== undefined, ...(e.segment !== undefined ? { segment: e.segment, segmentTokens: e.cost } : {}) };
}

function summaryOf(blocks: readonly BlockFence[]): BlockSummary {
  const tables = blocks.filter((b) => b.kind === 't').length;
  return { tables, lists: blocks.length - tables };
}

/** A section's block conversion, when it has a table or list beside other blocks (one block alone is its whole body). */
function sectionBlocks(a: SliceAnalysis, o: BlockOptions): BlockConversion | null {
  if (a.kind === 'frontmatter') return null;
  const parsed = a.parsed;
  if (!parsed || parsed.blocks.length < 2 || !parsed.blocks.some((b) => b.kind === 't' || b.kind === 'l' || b.kind === 'o' || b.kind === 'd')) return null;
  return blockConversion(a.raw, parsed, o);
}

/** From this slice length on, the plan fills a slice's parse, candidates and counts a step each, not in one step. */
export const LARGE_SLICE_CHARS = 64 * 1024;

/**
 * What {@link standaloneSection} reads of a large slice, made a step each before it runs (each kept where it
 * reads it: the slice's token count, each delimiter's encoding and the decode check of the shortest), so that
 * measuring one huge section is several steps of a time-sliced plan, not one. Yields `progress`; nothing for a
 * smaller slice or one measured already. The measurement is the same either way.
 */
export function* standaloneWarmSteps<P>(a: SliceAnalysis, opts: EngineOptions, key: string, progress: P): Generator<P, void, void> {
  if (a.length < LARGE_SLICE_CHARS || a.kind === 'frontmatter' || a.measurement(key) !== undefined) return;
  const tok = tokenizerOf(opts);
  sliceSourceTokens(a, tok);
  yield progress;
  const set = a.bodyCandidates;
  let shortest: { d: DelimiterChar; n: number } | null = null;
  for (const d of contextOf(key, opts).blockOptions.delims) {
    const t = set.text(d);
    if (t !== null && (shortest === null || t.length < shortest.n)) shortest = { d, n: t.length };
    yield progress;
  }
  if (shortest) {
    const check = set.validSteps(shortest.d);
    while (!check.next().done) yield progress;
    yield progress;
  }
}

/**
 * A slice's standalone lossless verdict (slice-relative warnings), memoized on its analysis. What it measures
 * is the segment Convert writes (kept heading line, fence lines, TOON, closing fence, the slice's line ends),
 * so `measured_chars.savings` is exactly the change in the document's length.
 */
export function standaloneSection(a: SliceAnalysis, opts: EngineOptions, key = optionsKey(opts), eagerTokens = false): StandaloneSection {
  const memo = a.measurement(key) as StandaloneSection | undefined;
  if (memo) return memo;
  const tok = tokenizerOf(opts);
  const ctx = contextOf(key, opts);
  const best = bestSectionCandidate(a, ctx.blockOptions.delims, tok);
  // Nothing encodes: the slice itself stands in (savings 0, never converts).
  const raw = a.raw;
  const whole = best ? (best.segment ?? convertedSegment(raw, a.headingEnd, best.text)) : raw;
  let segment = whole;
  let segmentTokens = best?.segmentTokens;
  let warnings = [...a.localDuplicates, ...a.ownWarnings];
  let valid = best?.valid ?? false;
  let delimiter = best?.delimiter ?? ',';
  // Block conversion (real tokenizers only: the estimate keeps the producer's policy byte for byte): chosen when
  // its segment has fewer real tokens than the whole body's, or the whole body cannot be written readably.
  const blocks = tok.real ? sectionBlocks(a, ctx.blockOptions) : null;
  if (blocks) {
    const readable = valid && !a.ownWarnings.some((w) => w.code === MARKDOWN_ONLY_CODE);
    const wholeTokens = readable ? (segmentTokens ??= tok.count(whole)) : Infinity;
    const blockTokens = tok.count(blocks.segment);
    if (blockTokens < wholeTokens) {
      segment = blocks.segment;
      segmentTokens = blockTokens;
      valid = true;
      delimiter = blocks.blocks[0]!.delimiter;
      // The blocks a fence would not keep readable stay markdown: the section itself is not kept for them.
      warnings = warnings.filter((w) => w.code !== MARKDOWN_ONLY_CODE);
    }
  }
  const byBlocks = blocks !== null && segment === blocks.segment;
  const verdict = buildVerdict({
    schemaVersion: '1.0',
    profile: { name: a.profile, title: a.title, source_type: opts.sourceType ?? 'markdown', stats: a.stats },
    sourceChars: a.length,
    sourceTokens: () => sliceSourceTokens(a, tok),
    candidateChars: segment.length,
    candidateText: () => segment,
    // Counted once: the token gate and the verdict's figures both ask; the segment itself is not kept.
    candidateTokens: () => (segmentTokens ??= tok.count(segment)),
    valid,
    delimiter,
    warnings,
    mode: 'lossless',
    lossless: true,
    targetReached: null,
    refused: false,
    // The measured text is the segment, not a TOON document: the candidate travels beside the verdict.
    includeCandidate: false,
    ratios: ratiosOf(opts),
    tokenizer: tok,
    minTokenSavings: minTokenSavingsOf(opts),
    minTokenSavingsPct: minTokenSavingsPctOf(opts),
    eagerTokens,
  });
  const action = sectionAction(verdict.verdict, verdict.flags.valid, best !== null || byBlocks);
  // A converted segment's check is made now, while the segment is at hand (the hybrid's verification reads it).
  const segmentOk = action === 'convert' && (byBlocks ? blockSegmentChecks(raw, blocks!) && segment.startsWith(raw.slice(0, a.headingEnd)) : best !== null && segmentChecks(raw, a.headingEnd, segment, best.text));
  // Counted already (eagerTokens): the record holds the figures and the verdict object goes.
  const settled = tokensSettled(verdict);
  const te = settled ? verdict.token_estimates : null;
  const r = new StandaloneSection(
    ctx,
    settled ? null : { full: verdict, figures: undefined },
    verdict.verdict,
    verdict.safe_to_auto_apply,
    verdict.flags.valid,
    best ? best.delimiter : null,
    segment.length,
    te ? te.toon : -1,
    compactWarnings(verdict.warnings, a),
    verdict.warnings.some((w) => w.range),
    action,
    segmentOk,
    byBlocks,
    byBlocks ? summaryOf(blocks!.blocks) : null,
  );
  a.remember(key, r);
  return r;
}

/** Token figures of a section verdict (reads its lazy token_estimates). */
function tokenFigures(v: VerdictV1, tok: Tokenizer): TokenFigures {
  const te = v.token_estimates;
  return { tokenizer: tok.name, estimator: te.estimator, source: te.source, toon: te.toon, savings: te.savings };
}

/**
 * The verdict engine facade (verdict-engine.md): markdown → slices → models → TOON
 * candidates → verdict.v1, plus the per-section context plan and its hybrid.
 *
 * Everything is computed per slice and composed: a document's model is its slices'
 * models merged, its TOON encoding is the slices' encodings joined (TOON encodes each
 * root key independently; a property test checks the composition against `encode`),
 * so `EngineCache` re-measures only the slices an edit touched.
 */
import { decode, encode } from '@toon-format/toon';
import { DEFAULT_MIN_TOKEN_SAVINGS, DEFAULT_MIN_TOKEN_SAVINGS_PCT, planSafeToAutoApply, recommendHybrid, rawSavingsPct, roundPct, sectionAction, type Verdict } from './policy';
import { clearTokenMergeCaches, tokenizer, type Tokenizer, type TokenizerName } from '../tokens';
import { analyzeSliceAt, bodyCandidatesOf, holdsDetail, NO_WARNINGS, relocateAnalysis, releaseDetail, sliceToonFenceDiagnostics, countTokens, derivedModel, sliceSourceTokens, textHash, type SliceAnalysis } from './analysis';
import { decodesTo, delimitersFor, type CandidateSet, type DelimiterChar } from './candidate';
import { coverageRatio } from './coverage';
import { isSliceModel, renderBody, renderModel, type JsonObject, type JsonValue } from './model';
import { assembleHybrid, convertedSegment, joinHybrid, segmentChecks, sliceEol } from './plan';
import { profileName, addStats, emptyStats } from './stats';
import { resliceAfterEdit, sliceDocument, type Slice, type SliceCarry } from './slices';
import {
  buildVerdict,
  tokensSettled,
  withFields,
  verdictLiteral,
  lowCoverageWarning,
  LOSSY_APPLIED,
  NEGATIVE_SAVINGS,
  LOW_COVERAGE_THRESHOLD,
  type ContextPlan,
  type EngineMode,
  type PlanSection,
  type SourceType,
  type VerdictProfile,
  type VerdictV1,
} from './verdict';
import { beyondLatin1, compactSlice, latin1Copy } from './text';
import { duplicateFinding, duplicateRuleWarning, findDuplicates, shiftWarning, type DuplicateFinding, type DuplicateMemo, type VerdictWarning } from './warnings';
import { DEFAULT_CHARS_PER_TOKEN, measureChars, tokenEstimates } from './measure';
import type { CoreDiagnostic } from '../types';

export type { EngineMode, VerdictV1, VerdictWarning, Slice, ContextPlan, PlanSection };
export { sliceDocument };

export interface EngineOptions {
  mode?: EngineMode;
  delimiter?: 'auto' | 'comma' | 'tab' | 'pipe';
  targetChars?: number;
  targetTokens?: number;
  allowLossy?: boolean;
  sourceType?: SourceType;
  charsPerToken?: number[];
  /** Token counter: `o200k_base` (default), `cl100k_base`, or `estimate` (tokenx; turns the token gate off). */
  tokenizer?: TokenizerName;
  /** The token gate: a candidate saving fewer real tokens than this gets token_regression (default 1). */
  minTokenSavings?: number;
  /**
   * The token floor: a candidate saving under this percentage of its section's real tokens gets token_regression
   * too (default 5; 0 turns it off). Like the gate, only with a real tokenizer.
   */
  minTokenSavingsPct?: number;
}

/** Real token figures of one converted-or-not section, with the tokenizer that counted them. */
export interface TokenFigures {
  tokenizer: TokenizerName;
  /** `token_estimates.estimator`, e.g. `gpt-tokenizer@4.0.0:o200k_base`. */
  estimator: string;
  source: number;
  toon: number;
  savings: number;
}

export interface SectionResult {
  slice: Slice;
  /** The slice's standalone lossless verdict (warnings in whole-document coordinates); null for frontmatter. */
  verdict: VerdictV1 | null;
  /** The standalone TOON candidate (also when the action is keep); null for frontmatter. */
  candidate: string | null;
  action: 'convert' | 'keep';
  /** The section's tokens: its markdown against the segment Convert writes (computed on first read); null for frontmatter. */
  tokens: TokenFigures | null;
  /** The slice's analysis (memoized per slice text; what per-slice features such as fence checks reuse). */
  analysis: SliceAnalysis;
}

export interface PlanResult {
  /** Schema 1.1: the whole document's profile response with `context_plan` appended (built on first read). */
  readonly verdict: VerdictV1;
  /** `verdict.context_plan`, without building the whole-document verdict. */
  contextPlan: ContextPlan;
  readonly hybrid: string;
  sections: SectionResult[];
  /** The tokenizer every token figure of this plan was counted with. */
  tokenizer: TokenizerName;
  /** The document's tokens against the hybrid's (source − Σ savings of the converted sections), computed on first read. */
  tokens: { tokenizer: TokenizerName; estimator: string; source: number; hybrid: number; savings: number };
  /** Repeated rules across the whole text, each with the earlier one it repeats (the diagnostics' duplicate-rule), computed on first read. */
  readonly duplicates: DuplicateFinding[];
}

type Analyze = (text: string, s: Slice) => SliceAnalysis;

const freshAnalyze: Analyze = (text, s) => analyzeSliceAt(text, s.charStart, s.charEnd - s.charStart, s.kind, s.headingEnd - s.charStart);

interface DocAnalysis {
  text: string;
  slices: Slice[];
  analyses: SliceAnalysis[];
  /** The cache's memo for document-level duplicate detection, when there is a cache. */
  duplicateMemo?: { last?: DuplicateMemo };
}

function analyzeDocument(text: string, analyze: Analyze, duplicateMemo?: { last?: DuplicateMemo }, slices: Slice[] = sliceDocument(text)): DocAnalysis {
  const analyses = slices.map((s) => analyze(text, s));
  return { text, slices, analyses, duplicateMemo };
}

/** Slices that contribute to the document model (a preamble of blank lines does not). */
function modelEntries(d: DocAnalysis): SliceAnalysis[] {
  return d.analyses.filter((a) => !(a.kind === 'preamble' && a.emptyBody));
}

/**
 * The document candidate for one delimiter, composed from per-slice encodings:
 * distinct keys → the object form (slice encodings joined by newlines); repeated
 * headings → the array form (`[N]:` and each slice as a list item).
 */
interface Composed {
  length: number;
  text: () => string;
  valid: () => boolean;
}

/**
 * The document candidate for one delimiter, composed from per-slice encodings:
 * distinct keys → the object form (slice encodings joined by newlines); repeated
 * headings → the array form (`[N]:` and each slice as a list item). The length is
 * known without building the text, so plans (which never show the document
 * candidate) do not join a megabyte of strings on every keystroke.
 */
function composeCandidate(sets: CandidateSet[], unique: boolean, d: DelimiterChar): Composed | null {
  if (sets.length >= 2 && unique && sets.every((s) => isPlainNonEmptyObject(Object.values(s.model as JsonObject)[0]))) {
    // TOON encodes a root object whose values are all uniform objects as a keyed table, so the
    // slices' encodings do not compose: encode the document model directly.
    const model: JsonObject = {};
    for (const s of sets) Object.assign(model, s.model as JsonObject);
    let text: string;
    try {
      text = encode(model, { delimiter: d });
    } catch {
      return null;
    }
    return { length: text.length, text: () => text, valid: () => decodesTo(text, JSON.stringify(model)) };
  }
  let length = 0;
  for (const s of sets) {
    const t = s.text(d);
    if (t === null) return null;
    length += t.length;
  }
  // Each slice's encoding decodes to its own model, and root keys encode independently.
  const valid = () => sets.every((s) => s.valid(d));
  if (unique) {
    length += Math.max(0, sets.length - 1);
    return { length, text: () => sets.map((s) => s.text(d)!).join('\n'), valid };
  }
  const header = `[${sets.length}${d === ',' ? '' : d}]:`;
  // Per slice: a newline, "  - " before its first line, four spaces before every other line.
  for (const s of sets) length += 1 + 4 + 4 * s.lineBreaks(d);
  length += header.length;
  const text = () => {
    const items = sets.map((s) => {
      const [first, ...rest] = s.text(d)!.split('\n');
      return ['  - ' + first, ...rest.map((l) => '    ' + l)].join('\n');
    });
    return [header, ...items].join('\n');
  };
  return { length, text, valid };
}

function isPlainNonEmptyObject(v: JsonValue | undefined): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
}

interface DocCandidate {
  length: number;
  text: () => string;
  delimiter: DelimiterChar;
  valid: boolean;
  tokens: () => number;
}

/**
 * The shortest valid document candidate. When nothing encodes (TOON refuses unpaired
 * surrogates), the source itself stands in with valid false: savings 0, so it never converts.
 */
/** `warnings` plus low_coverage when the candidate keeps too little of the source's letters and digits. */
function withCoverage(warnings: VerdictWarning[], sourceAlnum: number, keptAlnum: number): VerdictWarning[] {
  const cov = coverageRatio(sourceAlnum, keptAlnum);
  if (cov !== null && cov < LOW_COVERAGE_THRESHOLD) warnings.push(lowCoverageWarning(cov));
  return warnings;
}

/** The verdict fields a document candidate decides. */
function candidateFields(c: DocCandidate) {
  return { candidateChars: c.length, candidateText: c.text, candidateTokens: c.tokens, valid: c.valid, delimiter: c.delimiter };
}

function bestDocCandidate(entries: SliceAnalysis[], sets: CandidateSet[], delims: DelimiterChar[], source: string, tok: Tokenizer): DocCandidate {
  const unique = new Set(entries.map((a) => a.key)).size === entries.length;
  // Token counts are summed per slice (memoized with the slice; the line breaks joining slices are not counted).
  const tokensOf = (d: DelimiterChar) => () => entries.reduce((n, a, i) => n + countTokens(a, tok, sets[i]!.text(d) ?? ''), 0);
  // Real tokens decide with a real tokenizer, lengths with the estimate; ties in delimiter order (comma first).
  // Tokens are counted only where they can change the answer: some slice encodes differently per delimiter
  // and some encoding saves characters (else the verdict is keep_markdown whatever the tokens).
  // Decode checks run only until the first valid one.
  const built = delims.map((d) => ({ d, c: composeCandidate(sets, unique, d) })).filter((x): x is { d: DelimiterChar; c: Composed } => x.c !== null);
  // Slices that encode alike under every delimiter add the same to every sum: only the others are compared.
  const differs = built.length > 1 ? sets.map((s) => built.some((x) => s.text(x.d) !== s.text(built[0]!.d))) : [];
  const byTokens = tok.real && built.some((x) => x.c.length < source.length) && differs.some(Boolean);
  const differingTokens = (d: DelimiterChar) => entries.reduce((n, a, i) => (differs[i] ? n + countTokens(a, tok, sets[i]!.text(d) ?? '') : n), 0);
  const composed = built.map((x) => ({ ...x, cost: byTokens ? differingTokens(x.d) : x.c.length })).sort((a, b) => a.cost - b.cost || delims.indexOf(a.d) - delims.indexOf(b.d));
  for (const { d, c } of composed) if (c.valid()) return { length: c.length, text: c.text, delimiter: d, valid: true, tokens: tokensOf(d) };
  const first = composed[0];
  if (first) return { length: first.c.length, text: first.c.text, delimiter: first.d, valid: false, tokens: tokensOf(first.d) };
  return { length: source.length, text: () => source, delimiter: delims[0] ?? ',', valid: false, tokens: () => entries.reduce((n, a) => n + sliceSourceTokens(a, tok), 0) };
}

function docProfile(d: DocAnalysis, sourceType: SourceType): VerdictProfile {
  let stats = emptyStats();
  for (const a of d.analyses) stats = addStats(stats, a.stats);
  const title = d.analyses.find((a) => a.title !== null)?.title ?? null;
  return { name: profileName(stats), title, source_type: sourceType, stats };
}

/** The document's repeated rules, each with the earlier one it repeats (rules read only for the slices that hold one). */
function docDuplicates(d: DocAnalysis): DuplicateFinding[] {
  const hits = findDuplicates(d.analyses.map((a) => a.dupKeys), d.duplicateMemo);
  if (hits.length === 0) return [];
  const slice = (g: number) => {
    const a = d.analyses[g]!;
    const s = d.slices[g]!;
    return { rules: a.rules, charBase: s.charStart, lineBase: s.lineStart - 1, section: a.section };
  };
  return hits.map((h) => duplicateFinding(h, slice));
}

/** Analysis warnings of the whole document, in whole-document coordinates. */
function docWarnings(d: DocAnalysis): VerdictWarning[] {
  const out: VerdictWarning[] = docDuplicates(d).map(duplicateRuleWarning);
  d.analyses.forEach((a, i) => {
    const s = d.slices[i]!;
    for (const w of a.ownWarnings) out.push(shiftWarning(w, s.charStart, s.lineStart - 1));
  });
  return out;
}

function tokenizerOf(opts: EngineOptions): Tokenizer {
  return tokenizer(opts.tokenizer);
}

function minTokenSavingsOf(opts: EngineOptions): number {
  const m = opts.minTokenSavings;
  return typeof m === 'number' && Number.isFinite(m) ? m : DEFAULT_MIN_TOKEN_SAVINGS;
}

function minTokenSavingsPctOf(opts: EngineOptions): number {
  const m = opts.minTokenSavingsPct;
  return typeof m === 'number' && Number.isFinite(m) && m >= 0 ? m : DEFAULT_MIN_TOKEN_SAVINGS_PCT;
}

function ratiosOf(opts: EngineOptions): readonly number[] {
  return opts.charsPerToken && opts.charsPerToken.length ? opts.charsPerToken.filter((r) => Number.isFinite(r) && r > 0) : DEFAULT_CHARS_PER_TOKEN;
}

function targetMet(opts: EngineOptions, chars: number, tokens: () => number): boolean {
  if (opts.targetChars !== undefined && chars > opts.targetChars) return false;
  if (opts.targetTokens !== undefined && tokens() > opts.targetTokens) return false;
  return true;
}

function hasTarget(opts: EngineOptions): boolean {
  return opts.targetChars !== undefined || opts.targetTokens !== undefined;
}

const LOSSY_STEPS = ['lossy1', 'lossy2', 'lossy3', 'lossy4'];

/** The whole-document verdict for a mode (schema 1.0 unless the caller upgrades it). */
function documentVerdict(d: DocAnalysis, opts: EngineOptions, includeCandidate: boolean): VerdictV1 {
  const mode: EngineMode = opts.mode ?? 'lossless';
  const delims = delimitersFor(opts.delimiter);
  const entries = modelEntries(d);
  const profile = docProfile(d, opts.sourceType ?? 'markdown');
  const analysisWarnings = docWarnings(d);
  const sourceChars = d.text.length;
  const tok = tokenizerOf(opts);
  const sourceTokens = () => d.analyses.reduce((n, a) => n + sliceSourceTokens(a, tok), 0);
  const ratios = ratiosOf(opts);
  const base = { schemaVersion: '1.0' as const, profile, sourceChars, sourceTokens, ratios, includeCandidate, tokenizer: tok, minTokenSavings: minTokenSavingsOf(opts), minTokenSavingsPct: minTokenSavingsPctOf(opts) };

  const outcome = documentOutcome(entries, mode, opts, delims, d.text, analysisWarnings, tok);
  return buildVerdict({ ...base, ...candidateFields(outcome.candidate), mode, ...outcome.fields });
}

/** What a mode decides for a whole document: the candidate measured, and the verdict fields that follow. */
interface DocOutcome {
  candidate: DocCandidate;
  fields: { warnings: VerdictWarning[]; lossless: boolean; targetReached: boolean | null; refused: boolean };
}

/**
 * The document candidate and flags of each mode: lossless as is; record with its coverage; budget lossless
 * when that meets the target (or none is set), refused when it does not and lossy output is not allowed,
 * else the first lossy step that meets the target (the last one tried otherwise).
 */
function documentOutcome(
  entries: SliceAnalysis[],
  mode: EngineMode,
  opts: EngineOptions,
  delims: DelimiterChar[],
  text: string,
  analysisWarnings: VerdictWarning[],
  tok: Tokenizer,
): DocOutcome {
  const target = hasTarget(opts);
  const losslessOutcome = (targetReached: boolean | null, refused = false): DocOutcome => ({
    candidate: bestDocCandidate(entries, entries.map((a) => a.candidates), delims, text, tok),
    fields: { warnings: analysisWarnings, lossless: true, targetReached, refused },
  });
  const sourceAlnum = entries.reduce((n, a) => n + a.sourceAlnum, 0);
  if (mode === 'lossless') return losslessOutcome(null);
  if (mode === 'record') {
    const derived = entries.map((a) => derivedModel(a, 'record'));
    const c = bestDocCandidate(entries, derived.map((x) => x.candidates), delims, text, tok);
    const warnings = withCoverage([...analysisWarnings], sourceAlnum, derived.reduce((n, x) => n + x.alnum, 0));
    return { candidate: c, fields: { warnings, lossless: true, targetReached: target ? targetMet(opts, c.length, c.tokens) : null, refused: false } };
  }
  // Budget.
  const lossless = losslessOutcome(target ? true : null);
  if (!target || targetMet(opts, lossless.candidate.length, lossless.candidate.tokens)) return lossless;
  if (!opts.allowLossy) return { candidate: lossless.candidate, fields: { ...lossless.fields, targetReached: false, refused: true } };
  let chosen: { c: DocCandidate; alnum: number } | null = null;
  for (const step of LOSSY_STEPS) {
    const derived = entries.map((a) => derivedModel(a, step));
    const c = bestDocCandidate(entries, derived.map((x) => x.candidates), delims, text, tok);
    chosen = { c, alnum: derived.reduce((n, x) => n + x.alnum, 0) };
    if (targetMet(opts, c.length, c.tokens)) break;
  }
  const { c, alnum } = chosen!;
  const warnings = withCoverage([...analysisWarnings, LOSSY_APPLIED], sourceAlnum, alnum);
  return { candidate: c, fields: { warnings, lossless: false, targetReached: targetMet(opts, c.length, c.tokens), refused: false } };
}

function optionsKey(opts: EngineOptions): string {
  return JSON.stringify([opts.delimiter ?? 'auto', opts.sourceType ?? 'markdown', ratiosOf(opts), tokenizerOf(opts).name, minTokenSavingsOf(opts), minTokenSavingsPctOf(opts)]);
}

/** What every section measured with one set of options shares: the tokenizer, the ratios, the source type. */
interface VerdictContext {
  tok: Tokenizer;
  ratios: readonly number[];
  sourceType: SourceType;
}

const contexts = new Map<string, VerdictContext>();

/** The shared context of an options key (a handful exist per process). */
function contextOf(key: string, opts: EngineOptions): VerdictContext {
  let c = contexts.get(key);
  if (!c) {
    if (contexts.size >= 32) contexts.clear();
    contexts.set(key, (c = { tok: tokenizerOf(opts), ratios: ratiosOf(opts), sourceType: opts.sourceType ?? 'markdown' }));
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
class StandaloneSection {
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
  ) {
    this.bits =
      VERDICTS.indexOf(verdict) |
      (DELIMITERS.indexOf(delimiter) << DELIM_SHIFT) |
      (safe ? SAFE : 0) |
      (valid ? VALID : 0) |
      (located ? LOCATED : 0) |
      (action === 'convert' ? CONVERT : 0) |
      (segmentOk ? SEGMENT_OK : 0);
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
function verdictOf(a: SliceAnalysis, st: StandaloneSection): VerdictV1 {
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
function figuresOf(a: SliceAnalysis, st: StandaloneSection): TokenFigures {
  const tok = st.ctx.tok;
  const lazy = st.lazy;
  if (lazy) return (lazy.figures ??= tokenFigures(lazy.full, tok));
  const source = a.sourceTokens(tok);
  return { tokenizer: tok.name, estimator: tok.estimator, source, toon: st.toonTokens, savings: source - st.toonTokens };
}

/** The section's TOON candidate, rebuilt from the slice text (null when nothing encodes). */
function candidateOf(a: SliceAnalysis, st: StandaloneSection): string | null {
  return st.delimiter === null ? null : bodyCandidatesOf(a).text(st.delimiter);
}

/** Exactly the text Convert writes in place of the slice (what measured_chars.toon counts), rebuilt from the slice text. */
function segmentOf(a: SliceAnalysis, st: StandaloneSection): string {
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

/**
 * A slice's standalone lossless verdict (slice-relative warnings), memoized on its analysis. What it measures
 * is the segment Convert writes (kept heading line, fence lines, TOON, closing fence, the slice's line ends),
 * so `measured_chars.savings` is exactly the change in the document's length.
 */
function standaloneSection(a: SliceAnalysis, opts: EngineOptions, key = optionsKey(opts), eagerTokens = false): StandaloneSection {
  const memo = a.measurement(key) as StandaloneSection | undefined;
  if (memo) return memo;
  const tok = tokenizerOf(opts);
  const best = bestSectionCandidate(a, delimitersFor(opts.delimiter), tok);
  // Nothing encodes: the slice itself stands in (savings 0, never converts).
  const raw = a.raw;
  const segment = best ? (best.segment ?? convertedSegment(raw, a.headingEnd, best.text)) : raw;
  let segmentTokens = best?.segmentTokens;
  const verdict = buildVerdict({
    schemaVersion: '1.0',
    profile: { name: a.profile, title: a.title, source_type: opts.sourceType ?? 'markdown', stats: a.stats },
    sourceChars: a.length,
    sourceTokens: () => sliceSourceTokens(a, tok),
    candidateChars: segment.length,
    candidateText: () => segment,
    // Counted once: the token gate and the verdict's figures both ask; the segment itself is not kept.
    candidateTokens: () => (segmentTokens ??= tok.count(segment)),
    valid: best?.valid ?? false,
    delimiter: best?.delimiter ?? ',',
    warnings: [...a.localDuplicates, ...a.ownWarnings],
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
  const action = sectionAction(verdict.verdict, verdict.flags.valid, best !== null);
  // A converted segment's check is made now, while the segment is at hand (the hybrid's verification reads it).
  const segmentOk = action === 'convert' && best !== null && segmentChecks(raw, a.headingEnd, segment, best.text);
  // Counted already (eagerTokens): the record holds the figures and the verdict object goes.
  const settled = tokensSettled(verdict);
  const te = settled ? verdict.token_estimates : null;
  const r = new StandaloneSection(
    contextOf(key, opts),
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
  );
  a.remember(key, r);
  return r;
}

/** Token figures of a section verdict (reads its lazy token_estimates). */
function tokenFigures(v: VerdictV1, tok: Tokenizer): TokenFigures {
  const te = v.token_estimates;
  return { tokenizer: tok.name, estimator: te.estimator, source: te.source, toon: te.toon, savings: te.savings };
}

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

function buildPlan(d: DocAnalysis, opts: EngineOptions, standalones?: readonly (StandaloneSection | undefined)[]): PlanResult {
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
  return {
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
}

/** Profile response (schema 1.0, lossless measurement, toon_candidate null). */
export function profileDocument(text: string, opts: EngineOptions = {}): VerdictV1 {
  return documentVerdict(analyzeDocument(String(text ?? ''), freshAnalyze), { ...opts, mode: 'lossless' }, false);
}

/** Convert response (schema 1.0) in the requested mode. */
export function convertDocument(text: string, opts: EngineOptions = {}): VerdictV1 {
  return documentVerdict(analyzeDocument(String(text ?? ''), freshAnalyze), opts, true);
}

/** The per-section context plan (schema 1.1) and its hybrid document. */
export function planDocument(text: string, opts: EngineOptions = {}): PlanResult {
  return buildPlan(analyzeDocument(String(text ?? ''), freshAnalyze), opts);
}

/**
 * A plan made once and read whole (the CLI's `plan`): the same result as {@link planDocument}. A document of more
 * than one run of slices ({@link PLAN_RUN}) is planned as the engine cache plans it, each run's details released
 * once measured (the whole-document verdict rebuilds them when read), so the CLI's peak does not grow with every
 * section's details. A smaller document keeps its details for the verdict: rebuilding them costs more than it saves.
 */
export function planOnce(text: string, opts: EngineOptions = {}): PlanResult {
  const t = String(text ?? '');
  const slices = sliceDocument(t);
  if (slices.length <= PLAN_RUN) return buildPlan(analyzeDocument(t, freshAnalyze, undefined, slices), opts);
  return new EngineCache().plan(t, opts);
}

/** The edit that converts one slice in place: exactly its hybrid segment (docs/engine.md#plan-and-hybrid). */
export function convertSectionEdit(text: string, slice: Slice, candidate: string): { start: number; end: number; newText: string } {
  const sliceText = text.slice(slice.charStart, slice.charEnd);
  return { start: slice.charStart, end: slice.charEnd, newText: convertedSegment(sliceText, slice.headingEnd - slice.charStart, candidate) };
}

/**
 * Revert: strict-decodes TOON and renders the model back to markdown. A section's fence holds its body
 * (the heading stays the markdown line above it), rendered without a heading; a whole-document candidate,
 * or a fence written by an earlier version (`"## Heading": …`), is a slice model and renders with its headings.
 * Throws an Error with the decoder's message when the text does not decode.
 */
export function renderToonAsMarkdown(toonText: string): string {
  let value: JsonValue;
  try {
    value = decode(toonText, { strict: true }) as JsonValue;
  } catch (e) {
    throw new Error(`TOON does not decode: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
  if (isSliceModel(value)) return renderModel(value);
  const body = renderBody(value);
  return body === '' ? '' : body + '\n';
}

/**
 * The document's `toon/fence-decode` diagnostics from its plan, as steps (one yield per slice):
 * each slice's fences are checked once per slice text and shifted into place. Frontmatter is
 * metadata, not markdown: a fence marker inside it opens no fence (as for the fences and inline
 * comments, see sectionFences.ts and diagnostics.ts).
 */
export function* toonFenceDiagnosticSteps(plan: PlanResult): Generator<void, CoreDiagnostic[], void> {
  const out: CoreDiagnostic[] = [];
  for (const s of plan.sections) {
    if (s.slice.kind === 'frontmatter') continue; // metadata, not markdown: a fence inside it is no fence
    const base = s.slice.charStart;
    for (const d of sliceToonFenceDiagnostics(s.analysis)) out.push(base === 0 ? d : { ...d, range: { start: d.range.start + base, end: d.range.end + base } });
    yield;
  }
  return out;
}

/** How far a time-sliced plan has got: `done` of `total` steps (each slice is analysed, then measured). */
export interface PlanProgress {
  done: number;
  total: number;
}

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
    const hash = textHash(raw);
    const ok = (a: SliceAnalysis) => a.kind === kind && a.headingEnd === headingEnd && a.length === length && a.raw === raw;
    let a = (next && memoFind(next, hash, ok)) ?? memoFind(this.fresh, hash, ok) ?? memoFind(this.genMap(), hash, ok);
    if (a) relocateAnalysis(a, text, s.charStart);
    else {
      a = analyzeSliceAt(text, s.charStart, length, kind, headingEnd, hash);
      this.made++;
      memoAdd(this.fresh, a);
    }
    // The slicer's heading text is almost always the parse's: one string for both (shifted slices copy it).
    if (s.heading !== null && s.heading === a.headingText) s.heading = a.headingText;
    if (next) memoAdd(next, a);
    return a;
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
        if (!this.analysisAt(next, sl, i) || ++carried % CARRIED_PER_YIELD === 0) yield { done, total };
      }
      for (let i = from; i < to; i++) {
        done++;
        if (slices[i]!.kind === 'frontmatter' || standalones[i] !== undefined) {
          if (++carried % CARRIED_PER_YIELD === 0) yield { done, total };
          continue;
        }
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

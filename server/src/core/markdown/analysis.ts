/**
 * Per-slice analysis: everything about a slice that depends only on its text and kind,
 * so the engine cache can reuse it across edits elsewhere in the document.
 */
import { parseSlice, parseSliceSteps, type Block, type ParsedSlice } from './blocks';
import { LineIndex } from '../lineIndex';
import { bodyValue, sliceKey, type JsonObject, type JsonValue } from './model';
import { CandidateSet } from './candidate';
import { detach, fnv1a, oneByte, sentences } from './text';
import { toonFenceDiagnostics, type ToonFence } from '../toon/fences';
import type { CoreDiagnostic } from '../types';
import { modelAlnum, sourceAlnum } from './coverage';
import type { Tokenizer, TokenizerName } from '../tokens';
import { profileName, sliceStats, emptyStats, RULE_RE, type ProfileName, type Stats } from './stats';
import { dupKeysOf, duplicateRuleWarnings, sliceRules, type DupKeys, type RuleRef, type VerdictWarning } from './warnings';
import { sliceRuleWarnings, sliceRuleWarningSteps } from './rules';
import { SmallMap } from '../smallMap';
import { inlineDirectives, type InlineDirective } from './inlineControl';

export type SliceKind = 'frontmatter' | 'preamble' | 'section';

/**
 * What a slice's analysis holds while it is measured — the parse, the model, the TOON candidates, the rules
 * with their duplicate keys — and can rebuild from its text at any time (everything here is a pure function of
 * the slice's text, kind and heading end). The engine cache drops it once a plan has measured the slice
 * ({@link releaseDetail}): lenses, hovers, diagnostics and the next edit read only the compact fields and
 * the memos; the whole-document verdict, another tokenizer or a record/budget conversion rebuilds it.
 */
export interface SliceDetail {
  body: JsonValue;
  /** The slice model: { key: body }. */
  model: JsonObject;
  parsed: ParsedSlice | null;
  /** Rules (slice-relative) for document-level duplicate detection. */
  rules: RuleRef[];
  candidates: CandidateSet;
  /** The body alone (what a section's ```toon fence holds: its heading stays the markdown line above). */
  bodyCandidates: CandidateSet;
  /** Memo for derived (record/lossy) models. */
  derived: Map<string, { model: JsonObject; candidates: CandidateSet; alnum: number }>;
}

export interface SliceAnalysis extends Readonly<SliceDetail> {
  kind: SliceKind;
  /**
   * The slice text, read from the document version the slice was last planned in (a view: the analysis keeps
   * no copy of its own; see {@link relocateAnalysis}).
   */
  readonly raw: string;
  /** raw.length, without reading the text. */
  readonly length: number;
  /** A fingerprint of the text ({@link textHash}; what the engine cache keys its slice memo by). */
  readonly hash: number;
  /** Slice-relative end of the heading line(s) incl. terminator. */
  headingEnd: number;
  key: string;
  /** The slice's stats (a fresh object on each read of an engine analysis: it keeps the counts packed). */
  stats: Stats;
  profile: ProfileName;
  /** The heading text when it is a level-1 heading (a standalone document's title). */
  title: string | null;
  /** The parsed heading's text (what the plan's row shows); null without a heading. */
  headingText: string | null;
  /** Whether the body is the empty string (a preamble of blank lines: no part of the document model). */
  emptyBody: boolean;
  /** Display name in warning messages. */
  section: string;
  /** Vague, long-section and split warnings (slice-relative). */
  ownWarnings: VerdictWarning[];
  /** Duplicate rules within the slice alone (slice-relative). */
  localDuplicates: VerdictWarning[];
  /** What document-wide duplicate detection needs of the slice's rules (kept when the detail is released). */
  dupKeys: DupKeys;
  sourceAlnum: number;
  /** The slice text's token count with `tok`, memoized (per tokenizer). */
  sourceTokens(tok: Tokenizer): number;
  /** Memo: token count per tokenizer and text derived from the slice (its candidates); emptied by {@link releaseDetail}. */
  readonly tokenMemo: SmallMap<TokenizerName, SmallMap<string, number>>;
  /** Memo: the standalone measurement made with the options `key`, or undefined. */
  measurement(key: string): unknown;
  /** Remembers a standalone measurement (a few options keys per slice; the oldest go). */
  remember(key: string, value: unknown): void;
  /** Memo: `toon/fence-decode` diagnostics of the slice's ```toon fences (slice-relative offsets). */
  toonFences?: CoreDiagnostic[];
  /** Memo: whether the slice text contains the word "toon" at all (else it holds no ```toon fence). */
  mentionsToon?: boolean;
  /** Memo: the slice's inline control comments (slice-relative offsets and lines). */
  directives?: InlineDirective[];
  /** Memo: the slice's ```toon fences with their extents (slice-relative offsets and lines; see sectionFences.ts). */
  toonFenceList?: SliceFence[];
}

/** A ```toon fence of a slice with its extent (start of its opening line, end of its closing line). */
export interface SliceFence {
  fence: ToonFence;
  start: number;
  end: number;
}

/** The parse-dependent part of a slice's analysis, computed from its text (or from its parse and rules, when given). */
function sliceDetail(raw: string, kind: SliceKind, section: string, parsed: ParsedSlice | null = kind === 'frontmatter' ? null : parseSlice(raw, kind === 'section'), rules?: RuleRef[]): SliceDetail {
  let key: string;
  let body: JsonValue;
  if (!parsed) {
    key = '---';
    body = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').replace(/\n$/, '');
  } else {
    key = sliceKey(kind, parsed.heading);
    body = bodyValue(parsed.blocks);
  }
  const model: JsonObject = { [key]: body };
  return {
    body,
    model,
    parsed,
    rules: rules ?? (parsed ? sliceRules(parsed, section) : []),
    candidates: new CandidateSet(model),
    bodyCandidates: new CandidateSet(body),
    derived: new Map(),
  };
}

/** What an analysis rarely holds: counts with other tokenizers, token memos of derived texts, more options keys' measurements, stats too large to pack. */
interface AnalysisExtra {
  counts: SmallMap<TokenizerName, number> | null;
  memo: SmallMap<TokenizerName, SmallMap<string, number>> | null;
  more: SmallMap<string, unknown> | null;
  stats: Stats | null;
  /** `toon/fence-decode` diagnostics of a slice that mentions "toon" (one without has none: nothing is kept for it). */
  fences: CoreDiagnostic[] | undefined;
  /** The inline control comments of a slice that has any (one without has none: a flag says so). */
  directives: InlineDirective[] | undefined;
  /** The ```toon fences of a slice that has any (likewise). */
  toonFenceList: SliceFence[] | undefined;
}

const KINDS: readonly SliceKind[] = ['frontmatter', 'preamble', 'section'];
const PROFILES: readonly ProfileName[] = ['raw_prose', 'definitions', 'requirements', 'table', 'mixed'];
const TOKENIZER_BITS: readonly (TokenizerName | null)[] = [null, 'o200k_base', 'cl100k_base', 'estimate'];

// The analysis's small fields, packed into one small integer: kind (2 bits), heading level (3), empty body (1),
// profile (3), the tokenizer of `count1` (2), whether the text mentions "toon" (2: unknown, no, yes), whether it
// has inline control comments (2: unknown, none, yes: in the extra object), whether it has ```toon fences (2: same).
const KIND_SHIFT = 0;
const LEVEL_SHIFT = 2;
const EMPTY_BIT = 1 << 5;
const PROFILE_SHIFT = 6;
const TOK_SHIFT = 9;
const TOON_SHIFT = 11;
const DIRECTIVES_SHIFT = 13;
const FENCE_LIST_SHIFT = 15;
const field = (bits: number, shift: number, width: number) => (bits >> shift) & ((1 << width) - 1);

/** Stats counts packed two to a small integer (15 bits each) when every one fits; else kept as an object. */
const PACK_MAX = 0x7fff;
const pack2 = (x: number, y: number) => x | (y << 15);

/**
 * A slice analysis whose {@link SliceDetail} is built with it and rebuilt on first read after
 * {@link releaseDetail} dropped it (same values: every detail is a pure function of the text).
 *
 * One of these stays per section of every open document, so it is small: the kind, level, profile, flags and
 * the tokenizer of its count are one packed integer, the stats four more (two counts each), the title, display
 * name and letter count are derived on read (from the heading text and the slice text), and what only a few
 * analyses hold (other tokenizers' counts, token memos, other options keys) is one optional object.
 */
// The compact fields are SliceAnalysis's, declared once there (all assigned by the constructor).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
interface Analysis extends Omit<SliceAnalysis, keyof SliceDetail | 'raw' | 'length' | 'hash' | 'kind' | 'headingEnd' | 'key' | 'sourceTokens' | 'tokenMemo' | 'measurement' | 'remember' | 'stats' | 'profile' | 'title' | 'emptyBody' | 'section' | 'sourceAlnum' | 'mentionsToon' | 'toonFences' | 'directives' | 'toonFenceList'> {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
class Analysis implements SliceAnalysis {
  private detail: SliceDetail | null;
  /** The document version the text is read from, and where in it (see relocateAnalysis). */
  private src: string;
  private at: number;
  readonly hash: number;
  private bits: number;
  /** The slice's token count with the tokenizer of `bits` (the one almost every slice is counted with). */
  private count1 = 0;
  private extra: AnalysisExtra | null = null;
  /** The standalone measurement of the last options key (almost always the only one); those of others are extra. */
  private mKey: string | null = null;
  private mValue: unknown = undefined;
  /** Stats, two counts each (see pack2): lines and rules; headings and paragraphs; list items and tables; table rows and definitions. */
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;

  constructor(
    src: string,
    at: number,
    readonly length: number,
    kind: SliceKind,
    readonly headingEnd: number,
    hash?: number,
    /** What {@link analysisSteps} made of the slice text, when the caller ran it (a large slice: steps of their own). */
    pre?: PreAnalysis,
  ) {
    this.src = src;
    this.at = at;
    // Read from a one-byte copy when every character is Latin-1: a document with one em dash is two bytes a
    // character in V8, and so is every slice of it, which makes each parse, pattern and token count on it slower.
    const raw = oneByte(this.raw);
    this.hash = hash ?? textHash(raw);
    const parsed = pre ? pre.parsed : kind === 'frontmatter' ? null : parseSlice(raw, kind === 'section');
    // Strings kept with the analysis are flat copies (detach): a substring of the slice text would keep the
    // document version it was read from alive.
    const headingText = parsed?.heading ? detach(parsed.heading.text) : null;
    this.headingText = headingText;
    const section = sectionName(kind, headingText);
    // The parse is the detail's: built once here, shared with it.
    const d = sliceDetail(raw, kind, section, parsed, pre?.rules);
    this.detail = d;
    const stats = parsed ? sliceStats(parsed, parsed.lines.spanCount) : { ...emptyStats(), lines: new LineIndex(raw).spanCount };
    this.bits =
      (KINDS.indexOf(kind) << KIND_SHIFT) |
      ((parsed?.heading ? parsed.heading.level : 0) << LEVEL_SHIFT) |
      (d.body === '' ? EMPTY_BIT : 0) |
      (PROFILES.indexOf(profileName(stats)) << PROFILE_SHIFT);
    this.packStats(stats);
    // The slice rules (./rules), in registry order.
    const own: VerdictWarning[] = pre?.own ?? (parsed ? sliceRuleWarnings({ parsed, raw, headingEnd, section }) : []);
    this.ownWarnings = own.length ? own.map(detachWarning) : NO_WARNINGS;
    const dups = pre?.dups ?? duplicateRuleWarnings(d.rules);
    this.localDuplicates = dups.length ? dups.map(detachWarning) : NO_WARNINGS;
    this.dupKeys = pre?.dupKeys ?? (d.rules.length ? dupKeysOf(d.rules) : NO_KEYS);
  }

  private packStats(st: Stats): void {
    const { lines, headings, paragraphs, list_items, tables, table_rows, definitions, rules } = st;
    if (Math.max(lines, headings, paragraphs, list_items, tables, table_rows, definitions, rules) > PACK_MAX) {
      this.more().stats = st;
      return;
    }
    this.s0 = pack2(lines, rules);
    this.s1 = pack2(headings, paragraphs);
    this.s2 = pack2(list_items, tables);
    this.s3 = pack2(table_rows, definitions);
  }

  get kind(): SliceKind {
    return KINDS[field(this.bits, KIND_SHIFT, 2)]!;
  }
  get profile(): ProfileName {
    return PROFILES[field(this.bits, PROFILE_SHIFT, 3)]!;
  }
  get emptyBody(): boolean {
    return (this.bits & EMPTY_BIT) !== 0;
  }
  /** The heading's level (0 without a heading): with headingText, what `key` is made of. */
  private get level(): number {
    return field(this.bits, LEVEL_SHIFT, 3);
  }
  get title(): string | null {
    return this.level === 1 ? this.headingText : null;
  }
  get section(): string {
    return sectionName(this.kind, this.headingText);
  }
  get sourceAlnum(): number {
    return this.kind === 'frontmatter' ? 0 : sourceAlnum(this.raw);
  }
  /** A fresh object on each read (the analysis keeps the counts packed). */
  get stats(): Stats {
    const big = this.extra?.stats;
    if (big) return { ...big };
    const lo = (x: number) => x & PACK_MAX;
    const hi = (x: number) => x >>> 15;
    return {
      lines: lo(this.s0),
      headings: lo(this.s1),
      paragraphs: hi(this.s1),
      list_items: lo(this.s2),
      tables: hi(this.s2),
      table_rows: lo(this.s3),
      definitions: hi(this.s3),
      rules: hi(this.s0),
    };
  }
  get toonFences(): CoreDiagnostic[] | undefined {
    const t = field(this.bits, TOON_SHIFT, 2);
    return t === 1 ? NO_DIAGNOSTICS : this.extra?.fences;
  }
  set toonFences(v: CoreDiagnostic[] | undefined) {
    // (a slice that does not mention "toon" has none: read back from the flag)
    if (field(this.bits, TOON_SHIFT, 2) === 1 && v !== undefined && v.length === 0) return;
    if (v !== undefined || this.extra) this.more().fences = v;
  }
  get mentionsToon(): boolean | undefined {
    const t = field(this.bits, TOON_SHIFT, 2);
    return t === 0 ? undefined : t === 2;
  }
  set mentionsToon(v: boolean | undefined) {
    this.bits = (this.bits & ~(3 << TOON_SHIFT)) | ((v === undefined ? 0 : v ? 2 : 1) << TOON_SHIFT);
  }

  get directives(): InlineDirective[] | undefined {
    return this.listMemo(DIRECTIVES_SHIFT, this.extra?.directives, NO_DIRECTIVES);
  }
  set directives(v: InlineDirective[] | undefined) {
    if (this.flagList(DIRECTIVES_SHIFT, v) || this.extra) this.more().directives = v?.length ? v : undefined;
  }
  get toonFenceList(): SliceFence[] | undefined {
    return this.listMemo(FENCE_LIST_SHIFT, this.extra?.toonFenceList, NO_FENCES);
  }
  set toonFenceList(v: SliceFence[] | undefined) {
    if (this.flagList(FENCE_LIST_SHIFT, v) || this.extra) this.more().toonFenceList = v?.length ? v : undefined;
  }

  /** A list memo as its two bits say: not computed, empty (the shared `none`), or the extra object's `held`. */
  private listMemo<T>(shift: number, held: T[] | undefined, none: T[]): T[] | undefined {
    const t = field(this.bits, shift, 2);
    return t === 0 ? undefined : t === 1 ? none : held;
  }
  /** Sets a list memo's two bits; true when the list has entries (they go into the extra object). */
  private flagList(shift: number, v: readonly unknown[] | undefined): boolean {
    const t = v === undefined ? 0 : v.length === 0 ? 1 : 2;
    this.bits = (this.bits & ~(3 << shift)) | (t << shift);
    return t === 2;
  }

  private more(): AnalysisExtra {
    return (this.extra ??= { counts: null, memo: null, more: null, stats: null, fences: undefined, directives: undefined, toonFenceList: undefined });
  }

  get raw(): string {
    const s = this.src;
    return this.at === 0 && this.length === s.length ? s : s.slice(this.at, this.at + this.length);
  }

  /** The slice's key in the document model (`## Heading`, `---`, '' for a preamble), made on read. */
  get key(): string {
    const kind = this.kind;
    if (kind === 'frontmatter') return '---';
    const level = this.level;
    return level === 0 ? '' : sliceKey(kind, { level, text: this.headingText ?? '' });
  }

  sourceTokens(tok: Tokenizer): number {
    const t1 = TOKENIZER_BITS[field(this.bits, TOK_SHIFT, 2)];
    if (t1 === tok.name) return this.count1;
    if (t1 === null) {
      this.count1 = tok.count(this.raw);
      this.bits |= TOKENIZER_BITS.indexOf(tok.name) << TOK_SHIFT;
      return this.count1;
    }
    const x = this.more();
    const m = (x.counts ??= new SmallMap());
    let n = m.get(tok.name);
    if (n === undefined) m.set(tok.name, (n = tok.count(this.raw)));
    return n;
  }

  measurement(key: string): unknown {
    return this.mKey === key ? this.mValue : this.extra?.more?.get(key);
  }

  remember(key: string, value: unknown): void {
    if (this.mKey !== null && this.mKey !== key) {
      const x = this.more();
      const m = (x.more ??= new SmallMap());
      if (m.size >= 4) m.clear();
      m.set(this.mKey, this.mValue);
    }
    this.mKey = key;
    this.mValue = value;
  }

  get tokenMemo(): SmallMap<TokenizerName, SmallMap<string, number>> {
    const x = this.more();
    return (x.memo ??= new SmallMap());
  }

  relocate(src: string, at: number): void {
    this.src = src;
    this.at = at;
  }

  private full(): SliceDetail {
    return (this.detail ??= sliceDetail(oneByte(this.raw), this.kind, this.section));
  }
  get body(): JsonValue {
    return this.full().body;
  }
  get model(): JsonObject {
    return this.full().model;
  }
  get parsed(): ParsedSlice | null {
    return this.full().parsed;
  }
  get rules(): RuleRef[] {
    return this.full().rules;
  }
  get candidates(): CandidateSet {
    return this.full().candidates;
  }
  get bodyCandidates(): CandidateSet {
    return this.full().bodyCandidates;
  }
  get derived(): Map<string, { model: JsonObject; candidates: CandidateSet; alnum: number }> {
    return this.full().derived;
  }

  /** The body candidates: the held detail's, else built for this read alone (the detail stays released). */
  transientBodyCandidates(): CandidateSet {
    if (this.detail) return this.detail.bodyCandidates;
    const raw = oneByte(this.raw);
    const kind = this.kind;
    if (kind === 'frontmatter') return sliceDetail(raw, kind, this.section).bodyCandidates;
    return new CandidateSet(bodyValue(parseSlice(raw, kind === 'section').blocks));
  }

  /** The rules: the held detail's, else parsed for this read alone (the detail stays released). */
  transientRules(): RuleRef[] {
    if (this.detail) return this.detail.rules;
    if (this.kind === 'frontmatter') return [];
    return sliceRules(parseSlice(oneByte(this.raw), this.kind === 'section'), this.section);
  }

  /** Whether the detail is held (tests observe the release). */
  get holdsDetail(): boolean {
    return this.detail !== null;
  }

  release(): void {
    this.detail = null;
    // Token counts of candidate texts go with the candidates; the slice's own count stays.
    const x = this.extra;
    if (x) {
      x.memo = null;
      if (!x.counts && !x.more && !x.stats && !x.fences && !x.directives && !x.toonFenceList) this.extra = null;
    }
  }
}

/** The display name in warning messages: the heading with its whitespace runs as single spaces. */
function sectionName(kind: SliceKind, headingText: string | null): string {
  if (headingText !== null) return headingText.replace(/\s+/g, ' ');
  return kind === 'preamble' ? '(preamble)' : '(frontmatter)';
}

/** Shared by analyses and section records without warnings of a kind (never written: readers copy before they add). */
export const NO_WARNINGS: VerdictWarning[] = [];

/** A warning whose evidence is a flat copy (it may be cut from the slice text). */
/** The shared empty list of duplicate keys. */
const NO_KEYS: DupKeys = Object.freeze([]);

function detachWarning(w: VerdictWarning): VerdictWarning {
  // (messages are made of the detached section name; suggestions are constants)
  return w.evidence === undefined ? w : { ...w, evidence: detach(w.evidence) };
}

/**
 * A 32-bit fingerprint of a text (FNV-1a over its UTF-16 code units, mixed with its length). Equal texts hash
 * alike; a hash hit is always confirmed by comparing the texts.
 */
export function textHash(s: string): number {
  // As a signed 32-bit integer: V8 keeps it in the field itself (an unsigned one above 2^31 is a 16-byte heap number).
  return fnv1a(s, 0x811c9dc5 ^ s.length) | 0;
}

/** Analyses one slice standalone. Never throws on any input. */
export function analyzeSlice(raw: string, kind: SliceKind, headingEnd: number): SliceAnalysis {
  return new Analysis(raw, 0, raw.length, kind, headingEnd);
}

/**
 * What an analysis of a slice starts from when the caller made it in steps ({@link analysisSteps}): its parse, its
 * rules and its slice-rule warnings, each what the analysis would compute from the text.
 */
export interface PreAnalysis {
  parsed: ParsedSlice | null;
  rules?: RuleRef[];
  own?: VerdictWarning[];
  /** The rules' duplicates within the slice, and their keys. */
  dups?: VerdictWarning[];
  dupKeys?: DupKeys;
}

/** How many text units (list items, sentences) {@link analysisSteps} reads for rules between two yields. */
const UNITS_PER_STEP = 2048;

/**
 * The parse, rules and slice-rule warnings of the slice text `raw` (kind, heading end as {@link analyzeSliceAt}
 * takes them) in steps: the parse's ({@link parseSliceSteps}), then the rules a few thousand text units a step,
 * then a step per slice rule, then the duplicates among the rules. {@link analyzeSliceAt} given the result analyses as it would from the text alone.
 */
export function* analysisSteps(raw: string, kind: SliceKind, headingEnd: number): Generator<void, PreAnalysis, void> {
  if (kind === 'frontmatter') return { parsed: null };
  const text = oneByte(raw);
  const parsed = yield* parseSliceSteps(text, kind === 'section');
  yield;
  const section = sectionName(kind, parsed.heading ? detach(parsed.heading.text) : null);
  const rules: RuleRef[] = [];
  for (let from = 0; from < parsed.units.length; from += UNITS_PER_STEP) {
    sliceRules(parsed, section, from, Math.min(parsed.units.length, from + UNITS_PER_STEP), rules);
    yield;
  }
  const own = yield* sliceRuleWarningSteps({ parsed, raw: text, headingEnd, section });
  const dups = duplicateRuleWarnings(rules);
  yield;
  return { parsed, rules, own, dups, dupKeys: rules.length ? dupKeysOf(rules) : NO_KEYS };
}

/**
 * Analyses the slice `[at, at + length)` of the document text `src`: the analysis reads its text from there
 * (no copy) until {@link relocateAnalysis} points it at another version. `hash` is the text's {@link textHash}
 * when the caller has it, `pre` what {@link analysisSteps} made of it.
 */
export function analyzeSliceAt(src: string, at: number, length: number, kind: SliceKind, headingEnd: number, hash?: number, pre?: PreAnalysis): SliceAnalysis {
  return new Analysis(src, at, length, kind, headingEnd, hash, pre);
}

/**
 * Points the analysis at an equal text in another document version (the caller guarantees
 * `src.slice(at, at + a.length) === a.raw`), so the version it was read from is no longer kept alive by it.
 */
export function relocateAnalysis(a: SliceAnalysis, src: string, at: number): void {
  if (a instanceof Analysis) a.relocate(src, at);
}

/** The slice's body candidates without keeping a rebuilt detail (Convert, hover, the hybrid: one read each). */
export function bodyCandidatesOf(a: SliceAnalysis): CandidateSet {
  return a instanceof Analysis ? a.transientBodyCandidates() : a.bodyCandidates;
}

/** The slice's rules without keeping a rebuilt detail (the document's duplicates: one read each). */
export function rulesOf(a: SliceAnalysis): RuleRef[] {
  return a instanceof Analysis ? a.transientRules() : a.rules;
}

/**
 * Drops the slice's {@link SliceDetail} (rebuilt from its text on the next read) and the token counts of
 * texts derived from it (the slice's own count stays). What an engine cache does to the analyses a completed
 * plan measured, so it keeps per slice only what lenses, hovers, diagnostics and the next edit read.
 */
export function releaseDetail(a: SliceAnalysis): void {
  if (a instanceof Analysis) a.release();
}

/** Whether the analysis holds its detail now (false after {@link releaseDetail} until a detail is read). */
export function holdsDetail(a: SliceAnalysis): boolean {
  return a instanceof Analysis ? a.holdsDetail : true;
}


const TOON_WORD = /toon/i;

/** Shared by the slices without a ```toon fence (never written: readers only iterate it). */
const NO_DIAGNOSTICS: CoreDiagnostic[] = [];

/**
 * `toon/fence-decode` of the slice's own fences, slice-relative, memoized. A fence never crosses a
 * document-level heading (the slicer agrees with markdown-it on headings, and a heading cannot stand
 * inside a fence), so the document's fence diagnostics are its slices' shifted; a slice that does not
 * contain the word "toon" has none and is not parsed.
 */
export function sliceToonFenceDiagnostics(a: SliceAnalysis): CoreDiagnostic[] {
  return (a.toonFences ??= sliceMentionsToon(a) ? toonFenceDiagnostics(a.raw) : NO_DIAGNOSTICS);
}

/** Shared by the slices without inline control comments (never written). */
const NO_DIRECTIVES: InlineDirective[] = [];

/** Shared by the slices without ```toon fences (never written). */
const NO_FENCES: SliceFence[] = [];

/**
 * The slice's inline control comments (`<!-- toonlens-… -->`), slice-relative offsets and lines, memoized. Slices
 * start at document-level headings, which close every block markdown-it could have open (the slicer agrees with
 * markdown-it on headings), so markdown-it parses a slice's HTML blocks as it parses them in the whole text, and
 * the document's comments are its slices' shifted (a frontmatter slice excepted: see `planDirectives`). A slice
 * that does not contain the word "toon" has none and is not parsed.
 */
export function sliceDirectives(a: SliceAnalysis): InlineDirective[] {
  // Their codes are flat copies (detach): a substring of the slice text would keep its document version alive.
  return (a.directives ??= sliceMentionsToon(a) ? inlineDirectives(a.raw).map((d) => ({ ...d, codes: d.codes.map(detach) })) : NO_DIRECTIVES);
}

/**
 * Whether the slice contains the word "toon" (memoized with the slice). A ```toon opener sits on one line and
 * slices start at line starts, so a document none of whose slices says "toon" has no ```toon fence.
 */
export function sliceMentionsToon(a: SliceAnalysis): boolean {
  return (a.mentionsToon ??= TOON_WORD.test(a.raw));
}

/** Token count of the slice text, memoized on the analysis (so with the engine's slice cache). */
export function sliceSourceTokens(a: SliceAnalysis, tok: Tokenizer): number {
  return a.sourceTokens(tok);
}

/** Token count of a text derived from the slice (a candidate), memoized on the analysis until its detail is released. */
export function countTokens(a: SliceAnalysis, tok: Tokenizer, text: string): number {
  let m = a.tokenMemo.get(tok.name);
  if (!m) a.tokenMemo.set(tok.name, (m = new SmallMap()));
  let n = m.get(text);
  if (n === undefined) {
    n = tok.count(text);
    // Candidate texts are few per slice (3 delimiters, a few modes).
    if (m.size > 16) m.clear();
    m.set(text, n);
  }
  return n;
}

/** Record-mode blocks: tables, definitions and lists kept; paragraphs reduced to their rule sentences; code and raw dropped. */
export function recordBlocks(blocks: Block[]): Block[] {
  const out: Block[] = [];
  for (const b of blocks) {
    if (b.kind === 'l' || b.kind === 'o' || b.kind === 't' || b.kind === 'd') out.push(b);
    else if (b.kind === 'p') {
      const rules = sentences(b.text.replace(/\s+/g, ' ')).map((s) => s.trim()).filter((s) => s && RULE_RE.test(s));
      if (rules.length) out.push({ kind: 'l', items: rules });
    }
  }
  return out;
}

function truncate(s: string, max: number): string {
  return s.length > max ? s.slice(0, max - 1) + '…' : s;
}

/** Lossy step 2/3: every string shortened to `max` characters. */
export function truncateBlocks(blocks: Block[], max: number): Block[] {
  return blocks.map((b): Block => {
    switch (b.kind) {
      case 'p':
        return { kind: 'p', text: truncate(b.text, max) };
      case 'l':
        return { kind: 'l', items: b.items.map((s) => truncate(s, max)) };
      case 'o':
        return { kind: 'o', start: b.start, items: b.items.map((s) => truncate(s, max)) };
      case 't':
        return { kind: 't', header: b.header, rows: b.rows.map((r) => r.map((s) => truncate(s, max))) };
      case 'd':
        return { kind: 'd', defs: b.defs.map(([k, v]) => [k, truncate(v, max)] as [string, string]) };
      case 'c':
        return { kind: 'c', lang: b.lang, code: truncate(b.code, max) };
      case 'm':
        return { kind: 'm', raw: truncate(b.raw, max) };
    }
  });
}

/**
 * Derived (non-lossless) models by name: 'record', 'lossy1' (record), 'lossy2' (record, strings
 * ≤ 120 chars), 'lossy3' (record, strings ≤ 60 chars), 'lossy4' (headings only).
 */
export function derivedModel(a: SliceAnalysis, name: string): { model: JsonObject; candidates: CandidateSet; alnum: number } {
  let d = a.derived.get(name);
  if (d) return d;
  let body: JsonValue = a.body;
  if (a.parsed) {
    const rec = recordBlocks(a.parsed.blocks);
    if (name === 'record' || name === 'lossy1') body = bodyValue(rec);
    else if (name === 'lossy2') body = bodyValue(truncateBlocks(rec, 120));
    else if (name === 'lossy3') body = bodyValue(truncateBlocks(rec, 60));
    else body = '';
  } else if (name !== 'record') body = '';
  const model: JsonObject = { [a.key]: body };
  d = { model, candidates: new CandidateSet(model), alnum: modelAlnum(model) };
  a.derived.set(name, d);
  return d;
}

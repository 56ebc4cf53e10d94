/**
 * Per-slice analysis: everything about a slice that depends only on its text and kind,
 * so the engine cache can reuse it across edits elsewhere in the document.
 */
import { parseSlice, type Block, type ParsedSlice } from './blocks';
import { LineIndex } from '../lineIndex';
import { bodyValue, sliceKey, type JsonObject, type JsonValue } from './model';
import { CandidateSet } from './candidate';
import { detach, sentences } from './text';
import { toonFenceDiagnostics } from '../toon/fences';
import type { CoreDiagnostic } from '../types';
import { modelAlnum, sourceAlnum } from './coverage';
import type { Tokenizer, TokenizerName } from '../tokens';
import { profileName, sliceStats, emptyStats, RULE_RE, type ProfileName, type Stats } from './stats';
import {
  duplicateRuleWarnings,
  longSectionWarning,
  sliceRules,
  splitCandidateWarning,
  vagueRuleWarnings,
  type RuleRef,
  type VerdictWarning,
} from './warnings';
import { pushAll } from '../arrays';
import { SmallMap } from '../smallMap';
import { keepMarkerWarning } from './inlineControl';

export type SliceKind = 'frontmatter' | 'preamble' | 'section';

/**
 * What a slice's analysis holds while it is measured — the parse, the model, the TOON candidates, the rules
 * with their MinHash keys — and can rebuild from its text at any time (everything here is a pure function of
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
  raw: string;
  /** Slice-relative end of the heading line(s) incl. terminator. */
  headingEnd: number;
  key: string;
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
  sourceAlnum: number;
  /** Memo: token count per tokenizer and text (the slice, its candidates, its converted segments). */
  tokenMemo: SmallMap<TokenizerName, SmallMap<string, number>>;
  /** Memo for standalone verdicts by options key. */
  verdicts: SmallMap<string, unknown>;
  /** Memo: `toon/fence-decode` diagnostics of the slice's ```toon fences (slice-relative offsets). */
  toonFences?: CoreDiagnostic[];
  /** Memo: whether the slice text contains the word "toon" at all (else it holds no ```toon fence). */
  mentionsToon?: boolean;
}

/** The parse-dependent part of a slice's analysis, computed from its text (or from its parse, when given). */
function sliceDetail(raw: string, kind: SliceKind, section: string, parsed: ParsedSlice | null = kind === 'frontmatter' ? null : parseSlice(raw, kind === 'section')): SliceDetail {
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
    rules: parsed ? sliceRules(parsed, section) : [],
    candidates: new CandidateSet(model),
    bodyCandidates: new CandidateSet(body),
    derived: new Map(),
  };
}

/**
 * A slice analysis whose {@link SliceDetail} is built with it and rebuilt on first read after
 * {@link releaseDetail} dropped it (same values: every detail is a pure function of the text).
 */
// The compact fields are SliceAnalysis's, declared once there (all assigned by the constructor).
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging, @typescript-eslint/no-empty-object-type
interface Analysis extends Omit<SliceAnalysis, keyof SliceDetail | 'raw' | 'kind' | 'headingEnd'> {}
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
class Analysis implements SliceAnalysis {
  private detail: SliceDetail | null;

  constructor(
    readonly raw: string,
    readonly kind: SliceKind,
    readonly headingEnd: number,
  ) {
    const parsed = kind === 'frontmatter' ? null : parseSlice(raw, kind === 'section');
    // Strings kept with the analysis are flat copies (detach): a substring of the parse's text would keep that text alive.
    const section = parsed?.heading ? detach(parsed.heading.text.replace(/\s+/g, ' ')) : kind === 'preamble' ? '(preamble)' : '(frontmatter)';
    // The parse is the detail's: built once here, shared with it.
    const d = sliceDetail(raw, kind, section, parsed);
    this.detail = d;
    this.key = parsed ? detach(sliceKey(kind, parsed.heading)) : '---';
    this.stats = parsed ? sliceStats(parsed, parsed.lines.spanCount) : { ...emptyStats(), lines: new LineIndex(raw).spanCount };
    this.profile = profileName(this.stats);
    this.headingText = parsed?.heading ? detach(parsed.heading.text) : null;
    this.title = parsed?.heading && parsed.heading.level === 1 ? this.headingText : null;
    this.emptyBody = d.body === '';
    this.section = section;
    this.ownWarnings = [];
    this.tokenMemo = new SmallMap();
    this.verdicts = new SmallMap();
    if (parsed) {
      pushAll(this.ownWarnings, vagueRuleWarnings(parsed, section));
      if (parsed.blocks.length > 0) {
        const long = longSectionWarning(parsed, raw, headingEnd, section);
        if (long) this.ownWarnings.push(long);
        const split = splitCandidateWarning(parsed, section);
        if (split) this.ownWarnings.push(split);
      }
      const keep = keepMarkerWarning(raw, headingEnd, section);
      if (keep) this.ownWarnings.push(keep);
    }
    this.localDuplicates = duplicateRuleWarnings(d.rules);
    this.sourceAlnum = kind === 'frontmatter' ? 0 : sourceAlnum(raw);
  }

  private full(): SliceDetail {
    return (this.detail ??= sliceDetail(this.raw, this.kind, this.section));
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

  /** Whether the detail is held (tests observe the release). */
  get holdsDetail(): boolean {
    return this.detail !== null;
  }

  release(keepTexts: readonly string[]): void {
    this.detail = null;
    // Token counts of candidate texts go with the candidates; the slice's own count and those of the
    // texts the caller still measures (its converted segments) stay.
    for (const m of this.tokenMemo.values()) for (const k of m.keys()) if (k !== this.raw && !keepTexts.includes(k)) m.delete(k);
  }
}

/** Analyses one slice standalone. Never throws on any input. */
export function analyzeSlice(raw: string, kind: SliceKind, headingEnd: number): SliceAnalysis {
  return new Analysis(raw, kind, headingEnd);
}

/**
 * Drops the slice's {@link SliceDetail} (rebuilt from its text on the next read) and the token counts of
 * texts other than the slice's own and `keepTexts`. What an engine cache does to the analyses a completed
 * plan measured, so it keeps per slice only what lenses, hovers, diagnostics and the next edit read.
 */
export function releaseDetail(a: SliceAnalysis, keepTexts: readonly string[] = []): void {
  if (a instanceof Analysis) a.release(keepTexts);
}

/** Whether the analysis holds its detail now (false after {@link releaseDetail} until a detail is read). */
export function holdsDetail(a: SliceAnalysis): boolean {
  return a instanceof Analysis ? a.holdsDetail : true;
}


const TOON_WORD = /toon/i;

/**
 * `toon/fence-decode` of the slice's own fences, slice-relative, memoized. A fence never crosses a
 * document-level heading (the slicer agrees with markdown-it on headings, and a heading cannot stand
 * inside a fence), so the document's fence diagnostics are its slices' shifted; a slice that does not
 * contain the word "toon" has none and is not parsed.
 */
export function sliceToonFenceDiagnostics(a: SliceAnalysis): CoreDiagnostic[] {
  return (a.toonFences ??= sliceMentionsToon(a) ? toonFenceDiagnostics(a.raw) : []);
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
  return countTokens(a, tok, a.raw);
}

/** Token count of a text derived from the slice (a candidate, a converted segment), memoized on the analysis. */
export function countTokens(a: SliceAnalysis, tok: Tokenizer, text: string): number {
  let m = a.tokenMemo.get(tok.name);
  if (!m) a.tokenMemo.set(tok.name, (m = new SmallMap()));
  let n = m.get(text);
  if (n === undefined) {
    n = tok.count(text);
    // The slice text stays; candidate and segment texts are few per slice (3 delimiters, a few modes).
    if (m.size > 16) {
      const own = m.get(a.raw);
      m.clear();
      if (own !== undefined) m.set(a.raw, own);
    }
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

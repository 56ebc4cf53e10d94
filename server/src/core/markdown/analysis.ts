/**
 * Per-slice analysis: everything about a slice that depends only on its text and kind,
 * so the engine cache can reuse it across edits elsewhere in the document.
 */
import { parseSlice, type Block, type ParsedSlice } from './blocks';
import { LineIndex } from '../lineIndex';
import { bodyValue, sliceKey, type JsonObject, type JsonValue } from './model';
import { CandidateSet } from './candidate';
import { sentences } from './text';
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
import { keepMarkerWarning } from './inlineControl';

export type SliceKind = 'frontmatter' | 'preamble' | 'section';

export interface SliceAnalysis {
  kind: SliceKind;
  raw: string;
  /** Slice-relative end of the heading line(s) incl. terminator. */
  headingEnd: number;
  key: string;
  body: JsonValue;
  /** The slice model: { key: body }. */
  model: JsonObject;
  parsed: ParsedSlice | null;
  stats: Stats;
  profile: ProfileName;
  /** The heading text when it is a level-1 heading (a standalone document's title). */
  title: string | null;
  /** Display name in warning messages. */
  section: string;
  /** Rules (slice-relative) for document-level duplicate detection. */
  rules: RuleRef[];
  /** Vague, long-section and split warnings (slice-relative). */
  ownWarnings: VerdictWarning[];
  /** Duplicate rules within the slice alone (slice-relative). */
  localDuplicates: VerdictWarning[];
  candidates: CandidateSet;
  sourceAlnum: number;
  /** The body alone (what a section's ```toon fence holds: its heading stays the markdown line above). */
  bodyCandidates: CandidateSet;
  /** Memo: token count per tokenizer and text (the slice, its candidates, its converted segments). */
  tokenMemo: Map<TokenizerName, Map<string, number>>;
  /** Memo for derived (record/lossy) models. */
  derived: Map<string, { model: JsonObject; candidates: CandidateSet; alnum: number }>;
  /** Memo for standalone verdicts by options key. */
  verdicts: Map<string, unknown>;
  /** Memo: `toon/fence-decode` diagnostics of the slice's ```toon fences (slice-relative offsets). */
  toonFences?: CoreDiagnostic[];
  /** Memo: whether the slice text contains the word "toon" at all (else it holds no ```toon fence). */
  mentionsToon?: boolean;
}

/** Analyses one slice standalone. Never throws on any input. */
export function analyzeSlice(raw: string, kind: SliceKind, headingEnd: number): SliceAnalysis {
  let parsed: ParsedSlice | null = null;
  let key: string;
  let body: JsonValue;
  let stats: Stats;
  if (kind === 'frontmatter') {
    key = '---';
    body = raw.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').replace(/\n$/, '');
    stats = { ...emptyStats(), lines: new LineIndex(raw).spanCount };
  } else {
    parsed = parseSlice(raw, kind === 'section');
    key = sliceKey(kind, parsed.heading);
    body = bodyValue(parsed.blocks);
    stats = sliceStats(parsed, parsed.lines.spanCount);
  }
  const model: JsonObject = { [key]: body };
  const section = parsed?.heading ? parsed.heading.text.replace(/\s+/g, ' ') : kind === 'preamble' ? '(preamble)' : '(frontmatter)';
  const rules = parsed ? sliceRules(parsed, section) : [];
  const ownWarnings: VerdictWarning[] = [];
  if (parsed) {
    pushAll(ownWarnings, vagueRuleWarnings(parsed, section));
    const hasBody = parsed.blocks.length > 0;
    if (hasBody) {
      const long = longSectionWarning(parsed, raw, headingEnd, section);
      if (long) ownWarnings.push(long);
      const split = splitCandidateWarning(parsed, section);
      if (split) ownWarnings.push(split);
    }
    const keep = keepMarkerWarning(raw, headingEnd, section);
    if (keep) ownWarnings.push(keep);
  }
  return {
    kind,
    raw,
    headingEnd,
    key,
    body,
    model,
    parsed,
    stats,
    profile: profileName(stats),
    title: parsed?.heading && parsed.heading.level === 1 ? parsed.heading.text : null,
    section,
    rules,
    ownWarnings,
    localDuplicates: duplicateRuleWarnings(rules),
    candidates: new CandidateSet(model),
    sourceAlnum: kind === 'frontmatter' ? 0 : sourceAlnum(raw),
    bodyCandidates: new CandidateSet(body),
    tokenMemo: new Map(),
    derived: new Map(),
    verdicts: new Map(),
  };
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
  if (!m) a.tokenMemo.set(tok.name, (m = new Map()));
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

/**
 * Block parse of one slice with markdown-it (CommonMark + GFM tables and strikethrough).
 *
 * Inline parsing is switched off: the engine keeps each block's inline source
 * verbatim (lossless by construction) and never needs inline tokens, which are
 * most of markdown-it's cost. Lines that produce no token (link reference
 * definitions) are kept as raw blocks, and any block whose extracted content lost
 * a letter or digit falls back to a raw block, so lossless coverage is 1.0 by
 * construction.
 */
import { indentOf, sentences } from './text';
import { pushAll } from '../arrays';
import { blockParser, type Token } from './parser';
import { blockTokenSteps } from './blockSteps';
import { LineIndex } from '../lineIndex';

export type Block =
  | { kind: 'p'; text: string }
  | { kind: 'l'; items: string[] }
  | { kind: 'o'; items: string[]; start: number }
  | { kind: 't'; header: string[]; rows: string[][] }
  | { kind: 'c'; lang: string; code: string }
  | { kind: 'd'; defs: [string, string][] }
  | { kind: 'm'; raw: string };

/** A rule-bearing or analysable text unit (list item or paragraph sentence), slice-relative. */
export interface TextUnit {
  text: string;
  /** 'item' for list items, 'sentence' for paragraph sentences. */
  source: 'item' | 'sentence';
  /** Offsets relative to the slice text. */
  start: number;
  end: number;
  /** 0-based line indexes relative to the slice. */
  lineStart: number;
  lineEnd: number;
}

export interface ParsedSlice {
  /** The document-level heading of the slice, if it starts with one. */
  heading: { level: number; text: string } | null;
  blocks: Block[];
  /** The lines [from, to) of each block (0-based, slice-relative, blank lines at either end excluded), parallel to `blocks`. */
  blockLines: [number, number][];
  /** Letters and digits per block in the source (ordered-list marker digits excluded). */
  headingCount: number;
  paragraphs: number;
  listItems: number;
  tables: number;
  tableRows: number;
  /** Line indexes (0-based, slice-relative) that belong to tables. */
  tableLines: number;
  /** Lines that start a list item (any depth). */
  bulletLines: number;
  /** Paragraphs and list items as analysable units, in source order. */
  units: TextUnit[];
  /** Definition-shaped items/lines found (for stats). */
  definitionLines: number;
  /** Whether the only body block is one paragraph (heading definition test). */
  bodyIsOneParagraph: boolean;
  /** The raw slice text's lines (offsets of the normalized lines in the raw text). */
  lines: LineIndex;
}

const ALNUM_CHAR = /[\p{L}\p{N}]/u;
/** Number of letter and digit code units (any script); ASCII is counted without the regex engine. */
export function countAlnum(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) {
      if ((c >= 48 && c <= 57) || ((c | 32) >= 97 && (c | 32) <= 122)) n++;
    } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const lo = s.charCodeAt(i + 1);
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        if (ALNUM_CHAR.test(s.slice(i, i + 2))) n += 2;
        i++;
      }
    } else if (ALNUM_CHAR.test(s[i]!)) n++;
  }
  return n;
}

/** `**term**: text`, `**term:** text`, `` `term`: text ``, `term: text`, `term — text`. */
const DEF_PATTERNS: RegExp[] = [
  /^\*\*([^*\n]+?)\*\*\s*(?::|—|–|\s-)\s*(\S[\s\S]*)$/,
  /^\*\*([^*\n]+?):\*\*\s+(\S[\s\S]*)$/,
  /^(`[^`\n]+`)\s*(?::|—|–)\s+(\S[\s\S]*)$/,
  /^([A-Za-z][\w ./()-]{0,38}?):\s+(\S[\s\S]*)$/,
  /^([^\s—–][^—–\n]{0,38}?)\s+[—–]\s+(\S[\s\S]*)$/,
];

/** Splits `text` into [term, definition] when it reads as a definition. */
export function matchDefinition(text: string): [string, string] | null {
  for (const re of DEF_PATTERNS) {
    const m = re.exec(text);
    if (m) {
      const term = m[1]!.trim();
      const def = m[2]!.trim();
      if (term && def && !/^(https?|ftp|mailto)$/i.test(term)) return [term, def];
    }
  }
  return null;
}

/**
 * A paragraph's inline source with its soft line breaks joined by one space: a soft break renders
 * as a space, and a value without line breaks needs neither quotes nor `\n` escapes in TOON. The
 * whitespace around a soft break is insignificant (CommonMark strips it). Text with a hard break (a line
 * ending in two spaces or a backslash) is returned unchanged. Linear.
 */
export function joinSoftBreaks(text: string): string {
  if (!text.includes('\n')) return text;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length - 1; i++) {
    const l = lines[i]!;
    if (l.endsWith('  ') || l.endsWith('\\') || l.endsWith('\t')) return text;
  }
  return lines.map((l, i) => (i === 0 ? l.trimEnd() : i === lines.length - 1 ? l.trimStart() : l.trim())).join(' ');
}

/** Integer-like keys are reordered by JavaScript objects, so they can never be model keys. */
export function isIndexLike(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}

const ORDERED_MARKER = /^[ \t]*(\d{1,9})[.)]/;

interface Ctx {
  lines: string[];
  /** Offsets of each normalized line in the raw slice text. */
  raw: LineIndex;
  /** The raw offset of column `col` of normalized line `line` (line 0 lost a BOM, if the slice has one). */
  offset(line: number, col: number): number;
}

function linesText(ctx: Ctx, from: number, to: number): string {
  return ctx.lines.slice(from, to).join('\n');
}

/** Finds the index of the matching close token for an open token at index i. */
function closeIndex(tokens: Token[], i: number): number {
  const open = tokens[i]!;
  let depth = 0;
  for (let j = i; j < tokens.length; j++) {
    const t = tokens[j]!;
    if (t.nesting === 1 && t.level === open.level) depth++;
    else if (t.nesting === -1 && t.level === open.level) {
      depth--;
      if (depth === 0) return j;
    }
  }
  return tokens.length - 1;
}

/** Splits paragraph text into sentences with slice-relative positions (one pass over the lines). */
function sentenceUnits(ctx: Ctx, text: string, lineFrom: number, lineTo: number, out: TextUnit[]): void {
  // Each sentence is located by its first and last characters, searching forward only.
  let line = lineFrom;
  let col = 0;
  const find = (needle: string): { line: number; col: number } | null => {
    for (let l = line; l < lineTo; l++) {
      const at = ctx.lines[l]!.indexOf(needle, l === line ? col : 0);
      if (at >= 0) return { line: l, col: at };
    }
    return null;
  };
  for (const sentence of sentences(text)) {
    const s = sentence.replace(/\s+/g, ' ').trim();
    if (!s) continue;
    const firstWord = s.split(' ', 1)[0]!;
    const lastWord = s.slice(s.lastIndexOf(' ') + 1);
    const start = find(firstWord);
    if (!start) continue;
    line = start.line;
    col = start.col + firstWord.length;
    const end = s.includes(' ') ? find(lastWord) : { line: start.line, col: start.col };
    if (!end) continue;
    const endCol = end.col + lastWord.length;
    out.push({
      text: s,
      source: 'sentence',
      start: ctx.offset(start.line, start.col),
      end: ctx.offset(end.line, endCol),
      lineStart: start.line,
      lineEnd: end.line,
    });
    line = end.line;
    col = endCol;
  }
}

/**
 * parseSlice's state: the slice's normalized lines (and where they are in the raw text), markdown-it's tokens, the
 * result so far and the first line no block covers yet. Each construct below turns one top-level token into a block.
 */
class SliceParse implements Ctx {
  readonly lines: string[] = [];
  readonly raw: LineIndex;
  /** markdown-it's tokens of the normalized lines (set by parseSliceSteps). */
  tokens: Token[] = [];
  readonly out: ParsedSlice;
  /** The next line no block covers yet. */
  covered = 0;
  /** Lines extracted since the last yield of {@link parseSliceSteps}, and how many it extracts a step (STEP_LINES). */
  work = 0;
  stepLines = STEP_LINES;
  private bodyBlocks = 0;
  private firstBodyBlockParagraph = false;

  constructor(rawText: string, readonly isSection: boolean) {
    this.raw = new LineIndex(rawText);
    this.out = {
      heading: null,
      blocks: [],
      blockLines: [],
      headingCount: 0,
      paragraphs: 0,
      listItems: 0,
      tables: 0,
      tableRows: 0,
      tableLines: 0,
      bulletLines: 0,
      units: [],
      definitionLines: 0,
      bodyIsOneParagraph: false,
      lines: this.raw,
    };
  }

  /** Reads the normalized lines [from, to) (in order: the lines before `from` read already). */
  readLines(from: number, to: number): void {
    for (let l = from; l < to; l++) {
      let line = this.raw.lineText(l);
      if (l === 0 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
      this.lines.push(line.replace(/\0/g, '\uFFFD'));
    }
  }

  offset(line: number, col: number): number {
    return this.raw.lineStart(line) + col + (line === 0 && this.raw.text.charCodeAt(0) === 0xfeff ? 1 : 0);
  }

  text(from: number, to: number): string {
    return linesText(this, from, to);
  }

  /** Letters and digits of lines [from, to) as the source has them. */
  sourceAlnum(from: number, to: number): number {
    return countAlnum(this.text(from, to));
  }

  /** {@link sourceAlnum} a run of `stepLines` lines a step (a count over lines adds up: no letter spans a line end). */
  *sourceAlnumSteps(from: number, to: number): Generator<void, number, void> {
    let n = 0;
    const step = this.stepLines;
    for (let l = from; l < to; l += step) {
      n += this.sourceAlnum(l, Math.min(to, l + step));
      if (to - from > step) yield;
    }
    return n;
  }

  /** Lines [from, to) verbatim as one raw block, without leading and trailing blank lines. */
  private pushRaw(from: number, to: number): void {
    while (to > from && this.lines[to - 1]!.trim() === '') to--;
    while (from < to && this.lines[from]!.trim() === '') from++;
    if (to > from) {
      this.out.blocks.push({ kind: 'm', raw: this.text(from, to) });
      this.out.blockLines.push([from, to]);
    }
  }

  /** Uncovered non-blank lines before `upTo` (link reference definitions) are kept verbatim, one raw block per run. */
  flushGap(upTo: number): void {
    if (upTo <= this.covered) return;
    let from = this.covered;
    for (let l = this.covered; l <= upTo; l++) {
      if (l === upTo || this.lines[l]!.trim() === '') {
        this.pushRaw(from, l);
        from = l + 1;
      }
    }
  }

  /** A body block (nothing for a blank raw one). */
  addBlock(block: Block, from: number, to: number): void {
    if (block.kind === 'm' && block.raw.trim() === '') return;
    while (to > from + 1 && this.lines[to - 1]!.trim() === '') to--;
    this.out.blocks.push(block);
    this.out.blockLines.push([from, to]);
    this.bodyBlocks++;
    if (this.bodyBlocks === 1) this.firstBodyBlockParagraph = block.kind === 'p';
  }

  finish(): ParsedSlice {
    this.flushGap(this.lines.length);
    this.out.bodyIsOneParagraph = this.out.blocks.length === 1 && this.firstBodyBlockParagraph;
    return this.out;
  }
}

/**
 * One top-level block as the model has it, with its letter and digit accounting: `modelAlnum` the model's,
 * `expectAlnum` the source's (-1: not checked). A block that lost any falls back to its raw lines.
 */
interface Extracted {
  block: Block | null;
  modelAlnum: number;
  expectAlnum: number;
}

/** The token range [i, end] of a top-level block and the lines [from, to) it covers. */
interface At {
  i: number;
  end: number;
  from: number;
  to: number;
}

const UNMODELLED: Extracted = { block: null, modelAlnum: 0, expectAlnum: -1 };

/** A heading: the section's own (recorded, no block: null) or a raw block. */
function headingBlock(s: SliceParse, at: At): Extracted | null {
  const t = s.tokens[at.i]!;
  if (s.isSection && s.out.heading === null && at.from === 0) {
    s.out.heading = { level: Number(t.tag.slice(1)), text: s.tokens[at.i + 1]?.content ?? '' };
    return null;
  }
  return { block: { kind: 'm', raw: s.text(at.from, at.to) }, modelAlnum: 0, expectAlnum: -1 };
}

function paragraphBlock(s: SliceParse, at: At): Extracted {
  const text = s.tokens[at.i + 1]?.content ?? '';
  s.out.paragraphs++;
  for (const l of text.split('\n')) if (matchDefinition(l.trim())) s.out.definitionLines++;
  sentenceUnits(s, text, at.from, at.to, s.out.units);
  return { block: { kind: 'p', text: joinSoftBreaks(text) }, modelAlnum: countAlnum(text), expectAlnum: s.sourceAlnum(at.from, at.to) };
}

/** A list item's content: its inline text when it is one paragraph, else its source de-indented to the content column; null when that cannot be done losslessly (tabs, an empty first line). */
function listItemContent(s: SliceParse, inner: Token[], first: string, iFrom: number, iTo: number, ordered: boolean): string | null {
  if (inner.length === 0) return '';
  if (inner.length === 3 && inner[0]!.type === 'paragraph_open' && inner[1]!.type === 'inline') return joinSoftBreaks(inner[1]!.content);
  // Complex item: its source, marker removed and de-indented to the content column.
  if (/\t/.test(s.text(iFrom, iTo))) return null;
  const ind = indentOf(first);
  const markerLen = ordered ? (/^\d{1,9}[.)]/.exec(first.slice(ind.chars))?.[0].length ?? 2) : 1;
  const afterMarker = first.slice(ind.chars + markerLen);
  const sp = indentOf(afterMarker);
  if (afterMarker.trim() === '') return null;
  const contentCol = ind.cols + markerLen + (sp.cols > 4 ? 1 : sp.cols);
  const parts = [afterMarker.slice(sp.cols > 4 ? 1 : sp.chars)];
  for (let l = iFrom + 1; l < iTo; l++) {
    const line = s.lines[l]!;
    const li = indentOf(line);
    parts.push(line.slice(Math.min(li.chars, contentCol)));
  }
  return parts.join('\n');
}

/** Whether every item reads `**term**: text` with distinct, key-safe terms (the form the rendering writes back, so Revert keeps the term's bold and separator). */
function allDefinitions(items: string[], defs: ([string, string] | null)[]): defs is [string, string][] {
  const terms = new Set<string>();
  return (
    defs.length >= 2 &&
    defs.every((d, k) => {
      if (!d || terms.has(d[0]) || isIndexLike(d[0]) || d[0].includes('*') || /^\s|\s$/.test(d[0])) return false;
      if (items[k] !== `**${d[0]}**: ${d[1]}`) return false;
      terms.add(d[0]);
      return true;
    })
  );
}

function* listBlock(s: SliceParse, at: At): Generator<void, Extracted, void> {
  const tokens = s.tokens;
  const t = tokens[at.i]!;
  const ordered = t.type === 'ordered_list_open';
  const items: string[] = [];
  const itemUnits: TextUnit[] = [];
  const itemDefs: ([string, string] | null)[] = [];
  let markerDigits = 0;
  let defLines = 0;
  let simple = true;
  let modelAlnum = 0;
  for (let j = at.i + 1; j < at.end; j++) {
    const it = tokens[j]!;
    if (it.type !== 'list_item_open' || it.level !== 1) continue;
    const itEnd = closeIndex(tokens, j);
    const [iFrom, iTo0] = it.map ?? [0, 0];
    let iTo = iTo0;
    while (iTo > iFrom + 1 && s.lines[iTo - 1]!.trim() === '') iTo--;
    const first = s.lines[iFrom]!;
    if (ordered) {
      const om = ORDERED_MARKER.exec(first);
      if (om) markerDigits += om[1]!.length;
    }
    const content = listItemContent(s, tokens.slice(j + 1, itEnd), first, iFrom, iTo, ordered);
    if (content === null) return UNMODELLED;
    if ((s.work += iTo - iFrom) >= s.stepLines) {
      s.work = 0;
      yield;
    }
    const def = matchDefinition(content);
    if (def) defLines++;
    itemDefs.push(def);
    if (content.includes('\n')) simple = false;
    modelAlnum += countAlnum(content);
    items.push(content);
    itemUnits.push({
      text: content.replace(/\s+/g, ' ').trim(),
      source: 'item',
      start: s.offset(iFrom, indentOf(first, false).chars), // spaces only: a tab ends the item's indent here
      end: s.raw.contentEnd(iTo - 1),
      lineStart: iFrom,
      lineEnd: iTo - 1,
    });
    j = itEnd;
  }
  const defs = !ordered && simple && items.length >= 2 ? itemDefs : [];
  s.out.definitionLines += defLines;
  pushAll(s.out.units, itemUnits);
  const block: Block = allDefinitions(items, defs)
    ? { kind: 'd', defs }
    : ordered
      ? { kind: 'o', items, start: Number(t.attrGet('start') ?? 1) }
      : { kind: 'l', items };
  return { block, modelAlnum, expectAlnum: (yield* s.sourceAlnumSteps(at.from, at.to)) - markerDigits };
}

function* tableBlock(s: SliceParse, at: At): Generator<void, Extracted, void> {
  const header: string[] = [];
  const rows: string[][] = [];
  let row: string[] | null = null;
  let modelAlnum = 0;
  for (let j = at.i + 1; j < at.end; j++) {
    const x = s.tokens[j]!;
    if (x.type === 'tr_open') row = [];
    else if (x.type === 'inline' && row) {
      row.push(x.content);
      modelAlnum += countAlnum(x.content);
    } else if (x.type === 'tr_close' && row) {
      if (header.length === 0) pushAll(header, row);
      else rows.push(row);
      row = null;
      if (++s.work >= s.stepLines) {
        s.work = 0;
        yield;
      }
    }
  }
  s.out.tables++;
  s.out.tableRows += rows.length;
  s.out.tableLines += at.to - at.from;
  const unique = new Set(header).size === header.length && header.every((h) => !isIndexLike(h));
  if (!(unique && rows.length > 0)) return UNMODELLED;
  // (modelAlnum: every cell's, the header's and the rows', counted as they were read)
  return { block: { kind: 't', header, rows }, modelAlnum, expectAlnum: yield* s.sourceAlnumSteps(at.from, at.to) };
}

function codeBlock(s: SliceParse, at: At): Extracted {
  const t = s.tokens[at.i]!;
  const code = t.content.endsWith('\n') ? t.content.slice(0, -1) : t.content;
  const lang = t.type === 'fence' ? t.info.trim() : '';
  return { block: { kind: 'c', lang, code }, modelAlnum: countAlnum(code) + countAlnum(lang), expectAlnum: s.sourceAlnum(at.from, at.to) };
}

/** The block of one top-level token, by construct; null for the section's own heading. */
function* extractBlock(s: SliceParse, at: At): Generator<void, Extracted | null, void> {
  switch (s.tokens[at.i]!.type) {
    case 'heading_open': return headingBlock(s, at);
    case 'paragraph_open': return paragraphBlock(s, at);
    case 'bullet_list_open':
    case 'ordered_list_open': return yield* listBlock(s, at);
    case 'table_open': return yield* tableBlock(s, at);
    case 'fence':
    case 'code_block': return codeBlock(s, at);
    default: return UNMODELLED;
  }
}

/**
 * How many source lines {@link parseSliceSteps} extracts between two yields (a line of a list item, a table row or
 * a paragraph costs about alike), so a huge slice's extraction is many steps of a time-sliced plan.
 */
export const STEP_LINES = 1024;

/**
 * Parses one slice (its raw text, CRLF/BOM allowed) into blocks.
 * `isSection` says whether the slice starts with a heading line that is the section's own.
 */
export function parseSlice(raw: string, isSection: boolean): ParsedSlice {
  const steps = parseSliceSteps(raw, isSection);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * {@link parseSlice} in steps: a slice of `stepLines` lines or more is read, tokenized by markdown-it
 * ({@link blockTokenSteps}) and extracted `stepLines` lines a step (inside a long list or table too), a smaller one
 * in one. The parse it returns is parseSlice's whatever `stepLines` is.
 */
export function* parseSliceSteps(raw: string, isSection: boolean, stepLines = STEP_LINES): Generator<void, ParsedSlice, void> {
  const s = new SliceParse(raw, isSection);
  s.stepLines = stepLines;
  const lineCount = s.raw.spanCount;
  for (let l = 0; l < lineCount; l += stepLines) {
    s.readLines(l, Math.min(lineCount, l + stepLines));
    if (lineCount >= stepLines) yield;
  }
  const src = s.lines.join('\n');
  // A huge slice's markdown-it parse in steps (the same tokens), a smaller one in one call.
  if (lineCount >= stepLines) {
    s.tokens = yield* blockTokenSteps(blockParser(), src, {}, stepLines);
    yield;
  } else s.tokens = blockParser().parse(src, {});
  const { tokens, out } = s;
  for (const t of tokens) {
    if (t.type === 'heading_open') out.headingCount++;
    else if (t.type === 'list_item_open') {
      out.listItems++;
      out.bulletLines++;
    }
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.level !== 0 || t.nesting === -1) continue;
    const map = t.map ?? [s.covered, s.covered];
    s.flushGap(map[0]);
    const at: At = { i, end: t.nesting === 1 ? closeIndex(tokens, i) : i, from: map[0], to: map[1] };
    s.covered = Math.max(s.covered, at.to);
    const x = yield* extractBlock(s, at);
    if (x !== null) {
      const lost = x.block === null || (x.expectAlnum >= 0 && x.modelAlnum < x.expectAlnum);
      s.addBlock(lost ? { kind: 'm', raw: s.text(at.from, at.to) } : x.block!, at.from, at.to);
    }
    i = at.end;
    if ((s.work += at.to - at.from) >= s.stepLines) {
      s.work = 0;
      yield;
    }
  }
  return s.finish();
}

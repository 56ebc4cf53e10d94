/**
 * Section slicing (docs/engine.md#1-slicing): a cheap, CommonMark-aware line scanner that
 * finds document-level headings without building a syntax tree, so the editor can
 * re-slice a large document on every keystroke pause.
 *
 * The scanner tracks exactly the state that decides whether a line can be a
 * document-level heading: fenced code, HTML blocks, indented code, the open list
 * (by the content column of its outermost item), block quotes, tables and the
 * paragraph that a setext underline would turn into a heading. Its answers are
 * checked against markdown-it's block parse by property tests.
 */
import { detach, indentOf, isSpaceCode } from './text';
import { LineIndex } from '../lineIndex';

/** One contiguous piece of the source. Slices tile the source exactly. */
export interface Slice {
  kind: 'frontmatter' | 'preamble' | 'section';
  /** Heading text (inline source, ATX closing sequence removed; setext lines joined by \n); null for frontmatter and preamble. */
  heading: string | null;
  /** Heading level 1–6; null for frontmatter and preamble. */
  level: number | null;
  charStart: number;
  charEnd: number;
  /** 1-based first line. */
  lineStart: number;
  /** 1-based last line (a trailing newline does not open a new line). */
  lineEnd: number;
  /** End offset of the heading line incl. its terminator (for setext: of the underline); charStart for non-sections. */
  headingEnd: number;
}

const FENCE_OPEN = /^(`{3,}|~{3,})(.*)$/;
const ATX = /^#{1,6}(?=[ \t]|$)/;
const SETEXT = /^(=+|-+)[ \t]*$/;
const THEMATIC = /^([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const BULLET = /^([-+*])([ \t]|$)/;
const ORDERED = /^(\d{1,9})([.)])([ \t]|$)/;
const HTML_1 = /^<(script|pre|style|textarea)(\s|>|$)/i;
const HTML_1_END = /<\/(script|pre|style|textarea)>/i;
const HTML_6 =
  /^<\/?(address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h1|h2|h3|h4|h5|h6|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|source|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?=\s|\/?>|$)/i;
const ATTR = String.raw`(?:\s+[a-zA-Z_:][a-zA-Z0-9:._-]*(?:\s*=\s*(?:[^"'=<>\x60\x00-\x20]+|'[^']*'|"[^"]*"))?)`;
const HTML_7 = new RegExp(String.raw`^(?:<[A-Za-z][A-Za-z0-9-]*${ATTR}*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>)\s*$`);

type HtmlEnd = RegExp | 'blank';


/** Removes `cols` columns of leading whitespace (tabs expanded) from a line. */
function stripCols(line: string, cols: number, base = 0): string {
  let c = 0;
  let i = 0;
  while (i < line.length && c < cols) {
    const ch = line.charCodeAt(i);
    if (ch === 32) c++;
    else if (ch === 9) {
      const w = 4 - ((base + c) % 4);
      if (c + w > cols) return ' '.repeat(c + w - cols) + line.slice(i + 1);
      c += w;
    } else break;
    i++;
  }
  return line.slice(i);
}

function htmlStart(rest: string, canInterruptParagraph: boolean): HtmlEnd | null {
  if (rest.charCodeAt(0) !== 60) return null;
  if (HTML_1.test(rest)) return HTML_1_END;
  if (rest.startsWith('<!--')) return /-->/;
  if (rest.startsWith('<?')) return /\?>/;
  if (/^<![A-Za-z]/.test(rest)) return />/;
  if (rest.startsWith('<![CDATA[')) return /\]\]>/;
  if (HTML_6.test(rest)) return 'blank';
  if (!canInterruptParagraph && HTML_7.test(rest)) return 'blank';
  return null;
}

/** Whether an HTML block that starts on `line` ends there too (its end marker on the same line; a blank-ended one never does). */
function endsOnItsLine(h: HtmlEnd, line: string): boolean {
  return h !== 'blank' && h.test(line);
}

/** Cells of a table delimiter row, or -1 when the line is not one (markdown-it's rules). */
function delimiterColumns(rest: string): number {
  const t = rest.trimEnd();
  if (t.length < 2) return -1;
  const a = t.charCodeAt(0);
  const b = t.charCodeAt(1);
  if (a !== 124 && a !== 45 && a !== 58) return -1;
  if (b !== 124 && b !== 45 && b !== 58 && b !== 32 && b !== 9) return -1;
  if (a === 45 && (b === 32 || b === 9)) return -1;
  if (!/^[|\-: \t]+$/.test(t)) return -1;
  const cols = t.split('|');
  let n = 0;
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!.trim();
    if (!c) {
      if (i === 0 || i === cols.length - 1) continue;
      return -1;
    }
    if (!/^:?-+:?$/.test(c)) return -1;
    n++;
  }
  return n;
}

/** Cells of a table header line split on unescaped pipes (markdown-it's escapedSplit). */
function headerColumns(rest: string): number {
  const t = rest.trim();
  if (t.indexOf('|') === -1) return -1;
  const cols: string[] = [];
  let cur = '';
  for (let i = 0; i < t.length; i++) {
    const ch = t[i]!;
    if (ch === '\\' && t[i + 1] === '|') {
      cur += '\\|';
      i++;
    } else if (ch === '|') {
      cols.push(cur);
      cur = '';
    } else cur += ch;
  }
  cols.push(cur);
  if (cols.length && cols[0] === '') cols.shift();
  if (cols.length && cols[cols.length - 1] === '') cols.pop();
  return cols.length;
}

/** ATX heading text: trimmed, optional closing #-sequence removed (CommonMark). */
export function atxHeadingText(rest: string): { level: number; text: string } | null {
  const m = ATX.exec(rest);
  if (!m) return null;
  const level = m[0].length;
  let text = rest.slice(level).trim();
  // A closing sequence is a run of # preceded by a space or tab (or the whole content). Scanned
  // from the end: the regex /(^|[ \t]+)#+[ \t]*$/ retries every space of a long run (quadratic).
  let k = text.length;
  while (k > 0 && text.charCodeAt(k - 1) === 35 /* # */) k--;
  if (k < text.length) {
    const before = k > 0 ? text.charCodeAt(k - 1) : 32;
    if (before === 32 || before === 9) text = text.slice(0, k).trim();
  }
  return { level, text };
}

/** The frontmatter block's end offset (through its closing line), or -1 (docs/engine.md#1-slicing). */
export function frontmatterEnd(lines: LineIndex): number {
  if (lines.spanCount < 2 || !opensFrontmatter(lines.lineText(0))) return -1;
  for (let i = 1; i < lines.spanCount; i++) {
    if (/^(?:---|\.\.\.)[ \t]*$/.test(lines.lineText(i))) return lines.lineEnd(i);
  }
  return -1;
}

/** Whether a document's first line opens frontmatter (`---`, after a BOM, trailing spaces and tabs allowed). */
function opensFrontmatter(firstLine: string): boolean {
  return /^\uFEFF?---[ \t]*$/.test(firstLine);
}

/** A text's first line, without its line break. */
function firstLine(text: string): string {
  let i = 0;
  while (i < text.length && text.charCodeAt(i) !== 10 && text.charCodeAt(i) !== 13) i++;
  return text.slice(0, i);
}

/** Scanner state after the last line: `clean` when nothing is open; `atxSafe` when an ATX heading line would still be one. */
export interface ScanEnd {
  clean: boolean;
  atxSafe: boolean;
  /**
   * No fence or HTML block is open: an ATX heading at column 0 is a heading whatever else is open (a list item's
   * content column is at least 2, and a heading is never a lazy continuation line).
   */
  atxSafeAtColumn0?: boolean;
}

interface HeadingStart {
  line: number; // 0-based index of the first heading line
  level: number;
  text: string;
  headingEndLine: number; // 0-based index of the last heading line (the underline for setext)
}

/** An open fenced code block: its character and length, and whether it opened inside a list item (at `base`). */
interface OpenFence {
  ch: string;
  len: number;
  listed: boolean;
  base: number;
}

/**
 * The heading scanner's state between two lines: exactly what decides whether the next line can be a
 * document-level heading. One per scan; each construct below reads and updates it for one line.
 */
class HeadingScan {
  readonly text: string;
  readonly out: HeadingStart[] = [];
  fence: OpenFence | null = null;
  html: HtmlEnd | null = null;
  /** Content column of the outermost open list item, or -1 when no list is open. */
  listCol = -1;
  /** Whether the last non-blank line inside the list was paragraph text (lazy continuation possible). */
  listPara = false;
  listBlankSeen = false;
  /** The open item began on an empty line and holds nothing yet (a blank line then ends it). */
  listEmpty = false;
  /** Whether the item's last line was a block quote's (a `>` line in the item continues that quote). */
  listQuote = false;
  /** An HTML block open inside the list item, with its end condition. */
  listHtml: HtmlEnd | null = null;
  /** The open list's marker: its bullet, or its ordered delimiter (`.` or `)`); an item with another starts a new list. */
  listMarker = '';
  /** Document-level paragraph: its first line, or -1; and its lines (for a setext heading's text). */
  paraStart = -1;
  paraLines: string[] = [];
  inTable = false;
  /** Whether the open block quote's last line was paragraph text (lazy continuation possible). */
  quotePara = false;
  /** The last block-quote line, and the HTML block or fence open inside that quote after it. */
  quoteLast = -2;
  quoteOpen: { html: HtmlEnd } | { fence: OpenFence } | null = null;
  /**
   * The list item open at the top of the block quote (its content column, counted from the quote's content),
   * or null. A quote line indented to that column belongs to the item (`> -` then `>     x`: `x` is the item's
   * paragraph, not indented code); an item marker left of it starts the list's next item (or another list),
   * which ends the item's paragraph even when it is empty (markdown-it: the next item terminates the last).
   */
  quoteItem: { col: number; empty: boolean } | null = null;
  /** A table is open at the top of the block quote (its rows are no paragraph: nothing continues them lazily). */
  quoteTable = false;
  /** A table is open in the list item. */
  listTable = false;
  /** Next '|' at or after the current line (monotonic, so the search stays linear). */
  nextPipe = -2;

  constructor(readonly lines: LineIndex) {
    this.text = lines.text;
  }

  /** No paragraph is open any more. */
  endParagraph(): void {
    this.paraStart = -1;
    this.paraLines = [];
  }

  /** A leaf block started at document level: no list, paragraph, table or quote is open any more. */
  endBlocks(): void {
    this.listCol = -1;
    this.endParagraph();
    this.inTable = false;
    this.quotePara = false;
    this.quoteItem = null;
    this.quoteTable = false;
    this.listTable = false;
  }

  /** A line of document-level paragraph text (or the first one). */
  paragraphLine(li: number, text: string): void {
    this.quoteItem = null;
    if (this.paraStart < 0) {
      this.paraStart = li;
      this.paraLines = [];
    }
    this.paraLines.push(text);
  }
}

/** The first non-space offset of a line within its first 4 columns of spaces (`start + 4` or more: indented). */
function afterSpaces(text: string, start: number, contentEnd: number): number {
  let p = start;
  while (p < contentEnd && text.charCodeAt(p) === 32 && p - start < 4) p++;
  return p;
}

/**
 * Fast path: a document-level line that starts with a letter and holds no '|' is paragraph text (no block
 * starts with a letter); most lines of most documents take this path, without slicing the line.
 */
function plainParagraphLine(s: HeadingScan, li: number, start: number, contentEnd: number): boolean {
  if (s.fence || s.html || s.listCol >= 0 || s.quotePara || s.inTable || li === 0) return false;
  const text = s.text;
  const p = afterSpaces(text, start, contentEnd);
  const c = p < contentEnd ? text.charCodeAt(p) : 0;
  if (!(p - start < 4 && (c | 32) >= 97 && (c | 32) <= 122)) return false;
  if (s.nextPipe !== -1 && s.nextPipe < start) s.nextPipe = text.indexOf('|', start);
  if (s.nextPipe !== -1 && s.nextPipe < contentEnd) return false;
  s.paragraphLine(li, text.slice(p, contentEnd));
  return true;
}

/** Inside a document-level fence only a line starting (after ≤ 3 spaces) with the fence character can close it. */
function skipsFenceBody(s: HeadingScan, fence: OpenFence, start: number, contentEnd: number): boolean {
  const p = afterSpaces(s.text, start, contentEnd);
  return p - start >= 4 || p >= contentEnd || s.text[p] !== fence.ch;
}

/** Whether `rest` (a line after its indentation) closes `fence`: its character, at least as long, nothing after. */
function closesFence(fence: OpenFence, rest: string): boolean {
  const m = /^(`{3,}|~{3,})[ \t]*$/.exec(rest);
  return m !== null && m[1]![0] === fence.ch && m[1]!.length >= fence.len;
}

/** A line inside an open fence: true when it belongs to it (closing it or not), false when the fence ended before it. */
function fenceLine(s: HeadingScan, fence: OpenFence, cols: number, rest: string, blank: boolean): boolean {
  if (fence.listed && s.listCol >= 0 && !blank && cols < s.listCol) {
    s.fence = null; // the list item holding the fence ended, so did the fence
    return false;
  }
  const rel = fence.listed ? cols - fence.base : cols;
  if (rel < 4 && rel >= 0 && closesFence(fence, rest)) s.fence = null;
  return true;
}

/** A line inside an open HTML block: it ends on a blank line or on its end marker. */
function htmlLine(s: HeadingScan, html: HtmlEnd, line: string, blank: boolean): void {
  if (html === 'blank') {
    if (blank) s.html = null;
  } else if (html.test(line)) s.html = null;
}

function blankLine(s: HeadingScan): void {
  s.endParagraph();
  s.inTable = false;
  s.quotePara = false;
  s.quoteItem = null;
  s.listQuote = false;
  s.quoteTable = false;
  s.listTable = false;
  if (s.listCol >= 0) {
    s.listPara = false;
    s.listBlankSeen = true;
    if (s.listHtml === 'blank') s.listHtml = null;
    // An item may begin with at most one blank line: one that began empty ends here.
    if (s.listEmpty) s.listCol = -1;
  }
}

/**
 * The text after a block quote's `>` (at column `col`) and the column it starts at: one optional space is
 * consumed, a whole space or one column of a tab (the tab's other columns stay, as spaces: markdown-it's
 * `adjustTab`), so `> \tx` holds `  x`, not indented code.
 */
function afterQuoteMarker(rest: string, col: number): { inner: string; col: number } {
  const c = rest.charCodeAt(1);
  if (c === 32) return { inner: rest.slice(2), col: col + 2 };
  if (c === 9) return { inner: ' '.repeat(3 - ((col + 1) % 4)) + rest.slice(2), col: col + 2 };
  return { inner: rest.slice(1), col: col + 1 };
}

/**
 * What {@link containerParagraph} asks of the end of one line, answered once per line: every text it looks at
 * after a container's markers is empty or a suffix of that line (a tab's leftover columns become spaces, which
 * the next indent skips), so "is the rest blank" and "can the rest be a thematic break" are questions about the
 * line's tail, and each level answers them without rescanning the rest of the line.
 */
class LineTail {
  private readonly line: string;
  /** Length of the line's trailing run of whitespace (what `trim` removes). */
  readonly blank: number;
  /** Per thematic-break character (`-`, `*`, `_`), the length of the longest suffix of it, spaces and tabs. */
  private readonly runs = new Map<number, number>();

  constructor(line: string) {
    this.line = line;
    let i = line.length;
    while (i > 0 && isSpaceCode(line.charCodeAt(i - 1))) i--;
    this.blank = line.length - i;
  }

  /** Whether `r`, a suffix of the line, holds nothing but whitespace. */
  isBlank(r: string): boolean {
    return r.length <= this.blank;
  }

  /** Whether `r`, a suffix of the line starting with no space, is a thematic break (THEMATIC, with the tail known). */
  thematic(r: string): boolean {
    const c = r.charCodeAt(0);
    if (c !== 45 && c !== 42 && c !== 95) return false;
    let run = this.runs.get(c);
    if (run === undefined) {
      const line = this.line;
      let i = line.length;
      while (i > 0) {
        const d = line.charCodeAt(i - 1);
        if (d !== c && d !== 32 && d !== 9) break;
        i--;
      }
      this.runs.set(c, (run = line.length - i));
    }
    return r.length <= run && THEMATIC.test(r);
  }
}

/**
 * Whether a line inside a container (after its markers: a quote's `>`, a list item's indent) is paragraph text,
 * so that a lazy continuation line may follow it. `paraOpen`: the container's last line was paragraph text;
 * `quoted`: that line was a block quote's (a `>` here continues it; otherwise the quote starts here, and its
 * paragraph is not open: `- a` then `  >     x` is code in a new quote). Opening fences and HTML blocks are
 * the callers' (they stay open over lines).
 */
function containerParagraph(inner: string, paraOpen: boolean, col: number, quoted = true): boolean {
  // One container level per turn (a `>` or a list marker), never a call per level: thousands of nested markers
  // on one line must not grow the stack, and each level's checks read the line's tail from `tail`, not the rest
  // of the line again.
  const tail = new LineTail(inner);
  for (;;) {
    const ind = indentOf(inner, true, col);
    const r = inner.slice(ind.chars);
    if (tail.isBlank(r)) return false;
    if (ind.cols >= 4) return paraOpen; // indented code, unless it continues a paragraph
    const c = r.charCodeAt(0) | 32;
    if (c >= 97 && c <= 122) return true; // a letter starts no block: paragraph text (most lines)
    if (ATX.test(r) || tail.thematic(r) || fenceOpener(r, 0, false) || (paraOpen && SETEXT.test(r)) || htmlStart(r, paraOpen)) return false;
    const rCol = col + ind.cols;
    if (r.charCodeAt(0) === 62 /* > */) {
      const q = afterQuoteMarker(r, rCol);
      inner = q.inner;
      paraOpen = paraOpen && quoted;
      col = q.col;
      quoted = true;
      continue;
    }
    const m = itemMarker(r, rCol, tail);
    if (m) {
      if (paraOpen && !interruptsParagraph(m)) return true; // paragraph text
      if (m.empty || m.pad.cols > 4) return false;
      inner = m.after.slice(m.pad.chars);
      paraOpen = false;
      col = rCol + m.len + m.pad.cols;
      quoted = false;
      continue;
    }
    return true;
  }
}

/** A list item's marker at the start of `r` (which starts at column `col`): the marker, what follows it and that text's indent. */
interface ItemMarker {
  /** The bullet, or the ordered delimiter (`.` or `)`): an item with another starts a new list. */
  marker: string;
  /** The ordered item's number (null for a bullet). */
  ordinal: string | null;
  len: number;
  after: string;
  empty: boolean;
  pad: { cols: number; chars: number };
}

/** `tail`: the line `r` is a suffix of, when the caller has it (so that "is the rest empty" does not rescan it). */
function itemMarker(r: string, col: number, tail?: LineTail): ItemMarker | null {
  const bm = BULLET.exec(r);
  const om = bm ? null : ORDERED.exec(r);
  if (!bm && !om) return null;
  const len = bm ? 1 : om![1]!.length + 1;
  const after = r.slice(len);
  return { marker: bm ? bm[1]! : om![2]!, ordinal: om ? om[1]! : null, len, after, empty: tail ? tail.isBlank(after) : after.trim() === '', pad: indentOf(after, true, col + len) };
}

/** CommonMark: an item interrupts a paragraph only when it is not empty and, ordered, starts at 1. */
function interruptsParagraph(m: ItemMarker): boolean {
  return !m.empty && (m.ordinal === null || m.ordinal === '1');
}

/** Columns from the item's marker to its content (one past the marker when empty or followed by indented code). */
function contentOffset(m: ItemMarker): number {
  return m.len + (m.empty || m.pad.cols > 4 ? 1 : m.pad.cols);
}


/** The fence that `rest` opens (a backtick fence's info string holds no backtick), or null. */
function fenceOpener(rest: string, base: number, listed: boolean): OpenFence | null {
  const m = FENCE_OPEN.exec(rest);
  if (!m || (m[1]![0] === '`' && m[2]!.includes('`'))) return null;
  return { ch: m[1]![0]!, len: m[1]!.length, listed, base };
}

/** A line indented to the open list's content column belongs to the list item. */
function listContinuationLine(s: HeadingScan, li: number, line: string): void {
  const inner = stripCols(line, s.listCol);
  s.listEmpty = false;
  const quoted = s.listQuote;
  s.listQuote = false;
  if (s.listHtml) {
    if (s.listHtml !== 'blank' && s.listHtml.test(inner)) s.listHtml = null;
    s.listPara = false;
    s.listBlankSeen = false;
    return;
  }
  const innerIndent = indentOf(inner, true, s.listCol);
  const innerRest = inner.slice(innerIndent.chars);
  if (s.listTable) {
    if (innerIndent.cols < 4 && !endsContainer(innerRest)) {
      s.listPara = false; // a row
      s.listBlankSeen = false;
      return;
    }
    s.listTable = false;
  }
  if (innerIndent.cols < 4 && innerRest.indexOf('|') !== -1 && delimiterRowFollows(s, li, innerRest, (next) => itemText(next, s.listCol))) {
    s.listTable = true;
    s.listPara = false;
    s.listBlankSeen = false;
    return;
  }
  const fence = innerIndent.cols < 4 ? fenceOpener(innerRest, s.listCol, true) : null;
  if (fence) {
    s.fence = fence;
    s.listPara = false;
    return;
  }
  const html = innerIndent.cols < 4 ? htmlStart(innerRest, s.listPara) : null;
  if (html) {
    if (!endsOnItsLine(html, inner)) s.listHtml = html;
    s.listPara = false;
  } else {
    const paraBefore = s.listPara;
    s.listPara = containerParagraph(inner, paraBefore, s.listCol, quoted);
    // A `>` line, or lazy text of the quote's paragraph (the quote goes on over it).
    s.listQuote = (innerIndent.cols < 4 && innerRest.charCodeAt(0) === 62) /* > */ || (quoted && paraBefore && s.listPara);
  }
  s.listBlankSeen = false;
}

/** Indented code (cannot interrupt a paragraph), or paragraph continuation. */
function indentedLine(s: HeadingScan, rest: string): void {
  if (s.listCol >= 0 && s.listPara && !s.listBlankSeen) return; // lazy continuation
  if (s.paraStart >= 0) {
    s.paraLines.push(rest);
    return;
  }
  if (s.quotePara) return;
  s.listCol = -1;
  s.inTable = false;
  s.quoteItem = null;
}

function atxLine(s: HeadingScan, li: number, rest: string): boolean {
  const atx = atxHeadingText(rest);
  if (!atx) return false;
  s.out.push({ line: li, level: atx.level, text: atx.text, headingEndLine: li });
  s.endBlocks();
  return true;
}

/** A setext underline after a document-level paragraph (unless it is the delimiter row of a one-line table). */
function setextLine(s: HeadingScan, li: number, rest: string): boolean {
  if (s.paraStart < 0 || !SETEXT.test(rest)) return false;
  const underline = rest.trim();
  const isTableDelim = underline[0] === '-' && s.paraLines.length === 1 && delimiterColumns(rest) >= 1 && headerColumns(s.paraLines[0]!) === delimiterColumns(rest);
  if (isTableDelim) return false;
  s.out.push({
    line: s.paraStart,
    level: underline[0] === '=' ? 1 : 2,
    text: s.paraLines.map((l) => l.trim()).join('\n').trim(),
    headingEndLine: li,
  });
  s.endParagraph();
  return true;
}

function fenceOpenLine(s: HeadingScan, rest: string): boolean {
  const fence = fenceOpener(rest, 0, false);
  if (!fence) return false;
  s.fence = fence;
  s.endBlocks();
  return true;
}

function htmlOpenLine(s: HeadingScan, line: string, rest: string, lazyCandidate: boolean): boolean {
  // (a type-7 tag cannot interrupt a paragraph, and markdown-it does not let one end a table: the line is a row)
  const h = htmlStart(rest, s.paraStart >= 0 || lazyCandidate || s.inTable);
  if (!h) return false;
  s.endBlocks();
  if (!endsOnItsLine(h, line)) s.html = h;
  return true;
}

/** Block quote: its lines never hold document-level headings; only whether a lazy paragraph line may follow matters. */
function quoteLine(s: HeadingScan, li: number, cols: number, rest: string): boolean {
  if (rest.charCodeAt(0) !== 62 /* > */) return false;
  const paraOpen = s.quotePara;
  const open = s.quoteLast === li - 1 ? s.quoteOpen : null;
  const top = s.quoteItem;
  const inTable = s.quoteTable && s.quoteLast === li - 1;
  s.endBlocks();
  s.quoteLast = li;
  s.quoteOpen = null;
  const { inner, col } = afterQuoteMarker(rest, cols);
  const ind = indentOf(inner, true, col);
  const r = inner.slice(ind.chars);
  const inItem = top !== null && r !== '' && ind.cols >= top.col;
  if (open && 'html' in open) {
    // Inside the quote's HTML block: it ends on a blank quote line or its end marker.
    if (open.html === 'blank' ? r.trim() !== '' : !open.html.test(inner)) s.quoteOpen = open;
    return true;
  }
  if (open) {
    if (!(ind.cols < 4 && closesFence(open.fence, r))) s.quoteOpen = open;
    return true;
  }
  if (inItem) {
    // The item's content: its column is where indentation counts from.
    s.quoteItem = top.empty ? { col: top.col, empty: false } : top;
    if (ind.cols - top.col < 4) {
      const fence = fenceOpener(r, 0, false);
      if (fence) {
        s.quoteOpen = { fence };
        return true;
      }
    }
    s.quotePara = containerParagraph(stripCols(inner, top.col, col), paraOpen, col + top.col);
    return true;
  }
  if (inTable && r !== '' && ind.cols < 4 && !endsContainer(r)) {
    s.quoteTable = true; // a row
    return true;
  }
  if (ind.cols < 4 && r.indexOf('|') !== -1 && delimiterRowFollows(s, li, r, quotedText)) {
    s.quoteTable = true; // the header: the next quote line is its delimiter row
    return true;
  }
  if (ind.cols < 4) {
    const fence = fenceOpener(r, 0, false);
    if (fence) {
      s.quoteOpen = { fence };
      return true;
    }
    const html = htmlStart(r, paraOpen);
    if (html) {
      if (!endsOnItsLine(html, inner)) s.quoteOpen = { html };
      return true;
    }
    const m = itemMarker(r, col + ind.cols);
    if (m && !(paraOpen && top === null && SETEXT.test(r))) {
      // Left of an open item's content any item ends that item's paragraph; the quote's own paragraph goes on
      // over an item that cannot interrupt it (paragraph text, then).
      if (!(paraOpen && top === null && !interruptsParagraph(m))) {
        s.quoteItem = { col: ind.cols + contentOffset(m), empty: m.empty };
        s.quotePara = containerParagraph(inner, false, col);
        return true;
      }
    }
  }
  const para = containerParagraph(inner, paraOpen, col);
  // A blank quote line (unless the item began empty) or the item paragraph's lazy text keeps the item open.
  if (top !== null && (r === '' ? !top.empty : paraOpen && para)) s.quoteItem = top;
  s.quotePara = para;
  return true;
}

function thematicLine(s: HeadingScan, rest: string): boolean {
  if (!THEMATIC.test(rest)) return false;
  s.endBlocks();
  return true;
}

/** A list item's first line (when it may start here: an item interrupting a paragraph must not be empty or start at 1 ≠ 1). */
function listItemLine(s: HeadingScan, li: number, cols: number, rest: string): boolean {
  const m = itemMarker(rest, cols);
  if (!m) return false;
  // (markdown-it lets any item end a block quote's lazy paragraph: only a document-level paragraph restricts.)
  if (s.paraStart >= 0 && !interruptsParagraph(m)) return false;
  s.endBlocks();
  s.listCol = cols + contentOffset(m);
  s.listBlankSeen = false;
  s.listEmpty = m.empty;
  s.listHtml = null;
  s.listQuote = false;
  s.listMarker = m.marker;
  // Content on the item's first line (not indented code): a fence, an HTML block or a table may open there.
  const content = !m.empty && m.pad.cols <= 4;
  const innerRest = m.after.slice(m.pad.chars);
  if (content && innerRest.indexOf('|') !== -1 && delimiterRowFollows(s, li, innerRest, (next) => itemText(next, s.listCol))) {
    s.listTable = true;
    s.listPara = false;
    return true;
  }
  const fence = content ? fenceOpener(innerRest, s.listCol, true) : null;
  const html = content && !fence ? htmlStart(innerRest, false) : null;
  if (fence) {
    s.fence = fence;
    s.listPara = false;
  } else if (html) {
    if (!endsOnItsLine(html, innerRest)) s.listHtml = html;
    s.listPara = false;
  } else {
    s.listPara = content && containerParagraph(innerRest, false, cols + m.len + m.pad.cols, false);
    s.listQuote = content && innerRest.charCodeAt(0) === 62; /* > */
  }
  return true;
}

/**
 * Whether line `li + 1`, read inside the same container (`inner`: its text after the container's markers, or null
 * when it is not in the container), is a delimiter row of as many cells as `header` — a table starts inside the
 * container, as at document level.
 */
function delimiterRowFollows(s: HeadingScan, li: number, header: string, inner: (next: string) => string | null): boolean {
  if (li + 1 >= s.lines.spanCount) return false;
  const next = inner(s.lines.lineText(li + 1));
  if (next === null) return false;
  const ni = indentOf(next);
  if (ni.cols >= 4) return false;
  const dc = delimiterColumns(next.slice(ni.chars));
  return dc > 0 && headerColumns(header) === dc;
}

/** A line's text inside a block quote (after up to three spaces, `>` and its optional space), or null. */
function quotedText(line: string): string | null {
  const { cols, chars } = indentOf(line);
  if (cols >= 4 || line.charCodeAt(chars) !== 62 /* > */) return null;
  return afterQuoteMarker(line.slice(chars), cols).inner;
}

/** A line's text inside the list item of content column `col`, or null when it is not indented that far. */
function itemText(line: string, col: number): string | null {
  return indentOf(line).cols >= col && line.trim() !== '' ? stripCols(line, col) : null;
}

/** Whether a line starts a block that ends a lazy paragraph or a table (markdown-it's terminators for them). */
function endsContainer(rest: string): boolean {
  return ATX.test(rest) || THEMATIC.test(rest) || rest.charCodeAt(0) === 62 /* > */ || BULLET.test(rest) || ORDERED.test(rest) || fenceOpener(rest, 0, false) !== null || htmlStart(rest, true) !== null;
}

/**
 * Whether a table may start on this line before any other block is tried: at document level, outside a lazy
 * paragraph and a table or on a line that ends them, and not on an item's marker line while a list with that
 * marker is open (markdown-it's list rule takes its next items itself).
 */
function tableFirst(s: HeadingScan, rest: string, lazyCandidate: boolean): boolean {
  if (s.listCol >= 0 && itemMarker(rest, 0)?.marker === s.listMarker) return false;
  return (!lazyCandidate && !s.inTable) || endsContainer(rest);
}

/** A table: a header line followed by a matching delimiter row (may interrupt a paragraph); true when one starts at `li`. */
function tableStart(s: HeadingScan, li: number, rest: string): boolean {
  if (!delimiterRowFollows(s, li, rest, (next) => next)) return false;
  s.endBlocks();
  s.inTable = true;
  return true;
}

/**
 * Finds document-level headings. `from` is the first line after frontmatter. One pass over the lines; each line
 * goes to the first construct that takes it, in CommonMark's order of precedence.
 * Exported for tests (the oracle compares it with markdown-it).
 */
export function scanHeadings(lines: LineIndex, from: number, end?: ScanEnd): HeadingStart[] {
  const s = new HeadingScan(lines);
  const text = lines.text;
  const count = lines.spanCount;
  for (let li = from; li < count; li++) {
    const lineStart = lines.lineStart(li);
    const contentEnd = lines.contentEnd(li);
    if (plainParagraphLine(s, li, lineStart, contentEnd)) continue;
    if (s.fence && !s.fence.listed && skipsFenceBody(s, s.fence, lineStart, contentEnd)) continue;
    if (s.inTable && s.listCol < 0 && text.charCodeAt(lineStart) === 124 /* | */) continue; // a table row
    let line = text.slice(lineStart, contentEnd);
    if (li === 0 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    const { cols, chars } = indentOf(line);
    const rest = line.slice(chars);
    const blank = rest.trim() === '';

    if (s.fence && fenceLine(s, s.fence, cols, rest, blank)) continue;
    if (s.html) {
      htmlLine(s, s.html, line, blank);
      continue;
    }
    if (blank) {
      blankLine(s);
      continue;
    }
    if (s.listCol >= 0 && cols >= s.listCol) {
      listContinuationLine(s, li, line);
      continue;
    }
    if (cols >= 4) {
      indentedLine(s, rest);
      continue;
    }
    const lazyCandidate = (s.listCol >= 0 && s.listPara && !s.listBlankSeen) || s.quotePara;
    // markdown-it tries a table before any other block (a `# a | b` line over a delimiter row is a table's header),
    // wherever a line starts a block at document level: outside a lazy paragraph and a table, or on a line that
    // ends them (a heading, fence, quote, rule, list item or HTML block of types 1–6).
    if (rest.indexOf('|') !== -1 && tableFirst(s, rest, lazyCandidate) && tableStart(s, li, rest)) {
      li++; // the delimiter row
      continue;
    }
    if (atxLine(s, li, rest) || setextLine(s, li, rest) || fenceOpenLine(s, rest) || htmlOpenLine(s, line, rest, lazyCandidate)) continue;
    if (quoteLine(s, li, cols, rest) || thematicLine(s, rest) || listItemLine(s, li, cols, rest)) continue;
    if (lazyCandidate || s.inTable) continue; // paragraph continuation inside the list or quote; table rows
    s.listCol = -1;
    s.paragraphLine(li, rest);
  }
  if (end) {
    end.clean = !s.fence && !s.html && s.listCol < 0 && s.paraStart < 0 && !s.inTable && !s.quotePara && !(s.quoteOpen && s.quoteLast === count - 1) && s.quoteItem === null && !s.quoteTable;
    end.atxSafe = !s.fence && !s.html && s.listCol < 0;
    end.atxSafeAtColumn0 = !s.fence && !s.html;
  }
  return s.out;
}

/**
 * Cuts a document into frontmatter, preamble and heading-bounded sections
 * (docs/engine.md#1-slicing). The slices tile `text` exactly, in order, from 0.
 */
export function sliceDocument(text: string): Slice[] {
  const lines = new LineIndex(text);
  const count = lines.spanCount;
  const slices: Slice[] = [];
  if (count === 0) return slices;
  let firstLine = 0;
  const fmEnd = frontmatterEnd(lines);
  if (fmEnd >= 0) {
    let endLine = 0;
    while (lines.lineEnd(endLine) < fmEnd) endLine++;
    slices.push({ kind: 'frontmatter', heading: null, level: null, charStart: 0, charEnd: fmEnd, lineStart: 1, lineEnd: endLine + 1, headingEnd: 0 });
    firstLine = endLine + 1;
  }
  const headings = scanHeadings(lines, firstLine);
  const firstHeadingLine = headings.length ? headings[0]!.line : count;
  if (firstHeadingLine > firstLine) {
    const start = lines.lineStart(firstLine);
    slices.push({
      kind: 'preamble',
      heading: null,
      level: null,
      charStart: start,
      charEnd: lines.lineStart(firstHeadingLine),
      lineStart: firstLine + 1,
      lineEnd: firstHeadingLine,
      headingEnd: start,
    });
  }
  for (let i = 0; i < headings.length; i++) {
    const h = headings[i]!;
    const nextLine = i + 1 < headings.length ? headings[i + 1]!.line : count;
    slices.push({
      kind: 'section',
      heading: detach(h.text),
      level: h.level,
      charStart: lines.lineStart(h.line),
      charEnd: lines.lineStart(nextLine),
      lineStart: h.line + 1,
      lineEnd: nextLine,
      headingEnd: lines.lineEnd(h.headingEndLine),
    });
  }
  return slices;
}

/**
 * The slices of `text` after an edit of `prevText` (whose slices are `prevSlices`), equal to
 * `sliceDocument(text)` but scanning only around the change: the scanner's state right after a
 * heading line is always clean, so scanning restarts at the heading before the change and stops
 * at the first unchanged heading after it once the state is clean again; the slices beyond are
 * the previous ones shifted. Falls back to a full scan whenever that argument does not apply.
 */
const CHUNK = 4096;

/**
 * Length of the common prefix, at most `max`: compared a chunk at a time (substring equality is a memcmp),
 * the chunk doubling while the texts agree and halving once they differ, so a large document costs a few
 * dozen substrings (logarithmic in its length) instead of one per fixed-size chunk.
 */
function commonPrefix(a: string, b: string, max: number): number {
  let p = 0;
  let chunk = CHUNK;
  while (chunk >= 64) {
    if (p + chunk <= max && a.substring(p, p + chunk) === b.substring(p, p + chunk)) {
      p += chunk;
      if (chunk < 1 << 20) chunk *= 2;
    } else chunk >>= 1;
  }
  while (p < max && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  return p;
}

/** Length of the common suffix, at most `max` (compared like commonPrefix, from the ends). */
function commonSuffix(a: string, b: string, max: number): number {
  let q = 0;
  let chunk = CHUNK;
  while (chunk >= 64) {
    if (q + chunk <= max && a.substring(a.length - q - chunk, a.length - q) === b.substring(b.length - q - chunk, b.length - q)) {
      q += chunk;
      if (chunk < 1 << 20) chunk *= 2;
    } else chunk >>= 1;
  }
  while (q < max && a.charCodeAt(a.length - 1 - q) === b.charCodeAt(b.length - 1 - q)) q++;
  return q;
}

function lineOfHeadingEnd(text: string, sl: Slice): number {
  // The heading's last line: count line breaks between the slice start and headingEnd (exclusive of its terminator).
  let n = sl.lineStart;
  for (let i = sl.charStart; i < sl.headingEnd - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) n++;
  }
  return n;
}

/**
 * How the slices after an edit relate to the previous ones (what `resliceAfterEdit` fills in): slices
 * `[0, head)` are the previous slice objects, unchanged; from `tail` on, slice `i` has exactly the text
 * (and kind and relative heading end) of previous slice `i - tail + prevTail`, shifted. Only the slices in
 * between are new text. A full re-slice carries nothing (`head` 0, `tail` the slice count).
 */
export interface SliceCarry {
  head: number;
  tail: number;
  prevTail: number;
}

export function resliceAfterEdit(prevText: string, prevSlices: Slice[], text: string, carry?: SliceCarry): Slice[] {
  const full = (): Slice[] => {
    const slices = sliceDocument(text);
    if (carry) Object.assign(carry, { head: 0, tail: slices.length, prevTail: prevSlices.length });
    return slices;
  };
  const minLen = Math.min(prevText.length, text.length);
  const p = commonPrefix(prevText, text, minLen);
  if (p === prevText.length && p === text.length) {
    if (carry) Object.assign(carry, { head: prevSlices.length, tail: prevSlices.length, prevTail: prevSlices.length });
    return prevSlices;
  }
  const q = commonSuffix(prevText, text, minLen - p);
  const delta = text.length - prevText.length;
  // First slice touched by the change (an insertion at a boundary touches the slice before it too).
  let a = prevSlices.findIndex((sl) => sl.charEnd >= p);
  if (a < 0) a = prevSlices.length - 1;
  const restart = a - 1;
  if (restart < 0 || prevSlices[restart]!.kind !== 'section') return full();
  // A first line that opens frontmatter no later line closed yet: a `---` or `...` line the edit brings, however
  // far below, closes it and turns everything above into frontmatter.
  if (prevSlices[0]!.kind !== 'frontmatter' && /^\uFEFF?---/.test(text.slice(0, 4)) && opensFrontmatter(firstLine(text))) return full();
  const from = prevSlices[restart]!;
  const oldChangeEnd = prevText.length - q;
  // Strictly after the change, so the line break before it is unchanged and it still starts a line.
  const b = prevSlices.findIndex((sl, i) => i > a && sl.charStart > oldChangeEnd);
  const windowEnd = b < 0 ? text.length : prevSlices[b]!.charStart + delta;
  const windowText = text.slice(from.charStart, windowEnd);
  const lines = new LineIndex(windowText);
  const count = lines.spanCount;
  const state: ScanEnd = { clean: false, atxSafe: false };
  const headings = scanHeadings(lines, 0, state);
  if (b >= 0) {
    // An ATX heading interrupts paragraphs, tables and quotes; a setext heading needs a clean state.
    const next = prevSlices[b]!;
    const atx = next.lineStart === lineOfHeadingEnd(prevText, next) && /^ {0,3}#/.test(prevText.slice(next.charStart, next.charStart + 8));
    // A section ending in a list leaves the list open; an ATX heading at column 0 still ends it.
    const atx0 = atx && prevText.charCodeAt(next.charStart) === 35; /* # */
    if (!(state.clean || (atx && state.atxSafe) || (atx0 && state.atxSafeAtColumn0 === true))) return full();
  }
  if (headings.length === 0 || headings[0]!.line !== 0) return full();
  const lineBase = from.lineStart - 1;
  const windowSlices: Slice[] = headings.map((h, i) => {
    const nextLine = i + 1 < headings.length ? headings[i + 1]!.line : count;
    return {
      kind: 'section',
      heading: detach(h.text),
      level: h.level,
      charStart: from.charStart + lines.lineStart(h.line),
      charEnd: from.charStart + lines.lineStart(nextLine),
      lineStart: lineBase + h.line + 1,
      lineEnd: lineBase + nextLine,
      headingEnd: from.charStart + lines.lineEnd(h.headingEndLine),
    };
  });
  const out = prevSlices.slice(0, restart).concat(windowSlices);
  if (carry) Object.assign(carry, { head: restart, tail: out.length, prevTail: b >= 0 ? b : prevSlices.length });
  if (b >= 0) {
    const lineDelta = lineBase + count - (prevSlices[b]!.lineStart - 1);
    for (let i = b; i < prevSlices.length; i++) {
      const sl = prevSlices[i]!;
      out.push({
        kind: sl.kind,
        heading: sl.heading,
        level: sl.level,
        charStart: sl.charStart + delta,
        charEnd: sl.charEnd + delta,
        headingEnd: sl.headingEnd + delta,
        lineStart: sl.lineStart + lineDelta,
        lineEnd: sl.lineEnd + lineDelta,
      });
    }
  }
  return out;
}

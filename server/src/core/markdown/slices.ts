/**
 * Section slicing (docs/engine.md#1-slicing): a cheap, CommonMark-aware line scanner that
 * finds document-level headings without building a syntax tree, so the editor can
 * re-slice a 1 MB document on every keystroke pause.
 *
 * The scanner tracks exactly the state that decides whether a line can be a
 * document-level heading: fenced code, HTML blocks, indented code, the open list
 * (by the content column of its outermost item), block quotes, tables and the
 * paragraph that a setext underline would turn into a heading. Its answers are
 * checked against markdown-it's block parse by property tests.
 */
import { detach } from './text';
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


/** Leading whitespace measured in columns (tabs to the next multiple of 4) and in characters. */
function indentOf(line: string): { cols: number; chars: number } {
  let cols = 0;
  let i = 0;
  for (; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32) cols++;
    else if (c === 9) cols += 4 - (cols % 4);
    else break;
  }
  return { cols, chars: i };
}

/** Removes `cols` columns of leading whitespace (tabs expanded) from a line. */
function stripCols(line: string, cols: number): string {
  let c = 0;
  let i = 0;
  while (i < line.length && c < cols) {
    const ch = line.charCodeAt(i);
    if (ch === 32) c++;
    else if (ch === 9) {
      const w = 4 - (c % 4);
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
  // from the end: the regex /(^|[ \t]+)#+[ \t]*$/ retries every space of a long run (#14.10).
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
  if (lines.spanCount < 2) return -1;
  const first = lines.lineText(0).replace(/^\uFEFF/, '');
  if (!/^---[ \t]*$/.test(first)) return -1;
  for (let i = 1; i < lines.spanCount; i++) {
    if (/^(?:---|\.\.\.)[ \t]*$/.test(lines.lineText(i))) return lines.lineEnd(i);
  }
  return -1;
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

/**
 * Finds document-level headings. `from` is the first line after frontmatter.
 * Exported for tests (the oracle compares it with markdown-it).
 */
export function scanHeadings(lines: LineIndex, from: number, end?: ScanEnd): HeadingStart[] {
  const text = lines.text;
  const count = lines.spanCount;
  const out: HeadingStart[] = [];
  let fence: { ch: string; len: number; listed: boolean; base: number } | null = null;
  let html: HtmlEnd | null = null;
  // Content column of the outermost open list item, or -1 when no list is open.
  let listCol = -1;
  // Whether the last non-blank line inside the list was paragraph text (lazy continuation possible).
  let listPara = false;
  let listBlankSeen = false;
  // Document-level paragraph: its first line, or -1.
  let paraStart = -1;
  let paraLines: string[] = [];
  let inTable = false;
  let quotePara = false;

  // Next '|' at or after the current line (monotonic, so the search stays linear).
  let nextPipe = -2;
  for (let li = from; li < count; li++) {
    const lineStart = lines.lineStart(li);
    const contentEnd = lines.contentEnd(li);
    // Fast path: a document-level line that starts with a letter and holds no '|' is paragraph
    // text (no block starts with a letter); most lines of most documents take this path.
    if (!fence && !html && listCol < 0 && !quotePara && !inTable && !(li === 0)) {
      let p = lineStart;
      while (p < contentEnd && text.charCodeAt(p) === 32 && p - lineStart < 4) p++;
      const c = p < contentEnd ? text.charCodeAt(p) : 0;
      if (p - lineStart < 4 && ((c | 32) >= 97 && (c | 32) <= 122)) {
        if (nextPipe !== -1 && nextPipe < lineStart) nextPipe = text.indexOf('|', lineStart);
        if (nextPipe === -1 || nextPipe >= contentEnd) {
          if (paraStart < 0) {
            paraStart = li;
            paraLines = [];
          }
          paraLines.push(text.slice(p, contentEnd));
          continue;
        }
      }
    }
    if (fence && !fence.listed) {
      // Inside a document-level fence only a line starting (after ≤ 3 spaces) with the fence
      // character can close it; skip the rest without slicing.
      let p = lineStart;
      while (p < contentEnd && text.charCodeAt(p) === 32 && p - lineStart < 4) p++;
      if (p - lineStart >= 4 || p >= contentEnd || text[p] !== fence.ch) continue;
    }
    if (inTable && listCol < 0 && text.charCodeAt(lineStart) === 124 /* | */) continue; // a table row
    let line = text.slice(lineStart, contentEnd);
    if (li === 0 && line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    const { cols, chars } = indentOf(line);
    const rest = line.slice(chars);
    const blank = rest.trim() === '';

    if (fence) {
      if (fence.listed && listCol >= 0 && !blank && cols < listCol) {
        // The list item holding the fence ended, so did the fence; fall through.
        fence = null;
      } else {
        const rel = fence.listed ? cols - fence.base : cols;
        if (rel < 4 && rel >= 0) {
          const m = /^(`{3,}|~{3,})[ \t]*$/.exec(rest);
          if (m && m[1]![0] === fence.ch && m[1]!.length >= fence.len) fence = null;
        }
        continue;
      }
    }
    if (html) {
      if (html === 'blank') {
        if (blank) html = null;
      } else if (html.test(line)) html = null;
      if (html === null || !blank) continue;
      continue;
    }

    if (blank) {
      paraStart = -1;
      paraLines = [];
      inTable = false;
      quotePara = false;
      if (listCol >= 0) {
        listPara = false;
        listBlankSeen = true;
      }
      continue;
    }

    // Inside the open list: any line indented to its content column belongs to it.
    if (listCol >= 0 && cols >= listCol) {
      const inner = stripCols(line, listCol);
      const innerIndent = indentOf(inner);
      const innerRest = inner.slice(innerIndent.chars);
      if (innerIndent.cols < 4 && FENCE_OPEN.test(innerRest)) {
        const m = FENCE_OPEN.exec(innerRest)!;
        if (!(m[1]![0] === '`' && m[2]!.includes('`'))) {
          fence = { ch: m[1]![0]!, len: m[1]!.length, listed: true, base: listCol };
          listPara = false;
          continue;
        }
      }
      listPara = !(innerIndent.cols >= 4 && !listPara) && !ATX.test(innerRest) && !THEMATIC.test(innerRest);
      listBlankSeen = false;
      continue;
    }

    // Indented code (cannot interrupt a paragraph) or paragraph continuation.
    if (cols >= 4) {
      if (listCol >= 0 && listPara && !listBlankSeen) continue; // lazy continuation
      if (paraStart >= 0) {
        paraLines.push(rest);
        continue;
      }
      if (quotePara) continue;
      listCol = -1;
      inTable = false;
      continue;
    }

    const lazyCandidate = (listCol >= 0 && listPara && !listBlankSeen) || quotePara;

    // ATX heading.
    const atx = atxHeadingText(rest);
    if (atx) {
      out.push({ line: li, level: atx.level, text: atx.text, headingEndLine: li });
      listCol = -1;
      paraStart = -1;
      paraLines = [];
      inTable = false;
      quotePara = false;
      continue;
    }

    // Setext underline after a document-level paragraph.
    if (paraStart >= 0 && SETEXT.test(rest)) {
      const underline = rest.trim();
      const isTableDelim = underline[0] === '-' && paraLines.length === 1 && delimiterColumns(rest) >= 1 && headerColumns(paraLines[0]!) === delimiterColumns(rest);
      if (!isTableDelim) {
        out.push({
          line: paraStart,
          level: underline[0] === '=' ? 1 : 2,
          text: paraLines.map((l) => l.trim()).join('\n').trim(),
          headingEndLine: li,
        });
        paraStart = -1;
        paraLines = [];
        continue;
      }
    }

    // Fenced code.
    const fm = FENCE_OPEN.exec(rest);
    if (fm && !(fm[1]![0] === '`' && fm[2]!.includes('`'))) {
      fence = { ch: fm[1]![0]!, len: fm[1]!.length, listed: false, base: 0 };
      listCol = -1;
      paraStart = -1;
      paraLines = [];
      inTable = false;
      quotePara = false;
      continue;
    }

    // HTML block.
    const h = htmlStart(rest, paraStart >= 0 || lazyCandidate);
    if (h) {
      listCol = -1;
      paraStart = -1;
      paraLines = [];
      inTable = false;
      quotePara = false;
      if (h !== 'blank' && h.test(line)) continue; // ends on its first line
      html = h;
      continue;
    }

    // Block quote: its lines never hold document-level headings.
    if (rest.charCodeAt(0) === 62 /* > */) {
      listCol = -1;
      paraStart = -1;
      paraLines = [];
      inTable = false;
      const inner = rest.slice(1).replace(/^[ \t]/, '');
      quotePara = inner.trim() !== '' && !FENCE_OPEN.test(inner.trim()) && !ATX.test(inner.trim());
      continue;
    }

    if (THEMATIC.test(rest)) {
      listCol = -1;
      paraStart = -1;
      paraLines = [];
      inTable = false;
      quotePara = false;
      continue;
    }

    // List item start.
    const bm = BULLET.exec(rest);
    const om = bm ? null : ORDERED.exec(rest);
    if (bm || om) {
      const markerLen = bm ? 1 : om![1]!.length + 1;
      const after = rest.slice(markerLen);
      const empty = after.trim() === '';
      const interrupting = paraStart >= 0 || (lazyCandidate && listCol < 0);
      const allowed = !interrupting || (!empty && (bm !== null || om![1] === '1'));
      if (allowed) {
        const afterIndent = indentOf(after);
        const markerCol = cols + markerLen;
        const contentCol = empty || afterIndent.cols > 4 ? markerCol + 1 : markerCol + afterIndent.cols;
        listCol = contentCol;
        listPara = !empty;
        listBlankSeen = false;
        paraStart = -1;
        paraLines = [];
        inTable = false;
        quotePara = false;
        // A fence may open on the item's first line.
        const innerRest = after.slice(afterIndent.chars);
        const f2 = FENCE_OPEN.exec(innerRest);
        if (!empty && afterIndent.cols <= 4 && f2 && !(f2[1]![0] === '`' && f2[2]!.includes('`'))) {
          fence = { ch: f2[1]![0]!, len: f2[1]!.length, listed: true, base: listCol };
          listPara = false;
        } else if (!empty && (ATX.test(innerRest) || THEMATIC.test(innerRest))) listPara = false;
        continue;
      }
    }

    if (lazyCandidate) continue; // paragraph continuation inside the list or quote

    // Tables: a header line followed by a matching delimiter row (may interrupt a paragraph).
    if (inTable) continue;
    if (li + 1 < count) {
      const nextLine = lines.lineText(li + 1);
      const ni = indentOf(nextLine);
      if (ni.cols < 4) {
        const dc = delimiterColumns(nextLine.slice(ni.chars));
        if (dc > 0 && headerColumns(rest) === dc) {
          inTable = true;
          listCol = -1;
          paraStart = -1;
          paraLines = [];
          li++; // the delimiter row
          continue;
        }
      }
    }

    // Paragraph text.
    listCol = -1;
    if (paraStart < 0) {
      paraStart = li;
      paraLines = [rest];
    } else paraLines.push(rest);
  }
  if (end) {
    end.clean = !fence && !html && listCol < 0 && paraStart < 0 && !inTable && !quotePara;
    end.atxSafe = !fence && !html && listCol < 0;
    end.atxSafeAtColumn0 = !fence && !html;
  }
  return out;
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

/** Length of the common prefix, compared a chunk at a time (substring equality is a memcmp). */
function commonPrefix(a: string, b: string, max: number): number {
  let p = 0;
  while (p + CHUNK <= max && a.substring(p, p + CHUNK) === b.substring(p, p + CHUNK)) p += CHUNK;
  while (p < max && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  return p;
}

/** Length of the common suffix, at most `max`. */
function commonSuffix(a: string, b: string, max: number): number {
  let q = 0;
  while (q + CHUNK <= max && a.substring(a.length - q - CHUNK, a.length - q) === b.substring(b.length - q - CHUNK, b.length - q)) q += CHUNK;
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

export function resliceAfterEdit(prevText: string, prevSlices: Slice[], text: string): Slice[] {
  const minLen = Math.min(prevText.length, text.length);
  const p = commonPrefix(prevText, text, minLen);
  if (p === prevText.length && p === text.length) return prevSlices;
  const q = commonSuffix(prevText, text, minLen - p);
  const delta = text.length - prevText.length;
  // First slice touched by the change (an insertion at a boundary touches the slice before it too).
  let a = prevSlices.findIndex((sl) => sl.charEnd >= p);
  if (a < 0) a = prevSlices.length - 1;
  const restart = a - 1;
  if (restart < 0 || prevSlices[restart]!.kind !== 'section') return sliceDocument(text);
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
    if (!(state.clean || (atx && state.atxSafe) || (atx0 && state.atxSafeAtColumn0 === true))) return sliceDocument(text);
  }
  if (headings.length === 0 || headings[0]!.line !== 0) return sliceDocument(text);
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

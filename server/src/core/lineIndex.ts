/**
 * Appends to `out` the offset of every line start after the first in `text` (just past each "\n", "\r\n" or
 * lone "\r"), plus `base`: the line table of {@link LineIndex} and of the server's documents.
 */
export function pushLineStarts(text: string, base: number, out: number[]): void {
  if (text.indexOf('\r') === -1) {
    // No \r at all (the usual case): the native indexOf finds every line break.
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) out.push(base + i + 1);
    return;
  }
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 13 /* \r */) {
      if (text.charCodeAt(i + 1) === 10) i++;
      out.push(base + i + 1);
    } else if (c === 10 /* \n */) {
      out.push(base + i + 1);
    }
  }
}

/**
 * The one line table of a text: offset ↔ (line, character) for LSP ranges, and line starts, content ends and
 * texts for the line scanners (the section slicer, the slice parser, the ```toon fence finder).
 *
 * Lines end at "\n", "\r\n" or a lone "\r", as LSP and CommonMark count them; characters are UTF-16 code
 * units. Lines are 0-based. `lineCount` counts as LSP does (a trailing line break opens an empty last line,
 * an empty text has one line); `spanCount` counts the lines that hold text or a line break (a trailing line
 * break opens none, an empty text has none), which is what the markdown scanners iterate over.
 */
export class LineIndex {
  /** Offset at which each line starts; starts[0] is always 0. */
  private readonly starts: number[];

  constructor(readonly text: string) {
    const starts = [0];
    pushLineStarts(text, 0, starts);
    this.starts = starts;
  }

  /** Number of lines as LSP counts them (a text without a line break has one). */
  get lineCount(): number {
    return this.starts.length;
  }

  /** Number of lines holding text or a line break: a trailing line break opens no last line, '' has none. */
  get spanCount(): number {
    const n = this.starts.length;
    return this.starts[n - 1] === this.text.length ? n - 1 : n;
  }

  /** Offset of line `n`'s first character; the end of the text past the last line. */
  lineStart(n: number): number {
    return n < this.starts.length ? this.starts[Math.max(0, n)]! : this.text.length;
  }

  /** Offset just past line `n`'s text (before its line break); the end of the text past the last line. */
  contentEnd(n: number): number {
    if (n + 1 >= this.starts.length) return this.text.length;
    const next = this.starts[Math.max(0, n) + 1]!;
    return this.text.charCodeAt(next - 1) === 10 && this.text.charCodeAt(next - 2) === 13 ? next - 2 : next - 1;
  }

  /** Offset just past line `n`'s line break (the next line's start); the end of the text for the last line. */
  lineEnd(n: number): number {
    return this.lineStart(n + 1);
  }

  /** Line `n`'s text without its line break ('' past the last line). */
  lineText(n: number): string {
    return this.text.slice(this.lineStart(n), this.contentEnd(n));
  }

  /** 0-based line and character of `offset` (clamped to the text). */
  positionAt(offset: number): { line: number; character: number } {
    const o = Math.max(0, Math.min(Math.floor(offset), this.text.length));
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.starts[lo]! };
  }

  /** Offset of a 0-based position, clamped to the text and to its line's content (before the line break), as LSP does. */
  offsetAt(pos: { line: number; character: number }): number {
    if (pos.line < 0) return 0;
    if (pos.line >= this.starts.length) return this.text.length;
    const start = this.starts[pos.line]!;
    return Math.max(start, Math.min(start + Math.max(0, pos.character), this.contentEnd(pos.line)));
  }
}

/**
 * Lines some scan already knew, for the offsets it passed (e.g. the JSON locator's, for every range it
 * returned): `lines[k]` is the 0-based line of `offsets[k]` and `lineStarts[k]` that line's first offset.
 * Ascending by offset. Plain arrays, so a worker thread can send them.
 */
export interface LineHints {
  offsets: number[];
  lines: number[];
  lineStarts: number[];
}

/** The hints sorted by offset, each offset once. */
export function sortedHints(h: LineHints): LineHints {
  const order = h.offsets.map((_, k) => k).sort((a, b) => h.offsets[a]! - h.offsets[b]!);
  const out: LineHints = { offsets: [], lines: [], lineStarts: [] };
  for (const k of order) {
    const o = h.offsets[k]!;
    if (out.offsets.length && out.offsets[out.offsets.length - 1] === o) continue;
    out.offsets.push(o);
    out.lines.push(h.lines[k]!);
    out.lineStarts.push(h.lineStarts[k]!);
  }
  return out;
}

/**
 * 0-based positions of offsets of `text` (clamped to it; line breaks as {@link LineIndex} counts them) without
 * a line table: a hinted offset costs a binary search, any other one a sweep over the line breaks from the
 * nearest hint or earlier answer before it (so ascending queries sweep the text at most once). Without hints
 * this is one sweep from the start, which is what positions of a few diagnostics in a large text need.
 */
export function hintedPositions(text: string, hints?: LineHints): (offset: number) => { line: number; character: number } {
  const offsets = hints?.offsets ?? [];
  // The furthest answer so far, where a sweep may resume.
  let at = 0;
  let atLine = 0;
  let atLineStart = 0;
  let hasCr: boolean | undefined;
  return (offset) => {
    const o = Math.max(0, Math.min(Math.floor(offset), text.length));
    let lo = 0;
    let hi = offsets.length - 1;
    let k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (offsets[mid]! <= o) {
        k = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (k >= 0 && offsets[k] === o) return { line: hints!.lines[k]!, character: o - hints!.lineStarts[k]! };
    let i = 0;
    let line = 0;
    let lineStart = 0;
    if (k >= 0) {
      i = offsets[k]!;
      line = hints!.lines[k]!;
      lineStart = hints!.lineStarts[k]!;
    }
    if (at <= o && at > i) {
      i = at;
      line = atLine;
      lineStart = atLineStart;
    }
    // The line breaks in [i, o), found with the native indexOf ("\r\n" counts once, at its "\n").
    hasCr ??= text.indexOf('\r') !== -1;
    for (;;) {
      let b = text.indexOf('\n', i);
      if (hasCr) {
        const r = text.indexOf('\r', i);
        if (r !== -1 && (b === -1 || r < b)) b = text.charCodeAt(r + 1) === 10 ? r + 1 : r;
      }
      if (b === -1 || b >= o) break;
      line++;
      lineStart = b + 1;
      i = b + 1;
    }
    at = o;
    atLine = line;
    atLineStart = lineStart;
    return { line, character: o - lineStart };
  };
}

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
    if (text.indexOf('\r') === -1) {
      // No \r at all (the usual case): the native indexOf finds every line break.
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
    } else {
      for (let i = 0; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 13 /* \r */) {
          if (text.charCodeAt(i + 1) === 10) i++;
          starts.push(i + 1);
        } else if (c === 10 /* \n */) {
          starts.push(i + 1);
        }
      }
    }
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

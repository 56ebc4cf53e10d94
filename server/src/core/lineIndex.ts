/**
 * Offset ↔ (line, character) conversion for a document text.
 * Lines end at "\n", "\r\n" or a lone "\r", as LSP counts them; characters are UTF-16 code units.
 */
export class LineIndex {
  /** Offset at which each line starts; lineStarts[0] is always 0. */
  private readonly lineStarts: number[];
  private readonly length: number;
  /** Offsets of the \r of every \r\n pair. */
  private readonly crlfAt = new Set<number>();

  constructor(text: string) {
    this.length = text.length;
    const starts = [0];
    if (text.indexOf('\r') === -1) {
      // No \r at all (the usual case): the native indexOf finds every line break.
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
      this.lineStarts = starts;
      return;
    }
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 13 /* \r */) {
        if (text.charCodeAt(i + 1) === 10) {
          this.crlfAt.add(i);
          i++;
        }
        starts.push(i + 1);
      } else if (c === 10 /* \n */) {
        starts.push(i + 1);
      }
    }
    this.lineStarts = starts;
  }

  /** Number of lines (a text without a line break has one). */
  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** 0-based line and character of `offset` (clamped to the text). */
  positionAt(offset: number): { line: number; character: number } {
    const o = Math.max(0, Math.min(Math.floor(offset), this.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: o - this.lineStarts[lo]! };
  }

  /** Offset of a 0-based position, clamped to the text and to its line's content (before the line break), as LSP does. */
  offsetAt(pos: { line: number; character: number }): number {
    if (pos.line < 0) return 0;
    if (pos.line >= this.lineStarts.length) return this.length;
    const start = this.lineStarts[pos.line]!;
    let end = pos.line + 1 < this.lineStarts.length ? this.lineStarts[pos.line + 1]! : this.length;
    if (pos.line + 1 < this.lineStarts.length) {
      end--; // the \n or lone \r
      if (end > start && this.eolBefore(end)) end--; // the \r of a \r\n
    }
    return Math.max(start, Math.min(start + Math.max(0, pos.character), end));
  }

  private eolBefore(offset: number): boolean {
    return this.crlfAt.has(offset - 1);
  }
}

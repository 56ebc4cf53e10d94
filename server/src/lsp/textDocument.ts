/**
 * The server's open documents: the LSP `TextDocument` of vscode-languageserver-textdocument, with two changes
 * that matter for large documents (docs/performance.md, "A compact document store"):
 * - the line table is a `Uint32Array` (4 bytes a line; the package's array of numbers grows by splicing and
 *   holds several times that);
 * - the text can be swapped for an equal string held differently ({@link ServerTextDocument.holdAs}): an idle
 *   large markdown document keeps its text as the pieces its section analyses read (one byte a character
 *   wherever the text allows), not as one flat string, which V8 stores two bytes a character as soon as one
 *   character is beyond Latin-1 (an em dash).
 *
 * Positions, offsets, line ranges and breaks, line counts and incremental updates answer exactly as the package's document does
 * (test/unit/text-document.test.ts compares them on random texts and edits).
 */
import type { Position, Range, TextDocument, TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';

import { pushLineStarts } from '../core/lineIndex';

const CR = 13;
const LF = 10;
const isEol = (c: number): boolean => c === CR || c === LF;

function lineTable(text: string): Uint32Array {
  const starts = [0];
  pushLineStarts(text, 0, starts);
  return Uint32Array.from(starts);
}

/** The range with its start before its end. */
function ordered(r: Range): Range {
  const { start, end } = r;
  return start.line > end.line || (start.line === end.line && start.character > end.character) ? { start: end, end: start } : r;
}

const isIncremental = (e: TextDocumentContentChangeEvent): e is { range: Range; rangeLength?: number; text: string } =>
  e !== null && typeof e === 'object' && typeof e.text === 'string' && (e as { range?: unknown }).range !== undefined;
const isFull = (e: TextDocumentContentChangeEvent): e is { text: string } =>
  e !== null && typeof e === 'object' && typeof e.text === 'string' && (e as { range?: unknown }).range === undefined && (e as { rangeLength?: unknown }).rangeLength === undefined;

export class ServerTextDocument implements TextDocument {
  private text: string;
  /** Offset at which each line starts (lines[0] is 0); built when first needed. */
  private lines: Uint32Array | undefined;

  constructor(
    readonly uri: string,
    readonly languageId: string,
    private ver: number,
    content: string,
  ) {
    this.text = content;
  }

  get version(): number {
    return this.ver;
  }

  get lineCount(): number {
    return this.table().length;
  }

  getText(range?: Range): string {
    if (!range) return this.text;
    return this.text.substring(this.offsetAt(range.start), this.offsetAt(range.end));
  }

  /**
   * Holds `same` — a string equal to the current text, built differently (the pieces an engine cache reads, see
   * EngineCache.compactText) — as the text from now on. Builds the line table first, so nothing reads the
   * text whole until it changes. Refused (false) when the lengths differ.
   */
  holdAs(same: string): boolean {
    if (same.length !== this.text.length) return false;
    this.table();
    this.text = same;
    return true;
  }

  positionAt(offset: number): Position {
    const text = this.text;
    offset = Math.max(Math.min(offset, text.length), 0);
    const lines = this.table();
    // The last line starting at or before the offset.
    let lo = 0;
    let hi = lines.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (lines[mid]! > offset) hi = mid;
      else lo = mid + 1;
    }
    const line = lo - 1;
    const start = lines[line]!;
    return { line, character: this.beforeEol(offset, start) - start };
  }

  offsetAt(position: Position): number {
    const lines = this.table();
    if (position.line >= lines.length) return this.text.length;
    if (position.line < 0) return 0;
    const start = lines[position.line]!;
    if (position.character <= 0) return start;
    const next = position.line + 1 < lines.length ? lines[position.line + 1]! : this.text.length;
    return this.beforeEol(Math.min(start + position.character, next), start);
  }

  /** Line `line`'s range without its line break (the last line's past the end, an empty range before the first). */
  getLineRange(line: number): Range {
    const lines = this.table();
    if (line >= lines.length) {
      const last = lines.length - 1;
      return { start: { line: last, character: 0 }, end: { line: last, character: this.text.length - lines[last]! } };
    }
    if (line < 0) return { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    const start = lines[line]!;
    const next = line + 1 < lines.length ? lines[line + 1]! : this.text.length;
    return { start: { line, character: 0 }, end: { line, character: this.beforeEol(next, start) - start } };
  }

  /** Line `line`'s line break ('' for the last line and for lines that do not exist). */
  getEOLCharacters(line: number): string {
    const lines = this.table();
    if (line >= lines.length || line < 0) return '';
    const next = line + 1 < lines.length ? lines[line + 1]! : this.text.length;
    return this.text.substring(this.beforeEol(next, lines[line]!), next);
  }

  /** Applies the changes in order (each range in the text the previous change left) and takes `version`. */
  update(changes: readonly TextDocumentContentChangeEvent[], version: number): void {
    for (const change of changes) {
      if (isIncremental(change)) this.replace(ordered(change.range), change.text);
      else if (isFull(change)) {
        this.text = change.text;
        this.lines = undefined;
      } else throw new Error('Unknown change event received');
    }
    this.ver = version;
  }

  private replace(range: Range, inserted: string): void {
    const start = this.offsetAt(range.start);
    const end = this.offsetAt(range.end);
    const old = this.text;
    const text = (this.text = old.substring(0, start) + inserted + old.substring(end, old.length));
    const insertedEnd = start + inserted.length;
    // A CR and LF joined or parted across the edit's bounds: the line table is rebuilt when next needed.
    if ((text.charCodeAt(start - 1) === CR && text.charCodeAt(start) === LF) || (text.charCodeAt(insertedEnd - 1) === CR && text.charCodeAt(insertedEnd) === LF)) {
      this.lines = undefined;
      return;
    }
    const lines = this.lines;
    if (!lines) return;
    // The lines the range spanned (as the client counts them: the package does the same) are replaced by the
    // inserted text's, and every later line start moves by the change in length.
    const startLine = Math.min(Math.max(range.start.line, 0), lines.length - 1);
    const endLine = Math.min(Math.max(range.end.line, 0), lines.length - 1);
    const added: number[] = [];
    pushLineStarts(inserted, start, added);
    const diff = inserted.length - (end - start);
    const count = lines.length - (endLine - startLine) + added.length;
    const next = count === lines.length ? lines : new Uint32Array(count);
    if (next !== lines) next.set(lines.subarray(0, startLine + 1));
    next.set(added, startLine + 1);
    const tail = startLine + 1 + added.length;
    if (next !== lines) next.set(lines.subarray(endLine + 1), tail);
    if (diff !== 0) for (let i = tail; i < count; i++) next[i] = next[i]! + diff;
    this.lines = next;
  }

  /** `offset` moved back out of the line break it is inside (never before `lineStart`). */
  private beforeEol(offset: number, lineStart: number): number {
    while (offset > lineStart && isEol(this.text.charCodeAt(offset - 1))) offset--;
    return offset;
  }

  private table(): Uint32Array {
    return (this.lines ??= lineTable(this.text));
  }
}

/** The `TextDocuments` configuration that makes {@link ServerTextDocument}s (server.ts). */
export const serverTextDocuments = {
  create: (uri: string, languageId: string, version: number, content: string): ServerTextDocument => new ServerTextDocument(uri, languageId, version, content),
  update(document: TextDocument, changes: TextDocumentContentChangeEvent[], version: number): TextDocument {
    if (!(document instanceof ServerTextDocument)) throw new Error('not a document of this server');
    document.update(changes, version);
    return document;
  },
};

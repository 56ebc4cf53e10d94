/** Bytes, hashes and line spans of the files a report edits. */
import { createHash } from 'node:crypto';

/** Lowercase hex SHA-256 of bytes, or of a string's UTF-8 encoding. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(typeof data === 'string' ? Buffer.from(data, 'utf8') : data).digest('hex');
}

export function isSha256Hex(v: unknown): v is string {
  return typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
}

/**
 * Strict UTF-8 decode that keeps a BOM as U+FEFF (so encoding the text again gives the same bytes),
 * or undefined when the bytes are not valid UTF-8 (such a file is never edited as text).
 */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** One line of a text: [start, end) without its terminator, [start, next) with it. */
export interface LineSpan {
  start: number;
  /** End of the line's content (before "\n", "\r\n" or "\r"). */
  end: number;
  /** Start of the next line (after the terminator), or the text length. */
  next: number;
}

/**
 * The lines of a text as an editor counts them ("\n", "\r\n" or a lone "\r" end a line).
 * A final terminator ends the last line rather than starting an empty one; an empty text has no lines.
 * A leading U+FEFF (BOM) is skipped.
 */
export function lineSpans(text: string): LineSpan[] {
  const spans: LineSpan[] = [];
  // A leading BOM belongs to no line: removing line 1 keeps it, and it never makes two spans differ.
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let start = bom;
  for (let i = bom; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) {
      const end = i;
      if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
      spans.push({ start, end, next: i + 1 });
      start = i + 1;
    }
  }
  if (start < text.length) spans.push({ start, end: text.length, next: text.length });
  return spans;
}

/** The offsets of the 1-based inclusive line range, or undefined when it is out of range. */
export function lineRangeOffsets(spans: LineSpan[], startLine: number, endLine: number): { start: number; contentEnd: number; next: number } | undefined {
  if (!Number.isSafeInteger(startLine) || !Number.isSafeInteger(endLine)) return undefined;
  if (startLine < 1 || endLine < startLine || endLine > spans.length) return undefined;
  const first = spans[startLine - 1]!;
  const last = spans[endLine - 1]!;
  return { start: first.start, contentEnd: last.end, next: last.next };
}

/** The text's line terminator style ("\r\n" when its first terminator is one, else "\n"). */
export function eolOf(text: string): string {
  const i = text.search(/\r\n|\n|\r/);
  if (i < 0) return '\n';
  return text.startsWith('\r\n', i) ? '\r\n' : text[i] === '\r' ? '\r' : '\n';
}

/** Bytes, hashes and line anchors of the files a report edits. */
import { createHash } from 'node:crypto';
import type { LineIndex } from '../../lineIndex';

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

/**
 * The number of lines of a report's target as its 1-based anchors count them: the LineIndex's spans (a final
 * terminator ends the last line rather than starting an empty one; an empty text has none), and a leading BOM
 * belongs to no line (line 1 starts after it; a text that is only a BOM has no lines).
 */
export function anchorLineCount(lines: LineIndex): number {
  return lines.text === '\uFEFF' ? 0 : lines.spanCount;
}

/** Offset of 0-based line `k`'s first character, after a leading BOM on the first line. */
function anchorLineStart(lines: LineIndex, k: number): number {
  return k === 0 && lines.text.charCodeAt(0) === 0xfeff ? 1 : lines.lineStart(k);
}

/** 0-based line `k`'s text without its terminator (the first line without a leading BOM). */
export function anchorLineText(lines: LineIndex, k: number): string {
  return lines.text.slice(anchorLineStart(lines, k), lines.contentEnd(k));
}

/** The offsets of the 1-based inclusive line range, or undefined when it is out of range. */
export function lineRangeOffsets(lines: LineIndex, startLine: number, endLine: number): { start: number; contentEnd: number; next: number } | undefined {
  if (!Number.isSafeInteger(startLine) || !Number.isSafeInteger(endLine)) return undefined;
  if (startLine < 1 || endLine < startLine || endLine > anchorLineCount(lines)) return undefined;
  return { start: anchorLineStart(lines, startLine - 1), contentEnd: lines.contentEnd(endLine - 1), next: lines.lineEnd(endLine - 1) };
}

/** The text's line terminator style ("\r\n" when its first terminator is one, else "\n"). */
export function eolOf(text: string): string {
  const i = text.search(/\r\n|\n|\r/);
  if (i < 0) return '\n';
  return text.startsWith('\r\n', i) ? '\r\n' : text[i] === '\r' ? '\r' : '\n';
}

/**
 * ```toon fences in Markdown and .toon files: where they are, and whether they decode.
 *
 * Fences are found with markdown-it's block parse (the same CommonMark + GFM tables
 * configuration the section engine uses), so a fence is exactly what a CommonMark
 * renderer sees: inside lists and block quotes too, unterminated fences running to
 * the end of their container (the end of the document at top level). Decoding is
 * the official @toon-format/toon decoder in strict mode; nothing here parses TOON.
 *
 * Offsets are UTF-16 code units into the text as given (BOM and CRLF included),
 * lines are 0-based and end at "\n", "\r\n" or a lone "\r" (markdown-it's and LSP's rule).
 */
import { decode, ToonDecodeError } from '@toon-format/toon';
import type { CoreDiagnostic } from '../types';
import { ruleCode } from '../codes';
import { LineIndex } from '../lineIndex';
import { blockParser } from '../markdown/parser';
import { errorMessage } from '../errors';

export const FENCE_DECODE_CODE = 'toon/fence-decode' as const;

export interface ToonFence {
  /** Offset of the info string's language word (`toon`) on the opening fence line. */
  infoStart: number;
  /** Offset of the first content line (the line after the opening fence). */
  contentStart: number;
  /**
   * Offset just past the last content line's line break: the start of the closing fence
   * line, or of the line that ended an unterminated fence, or the end of the text.
   * `text.slice(contentStart, contentEnd)` is the raw content.
   */
  contentEnd: number;
  /**
   * The content as markdown-it gives it: line breaks normalized to "\n", container
   * indentation and block-quote markers removed. One line per source content line.
   */
  content: string;
  /** 0-based line of the opening fence. */
  openLine: number;
  /** Whether a closing fence was found (CommonMark: otherwise the fence runs to the end of its container). */
  closed: boolean;
}

/** Whether a fence's info string names TOON: `toon`, optionally followed by attributes (as the injection grammar reads it). */
export function isToonInfo(info: string): boolean {
  return /^toon(?:$|[\s{:,?])/i.test(info.trim());
}

function lineCount(content: string): number {
  if (content === '') return 0;
  const n = content.split('\n').length;
  return content.endsWith('\n') ? n - 1 : n;
}

function findFencesIn(text: string, lines: LineIndex): ToonFence[] {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  // markdown-it does not skip a BOM: "\uFEFF```toon" would not open a fence.
  const tokens = blockParser().parse(bom ? text.slice(1) : text, {});
  const fences: ToonFence[] = [];
  for (const tok of tokens) {
    if (tok.type !== 'fence' || !tok.map || !isToonInfo(tok.info)) continue;
    const [open, next] = tok.map;
    const contentLines = lineCount(tok.content);
    const closed = next - open - 1 > contentLines;
    const openText = lines.lineText(open);
    const markerAt = openText.indexOf(tok.markup);
    let info = markerAt < 0 ? 0 : markerAt + tok.markup.length;
    while (info < openText.length && (openText[info] === ' ' || openText[info] === '\t')) info++;
    fences.push({
      infoStart: lines.lineStart(open) + info,
      contentStart: lines.lineStart(open + 1),
      contentEnd: lines.lineStart(open + 1 + contentLines),
      content: tok.content,
      openLine: open,
      closed,
    });
  }
  return fences;
}

/** The ```toon (and ~~~toon) fences of a Markdown text, in document order. Never throws. */
export function findToonFences(markdown: string): ToonFence[] {
  try {
    return findFencesIn(markdown, new LineIndex(markdown));
  } catch {
    return [];
  }
}

/** A strict decode failure: the decoder's message (without its "Line N: " prefix) and its 1-based line, when it gives one. */
export function toonDecodeFailure(text: string): { message: string; line?: number } | undefined {
  try {
    decode(text, { strict: true });
    return undefined;
  } catch (err) {
    const line = err instanceof ToonDecodeError && typeof err.line === 'number' && err.line >= 1 ? err.line : undefined;
    let message = errorMessage(err);
    if (line !== undefined) message = message.replace(/^Line \d+: /, '');
    return line === undefined ? { message } : { message, line };
  }
}

function lineDiagnostic(lines: LineIndex, line: number, message: string): CoreDiagnostic {
  const n = Math.max(0, Math.min(line, lines.lineCount - 1));
  return {
    ...ruleCode(FENCE_DECODE_CODE),
    message,
    range: { start: lines.lineStart(n), end: lines.contentEnd(n) },
  };
}

/**
 * `toon/fence-decode` for every ```toon fence of a Markdown text that fails a strict TOON
 * decode. The range is the whole failing line (the decoder's line mapped into the document),
 * or the fence's first content line when the decoder names no line. Never throws.
 */
export function toonFenceDiagnostics(markdown: string): CoreDiagnostic[] {
  try {
    const lines = new LineIndex(markdown);
    const out: CoreDiagnostic[] = [];
    for (const fence of findFencesIn(markdown, lines)) {
      const failure = toonDecodeFailure(fence.content);
      if (!failure) continue;
      const contentLines = lineCount(fence.content);
      // Content line k (1-based) is document line openLine + k.
      const k = failure.line !== undefined ? Math.min(failure.line, contentLines) : 1;
      const line = contentLines === 0 ? fence.openLine : fence.openLine + k;
      out.push(lineDiagnostic(lines, line, failure.message));
    }
    return out;
  } catch {
    return [];
  }
}

/**
 * `toon/fence-decode` for a .toon file that fails a strict TOON decode (at most one: the
 * decoder stops at the first error). The range is the failing line, or the first line when
 * the decoder names none. Never throws.
 */
export function toonFileDiagnostics(text: string): CoreDiagnostic[] {
  try {
    const failure = toonDecodeFailure(text);
    if (!failure) return [];
    const lines = new LineIndex(text);
    return [lineDiagnostic(lines, failure.line !== undefined ? failure.line - 1 : 0, failure.message)];
  } catch {
    return [];
  }
}

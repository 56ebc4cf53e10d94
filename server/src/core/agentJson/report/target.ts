/** Reading the files a report's exact_edits point at, through the WorkspaceReader only. */
import type { WorkspaceReader } from '../../types';
import type { ResolvedPath } from './paths';
import { anchorLineCount, decodeUtf8, lineRangeOffsets, sha256Hex } from './text';
import { LineIndex } from '../../lineIndex';

/** What an exact_edit would edit right now. */
export interface TargetContent {
  /** The path whose text this is (the real path of the file, or the open buffer's path). */
  absPath: string;
  /** The text (open buffer, or the file's bytes decoded as strict UTF-8 with the BOM kept); undefined when not UTF-8. */
  text: string | undefined;
  /** sha256 of the open buffer's UTF-8 encoding when open, else of the file's bytes. */
  sha256: string;
  fromBuffer: boolean;
}

/**
 * The current content of a resolved path: the open editor buffer when the file is open, else the
 * file's bytes. Undefined when it neither is open nor exists as a readable file.
 */
export function readTargetContent(workspace: WorkspaceReader, resolved: ResolvedPath): TargetContent | undefined {
  const candidates = [resolved.absPath];
  if (resolved.realPath && resolved.realPath !== resolved.absPath) candidates.push(resolved.realPath);
  for (const p of candidates) {
    const buffer = workspace.openText(p);
    if (typeof buffer === 'string') return { absPath: p, text: buffer, sha256: sha256Hex(buffer), fromBuffer: true };
  }
  if (resolved.realPath === undefined) return undefined;
  const bytes = workspace.readFile(resolved.realPath);
  if (!(bytes instanceof Uint8Array)) return undefined;
  return { absPath: resolved.realPath, text: decodeUtf8(bytes), sha256: sha256Hex(bytes), fromBuffer: false };
}

export type SpanCheck = { ok: true } | { ok: false; code: 'anchor-out-of-range' | 'dedupe-not-duplicate'; which: 'anchor' | 'canonical_ref'; reason: string };

/**
 * Whether the dedupe span (1-based inclusive lines of `text`) is byte-identical to the canonical span
 * (lines of `canonicalText`). Spans compare the lines' text including the line breaks between them,
 * without the last line's break. In the same file, the two spans must not overlap.
 */
export function checkDedupeSpans(
  text: string,
  anchor: { start: number; end: number },
  canonicalText: string,
  canonical: { start: number; end: number },
  sameFile: boolean,
): SpanCheck {
  const lines = new LineIndex(text);
  const a = lineRangeOffsets(lines, anchor.start, anchor.end);
  if (!a) return { ok: false, code: 'anchor-out-of-range', which: 'anchor', reason: `lines ${anchor.start}–${anchor.end} are outside the file's ${anchorLineCount(lines)} lines` };
  const cLines = sameFile ? lines : new LineIndex(canonicalText);
  const c = lineRangeOffsets(cLines, canonical.start, canonical.end);
  if (!c) return { ok: false, code: 'anchor-out-of-range', which: 'canonical_ref', reason: `canonical lines ${canonical.start}–${canonical.end} are outside its ${anchorLineCount(cLines)} lines` };
  if (sameFile && anchor.start <= canonical.end && canonical.start <= anchor.end) {
    return { ok: false, code: 'dedupe-not-duplicate', which: 'canonical_ref', reason: 'the removed span overlaps its canonical_ref' };
  }
  if (text.slice(a.start, a.contentEnd) !== canonicalText.slice(c.start, c.contentEnd)) {
    return { ok: false, code: 'dedupe-not-duplicate', which: 'canonical_ref', reason: 'the removed span is not byte-identical to the canonical_ref span; removing it would lose information' };
  }
  return { ok: true };
}

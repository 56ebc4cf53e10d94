/**
 * Offsets ↔ LSP positions, and core fixes → LSP text edits. The JSON edit computation itself is the
 * core's (`fixToTextEdits`, `applyFixes`); this module only maps offsets to positions.
 */
import { TextEdit, type Range } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { JsonFix, OffsetRange } from '../core/types';
import { applyFixes, fixToTextEdits } from '../core/json/edits';

export function offsetRangeToLsp(doc: TextDocument, r: OffsetRange): Range {
  const start = Math.max(0, Math.min(r.start, doc.getText().length));
  const end = Math.max(start, Math.min(r.end, doc.getText().length));
  return { start: doc.positionAt(start), end: doc.positionAt(end) };
}

export function lspRangeToOffsets(doc: TextDocument, r: Range): OffsetRange {
  const a = doc.offsetAt(r.start);
  const b = doc.offsetAt(r.end);
  return a <= b ? { start: a, end: b } : { start: b, end: a };
}

/** The text edits of one fix, against the document's current text. */
export function fixToLspEdits(doc: TextDocument, fix: JsonFix): TextEdit[] {
  return fixToTextEdits(doc.getText(), fix).map((e) =>
    TextEdit.replace(offsetRangeToLsp(doc, { start: e.offset, end: e.offset + e.length }), e.content),
  );
}

/** The document text after applying fixes (conflicting edits are the core's business). */
export function applyFixesToText(text: string, fixes: JsonFix[]): string {
  return fixes.length ? applyFixes(text, fixes) : text;
}

/**
 * One edit that turns `doc`'s text into `next`, limited to the span that differs (so the editor keeps
 * the cursor and folding outside it). Undefined when nothing changes. Never splits a surrogate pair or a CRLF.
 */
export function minimalReplaceEdit(doc: TextDocument, next: string): TextEdit | undefined {
  const prev = doc.getText();
  if (prev === next) return undefined;
  const max = Math.min(prev.length, next.length);
  let p = 0;
  while (p < max && prev.charCodeAt(p) === next.charCodeAt(p)) p++;
  let s = 0;
  while (s < max - p && prev.charCodeAt(prev.length - 1 - s) === next.charCodeAt(next.length - 1 - s)) s++;
  // Keep pairs whole: do not cut between a high and a low surrogate, nor between \r and \n.
  while (p > 0 && (splitsPair(prev, p) || splitsPair(next, p))) p--;
  while (s > 0 && (splitsPair(prev, prev.length - s) || splitsPair(next, next.length - s))) s--;
  const start = p;
  const endPrev = prev.length - s;
  const endNext = next.length - s;
  return TextEdit.replace(offsetRangeToLsp(doc, { start, end: endPrev }), next.slice(start, endNext));
}

function splitsPair(text: string, at: number): boolean {
  if (at <= 0 || at >= text.length) return false;
  const before = text.charCodeAt(at - 1);
  const after = text.charCodeAt(at);
  return (before >= 0xd800 && before <= 0xdbff && after >= 0xdc00 && after <= 0xdfff) || (before === 13 && after === 10);
}

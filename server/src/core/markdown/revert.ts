/**
 * Exact Revert: what Convert replaced, keyed by the content hash of the ```toon fence it wrote, and the
 * revert edit that gives those bytes back. Pure logic; the store itself is an interface (the server
 * keeps one store per workspace folder, in memory and under the directory its client hands it, see node/originals.ts).
 */
import { sha256Hex } from '../agentJson/report/text';
import type { ToonFence } from '../toon/fences';
import { renderToonAsMarkdown } from './engine';
import { lineBreakAfter, lineStartAt, trimTrailingLineBreaks } from './text';

/** One converted section: what stood where the fence (and the heading before it) now stands. */
export interface OriginalRecord {
  /** The heading line(s) Convert kept in front of the fence, with their line break ('' for a preamble). */
  heading: string;
  /** The section exactly as it was, heading included, without its trailing line breaks (Convert keeps those). */
  original: string;
}

export interface OriginalsStore {
  get(key: string): OriginalRecord | undefined;
  /** Keeps the record; readable by `get` at once (a store on disk may write it later: see `flush`). */
  put(key: string, record: OriginalRecord): void;
  /** Writes whatever `put` left pending, now (a store with nothing pending does nothing). */
  flush?(): void;
}

/** The key of a fence: sha256 of its content with trailing line breaks removed (as Convert wrote it and as markdown-it reads it). */
export function fenceKey(content: string): string {
  return sha256Hex(trimTrailingLineBreaks(content));
}

/**
 * The key of a block fence (a table or list Convert fenced inside a section, docs/engine.md#block-conversion): its
 * own namespace, so a block and a whole section whose fences hold the same TOON keep distinct originals.
 */
export function blockFenceKey(content: string): string {
  return sha256Hex('block\0' + trimTrailingLineBreaks(content));
}

/** What to remember for each block fence of a section converted by block: the block's exact lines. */
export function blockRecordsFor(blocks: readonly { toon: string; original: string }[]): { key: string; record: OriginalRecord }[] {
  return blocks.map((b) => ({ key: blockFenceKey(b.toon), record: { heading: '', original: b.original } }));
}

/** What to remember when `sliceText` (a whole section) becomes the converted segment around `candidate`. */
export function originalRecordFor(sliceText: string, headingEndRel: number, candidate: string): { key: string; record: OriginalRecord } {
  let heading = sliceText.slice(0, headingEndRel);
  if (heading !== '' && !/[\r\n]$/.test(heading)) heading += '\n';
  return { key: fenceKey(candidate), record: { heading, original: trimTrailingLineBreaks(sliceText) } };
}

/** Offsets of a fence's whole extent: from its opening line's start to the end of its closing line (before the line break). */
export function fenceExtent(text: string, f: ToonFence): { start: number; end: number } {
  const start = lineStartAt(text, f.infoStart);
  let end = f.contentEnd;
  if (f.closed) {
    while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
  }
  return { start, end };
}

export interface RevertEdit {
  start: number;
  end: number;
  newText: string;
  /** exact: the original bytes; body: the original body under a heading the user has since changed; canonical: rendered from the decoded model. */
  kind: 'exact' | 'body' | 'canonical';
}

/**
 * The revert edit of a fence. When the store knows the fence's content hash, the original bytes come back
 * (heading line included when it still stands right before the fence); otherwise the decoded model is
 * rendered as canonical markdown, and when that rendering starts with the heading line before the fence,
 * that line is replaced too. Throws an Error with the decoder's message when the fence does not decode.
 */
export function revertEdit(text: string, at: { fence: ToonFence; start: number; end: number }, store?: OriginalsStore): RevertEdit {
  const known = store?.get(fenceKey(at.fence.content));
  const h = known?.heading;
  if (known && (h === '' || text.slice(at.start - h!.length, at.start) === h)) return { start: at.start - h!.length, end: at.end, newText: known.original, kind: 'exact' };
  // A block fence: the block's own lines come back, the prose around it is untouched.
  const block = store?.get(blockFenceKey(at.fence.content));
  if (block) return { start: at.start, end: at.end, newText: block.original, kind: 'exact' };
  if (known) return { start: at.start, end: at.end, newText: known.original.slice(h!.length), kind: 'body' };
  let rendered = trimTrailingLineBreaks(renderToonAsMarkdown(at.fence.content));
  let start = at.start;
  // The line before the fence, without its line break ("\r\n", "\n" or a lone "\r").
  const prevEnd = start >= 2 && text.charCodeAt(start - 1) === 10 && text.charCodeAt(start - 2) === 13 ? start - 2 : start - 1;
  if (prevEnd > 0) {
    const prevStart = lineStartAt(text, prevEnd);
    const prevLine = text.slice(prevStart, prevEnd);
    const firstRendered = rendered.split('\n', 1)[0]!;
    if (/^#{1,6}(\s|$)/.test(prevLine) && prevLine.trim() === firstRendered.trim()) start = prevStart;
    // A section's fence holds its body: the heading line stays, and a blank line separates it from the body again.
    else if (/^#{1,6}(\s|$)/.test(prevLine) && rendered !== '') rendered = '\n' + rendered;
  }
  // The fence's own line breaks (Convert writes the section's): a CRLF fence reverts to CRLF markdown. (Read at the
  // fence, not in the text before it: a scan of the text up to each fence made every lens request linear in the
  // document's size per fence.)
  const eol = lineBreakAfter(text, at.start);
  if (eol !== undefined && eol !== '\n') rendered = rendered.replace(/\n/g, eol);
  return { start, end: at.end, newText: rendered, kind: 'canonical' };
}

/** What a revert says about itself (command messages, lens tooltips). */
export function revertDescription(kind: RevertEdit['kind']): string {
  switch (kind) {
    case 'exact':
      return 'restores the exact original markdown ToonLens converted';
    case 'body':
      return 'restores the exact original body (the heading has changed since Convert, so it stays as it is)';
    case 'canonical':
      return 'renders the TOON as canonical markdown: the original is not known (converted elsewhere, or the fence was edited), so tables and lists come back in canonical form';
  }
}

/** What a record weighs in the session memory: its characters. */
const charsOf = (r: OriginalRecord): number => r.original.length + r.heading.length;

/**
 * The originals a session keeps in memory: bounded by their characters (and a count), the least recently used
 * going first. The bound is what the originals of the open documents' converted sections take — about the
 * documents' size before Convert — so a Convert all of thousands of sections keeps every one exact (a bound of
 * 2,000 records made a 5,347-section Convert all forget most of them, and a store on disk read them back on every
 * lens request).
 */
export class MemoryOriginals implements OriginalsStore {
  private readonly map = new Map<string, OriginalRecord>();
  private chars = 0;
  constructor(
    private readonly maxChars = 32 * 1024 * 1024,
    private readonly maxRecords = 100_000,
  ) {}
  get(key: string): OriginalRecord | undefined {
    const r = this.map.get(key);
    if (r) {
      this.map.delete(key);
      this.map.set(key, r);
    }
    return r;
  }
  put(key: string, record: OriginalRecord): void {
    const old = this.map.get(key);
    if (old) this.chars -= charsOf(old);
    this.map.delete(key);
    this.map.set(key, record);
    this.chars += charsOf(record);
    while (this.map.size > 1 && (this.chars > this.maxChars || this.map.size > this.maxRecords)) {
      const [k, r] = this.map.entries().next().value!;
      this.map.delete(k);
      this.chars -= charsOf(r);
    }
  }
}

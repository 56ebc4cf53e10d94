/**
 * Hybrid assembly (docs/engine.md#plan-and-hybrid): kept slices verbatim, converted slices as their
 * heading line plus a ```toon fence, and a mechanical reassembly check.
 */
import { strictDecodes } from './candidate';
import type { Slice } from './slices';

function longestBacktickRun(s: string): number {
  let best = 0;
  let cur = 0;
  for (let i = 0; i < s.length; i++) {
    if (s.charCodeAt(i) === 96) {
      if (++cur > best) best = cur;
    } else cur = 0;
  }
  return best;
}

/** The backtick fence around a TOON text: one longer than its longest backtick run, at least three. */
export function fenceMarker(candidate: string): string {
  return '`'.repeat(Math.max(3, longestBacktickRun(candidate) + 1));
}

/**
 * The text a converted slice becomes in the hybrid (exactly docs/engine.md#plan-and-hybrid). Not memoized:
 * the engine keeps only its length and token count, and builds it again from the slice text when it is read
 * (Convert, the hybrid).
 */
export function convertedSegment(sliceText: string, headingEndRel: number, candidate: string): string {
  return buildSegment(sliceText, headingEndRel, candidate);
}

/** The line ending a converted segment writes: the slice's own (its first line break), `\n` when it has none. */
export function sliceEol(sliceText: string): '\n' | '\r\n' | '\r' {
  for (let i = 0; i < sliceText.length; i++) {
    const c = sliceText.charCodeAt(i);
    if (c === 10) return '\n';
    if (c === 13) return sliceText.charCodeAt(i + 1) === 10 ? '\r\n' : '\r';
  }
  return '\n';
}

function buildSegment(sliceText: string, headingEndRel: number, candidate: string): string {
  const eol = sliceEol(sliceText);
  let heading = sliceText.slice(0, headingEndRel);
  // A preamble has no heading line; a heading line without a terminator (end of file) gets one.
  if (heading !== '' && !/[\r\n]$/.test(heading)) heading += eol;
  const fence = fenceMarker(candidate);
  let t = sliceText.length;
  while (t > 0 && (sliceText.charCodeAt(t - 1) === 10 || sliceText.charCodeAt(t - 1) === 13)) t--;
  const trailing = sliceText.slice(t);
  // TOON never writes a raw line break inside a value, so every "\n" of the candidate is a line end.
  const body = eol === '\n' ? candidate : candidate.split('\n').join(eol);
  return `${heading}${fence}toon${eol}${body}${eol}${fence}${trailing}`;
}

/** The fenced candidate inside a converted segment (line ends back to `\n`), or null when the segment is malformed. */
export function fencedCandidate(segment: string, headingEndRel: number): string | null {
  const eol = sliceEol(segment);
  let rest = segment.slice(headingEndRel);
  if (headingEndRel > 0 && !/[\r\n]$/.test(segment.slice(0, headingEndRel))) rest = rest.startsWith(eol) ? rest.slice(eol.length) : rest;
  // (the segment starts with the slice's heading text, so slicing at headingEndRel is exact)
  const open = /^(`{3,})toon(\r\n|\n|\r)/.exec(rest);
  if (!open || open[2] !== eol) return null;
  const fence = open[1]!;
  const body = rest.slice(open[0].length);
  const close = body.lastIndexOf(eol + fence);
  if (close < 0) return null;
  const inner = body.slice(0, close);
  return eol === '\n' ? inner : inner.split(eol).join('\n');
}

export interface SegmentPlan {
  slice: Slice;
  /**
   * For a converted slice: the length of its segment and whether the segment passed its check (heading kept,
   * fence gives the candidate back, strict decode: {@link segmentChecks}, made when the segment was built).
   */
  converted?: { length: number; ok: boolean };
}

/** The hybrid's figures: its length (known without joining it) and whether its reassembly verified. */
export interface Assembly {
  /** hybrid.length, known without joining. */
  length: number;
  verified: boolean;
}

/** A converted segment's mechanical check: it keeps the slice's heading and its fence gives the candidate back, which strictly decodes. */
export function segmentChecks(sliceText: string, headingEndRel: number, seg: string, candidate: string): boolean {
  if (!seg.startsWith(sliceText.slice(0, headingEndRel))) return false;
  const fenced = fencedCandidate(seg, headingEndRel);
  return fenced !== null && fenced === candidate && strictDecodes(fenced);
}

/**
 * The hybrid's length and its mechanical verification (never asserted): the slices tile `text`, and every
 * converted segment passed its check. Kept slices are counted by their offsets; no text is cut or joined
 * ({@link joinHybrid} builds the hybrid when it is read: plans that only show figures never build it).
 */
export function assembleHybrid(text: string, plan: readonly SegmentPlan[]): Assembly {
  let verified = true;
  let pos = 0;
  let length = 0;
  for (const p of plan) {
    const s = p.slice;
    if (s.charStart !== pos || s.charEnd < s.charStart) verified = false;
    pos = s.charEnd;
    if (p.converted) {
      if (!p.converted.ok) verified = false;
      length += p.converted.length;
    } else {
      if (s.charEnd > text.length) verified = false;
      length += Math.max(0, Math.min(s.charEnd, text.length) - s.charStart);
    }
  }
  if (pos !== text.length) verified = false;
  return { length, verified };
}

/** The hybrid document: kept slices cut from `text`, converted ones as `segmentAt(i)` (built now, one by one). */
export function joinHybrid(text: string, slices: readonly Slice[], converted: (i: number) => boolean, segmentAt: (i: number) => string): string {
  const parts: string[] = [];
  for (let i = 0; i < slices.length; i++) parts.push(converted(i) ? segmentAt(i) : text.slice(slices[i]!.charStart, slices[i]!.charEnd));
  return parts.join('');
}

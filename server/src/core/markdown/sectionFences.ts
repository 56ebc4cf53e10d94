/**
 * ```toon fences with their extents in a markdown text, and the fence a converted section consists of: what the
 * markdown diagnostics (editor and CLI) and the editor's fence features share. Pure: no LSP, no file system.
 */
import type { SectionResult } from './engine';
import { fenceExtent } from './revert';
import { findToonFences, type ToonFence } from '../toon/fences';

export interface FenceAt {
  fence: ToonFence;
  /** Start of the opening fence line. */
  start: number;
  /** End of the closing fence line (before its line break). */
  end: number;
}

/** A cheap, linear pre-check: no ```toon / ~~~toon opener anywhere means no fence (skips markdown-it). */
const MAYBE_TOON_FENCE = /(?:`{3}|~{3})[ \t]*toon/i;

/** The ```toon fences of a text with their extents. */
export function toonFencesIn(text: string): FenceAt[] {
  if (!MAYBE_TOON_FENCE.test(text)) return [];
  return findToonFences(text).map((fence) => ({ fence, ...fenceExtent(text, fence) }));
}

/** The fence whose extent contains `offset`. */
export function fenceAtOffset(fences: readonly FenceAt[], offset: number): FenceAt | undefined {
  return fences.find((f) => offset >= f.start && offset <= f.end);
}

const blank = (s: string): boolean => s.trim() === '';

/** The fence a section consists of (its body is that fence and blank lines only), if it is a converted section. */
export function convertedFenceOf(text: string, s: SectionResult, fences: readonly FenceAt[]): FenceAt | undefined {
  const bodyStart = s.slice.headingEnd;
  for (const f of fences) {
    if (f.start < bodyStart || f.end > s.slice.charEnd) continue;
    if (blank(text.slice(bodyStart, f.start)) && blank(text.slice(f.end, s.slice.charEnd))) return f;
  }
  return undefined;
}

/** What a fence saves against the markdown it stands for (the known original, else its canonical rendering). */

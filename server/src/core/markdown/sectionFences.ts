/**
 * ```toon fences with their extents in a markdown text, and the fence a converted section consists of: what the
 * markdown diagnostics (editor and CLI) and the editor's fence features share. Pure: no LSP, no file system.
 */
import { runSteps, type PlanResult, type SectionResult } from './engine';
import { sliceMentionsToon, type SliceAnalysis } from './analysis';
import { detach } from './text';
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

/** The slice's own ```toon fences with their extents, slice-relative, memoized with its analysis. */
function sliceFences(a: SliceAnalysis): FenceAt[] {
  // The content is a flat copy (detach): markdown-it's is a piece of the slice text, which would keep its version alive.
  return (a.toonFenceList ??= sliceMentionsToon(a) ? toonFencesIn(a.raw).map((f) => ({ ...f, fence: { ...f.fence, content: detach(f.fence.content) } })) : []);
}

/**
 * The ```toon fences of the text a plan measured, from its slices: each slice's fences are found once per slice
 * text and memoized with its analysis, so an edit parses only the edited slice (none, when it does not say
 * "toon"), never the whole text. A fence never crosses a document-level heading and a slice parses as it does
 * in place (the slicer agrees with markdown-it on headings), so these are the whole text's fences
 * (test/unit/per-slice.test.ts). Frontmatter is metadata, not markdown: a fence marker inside it opens no fence.
 */
export function toonFencesOfPlan(plan: PlanResult): FenceAt[] {
  return runSteps(toonFencesOfPlanSteps(plan));
}

/** {@link toonFencesOfPlan} as steps: a yield after each slice whose fences were looked for (a parse, the first time). */
export function* toonFencesOfPlanSteps(plan: PlanResult): Generator<void, FenceAt[], void> {
  const out: FenceAt[] = [];
  for (const s of plan.sections) {
    if (s.slice.kind === 'frontmatter' || !sliceMentionsToon(s.analysis)) continue;
    if (s.analysis.toonFenceList === undefined) {
      sliceFences(s.analysis);
      yield;
    }
    const at = s.slice.charStart;
    const line = s.slice.lineStart - 1;
    for (const f of sliceFences(s.analysis)) {
      if (at === 0) out.push(f);
      else {
        const g = f.fence;
        out.push({ fence: { ...g, infoStart: g.infoStart + at, contentStart: g.contentStart + at, contentEnd: g.contentEnd + at, openLine: g.openLine + line }, start: f.start + at, end: f.end + at });
      }
    }
  }
  return out;
}

/** Index of the first fence starting at or after `offset` (fences are in document order). */
function firstFenceFrom(fences: readonly FenceAt[], offset: number): number {
  let lo = 0;
  let hi = fences.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (fences[mid]!.start < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The fence whose extent contains `offset` (binary search: fences are in document order and disjoint). */
export function fenceAtOffset(fences: readonly FenceAt[], offset: number): FenceAt | undefined {
  const i = firstFenceFrom(fences, offset + 1) - 1;
  const f = i >= 0 ? fences[i] : undefined;
  return f && offset >= f.start && offset <= f.end ? f : undefined;
}

const blank = (s: string): boolean => s.trim() === '';

/** The fence a section consists of (its body is that fence and blank lines only), if it is a converted section. */
export function convertedFenceOf(text: string, s: SectionResult, fences: readonly FenceAt[]): FenceAt | undefined {
  const bodyStart = s.slice.headingEnd;
  // Start at the first fence at or after the body, so n sections and n fences cost n log n, not n².
  for (let i = firstFenceFrom(fences, bodyStart); i < fences.length; i++) {
    const f = fences[i]!;
    if (f.start >= s.slice.charEnd) break;
    if (f.end > s.slice.charEnd) continue;
    if (blank(text.slice(bodyStart, f.start)) && blank(text.slice(f.end, s.slice.charEnd))) return f;
  }
  return undefined;
}

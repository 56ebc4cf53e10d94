/** keep_marker: the section says `<!-- toonlens: keep -->` below its heading, so it stays markdown. */
import { keepMarker as keepDirective } from '../inlineControl';
import type { VerdictWarning } from '../warnings';
import type { SliceRule } from './types';

/**
 * The `keep_marker` warning of a section that carries `<!-- toonlens: keep -->` below its heading (slice-relative
 * range, 1-based lines as every engine warning): the decision policy then says keep_markdown.
 */
export function keepMarkerWarning(sliceText: string, headingEnd: number, section: string): VerdictWarning | undefined {
  const d = keepDirective(sliceText, headingEnd);
  if (!d) return undefined;
  return {
    code: 'keep_marker',
    severity: 'info',
    message: `Kept as markdown: "${section}" says <!-- toonlens: keep -->.`,
    range: { line_start: d.line + 1, line_end: d.endLine + 1, char_start: d.start, char_end: d.end },
  };
}

export const keepMarker: SliceRule = {
  warning: 'keep_marker',
  scope: 'slice',
  severity: 'info',
  decides: 'keep_markdown',
  description: 'the section carries `<!-- toonlens: keep -->` below its heading: the author asked for markdown (ToonLens\'s own code; the registry is open)',
  check: ({ raw, headingEnd, section }) => keepMarkerWarning(raw, headingEnd, section),
};

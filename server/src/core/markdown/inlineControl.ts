/**
 * Inline control comments in markdown, as markdownlint users know them:
 *
 *   <!-- toonlens-disable [CODE…] -->            no diagnostic with these codes (all codes without a list)
 *   <!-- toonlens-enable [CODE…] -->             … until this line (all codes, or just the listed ones)
 *   <!-- toonlens-disable-line [CODE…] -->       none on the comment's own line(s)
 *   <!-- toonlens-disable-next-line [CODE…] -->  none on the line after the comment
 *   <!-- toonlens: keep -->                      in a section: the section stays markdown (its verdict is
 *                                                keep_markdown, so no plan, Convert all or hybrid converts it)
 *
 * Comments are found with markdown-it's block parse (HTML blocks; the same CommonMark + tables setup as the
 * engine), so a comment inside a code fence is text, not a directive. A diagnostic is matched by the line its
 * range starts on. CODE is `toon/long-section`, `long-section` or the engine's `long_section` alike.
 */
import type { CoreDiagnostic } from '../types';
import { LineIndex } from '../lineIndex';
import { blockParser } from './parser';
import { KEEP_MARKER_CODE } from '../policy';
import type { VerdictWarning } from './warnings';

export type DirectiveKind = 'disable' | 'enable' | 'disable-line' | 'disable-next-line' | 'keep';

export interface InlineDirective {
  kind: DirectiveKind;
  /** Normalized codes (`toon/long-section`); empty: every code. */
  codes: string[];
  /** 0-based first and last line of the comment. */
  line: number;
  endLine: number;
  /** Offsets of the comment (`<!--` … `-->`) in the text as given. */
  start: number;
  end: number;
}

/** `long_section`, `long-section`, `toon/long-section` → `toon/long-section`; other namespaced codes unchanged. */
export function normalizeCode(code: string): string {
  const c = code.trim();
  if (c.includes('/')) return c;
  return `toon/${c.replace(/_/g, '-')}`;
}

const KINDS: readonly [string, DirectiveKind][] = [
  ['toonlens-disable-next-line', 'disable-next-line'],
  ['toonlens-disable-line', 'disable-line'],
  ['toonlens-disable', 'disable'],
  ['toonlens-enable', 'enable'],
];

/** The directive a comment body (between `<!--` and `-->`) states, if any. */
function directiveOf(body: string): { kind: DirectiveKind; codes: string[] } | undefined {
  const t = body.trim();
  if (/^toonlens\s*:\s*keep$/i.test(t) || t === 'toonlens-keep') return { kind: 'keep', codes: [] };
  for (const [word, kind] of KINDS) {
    if (!t.startsWith(word)) continue;
    const rest = t.slice(word.length);
    if (rest !== '' && !/^[\s,]/.test(rest)) continue; // toonlens-disablefoo
    const codes = rest.split(/[\s,]+/).filter(Boolean).map(normalizeCode);
    return { kind, codes };
  }
  return undefined;
}

/** The control comments of a markdown text, in document order. Never throws. */
export function inlineDirectives(text: string): InlineDirective[] {
  if (!text.includes('toonlens')) return [];
  try {
    const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    const tokens = blockParser().parse(bom ? text.slice(1) : text, {});
    const index = new LineIndex(text);
    const lineOf = (offset: number): number => index.positionAt(offset).line;
    const lineStart = (line: number): number => (line < index.lineCount ? index.offsetAt({ line, character: 0 }) : text.length);
    const out: InlineDirective[] = [];
    for (const tok of tokens) {
      if (tok.type !== 'html_block' || !tok.map || !tok.content.includes('toonlens')) continue;
      const firstLine = tok.map[0];
      const lastLine = tok.map[1] - 1;
      // The block's source lines (containers may have stripped markers from tok.content, so read the source).
      const from = lineStart(firstLine);
      const to = lineStart(lastLine + 1);
      const src = text.slice(from, to);
      let at = 0;
      for (;;) {
        const open = src.indexOf('<!--', at);
        if (open < 0) break;
        const close = src.indexOf('-->', open + 4);
        if (close < 0) break;
        at = close + 3;
        const d = directiveOf(src.slice(open + 4, close));
        if (!d) continue;
        const start = from + open;
        const end = from + close + 3;
        out.push({ ...d, start, end, line: lineOf(start), endLine: lineOf(end - 1) });
      }
    }
    return out;
  } catch {
    return [];
  }
}

const matches = (codes: readonly string[], code: string): boolean => codes.length === 0 || codes.includes(code);

/**
 * The diagnostics the text's disable comments leave: each is matched by code and by the 0-based line its
 * range starts on (`lineOfOffset`). Keep markers do not suppress diagnostics.
 */
export function applyInlineDisables(diagnostics: CoreDiagnostic[], directives: InlineDirective[], lineOfOffset: (offset: number) => number): CoreDiagnostic[] {
  const control = directives.filter((d) => d.kind !== 'keep');
  if (control.length === 0 || diagnostics.length === 0) return diagnostics;
  return diagnostics.filter((diag) => {
    const line = lineOfOffset(diag.range.start);
    // Region state at this line: replay disable/enable directives that start on or before it.
    let all = false;
    const on = new Set<string>(); // disabled one by one
    const off = new Set<string>(); // re-enabled one by one while `all` holds
    for (const d of control) {
      if (d.kind === 'disable-line' && line >= d.line && line <= d.endLine && matches(d.codes, diag.code)) return false;
      if (d.kind === 'disable-next-line' && line === d.endLine + 1 && matches(d.codes, diag.code)) return false;
      if (d.line > line) continue;
      if (d.kind === 'disable') {
        if (d.codes.length === 0) {
          all = true;
          off.clear();
        } else {
          for (const c of d.codes) {
            if (all) off.delete(c);
            else on.add(c);
          }
        }
      } else if (d.kind === 'enable') {
        if (d.codes.length === 0) {
          all = false;
          on.clear();
          off.clear();
        } else {
          for (const c of d.codes) {
            if (all) off.add(c);
            else on.delete(c);
          }
        }
      }
    }
    const disabled = all ? !off.has(diag.code) : on.has(diag.code);
    return !disabled;
  });
}

/** Whether a section's text (heading included) carries a `<!-- toonlens: keep -->` below its heading. */
export function keepMarker(sliceText: string, headingEnd: number): InlineDirective | undefined {
  if (!sliceText.includes('toonlens')) return undefined;
  return inlineDirectives(sliceText).find((d) => d.kind === 'keep' && d.start >= headingEnd);
}

/**
 * The `keep_marker` warning of a section that carries `<!-- toonlens: keep -->` below its heading (slice-relative
 * range, 1-based lines as every engine warning): the decision policy then says keep_markdown.
 */
export function keepMarkerWarning(sliceText: string, headingEnd: number, section: string): VerdictWarning | undefined {
  const d = keepMarker(sliceText, headingEnd);
  if (!d) return undefined;
  return {
    code: KEEP_MARKER_CODE,
    severity: 'info',
    message: `Kept as markdown: "${section}" says <!-- toonlens: keep -->.`,
    range: { line_start: d.line + 1, line_end: d.endLine + 1, char_start: d.start, char_end: d.end },
  };
}

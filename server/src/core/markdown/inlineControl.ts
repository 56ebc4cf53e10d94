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
 * range starts on (`lineOfOffset`). Keep markers do not suppress diagnostics. One sweep in line order: the
 * region comments (`disable`, `enable`) are replayed as the lines pass them, the line comments (`disable-line`,
 * `disable-next-line`) are looked up by line, so a document with thousands of comments and diagnostics costs
 * their sum, not their product. `directives` are in document order (their lines never decrease).
 */
export function applyInlineDisables(diagnostics: CoreDiagnostic[], directives: InlineDirective[], lineOfOffset: (offset: number) => number): CoreDiagnostic[] {
  const control = directives.filter((d) => d.kind !== 'keep');
  if (control.length === 0 || diagnostics.length === 0) return diagnostics;
  const regions = control.filter((d) => d.kind === 'disable' || d.kind === 'enable');
  // disable-line covers its comment's lines; disable-next-line the line after it: both as [from, to] line spans.
  const spans = control
    .filter((d) => d.kind === 'disable-line' || d.kind === 'disable-next-line')
    .map((d) => (d.kind === 'disable-line' ? { from: d.line, to: d.endLine, codes: d.codes } : { from: d.endLine + 1, to: d.endLine + 1, codes: d.codes }))
    .sort((a, b) => a.from - b.from);
  const lines = diagnostics.map((d) => lineOfOffset(d.range.start));
  const order = lines.map((_, i) => i).sort((a, b) => lines[a]! - lines[b]! || a - b);
  const keep = new Uint8Array(diagnostics.length);
  let all = false;
  const on = new Set<string>(); // disabled one by one
  const off = new Set<string>(); // re-enabled one by one while `all` holds
  let ri = 0;
  let si = 0;
  let active: { from: number; to: number; codes: string[] }[] = [];
  for (const i of order) {
    const line = lines[i]!;
    for (; ri < regions.length && regions[ri]!.line <= line; ri++) {
      const d = regions[ri]!;
      if (d.kind === 'disable') {
        if (d.codes.length === 0) {
          all = true;
          off.clear();
        } else
          for (const c of d.codes) {
            if (all) off.delete(c);
            else on.add(c);
          }
      } else if (d.codes.length === 0) {
        all = false;
        on.clear();
        off.clear();
      } else
        for (const c of d.codes) {
          if (all) off.add(c);
          else on.delete(c);
        }
    }
    for (; si < spans.length && spans[si]!.from <= line; si++) active.push(spans[si]!);
    if (active.some((a) => a.to < line)) active = active.filter((a) => a.to >= line);
    const code = diagnostics[i]!.code;
    if (active.some((a) => matches(a.codes, code))) continue;
    if (!(all ? !off.has(code) : on.has(code))) keep[i] = 1;
  }
  return diagnostics.filter((_, i) => keep[i] === 1);
}

/** Whether a section's text (heading included) carries a `<!-- toonlens: keep -->` below its heading. */
export function keepMarker(sliceText: string, headingEnd: number): InlineDirective | undefined {
  if (!sliceText.includes('toonlens')) return undefined;
  return inlineDirectives(sliceText).find((d) => d.kind === 'keep' && d.start >= headingEnd);
}

/** One text insertion or replacement (offsets in the text given). */
export interface DisableEdit {
  start: number;
  end: number;
  newText: string;
}

const LIST_EDGE = /^(?:bullet|ordered)_list_(?:open|close)$/;

/** The block structure a text parses to, one string per token, without the html blocks `isOurs` names (lines not compared: they move). */
function blockShape(text: string, isOurs: (content: string) => boolean): string[] {
  const out: string[] = [];
  for (const t of blockParser().parse(text, {})) {
    if (t.type === 'html_block' && isOurs(t.content)) continue;
    // A comment line between two items splits their list in two; the items, their order and tightness stay.
    if (LIST_EDGE.test(t.type)) continue;
    out.push(`${t.type}\u0000${t.tag}\u0000${t.nesting}\u0000${t.hidden}\u0000${t.info}\u0000${t.markup}\u0000${t.content}`);
  }
  return out;
}

const sameShape = (a: string[], b: string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** The line starts of a text (offsets), the first being 0. */
function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) starts.push(i + 1);
  }
  return starts;
}

/** The first line break of a text, `\n` when it has none. */
function eolOf(text: string): string {
  const m = /\r\n|\n|\r/.exec(text);
  return m ? m[0] : '\n';
}

/** An existing comment `<!-- kind codes -->` extended by one code: the replacement of its text. */
function extended(d: InlineDirective, code: string): DisableEdit {
  return { start: d.start, end: d.end, newText: `<!-- toonlens-${d.kind} ${[...d.codes, code].join(' ')} -->` };
}

/**
 * The edit that disables `code` (normalized, `toon/…`) on 0-based line `line` of the markdown `text` with a
 * `<!-- toonlens-disable-next-line CODE -->` comment, as markdownlint's and ESLint's "disable for this line" do:
 * a comment already standing on the line before gets the code added; otherwise a new comment line goes before
 * the line, at its indentation. Only an edit whose comment the inline-control reader takes for that line, and
 * after which the text parses to the same blocks (the comment aside; a list split in two at the comment counts
 * as the same items), is offered: none inside a table, a fence or the middle of a paragraph (undefined then;
 * the file-wide comment still works). `text` may be one section of a document (a section parses as it does in place).
 */
export function disableLineEdit(text: string, line: number, code: string): DisableEdit | undefined {
  const starts = lineStarts(text);
  if (line < 0 || line >= starts.length) return undefined;
  const directives = inlineDirectives(text);
  const before = directives.find((d) => d.kind === 'disable-next-line' && d.endLine === line - 1 && d.codes.length > 0);
  if (before) return before.codes.includes(code) ? undefined : extended(before, code);
  const at = starts[line]!;
  const eol = eolOf(text);
  const comment = `<!-- toonlens-disable-next-line ${code} -->`;
  const isOurs = (content: string) => content.trim() === comment;
  const shape = blockShape(text, () => false);
  // Indentations to try: the line's own (a nested item's comment stays in its parent item), none.
  const indents = [/^[ \t]*/.exec(text.slice(at, line + 1 < starts.length ? starts[line + 1]! : text.length))![0], ''];
  for (const indent of [...new Set(indents)]) {
    const newText = `${indent}${comment}${eol}`;
    const next = text.slice(0, at) + newText + text.slice(at);
    const found = inlineDirectives(next).some((d) => d.kind === 'disable-next-line' && d.endLine === line && d.codes.includes(code));
    if (found && sameShape(blockShape(next, isOurs), shape)) return { start: at, end: at, newText };
  }
  return undefined;
}

/**
 * The edit that disables `code` in the whole file with `<!-- toonlens-disable CODE -->` at the top, after the
 * frontmatter (`bodyStart`: where the markdown starts): a disable comment already standing there gets the code
 * added. Undefined when the code is disabled there already.
 */
export function disableFileEdit(text: string, bodyStart: number, code: string): DisableEdit | undefined {
  const body = text.slice(bodyStart);
  const first = inlineDirectives(body).find((d) => d.kind === 'disable' || d.kind === 'enable');
  if (first && first.kind === 'disable' && first.codes.length > 0 && body.slice(0, first.start).trim() === '') {
    if (first.codes.includes(code)) return undefined;
    const e = extended(first, code);
    return { ...e, start: e.start + bodyStart, end: e.end + bodyStart };
  }
  return { start: bodyStart, end: bodyStart, newText: `<!-- toonlens-disable ${code} -->${eolOf(text)}` };
}

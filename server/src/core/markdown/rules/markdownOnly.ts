/**
 * markdown_only: the section holds markdown a TOON fence would not keep readable as written (an admonition, a
 * reference-style link or definition, an HTML block, a footnote, a value that spans lines, or code TOON would
 * have to escape), so it stays markdown (ToonLens's own code; the registry is open).
 */
import type { Block } from '../blocks';
import type { VerdictWarning } from '../warnings';
import type { SliceRule, SliceRuleInput } from './types';

/** `!!! note`, `??? tip "Title"`, `???+ warning` (MkDocs / Material admonitions): the marker line of a paragraph. */
const ADMONITION = /^(?:!!!|\?\?\?\+?)[ \t]*[A-Za-z]/;
/** A link reference definition's (or a footnote definition's) first line. */
const DEFINITION = /^ {0,3}\[([^\]\n]+)\]:/;
/**
 * The first `[text][label]` or `[text][]` (a full or collapsed reference link) in `s`, what
 * `/\[[^\]\n]*\]\[[^\]\n]*\]/` matches, found in one pass: that regex retries from every `[`, which is quadratic on
 * a run of brackets. The text between two `]` is scanned once.
 */
export function referenceLinkIn(s: string): string | undefined {
  let open = -1; // the first `[` since the last `]` or line break
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 10) open = -1;
    else if (c === 91) {
      if (open < 0) open = i;
    } else if (c === 93) {
      if (open >= 0 && s.charCodeAt(i + 1) === 91) {
        let j = i + 2;
        while (j < s.length && s.charCodeAt(j) !== 93 && s.charCodeAt(j) !== 10) j++;
        if (j < s.length && s.charCodeAt(j) === 93) return s.slice(open, j + 1);
        // No label closer on this line: the scan goes on from where that one stopped.
        open = -1;
        i = j - 1;
        continue;
      }
      open = -1;
    }
  }
  return undefined;
}

/** The first `[^label]` (a footnote reference) in `s`, as `/\[\^[^\]\s]+\]/` finds it, in one pass. */
export function footnoteIn(s: string): string | undefined {
  for (let i = 0; i + 1 < s.length; i++) {
    if (s.charCodeAt(i) !== 91 || s.charCodeAt(i + 1) !== 94) continue;
    let j = i + 2;
    while (j < s.length && s.charCodeAt(j) !== 93 && !/\s/.test(s[j]!)) j++;
    if (j > i + 2 && j < s.length && s.charCodeAt(j) === 93) return s.slice(i, j + 1);
    // Every `[^` before j also ends at j: continue past it.
    i = Math.max(i, j - 1);
  }
  return undefined;
}
/** The warning's code. */
export const MARKDOWN_ONLY_CODE = 'markdown_only';
/** `<!-- toonlens: keep -->` (or `toonlens-keep`) on its own. */
const KEEP_COMMENT = /^ {0,3}<!--\s*(?:toonlens\s*:\s*keep|toonlens-keep)\s*-->\s*$/i;
/** A line break inside a value (an item's nested blocks, a hard break). */
const LINE_BREAK = /[\n\r]/;
/** What TOON escapes inside a quoted string. */
const ESCAPED = /["\\\n\r\t]/;

/**
 * A string's code spans (CommonMark: a run of n backticks up to the next run of exactly n) and the text outside
 * them. Linear: each backtick run is looked at once as an opener, and an opener without a closer is literal text.
 */
export function codeSpans(s: string): { spans: string[]; outside: string } {
  const runs: { at: number; n: number }[] = [];
  for (let i = 0; i < s.length; ) {
    if (s.charCodeAt(i) !== 96) {
      i++;
      continue;
    }
    let j = i;
    while (j < s.length && s.charCodeAt(j) === 96) j++;
    runs.push({ at: i, n: j - i });
    i = j;
  }
  // For each run length, the indexes of the runs of that length, so a closer is found without rescanning.
  const byLength = new Map<number, number[]>();
  runs.forEach((r, k) => {
    const list = byLength.get(r.n);
    if (list) list.push(k);
    else byLength.set(r.n, [k]);
  });
  const next = new Map<number, number>();
  const spans: string[] = [];
  let outside = '';
  let from = 0;
  for (let k = 0; k < runs.length; k++) {
    const r = runs[k]!;
    if (r.at < from) continue;
    const list = byLength.get(r.n)!;
    let p = next.get(r.n) ?? 0;
    while (p < list.length && list[p]! <= k) p++;
    next.set(r.n, p);
    if (p >= list.length) continue;
    const close = runs[list[p]!]!;
    outside += s.slice(from, r.at);
    spans.push(s.slice(r.at + r.n, close.at));
    from = close.at + close.n;
    k = list[p]!;
  }
  outside += s.slice(from);
  return { spans, outside };
}

/** The strings of a block an agent would read in the fence (its cells, items, terms, text), in order. */
function* blockStrings(b: Block): Generator<string, void, void> {
  switch (b.kind) {
    case 'p':
      yield b.text;
      return;
    case 'l':
    case 'o':
      yield* b.items;
      return;
    case 't':
      yield* b.header;
      for (const r of b.rows) yield* r;
      return;
    case 'd':
      for (const d of b.defs) yield* d;
      return;
    case 'm':
      yield b.raw;
      return;
    case 'c':
      return;
  }
}

/** How many strings of a block {@link markdownOnlyReasonSteps} reads between two yields. */
const STRINGS_PER_STEP = 4096;

/** Why a block keeps its section markdown, and the text to point at; null when it converts readably. */
export function markdownOnlyReason(b: Block): { what: string; at: string } | null {
  const steps = markdownOnlyReasonSteps(b);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** {@link markdownOnlyReason}, a yield every STRINGS_PER_STEP strings of the block. */
function* markdownOnlyReasonSteps(b: Block): Generator<void, { what: string; at: string } | null, void> {
  if (b.kind === 'm') {
    // (a keep marker alone says keep_marker already)
    if (/^ {0,3}</.test(b.raw) && !KEEP_COMMENT.test(b.raw)) return { what: 'an HTML block', at: b.raw };
    const d = DEFINITION.exec(b.raw);
    if (d) return { what: d[1]!.startsWith('^') ? 'a footnote definition' : 'a link reference definition', at: b.raw };
  }
  if (b.kind === 'p' && ADMONITION.test(b.text)) return { what: 'an admonition', at: b.text };
  if ((b.kind === 'l' || b.kind === 'o') && b.items.some((x) => ADMONITION.test(x))) return { what: 'an admonition', at: b.items.find((x) => ADMONITION.test(x))! };
  let n = 0;
  for (const s of blockStrings(b)) {
    if (++n % STRINGS_PER_STEP === 0) yield;
    // TOON writes a line break inside a value as the two characters `\n`: the reader would have to unescape it.
    if (b.kind !== 'm' && LINE_BREAK.test(s)) return { what: 'a value that spans lines (a nested list, a code block or a quote inside an item, or a hard line break)', at: s };
    if (!s.includes('[') && !s.includes('`')) continue;
    const { spans, outside } = codeSpans(s);
    const link = referenceLinkIn(outside);
    if (link !== undefined) return { what: 'a reference-style link', at: link };
    const note = footnoteIn(outside);
    if (note !== undefined) return { what: 'a footnote', at: note };
    const escaped = spans.find((x) => ESCAPED.test(x));
    if (escaped !== undefined) return { what: 'code TOON would have to escape (a quote, a backslash or a line break)', at: escaped };
  }
  return null;
}

/** The `markdown_only` warning of a section, at the first block that keeps it markdown (slice-relative range). */
export function markdownOnlyWarning(input: SliceRuleInput): VerdictWarning | undefined {
  const steps = markdownOnlyWarningSteps(input);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** {@link markdownOnlyWarning} in steps (a yield inside a block with many strings). */
function* markdownOnlyWarningSteps({ parsed, raw, headingEnd, section }: SliceRuleInput): Generator<void, VerdictWarning | undefined, void> {
  for (const b of parsed.blocks) {
    const why = yield* markdownOnlyReasonSteps(b);
    if (!why) continue;
    const w: VerdictWarning = {
      code: MARKDOWN_ONLY_CODE,
      severity: 'info',
      message: `Kept as markdown: "${section}" holds ${why.what}, which a TOON fence would not keep as written.`,
      suggestion: 'Keep this section as markdown (or move that block to a section of its own).',
    };
    // Pointed at where the text is (its first line), when it is found verbatim.
    const needle = (why.at.split('\n').find((l) => l.trim() !== '') ?? '').trim().slice(0, 60);
    const at = needle === '' ? -1 : raw.indexOf(needle, headingEnd);
    if (at >= 0) {
      const start = parsed.lines.positionAt(at);
      const end = parsed.lines.positionAt(at + needle.length);
      w.range = { line_start: start.line + 1, line_end: end.line + 1, char_start: at, char_end: at + needle.length };
    }
    return w;
  }
  return undefined;
}

export const markdownOnly: SliceRule = {
  warning: 'markdown_only',
  scope: 'slice',
  severity: 'info',
  decides: 'keep_markdown',
  description:
    'the section holds markdown a TOON fence would not keep readable as written: an admonition (`!!!`/`???`), a reference-style link or definition, an HTML block, a footnote, a value that spans lines, or a code span TOON would have to escape (ToonLens\'s own code; the registry is open)',
  check: (input) => markdownOnlyWarning(input),
  checkSteps: (input) => markdownOnlyWarningSteps(input),
};

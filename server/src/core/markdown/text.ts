/**
 * Linear-time text helpers for the engine. Each replaces a regular expression that backtracks
 * quadratically on ordinary-looking input: a trailing-run pattern such as
 * `/[\s.]+$/` retries its run from every position of a long run that does not reach the end,
 * and the sentence pattern `/[^.!?]+(?:[.!?]+(?=\s|$)|$)/g` rescans a long word from each of its
 * characters when the word ends in ".b". These scan every character a bounded number of times.
 */

/**
 * A line's leading whitespace, in columns and in characters: spaces, and tabs to the next multiple of 4
 * (CommonMark's tab stop); with `tabs` false a tab ends it like any other character. `base`: the column
 * `line` starts at (text after a container's marker: a tab stops at a multiple of 4 of the whole line).
 */
export function indentOf(line: string, tabs = true, base = 0): { cols: number; chars: number } {
  let cols = 0;
  let i = 0;
  for (; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32) cols++;
    else if (c === 9 && tabs) cols += 4 - ((base + cols) % 4);
    else break;
  }
  return { cols, chars: i };
}

/** Whether a UTF-16 code unit is whitespace as the regex class `\s` defines it. */
export function isSpaceCode(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  if (c < 128) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/** `s` without its trailing run of characters that `drop` accepts (like `s.replace(/[…]+$/, '')`). */
export function trimEndWhile(s: string, drop: (code: number) => boolean): string {
  let end = s.length;
  while (end > 0 && drop(s.charCodeAt(end - 1))) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** `s` without trailing line breaks (`\n`, `\r`). */
export function trimTrailingLineBreaks(s: string): string {
  return trimEndWhile(s, (c) => c === 10 || c === 13);
}

/** Offset of the start of the line holding `offset`: "\n", "\r\n" and a lone "\r" each end a line (as in LSP). */
export function lineStartAt(text: string, offset: number): number {
  let i = offset;
  while (i > 0) {
    const c = text.charCodeAt(i - 1);
    if (c === 10 || c === 13) break;
    i--;
  }
  return i;
}

/** The line break of the line holding `offset` ("\n", "\r\n" or "\r"), or undefined on the last line. */
export function lineBreakAfter(text: string, offset: number): '\n' | '\r\n' | '\r' | undefined {
  for (let i = offset; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) return '\n';
    if (c === 13) return text.charCodeAt(i + 1) === 10 ? '\r\n' : '\r';
  }
  return undefined;
}

const isTerminator = (c: number) => c === 46 /* . */ || c === 33 /* ! */ || c === 63; /* ? */

/**
 * The sentences of `text` as [start, end) offsets, exactly the matches of
 * `/[^.!?]+(?:[.!?]+(?=\s|$)|$)/g`: a run of non-terminators, then its run of terminators when
 * that run is followed by whitespace or the end, or the run alone when it reaches the end. A run
 * whose terminators are followed by another character (`e.g` in "e.g.x") matches nowhere, so it
 * is skipped whole — the regex finds the same after trying each of its positions in turn.
 */
export function sentenceSpans(text: string): [number, number][] {
  const out: [number, number][] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && isTerminator(text.charCodeAt(i))) i++; // terminators never start a match
    if (i >= n) break;
    const start = i;
    while (i < n && !isTerminator(text.charCodeAt(i))) i++;
    if (i >= n) {
      out.push([start, n]);
      break;
    }
    let j = i;
    while (j < n && isTerminator(text.charCodeAt(j))) j++;
    if (j >= n || isSpaceCode(text.charCodeAt(j))) out.push([start, j]);
    i = j;
  }
  return out;
}

/** The sentence texts of `text` (see {@link sentenceSpans}). */
export function sentences(text: string): string[] {
  return sentenceSpans(text).map(([a, b]) => text.slice(a, b));
}

const BEYOND_LATIN1 = /[\u0100-\uffff]/;

/**
 * A copy of `s` that does not keep the string it was sliced from alive, in V8's one-byte representation when
 * every character is Latin-1. V8 represents a slice of
 * 13 or more characters as a view into its parent, so a cached slice of one document version would
 * retain the whole version (twice the document size as a two-byte string) for as long as the cache holds it; joining
 * two halves allocates a fresh flat string (measured on Node 20: the parent is collected).
 */
export function detach(s: string): string {
  if (BEYOND_LATIN1.test(s)) return flatCopy(s, 0, s.length);
  // A copy of a two-byte string's slice is two-byte however plain its characters (real markdown is two-byte
  // in V8 as soon as it holds one em dash or curly quote): the latin1 round trip stores one byte a character.
  return latin1Copy(s, 0, s.length);
}

/**
 * Whether `s` (or `s.slice(start, end)`) has a character beyond Latin-1 (a scan, not a regular expression: a match
 * would keep `s` alive as the last one).
 */
export function beyondLatin1(s: string, start = 0, end = s.length): boolean {
  for (let i = start; i < end; i++) if (s.charCodeAt(i) > 0xff) return true;
  return false;
}

/** `s`, or a one-byte copy of it when every character is Latin-1 (a slice of a two-byte document is two-byte). */
export function oneByte(s: string): string {
  return beyondLatin1(s) ? s : latin1Copy(s, 0, s.length);
}

/** A flat one-byte copy of `text.slice(start, end)`, every character of which is Latin-1 (not a view into `text`). */
export function latin1Copy(text: string, start: number, end: number): string {
  return end > start ? Buffer.from(text.slice(start, end), 'latin1').toString('latin1') : '';
}

/**
 * Makes V8 forget the subject of the last regular-expression match, which it keeps alive until the next match
 * anywhere (a whole document version scanned by a parse would stay alive through it).
 */
export function forgetLastMatch(): void {
  /^/.exec('');
}

/**
 * `text.slice(start, end)` held as compactly as V8 allows, without keeping `text` alive: all Latin-1, one flat
 * copy, one byte a character; else its runs of lines, each a flat copy — one byte a character except the lines
 * with a character beyond Latin-1 — joined into a rope (a V8 cons string: no characters of its own, read flat
 * again the first time something scans it). One em dash makes a flat copy of the whole slice two bytes a
 * character; here it costs its line.
 */
export function compactSlice(text: string, start: number, end: number): string {
  let out = '';
  let runStart = start;
  let runWide = false;
  let lineStart = start;
  let lineWide = false;
  const flush = (to: number) => {
    if (to > runStart) out += runWide ? flatCopy(text, runStart, to) : latin1Copy(text, runStart, to);
    runStart = to;
  };
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c > 0xff) lineWide = true;
    if (c === 10 || i === end - 1) {
      if (lineWide !== runWide) {
        flush(lineStart);
        runWide = lineWide;
      }
      lineStart = i + 1;
      lineWide = false;
    }
  }
  flush(end);
  return out;
}

/** A flat copy of `text.slice(start, end)` in its own storage (not a view into `text`). */
function flatCopy(text: string, start: number, end: number): string {
  if (end - start < 13) return text.slice(start, end);
  const h = (start + end) >> 1;
  return [text.slice(start, h), text.slice(h, end)].join('');
}

/** 32-bit FNV-1a over a text's UTF-16 code units from `seed` (duplicate-rule keys, the slice memo's fingerprint). */
export function fnv1a(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

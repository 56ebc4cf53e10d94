/**
 * The same instruction in two files one agent loads together (docs/agent-context.md#duplicates).
 *
 * An instruction is a list item or a sentence of a paragraph (fenced code, headings, tables, HTML comments and
 * frontmatter are not instructions). Two instructions are the same when their normalized texts are equal
 * (lower case, markdown emphasis and code marks removed, whitespace collapsed, end punctuation dropped), and
 * nearly the same when their sets of content words are equal (the words of three or more letters, and every
 * number, minus a short stop-word list, with a plural `s` dropped): reordered words, changed articles or punctuation.
 * Both keys are hashed, so finding every pair is linear in the text of the files.
 */

export interface Instruction {
  /** Offsets of the instruction text in its file. */
  start: number;
  end: number;
  /** What a fix removes to delete this copy: the whole line of a list item, the sentence and its trailing space. */
  removeStart: number;
  removeEnd: number;
  exact: string;
  near: string;
  /** The line of text as written, for messages. */
  text: string;
}

const STOP = new Set(['the', 'and', 'for', 'are', 'with', 'that', 'this', 'you', 'your', 'our', 'all', 'any', 'its', 'from', 'into', 'use', 'when', 'always', 'should', 'must', 'please']);
const MIN_WORDS = 3;

function normalize(s: string): string {
  let t = s.toLowerCase();
  if (/[*_`~]/.test(t)) t = t.replace(/[*_`~]/g, '');
  if (t.includes('](')) t = linkTexts(t);
  t = t.replace(/\s+/g, ' ');
  // End punctuation and spaces off the end, scanning back: a pattern anchored at the end retries every start.
  let e = t.length;
  while (e > 0 && isEndMark(t.charCodeAt(e - 1))) e--;
  return (e === t.length ? t : t.slice(0, e)).trim();
}

/** `. ; : ! ? ,` or white space. */
function isEndMark(c: number): boolean {
  return c === 0x2e || c === 0x3b || c === 0x3a || c === 0x21 || c === 0x3f || c === 0x2c || isSpace(c);
}

/**
 * `[text](target)` replaced by `text`, left to right, as `replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')` does, in one
 * pass: the `]` and `)` found for one `[` serve every later `[` before them, so no character is scanned twice.
 */
function linkTexts(t: string): string {
  let out = '';
  let last = 0;
  let close = -1;
  let paren = -1;
  for (let open = t.indexOf('['); open >= 0; open = t.indexOf('[', open + 1)) {
    if (close <= open) {
      close = t.indexOf(']', open + 1);
      if (close < 0) break;
    }
    if (t.charCodeAt(close + 1) !== 0x28) continue;
    if (paren <= close) {
      paren = t.indexOf(')', close + 2);
      if (paren < 0) break;
    }
    out += t.slice(last, open) + t.slice(open + 1, close);
    last = paren + 1;
    open = paren;
  }
  return last === 0 ? t : out + t.slice(last);
}

const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || c === 39 || c === 45 || (c > 127 && /[\p{L}\p{N}]/u.test(String.fromCharCode(c)));

function hasDigit(w: string): boolean {
  for (let i = 0; i < w.length; i++) {
    const c = w.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

function nearKey(exact: string): string {
  const set = new Set<string>();
  for (const raw of exact.split(' ')) {
    // Punctuation trimmed off both ends (the text is lower case already).
    let a = 0;
    let b = raw.length;
    while (a < b && !isWordChar(raw.charCodeAt(a))) a++;
    while (b > a && !isWordChar(raw.charCodeAt(b - 1))) b--;
    let w = a === 0 && b === raw.length ? raw : raw.slice(a, b);
    // Numbers always count: "step 1" and "step 2" are different instructions.
    if ((w.length < 3 && !hasDigit(w)) || STOP.has(w)) continue;
    if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1);
    set.add(w);
  }
  return set.size >= MIN_WORDS ? [...set].sort().join(' ') : '';
}

/** JavaScript's `\s`: white space and line terminators. */
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13) || (c > 127 && (c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff));
}

/** The instructions of a markdown text after `from` (the frontmatter's end). */
export function instructions(text: string, from = 0): Instruction[] {
  const out: Instruction[] = [];
  let at = from;
  let fence = '';
  let comment = false;
  while (at < text.length) {
    let nl = text.indexOf('\n', at);
    if (nl < 0) nl = text.length;
    const lineEnd = nl > at && text[nl - 1] === '\r' ? nl - 1 : nl;
    const line = text.slice(at, lineEnd);
    const next = nl < text.length ? nl + 1 : nl;
    // The first character after the leading white space decides which of the line patterns can match at all.
    let k = 0;
    while (k < line.length && isSpace(line.charCodeAt(k))) k++;
    const c = k < line.length ? line.charCodeAt(k) : -1;
    const f = k <= 3 && (c === 0x60 || c === 0x7e) ? /^\s{0,3}(`{3,}|~{3,})/.exec(line) : null;
    if (fence) {
      if (f && f[1]![0] === fence[0] && line.trim().length >= fence.length && /^[`~]+$/.test(line.trim())) fence = '';
    } else if (comment) {
      if (line.includes('-->')) comment = false;
    } else if (f) fence = f[1]!;
    else if (c === 0x3c && /^\s*<!--/.test(line) && !line.includes('-->')) comment = true;
    else if (!(c === -1 || (k <= 3 && (c === 0x23 || c === 0x7c || c === 0x3c || c === 0x3e) && /^\s{0,3}(#|\||<|>?\s*$)/.test(line))) && !((c === 0x2d || c === 0x2a || c === 0x5f) && /^\s*([-*_]\s*){3,}$/.test(line))) {
      const item = c === 0x2d || c === 0x2a || c === 0x2b || (c >= 0x30 && c <= 0x39) ? /^(\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?)(.*)$/.exec(line) : null;
      if (item) push(out, text, at + item[1]!.length, lineEnd, at, next);
      else sentences(out, text, at, lineEnd);
    }
    at = next;
  }
  return out;
}

/** Keys by raw text: the same instruction repeated across a repository is normalized once. Bounded. */
const keyMemo = new Map<string, { exact: string; near: string; words: number }>();
const KEY_MEMO_ENTRIES = 100_000;

function keysOf(raw: string): { exact: string; near: string; words: number } {
  let k = keyMemo.get(raw);
  if (!k) {
    const exact = normalize(raw);
    const words = exact.split(' ').length;
    k = { exact, near: words >= MIN_WORDS ? nearKey(exact) : '', words };
    if (keyMemo.size >= KEY_MEMO_ENTRIES) keyMemo.clear();
    keyMemo.set(raw, k);
  }
  return k;
}

function push(out: Instruction[], text: string, start: number, end: number, removeStart: number, removeEnd: number): void {
  const raw = text.slice(start, end);
  const k = keysOf(raw);
  if (k.words < MIN_WORDS) return;
  out.push({ start, end, removeStart, removeEnd, exact: k.exact, near: k.near, text: raw.trim() });
}

/** The sentences of one paragraph line (a sentence ends at `.`, `!` or `?` followed by a space or the line's end). */
function sentences(out: Instruction[], text: string, lineStart: number, lineEnd: number): void {
  let s = lineStart;
  while (s < lineEnd && (text[s] === ' ' || text[s] === '\t')) s++;
  for (let i = s; i < lineEnd; i++) {
    const c = text[i];
    if ((c === '.' || c === '!' || c === '?') && (i + 1 === lineEnd || text[i + 1] === ' ')) {
      let e = i + 1;
      while (e < lineEnd && text[e] === ' ') e++;
      push(out, text, s, i + 1, s, e === lineEnd && s === firstNonSpace(text, lineStart, lineEnd) ? lineEndWithBreak(text, lineEnd) : e);
      s = e;
      i = e - 1;
    }
  }
  if (s < lineEnd) push(out, text, s, lineEnd, s, s === firstNonSpace(text, lineStart, lineEnd) ? lineEndWithBreak(text, lineEnd) : lineEnd);
}

function firstNonSpace(text: string, from: number, to: number): number {
  let i = from;
  while (i < to && (text[i] === ' ' || text[i] === '\t')) i++;
  return i;
}

function lineEndWithBreak(text: string, lineEnd: number): number {
  if (text[lineEnd] === '\r') lineEnd++;
  return text[lineEnd] === '\n' ? lineEnd + 1 : lineEnd;
}

export interface DuplicateHit {
  path: string;
  at: Instruction;
  other: { path: string; at: Instruction };
  /** Equal after normalization (false: the same content words). */
  exact: boolean;
}

/**
 * Which pairs of files an agent loads together: both `eligible`, and at least one an `anchor` (a file paid on
 * every request, or loaded for the working path). Two predicates instead of a pair test keep the search linear.
 */
export interface Together {
  eligible(path: string): boolean;
  anchor(path: string): boolean;
}

/** One copy of an instruction: its file (an index into {@link InstructionGroups.paths}) and its number among all copies. */
export type Copy = { file: number; id: number; at: Instruction };

/** Every instruction of a set of files grouped by its exact and its near key: built once, searched per agent. */
export interface InstructionGroups {
  /** The files, each once; copies name them by index. */
  paths: readonly string[];
  /** How many instructions the files hold (copies are numbered below it). */
  size: number;
  exact: Copy[][];
  near: Copy[][];
}

export function groupInstructions(files: readonly { path: string; instructions: readonly Instruction[] }[]): InstructionGroups {
  // A key seen once holds its copy; an array only from the second copy on (most instructions have no duplicate).
  const byExact = new Map<string, Copy | Copy[]>();
  const byNear = new Map<string, Copy | Copy[]>();
  const exact: Copy[][] = [];
  const near: Copy[][] = [];
  const paths: string[] = [];
  const index = new Map<string, number>();
  let id = 0;
  for (const f of files) {
    let file = index.get(f.path);
    if (file === undefined) {
      index.set(f.path, (file = paths.length));
      paths.push(f.path);
    }
    for (const at of f.instructions) {
      const c: Copy = { file, id: id++, at };
      addTo(byExact, exact, at.exact, c);
      if (at.near) addTo(byNear, near, at.near, c);
    }
  }
  return { paths, size: id, exact, near };
}

/**
 * Every instruction that another file also holds, when the two are loaded together. One hit per instruction,
 * pointing at the first other copy; each copy costs a constant number of steps, so a thousand copies of one
 * instruction stay linear. The predicates are asked once per file, not once per copy.
 */
export function duplicatesAcross(files: readonly { path: string; instructions: readonly Instruction[] }[] | InstructionGroups, together: Together): DuplicateHit[] {
  const groups = Array.isArray(files) ? groupInstructions(files) : (files as InstructionGroups);
  const status = new Uint8Array(groups.paths.length);
  for (let i = 0; i < groups.paths.length; i++) {
    const p = groups.paths[i]!;
    if (together.eligible(p)) status[i] = together.anchor(p) ? 2 : 1;
  }
  const out: DuplicateHit[] = [];
  eachDuplicate(groups, status, (g, other, exact) => out.push({ path: groups.paths[g.file]!, at: g.at, other: { path: groups.paths[other.file]!, at: other.at }, exact }));
  return out;
}

/**
 * The search under {@link duplicatesAcross}, on the files' status by index (0 not loaded with the others, 1
 * eligible, 2 eligible and an anchor): `visit` gets each copy that has another, with that other copy, exact
 * groups first.
 */
export function eachDuplicate(groups: InstructionGroups, status: Uint8Array, visit: (copy: Copy, other: Copy, exact: boolean) => void): void {
  // Every pair holds an anchor: without one, nothing is loaded together.
  if (!status.includes(2)) return;
  const done = new Uint8Array(groups.size);
  const scan = (list: readonly Copy[][], exact: boolean) => {
    for (const group of list) {
      // The first two eligible copies in distinct files, and the first two in distinct anchor files: the other
      // copy of any copy is among them.
      let any0: Copy | undefined;
      let any1: Copy | undefined;
      let anchor0: Copy | undefined;
      let anchor1: Copy | undefined;
      for (const g of group) {
        const s = status[g.file]!;
        if (s === 0) continue;
        if (!any0) any0 = g;
        else if (!any1 && any0.file !== g.file) any1 = g;
        if (s === 2) {
          if (!anchor0) anchor0 = g;
          else if (!anchor1 && anchor0.file !== g.file) anchor1 = g;
        }
        if (any1 && anchor1) break;
      }
      if (!any1 || !anchor0) continue;
      for (const g of group) {
        const s = status[g.file]!;
        if (s === 0 || done[g.id]) continue;
        const p0 = s === 2 ? any0! : anchor0;
        const p1 = s === 2 ? any1 : anchor1;
        const other = p0.file !== g.file ? p0 : p1 && p1.file !== g.file ? p1 : undefined;
        if (!other) continue;
        done[g.id] = 1;
        visit(g, other, exact);
      }
    }
  };
  scan(groups.exact, true);
  scan(groups.near, false);
}

/** Adds a copy under its key; a key's second copy turns it into a group (listed in `groups` in first-seen order of duplication). */
function addTo(m: Map<string, Copy | Copy[]>, groups: Copy[][], k: string, v: Copy): void {
  const l = m.get(k);
  if (l === undefined) m.set(k, v);
  else if (Array.isArray(l)) l.push(v);
  else {
    const g = [l, v];
    m.set(k, g);
    groups.push(g);
  }
}

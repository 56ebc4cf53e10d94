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
  if (t.includes('](')) t = t.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return t
    .replace(/\s+/g, ' ')
    .replace(/[\s.;:!?,]+$/, '')
    .trim();
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
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0] && line.trim().length >= fence.length && /^[`~]+$/.test(line.trim())) fence = '';
    } else if (comment) {
      if (line.includes('-->')) comment = false;
    } else if (f) fence = f[1]!;
    else if (/^\s*<!--/.test(line) && !line.includes('-->')) comment = true;
    else if (!/^\s{0,3}(#|\||<|>?\s*$)/.test(line) && !/^\s*([-*_]\s*){3,}$/.test(line)) {
      const item = /^(\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?)(.*)$/.exec(line);
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

type Copy = { path: string; at: Instruction };

/** Every instruction of a set of files grouped by its exact and its near key: built once, searched per agent. */
export interface InstructionGroups {
  exact: Copy[][];
  near: Copy[][];
}

export function groupInstructions(files: readonly { path: string; instructions: readonly Instruction[] }[]): InstructionGroups {
  const byExact = new Map<string, Copy[]>();
  const byNear = new Map<string, Copy[]>();
  for (const f of files) {
    for (const at of f.instructions) {
      addTo(byExact, at.exact, { path: f.path, at });
      if (at.near) addTo(byNear, at.near, { path: f.path, at });
    }
  }
  const multi = (m: Map<string, Copy[]>) => [...m.values()].filter((g) => g.length > 1);
  return { exact: multi(byExact), near: multi(byNear) };
}

/**
 * Every instruction that another file also holds, when the two are loaded together. One hit per instruction,
 * pointing at the first other copy; each copy costs a constant number of lookups, so a thousand copies of one
 * instruction stay linear.
 */
export function duplicatesAcross(files: readonly { path: string; instructions: readonly Instruction[] }[] | InstructionGroups, together: Together): DuplicateHit[] {
  const groups = Array.isArray(files) ? groupInstructions(files) : (files as InstructionGroups);
  const out: DuplicateHit[] = [];
  const done = new Set<Instruction>();
  const scan = (list: Copy[][], exact: boolean) => {
    const any: Copy[] = [];
    const anchors: Copy[] = [];
    for (const group of list) {
      // The first two eligible copies in distinct files, and the first two in distinct anchor files: the other
      // copy of any copy is among them.
      any.length = 0;
      anchors.length = 0;
      for (const g of group) {
        if (!together.eligible(g.path)) continue;
        if (any.length < 2 && (any.length === 0 || any[0]!.path !== g.path)) any.push(g);
        if (anchors.length < 2 && together.anchor(g.path) && (anchors.length === 0 || anchors[0]!.path !== g.path)) anchors.push(g);
        if (any.length === 2 && anchors.length === 2) break;
      }
      if (any.length < 2) continue;
      for (const g of group) {
        if (done.has(g.at) || !together.eligible(g.path)) continue;
        const pool = together.anchor(g.path) ? any : anchors;
        const other = pool[0] && pool[0].path !== g.path ? pool[0] : pool[1] && pool[1].path !== g.path ? pool[1] : undefined;
        if (!other) continue;
        done.add(g.at);
        out.push({ path: g.path, at: g.at, other, exact });
      }
    }
  };
  scan(groups.exact, true);
  scan(groups.near, false);
  return out;
}

function addTo<T>(m: Map<string, T[]>, k: string, v: T): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

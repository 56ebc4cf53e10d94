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
  return s
    .toLowerCase()
    .replace(/[*_`~]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .replace(/[\s.;:!?,]+$/, '')
    .trim();
}

function nearKey(exact: string): string {
  const words = exact.match(/[\p{L}\p{N}][\p{L}\p{N}'-]*/gu) ?? [];
  const set = new Set<string>();
  for (let w of words) {
    // Numbers always count: "step 1" and "step 2" are different instructions.
    if ((w.length < 3 && !/\d/.test(w)) || STOP.has(w)) continue;
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

function push(out: Instruction[], text: string, start: number, end: number, removeStart: number, removeEnd: number): void {
  const raw = text.slice(start, end);
  const exact = normalize(raw);
  if (exact.split(' ').length < MIN_WORDS) return;
  out.push({ start, end, removeStart, removeEnd, exact, near: nearKey(exact), text: raw.trim() });
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
 * Every instruction of `files` that another of `files` also holds, when the pair is loaded together (`together`
 * decides from the two paths). One hit per instruction, pointing at the first other copy.
 */
export function duplicatesAcross(files: readonly { path: string; instructions: readonly Instruction[] }[], together: (a: string, b: string) => boolean): DuplicateHit[] {
  const byExact = new Map<string, { path: string; at: Instruction }[]>();
  const byNear = new Map<string, { path: string; at: Instruction }[]>();
  for (const f of files) {
    for (const at of f.instructions) {
      addTo(byExact, at.exact, { path: f.path, at });
      if (at.near) addTo(byNear, at.near, { path: f.path, at });
    }
  }
  const out: DuplicateHit[] = [];
  const done = new Set<Instruction>();
  const scan = (groups: Map<string, { path: string; at: Instruction }[]>, exact: boolean) => {
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      // The distinct files of the group (bounded by the number of files), so a thousand copies stay linear.
      const firstByFile = new Map<string, { path: string; at: Instruction }>();
      for (const g of group) if (!firstByFile.has(g.path)) firstByFile.set(g.path, g);
      if (firstByFile.size < 2) continue;
      const reps = [...firstByFile.values()];
      for (const g of group) {
        if (done.has(g.at)) continue;
        const other = reps.find((r) => r.path !== g.path && together(g.path, r.path));
        if (!other) continue;
        done.add(g.at);
        out.push({ path: g.path, at: g.at, other, exact });
      }
    }
  };
  scan(byExact, true);
  scan(byNear, false);
  return out;
}

function addTo<T>(m: Map<string, T[]>, k: string, v: T): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/**
 * A small glob matcher that runs in linear time: the pattern is compiled to a Thompson NFA and the path
 * is matched by simulating every state at once, so time is O(path length × pattern length) whatever the
 * pattern (picomatch's regular expressions backtrack exponentially on `*a*a*a*a*a*a*a*b.json` against 80
 * `a`s). Globs come from the repository (`.vscode/settings.json`, `.toonlens.json`), so they are hostile
 * input: patterns longer than {@link MAX_GLOB_LENGTH} match nothing.
 *
 * Syntax (what docs/document-kinds.md promises, with picomatch's `dot: true` meaning):
 * - `*` any run of characters except `/` (dotfiles included); `?` one character except `/`;
 * - `**` as a whole segment: any number of segments (`a/**∕b` matches `a/b` and `a/x/y/b`, `a/**` matches
 *   `a` and everything under it); elsewhere `**` is `*`;
 * - `[abc]`, `[a-z]`, `[!a-z]` / `[^a-z]` one character of (or not of) the set, never `/`;
 * - `{a,b,c}` alternatives, nested and holding any of the above; a brace without a comma is literal;
 * - `\x` the character x; a leading `./` is ignored; a leading `!` negates the whole pattern.
 * An unterminated `[` or `{` is a literal character.
 */

export const MAX_GLOB_LENGTH = 4096;

type Pred = (c: number) => boolean;

type Node =
  | { t: 'char'; pred: Pred }
  | { t: 'star'; pred: Pred }
  | { t: 'alt'; branches: Node[][] };

const SLASH = 47;
const notSlash: Pred = (c) => c !== SLASH;
const anyChar: Pred = () => true;

/** Parses a glob (without a leading `!`) into a node sequence. */
function parse(p: string): Node[] {
  let i = 0;
  const seq = (inBrace: boolean): Node[] => {
    const out: Node[] = [];
    while (i < p.length) {
      const ch = p[i]!;
      if (inBrace && (ch === ',' || ch === '}')) return out;
      if (ch === '\\' && i + 1 < p.length) {
        const lit = p.charCodeAt(i + 1);
        out.push({ t: 'char', pred: (c) => c === lit });
        i += 2;
      } else if (ch === '*') {
        let j = i;
        while (p[j] === '*') j++;
        const wholeSegment = j - i >= 2 && (i === 0 || p[i - 1] === '/') && (j === p.length || p[j] === '/' || (inBrace && (p[j] === ',' || p[j] === '}')));
        if (wholeSegment && p[j] === '/') {
          // `**/`: nothing, or any run ending in `/`.
          out.push({ t: 'alt', branches: [[], [{ t: 'star', pred: anyChar }, { t: 'char', pred: (c) => c === SLASH }]] });
          j++;
        } else if (wholeSegment && out.length > 0 && i > 0 && p[i - 1] === '/') {
          // trailing `/**`: the `/` already emitted becomes optional together with what follows.
          out.pop();
          out.push({ t: 'alt', branches: [[], [{ t: 'char', pred: (c) => c === SLASH }, { t: 'star', pred: anyChar }]] });
        } else {
          out.push({ t: 'star', pred: wholeSegment ? anyChar : notSlash });
        }
        i = j;
      } else if (ch === '?') {
        out.push({ t: 'char', pred: notSlash });
        i++;
      } else if (ch === '[') {
        const cls = parseClass(p, i);
        if (cls) {
          out.push({ t: 'char', pred: cls.pred });
          i = cls.end;
        } else {
          out.push({ t: 'char', pred: (c) => c === 91 });
          i++;
        }
      } else if (ch === '{' && braceHasComma(p, i)) {
        i++;
        const branches: Node[][] = [seq(true)];
        while (p[i] === ',') {
          i++;
          branches.push(seq(true));
        }
        i++; // '}'
        out.push({ t: 'alt', branches });
      } else {
        const lit = p.charCodeAt(i);
        out.push({ t: 'char', pred: (c) => c === lit });
        i++;
      }
    }
    return out;
  };
  return seq(false);
}

/** Whether the `{` at `start` has a matching `}` with a top-level comma before it (a real alternation). */
function braceHasComma(p: string, start: number): boolean {
  let depth = 0;
  let comma = false;
  for (let i = start; i < p.length; i++) {
    const ch = p[i];
    if (ch === '\\') i++;
    else if (ch === '[') {
      const cls = parseClass(p, i);
      if (cls) i = cls.end - 1;
    } else if (ch === '{') depth++;
    else if (ch === '}') {
      depth--;
      if (depth === 0) return comma;
    } else if (ch === ',' && depth === 1) comma = true;
  }
  return false;
}

/** A `[...]` class at `start`: its predicate and the index after `]`, or undefined when unterminated. */
function parseClass(p: string, start: number): { pred: Pred; end: number } | undefined {
  let i = start + 1;
  let negate = false;
  if (p[i] === '!' || p[i] === '^') {
    negate = true;
    i++;
  }
  const ranges: [number, number][] = [];
  let first = true;
  while (i < p.length && (p[i] !== ']' || first)) {
    first = false;
    let lo = p.charCodeAt(i);
    if (p[i] === '\\' && i + 1 < p.length) lo = p.charCodeAt(++i);
    i++;
    let hi = lo;
    if (p[i] === '-' && i + 1 < p.length && p[i + 1] !== ']') {
      i++;
      hi = p.charCodeAt(i);
      if (p[i] === '\\' && i + 1 < p.length) hi = p.charCodeAt(++i);
      i++;
    }
    ranges.push(lo <= hi ? [lo, hi] : [hi, lo]);
  }
  if (i >= p.length) return undefined;
  const inSet = (c: number) => ranges.some(([a, b]) => c >= a && c <= b);
  return { pred: (c) => c !== SLASH && inSet(c) !== negate, end: i + 1 };
}

/** The compiled automaton: per state one optional predicate edge and any number of epsilon edges. */
class Nfa {
  readonly eps: number[][] = [];
  readonly pred: (Pred | undefined)[] = [];
  readonly to: number[] = [];

  state(): number {
    this.eps.push([]);
    this.pred.push(undefined);
    this.to.push(-1);
    return this.eps.length - 1;
  }

  emit(from: number, nodes: readonly Node[]): number {
    let at = from;
    for (const n of nodes) {
      if (n.t === 'char') {
        const a = this.state();
        const b = this.state();
        this.eps[at]!.push(a);
        this.pred[a] = n.pred;
        this.to[a] = b;
        at = b;
      } else if (n.t === 'star') {
        const loop = this.state();
        const step = this.state();
        this.eps[at]!.push(loop);
        this.eps[loop]!.push(step);
        this.pred[step] = n.pred;
        this.to[step] = loop;
        at = loop;
      } else {
        const end = this.state();
        for (const b of n.branches) this.eps[this.emit(at, b)]!.push(end);
        at = end;
      }
    }
    return at;
  }
}

/** Compiles a glob to a matcher; a pattern that is too long matches nothing. Never throws. */
export function compileGlob(glob: string, opts: { matchBase?: boolean } = {}): (path: string) => boolean {
  if (typeof glob !== 'string' || glob.length > MAX_GLOB_LENGTH) return () => false;
  let pattern = glob;
  let negated = false;
  while (pattern.startsWith('!') && !pattern.startsWith('!(')) {
    negated = !negated;
    pattern = pattern.slice(1);
  }
  while (pattern.startsWith('./')) pattern = pattern.slice(2);
  const nfa = new Nfa();
  const start = nfa.state();
  const accept = nfa.emit(start, parse(pattern));
  const matchBase = opts.matchBase === true && !pattern.includes('/');
  const dfa = new LazyDfa(nfa, start, accept);
  const run = (input: string) => dfa.matches(input);

  return (path: string) => {
    let p = path;
    while (p.startsWith('./')) p = p.slice(2);
    if (matchBase) p = p.slice(p.lastIndexOf('/') + 1);
    return run(p) !== negated;
  };
}

/** A set of NFA states (one DFA state), with its transitions computed on demand. */
interface DState {
  states: Int32Array;
  accepting: boolean;
  next: Map<number, DState>;
}

/**
 * The NFA simulated one character at a time; each distinct state set is cached as a DFA state, so a
 * repeated step is one map lookup. The cache is bounded ({@link LazyDfa.MAX_STATES}); when it is full it
 * is dropped and rebuilt, so every character still costs at most O(pattern) — linear in the path.
 */
class LazyDfa {
  static readonly MAX_STATES = 2000;
  private readonly byKey = new Map<string, DState>();
  private startState: DState;
  private readonly mark: Int32Array;
  private gen = 0;

  constructor(
    private readonly nfa: Nfa,
    private readonly start: number,
    private readonly accept: number,
  ) {
    this.mark = new Int32Array(nfa.eps.length).fill(-1);
    this.startState = this.intern(this.closure([start]));
  }

  matches(input: string): boolean {
    let d = this.startState;
    for (let k = 0; k < input.length; k++) {
      if (d.states.length === 0) return false;
      const c = input.charCodeAt(k);
      let n = d.next.get(c);
      if (n === undefined) {
        n = this.step(d, c);
        d.next.set(c, n);
      }
      d = n;
    }
    return d.accepting;
  }

  private step(d: DState, c: number): DState {
    if (this.byKey.size >= LazyDfa.MAX_STATES) {
      this.byKey.clear();
      this.startState = this.intern(this.closure([this.start]));
    }
    const targets: number[] = [];
    for (const s of d.states) {
      const pr = this.nfa.pred[s];
      if (pr !== undefined && pr(c)) targets.push(this.nfa.to[s]!);
    }
    return this.intern(this.closure(targets));
  }

  /** The epsilon closure of `seeds`, sorted. */
  private closure(seeds: number[]): Int32Array {
    const gen = ++this.gen;
    const out: number[] = [];
    const stack = [...seeds];
    while (stack.length) {
      const x = stack.pop()!;
      if (this.mark[x] === gen) continue;
      this.mark[x] = gen;
      out.push(x);
      for (const y of this.nfa.eps[x]!) if (this.mark[y] !== gen) stack.push(y);
    }
    return Int32Array.from(out).sort();
  }

  private intern(states: Int32Array): DState {
    const key = states.join(',');
    let d = this.byKey.get(key);
    if (!d) {
      d = { states, accepting: states.includes(this.accept), next: new Map() };
      this.byKey.set(key, d);
    }
    return d;
  }
}

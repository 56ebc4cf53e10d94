/**
 * Turns JSON paths into text ranges, lazily and cheaply: one pass over the text that descends only into
 * the containers on the way to a requested path and skips every other value without building anything.
 * A valid document without findings never gets here; one finding in a large document costs one scan,
 * not a position tree (jsonc-parser's parseTree is ~10× JSON.parse and recurses per nesting level).
 */
import type { JsonPath, JsonTarget, OffsetRange } from '../types';
import { sortedHints, type LineHints } from '../lineIndex';

/** Where one value sits in the text; `keyStart`/`keyEnd` when it is a property value. */
export interface LocatedValue {
  start: number;
  end: number;
  keyStart?: number;
  keyEnd?: number;
}

/**
 * A located value with the 0-based line of each of its offsets and that line's first offset, as the scan
 * passed them (line breaks "\n", "\r\n" and a lone "\r", as LSP counts them): `keyLine` for `keyStart` and
 * `keyEnd` (a JSON string holds no raw line break), `startLine` for `start` and `start + 1`.
 */
export interface LocatedLines extends LocatedValue {
  startLine: number;
  startLineStart: number;
  endLine: number;
  endLineStart: number;
  keyLine?: number;
  keyLineStart?: number;
}

const pathKey = (path: JsonPath): string => JSON.stringify(path);

/** One node of the trie of requested paths: a requested path ends here (`key`), or passes through (`kids`). */
interface PathNode {
  kids?: Map<string | number, PathNode>;
  /** pathKey of the path, when this path itself was requested. */
  key?: string;
  /** Where the scan found this path's value (the last occurrence of a duplicated key). */
  found?: LocatedValue;
}

/** The trie of `paths`, each requested path's node marked with its key. */
function pathTrie(paths: readonly JsonPath[]): PathNode {
  const root: PathNode = {};
  for (const p of paths) trieNode(root, p).key ??= pathKey(p);
  return root;
}

/** The node of `path` in the trie, created with its ancestors when absent. */
function trieNode(root: PathNode, path: JsonPath): PathNode {
  let node = root;
  for (const seg of path) {
    node.kids ??= new Map();
    let next = node.kids.get(seg);
    if (!next) node.kids.set(seg, (next = {}));
    node = next;
  }
  return node;
}

/** One open container on the way to a requested path. */
interface Frame {
  node: PathNode;
  isObject: boolean;
  start: number;
  startLine: number;
  startLineStart: number;
  index: number;
  /** The property key this container is the value of (in its parent object), else -1. */
  keyStart: number;
  keyEnd: number;
  keyLine: number;
  keyLineStart: number;
}

/**
 * Locates the values at `paths` in a JSON text that `JSON.parse` accepts. For a duplicated key the
 * last occurrence wins, as in JSON.parse. Paths that do not exist are absent from the result.
 *
 * One forward scan without recursion (any depth) and without a path per value: the requested paths are a
 * trie, the scan descends only into containers the trie continues into and skips every other value with a
 * tight character loop (strings with the native `indexOf`), allocating nothing per skipped token. The scan
 * counts line breaks as it goes (they only occur between tokens), so `withLines` gives every located
 * offset its line for free: no line table of the text is ever needed to show the findings.
 */
export function locatePaths(text: string, paths: readonly JsonPath[]): Map<string, LocatedValue>;
export function locatePaths(text: string, paths: readonly JsonPath[], withLines: true): Map<string, LocatedLines>;
export function locatePaths(text: string, paths: readonly JsonPath[], withLines = false): Map<string, LocatedValue> {
  const root = pathTrie(paths);
  scanTrie(text, root, withLines);
  const found = new Map<string, LocatedValue>();
  const stack = [root];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.key !== undefined && node.found) found.set(node.key, node.found);
    if (node.kids) for (const kid of node.kids.values()) stack.push(kid);
  }
  return found;
}

/** The scan of {@link locatePaths}: records into `found` of every trie node it reaches (requested or not). */
function scanTrie(text: string, root: PathNode, withLines: boolean): void {
  const n = text.length;
  // The line the scan is on and its first offset.
  let line = 0;
  let lineStart = 0;

  const skipWs = (i: number): number => {
    for (;;) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9) i++;
      else if (c === 10 || c === 13) {
        // "\n", or "\r" not followed by "\n" ("\r\n" counts at its "\n"): the next line starts after it.
        if (c === 10 || text.charCodeAt(i + 1) !== 10) {
          line++;
          lineStart = i + 1;
        }
        i++;
      } else return i;
    }
  };
  /** `i` at an opening quote: the offset after the closing one. */
  const stringEnd = (i: number): number => {
    let q = text.indexOf('"', i + 1);
    while (q !== -1 && text.charCodeAt(q - 1) === 92) {
      let b = q - 2;
      while (text.charCodeAt(b) === 92) b--;
      if ((q - 1 - b) % 2 === 0) break; // an even run of backslashes escapes nothing
      q = text.indexOf('"', q + 1);
    }
    return q === -1 ? n : q + 1;
  };
  /** `i` at the start of any value: the offset after it (depth is a counter). */
  const skipValue = (i: number): number => {
    const c = text.charCodeAt(i);
    if (c === 34) return stringEnd(i);
    if (c === 123 || c === 91) {
      let depth = 0;
      // Line breaks are counted in locals and stored once at the end (no context writes in the loop).
      let breaks = 0;
      let after = -1;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 34) {
          i = stringEnd(i);
          continue;
        }
        if (d === 10 || (d === 13 && text.charCodeAt(i + 1) !== 10)) {
          breaks++;
          after = ++i;
          while (text.charCodeAt(i) === 32) i++; // the indentation, in place
          continue;
        }
        if (d === 123 || d === 91) depth++;
        else if (d === 125 || d === 93) {
          if (--depth === 0) {
            i++;
            break;
          }
        }
        i++;
      }
      if (breaks) {
        line += breaks;
        lineStart = after;
      }
      return Math.min(i, n);
    }
    while (i < n) {
      const d = text.charCodeAt(i);
      if (d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9) return i;
      i++;
    }
    return n;
  };
  const readKey = (start: number, end: number): string => {
    const raw = text.slice(start + 1, end - 1);
    return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
  };
  const record = (node: PathNode, start: number, startLine: number, startLineStart: number, end: number, keyStart: number, keyEnd: number, keyLine: number, keyLineStart: number) => {
    let v: LocatedValue;
    if (!withLines) v = keyStart >= 0 ? { start, end, keyStart, keyEnd } : { start, end };
    else {
      const l: LocatedLines = { start, end, startLine, startLineStart, endLine: line, endLineStart: lineStart };
      if (keyStart >= 0) Object.assign(l, { keyStart, keyEnd, keyLine, keyLineStart });
      v = l;
    }
    node.found = v;
  };

  const stack: Frame[] = [];
  let i = skipWs(0);
  // The value at `i` belongs to `node` (undefined: not on the way to any requested path).
  let node: PathNode | undefined = root;
  let keyStart = -1;
  let keyEnd = -1;
  let keyLine = 0;
  let keyLineStart = 0;
  for (;;) {
    // 1. A value starts at i.
    const c = text.charCodeAt(i);
    if (node?.kids && (c === 123 || c === 91)) {
      const frame: Frame = { node, isObject: c === 123, start: i, startLine: line, startLineStart: lineStart, index: 0, keyStart, keyEnd, keyLine, keyLineStart };
      stack.push(frame);
      i = skipWs(i + 1);
      const close = text.charCodeAt(i);
      if (close === 125 || close === 93) {
        i++;
        stack.pop();
        record(frame.node, frame.start, frame.startLine, frame.startLineStart, i, frame.keyStart, frame.keyEnd, frame.keyLine, frame.keyLineStart);
      } else {
        // The first member.
        if (frame.isObject) {
          keyStart = i;
          keyLine = line;
          keyLineStart = lineStart;
          keyEnd = stringEnd(i);
          node = frame.node.kids!.get(readKey(keyStart, keyEnd));
          i = skipWs(skipWs(keyEnd) + 1); // past ':'
        } else {
          keyStart = keyEnd = -1;
          node = frame.node.kids!.get(0);
        }
        continue;
      }
    } else {
      const start = i;
      const startLine = line;
      const startLineStart = lineStart;
      i = skipValue(i);
      if (node) record(node, start, startLine, startLineStart, i, keyStart, keyEnd, keyLine, keyLineStart);
    }
    // 2. A value ended at i: the next member of the innermost open container, or its end.
    for (;;) {
      const frame = stack[stack.length - 1];
      if (!frame) return;
      i = skipWs(i);
      const sep = text.charCodeAt(i++);
      if (sep === 44) {
        i = skipWs(i);
        if (frame.isObject) {
          keyStart = i;
          keyLine = line;
          keyLineStart = lineStart;
          keyEnd = stringEnd(i);
          node = frame.node.kids!.get(readKey(keyStart, keyEnd));
          i = skipWs(skipWs(keyEnd) + 1);
        } else {
          keyStart = keyEnd = -1;
          node = frame.node.kids!.get(++frame.index);
        }
        break;
      }
      // '}' or ']' (or the end of a text JSON.parse would not have accepted)
      stack.pop();
      record(frame.node, frame.start, frame.startLine, frame.startLineStart, Math.min(i, n), frame.keyStart, frame.keyEnd, frame.keyLine, frame.keyLineStart);
      if (i >= n) return;
    }
  }
}

/** Resolves {@link JsonTarget}s to ranges in one document text, with one scan for all of them. */
export class JsonLocator {
  /** The trie of the targets' paths, its nodes located by one scan on first use. */
  private trie: PathNode | undefined;
  /** Every offset a range was given (before the shift), with its line: see {@link lineHints}. */
  private readonly hints: LineHints = { offsets: [], lines: [], lineStarts: [] };

  /**
   * @param text the text that was parsed (without a BOM); must be JSON that JSON.parse accepts
   * @param shift added to every offset (1 when the caller's text starts with a BOM)
   * @param targets every target that will be asked for, so one scan answers them all
   */
  constructor(
    private readonly text: string,
    private readonly shift: number,
    private readonly targets: readonly JsonTarget[],
  ) {}

  /** The deepest located node on the way to `path` (every prefix of a target is located: a path that does not exist falls back to its deepest existing ancestor), and its depth. */
  private lookup(path: JsonPath): { node: LocatedLines; depth: number } | undefined {
    if (!this.trie) {
      const root: PathNode = {};
      for (const t of this.targets) trieNode(root, t.path);
      scanTrie(this.text, root, true);
      this.trie = root;
    }
    let node: PathNode | undefined = this.trie;
    let best: { node: LocatedLines; depth: number } | undefined = node.found ? { node: node.found as LocatedLines, depth: 0 } : undefined;
    for (let k = 0; k < path.length && node; k++) {
      node = node.kids?.get(path[k]!);
      if (node?.found) best = { node: node.found as LocatedLines, depth: k + 1 };
    }
    return best;
  }

  /**
   * The range a target points at: the value; the property key (`key`); the object's opening brace (`missing`).
   * A path that does not exist falls back to its deepest existing ancestor (its opening bracket).
   */
  rangeOf(target: JsonTarget): OffsetRange {
    const hit = this.lookup(target.path);
    if (!hit) return this.shifted(0, 0, 0, Math.min(1, this.text.length), 0, 0);
    const { node, depth } = hit;
    const exact = depth === target.path.length;
    if (exact && target.part === 'key' && node.keyStart !== undefined && node.keyEnd !== undefined) {
      return this.shifted(node.keyStart, node.keyLine!, node.keyLineStart!, node.keyEnd, node.keyLine!, node.keyLineStart!);
    }
    const opener = this.text.charCodeAt(node.start);
    const container = opener === 123 || opener === 91;
    // An object or array as a whole would underline half the document: point at its opening bracket.
    if (container && (target.part === 'missing' || !exact || depth === 0)) return this.shifted(node.start, node.startLine, node.startLineStart, node.start + 1, node.startLine, node.startLineStart);
    return this.shifted(node.start, node.startLine, node.startLineStart, node.end, node.endLine, node.endLineStart);
  }

  /**
   * The line of every offset a range was returned for (offsets and line starts in the located text, i.e.
   * without the shift), ascending by offset: what positions of the ranges need, without a line table.
   */
  lineHints(): LineHints {
    return sortedHints(this.hints);
  }

  private shifted(start: number, startLine: number, startLineStart: number, end: number, endLine: number, endLineStart: number): OffsetRange {
    const h = this.hints;
    h.offsets.push(start, end);
    h.lines.push(startLine, endLine);
    h.lineStarts.push(startLineStart, endLineStart);
    return { start: start + this.shift, end: end + this.shift };
  }
}

/** The property key or literal value under an offset, and the JSON path it belongs to. */
export interface TokenAtOffset {
  /** For a key: the path of its property; for a literal: the path of the value. */
  path: JsonPath;
  /** The token's range (a string's quotes included). */
  start: number;
  end: number;
}

/** One resumable state of {@link tokenAt}'s scan: a token boundary and the open containers there. */
interface ScanState {
  i: number;
  depth: number;
  expectKey: boolean;
  isObject: number[];
  keyStart: number[];
  keyEnd: number[];
  index: number[];
}

/**
 * Checkpoints of {@link tokenAt}'s scan over ONE text (keep one per document version): the scan state about
 * every `every` characters, recorded by the scans themselves, so a later lookup resumes from the nearest
 * checkpoint before its offset instead of from the start. A few hundred small records even for a document at the size limit.
 */
export class TokenIndex {
  readonly checkpoints: ScanState[] = [];
  constructor(readonly every = 64 * 1024) {}

  /** The last checkpoint at or before `offset`. */
  before(offset: number): ScanState | undefined {
    const cps = this.checkpoints;
    let lo = 0;
    let hi = cps.length - 1;
    let best: ScanState | undefined;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (cps[mid]!.i <= offset) {
        best = cps[mid];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  }
}

/** Nesting beyond which no checkpoint is recorded (each one copies the open containers). */
const MAX_CHECKPOINT_DEPTH = 1024;

/**
 * {@link tokenAt}'s scan: its position and the open containers (index 1..depth): 1 object / 0 array, the current
 * key's range or the current index. Each construct (string, literal, container, comma) is one method; only
 * whitespace and ':' between tokens are skipped inline.
 */
class TokenScan implements ScanState {
  i = 0;
  depth = 0;
  expectKey = false;
  isObject: number[] = [0];
  keyStart: number[] = [0];
  keyEnd: number[] = [0];
  index: number[] = [0];

  constructor(
    readonly text: string,
    readonly offset: number,
  ) {}

  resume(from: ScanState): void {
    ({ i: this.i, depth: this.depth, expectKey: this.expectKey } = from);
    this.isObject = from.isObject.slice();
    this.keyStart = from.keyStart.slice();
    this.keyEnd = from.keyEnd.slice();
    this.index = from.index.slice();
  }

  /** The state here, with copies of the open containers only. */
  snapshot(): ScanState {
    const d = this.depth + 1;
    return { i: this.i, depth: this.depth, expectKey: this.expectKey, isObject: this.isObject.slice(0, d), keyStart: this.keyStart.slice(0, d), keyEnd: this.keyEnd.slice(0, d), index: this.index.slice(0, d) };
  }

  private hit(start: number, end: number): TokenAtOffset {
    return { path: pathOf(this.text, this.depth, this.isObject, this.keyStart, this.keyEnd, this.index), start, end };
  }

  /** A string at `i` (a key when one is expected): the hit when it reaches the offset, else moves past it. */
  private string(): TokenAtOffset | undefined {
    const text = this.text;
    const start = this.i;
    let q = text.indexOf('"', start + 1);
    while (text.charCodeAt(q - 1) === 92) {
      let b = q - 2;
      while (text.charCodeAt(b) === 92) b--;
      if ((q - 1 - b) % 2 === 0) break; // an even run of backslashes escapes nothing
      q = text.indexOf('"', q + 1);
    }
    const end = q === -1 ? text.length : q + 1;
    if (this.expectKey) {
      this.keyStart[this.depth] = start;
      this.keyEnd[this.depth] = end;
      this.expectKey = false;
    }
    if (this.offset <= end) return this.hit(start, end);
    this.i = end;
    return undefined;
  }

  /** A number, true, false or null at `i`: up to the next delimiter. */
  private literal(): TokenAtOffset | undefined {
    const text = this.text;
    const start = this.i;
    let i = start + 1;
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (d <= 32 || d === 44 || d === 125 || d === 93) break;
      i++;
    }
    this.i = i;
    return this.offset <= i ? this.hit(start, i) : undefined;
  }

  /** `{` or `[` at `i`. */
  private open(c: number): undefined {
    const d = ++this.depth;
    this.isObject[d] = c === 123 ? 1 : 0;
    this.index[d] = 0;
    this.expectKey = c === 123;
    this.i++;
    return undefined;
  }

  /** `}` or `]` at `i`. */
  private close(): undefined {
    this.depth--;
    this.i++;
    return undefined;
  }

  /** `,` at `i`: the next key, or the next index. */
  private comma(): undefined {
    if (this.isObject[this.depth] === 1) this.expectKey = true;
    else this.index[this.depth]!++;
    this.i++;
    return undefined;
  }

  /** Scans up to `limit`: the token under the offset when it is reached before. */
  scanTo(limit: number): TokenAtOffset | undefined {
    const text = this.text;
    let i = this.i;
    while (i < limit) {
      const c = text.charCodeAt(i);
      if (c <= 32 || c === 58) {
        i++; // whitespace (JSON.parse accepted the text: no other control character outside strings) or ':'
        continue;
      }
      this.i = i;
      const hit = c === 34 ? this.string() : c === 44 ? this.comma() : c === 123 || c === 91 ? this.open(c) : c === 125 || c === 93 ? this.close() : this.literal();
      if (hit) return hit;
      i = this.i;
    }
    this.i = i;
    return undefined;
  }
}

/**
 * Where a scan records checkpoints into a {@link TokenIndex}: about every `every` characters, only beyond the last
 * one recorded (so the list stays sorted) and not deeper than {@link MAX_CHECKPOINT_DEPTH}.
 */
class CheckpointWriter {
  private next = Infinity;
  private last = -1;

  constructor(private readonly index: TokenIndex | undefined) {
    if (!index) return;
    const cps = index.checkpoints;
    this.last = cps.length ? cps[cps.length - 1]!.i : 0;
    this.next = this.last + index.every;
  }

  /** Records a checkpoint when the scan has reached the next one's place; the position of the one after. */
  step(scan: TokenScan): number {
    if (scan.i >= this.next) {
      if (scan.i > this.last && scan.depth <= MAX_CHECKPOINT_DEPTH) {
        this.index!.checkpoints.push(scan.snapshot());
        this.last = scan.i;
      }
      this.next = Math.max(scan.i, this.last) + this.index!.every;
    }
    return this.next;
  }
}

/**
 * The property key or literal value (string, number, true/false/null) whose range contains `offset`
 * (both ends inclusive), with its path, as jsonc-parser's `getLocation` reports it (`path` and
 * `previousNode` when the offset touches that node) — for a text that `JSON.parse` accepts. Undefined on
 * punctuation and whitespace. One forward scan that stops at the offset: strings are skipped with the
 * native `indexOf`, the path is a stack of key offsets and indices (keys are decoded only for the result),
 * no callbacks, no recursion (any depth), no allocation per token.
 */
export function tokenAt(text: string, offset: number, checkpoints?: TokenIndex): TokenAtOffset | undefined {
  if (!(offset >= 0) || offset > text.length) return undefined;
  const scan = new TokenScan(text, offset);
  // Strictly before the offset: a token that ends exactly at a checkpoint still touches that offset.
  const from = checkpoints?.before(offset - 1);
  if (from) scan.resume(from);
  const writer = new CheckpointWriter(checkpoints);
  const stop = Math.min(text.length, offset + 1);
  while (scan.i < stop) {
    // Up to the offset or the next checkpoint, whichever comes first.
    const hit = scan.scanTo(Math.min(stop, writer.step(scan)));
    if (hit) return hit;
  }
  return undefined;
}

function pathOf(text: string, depth: number, isObject: number[], keyStart: number[], keyEnd: number[], index: number[]): JsonPath {
  const path: (string | number)[] = [];
  for (let d = 1; d <= depth; d++) {
    if (isObject[d] === 1) {
      const s = keyStart[d]!;
      const e = keyEnd[d]!;
      const raw = text.slice(s + 1, e - 1);
      path.push(raw.includes('\\') ? (JSON.parse(text.slice(s, e)) as string) : raw);
    } else path.push(index[d]!);
  }
  return path;
}

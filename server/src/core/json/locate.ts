/**
 * Turns JSON paths into text ranges, lazily and cheaply: one pass over the text that descends only into
 * the containers on the way to a requested path and skips every other value without building anything.
 * A valid document without findings never gets here; one finding in a 15 MB document costs one scan,
 * not a position tree (jsonc-parser's parseTree is ~10× JSON.parse and recurses per nesting level).
 */
import type { JsonPath, JsonTarget, OffsetRange } from '../types';

/** Where one value sits in the text; `keyStart`/`keyEnd` when it is a property value. */
export interface LocatedValue {
  start: number;
  end: number;
  keyStart?: number;
  keyEnd?: number;
}

const pathKey = (path: JsonPath): string => JSON.stringify(path);

/**
 * Locates the values at `paths` in a JSON text that `JSON.parse` accepts. For a duplicated key the
 * last occurrence wins, as in JSON.parse. Paths that do not exist are absent from the result.
 */
export function locatePaths(text: string, paths: readonly JsonPath[]): Map<string, LocatedValue> {
  const targets = new Set<string>();
  const prefixes = new Set<string>();
  for (const p of paths) {
    targets.add(pathKey(p));
    for (let k = 0; k < p.length; k++) prefixes.add(pathKey(p.slice(0, k)));
  }
  const found = new Map<string, LocatedValue>();
  const n = text.length;
  let i = 0;

  const skipWs = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 10 || c === 13 || c === 9) i++;
      else break;
    }
  };
  const skipString = () => {
    // indexOf runs natively; a quote preceded by an odd run of backslashes is escaped.
    let q = text.indexOf('"', i + 1);
    while (q !== -1) {
      let b = q - 1;
      while (text.charCodeAt(b) === 92) b--;
      if ((q - 1 - b) % 2 === 0) break;
      q = text.indexOf('"', q + 1);
    }
    i = q === -1 ? n : q + 1;
  };
  /** Skips any value without recursion (depth is a counter, so 100,000 levels are fine). */
  const structural = /["[\]{}]/g;
  const skipValue = () => {
    const c = text.charCodeAt(i);
    if (c === 34) return skipString();
    if (c === 123 || c === 91) {
      let depth = 0;
      while (i < n) {
        structural.lastIndex = i;
        const m = structural.exec(text);
        if (!m) {
          i = n;
          return;
        }
        i = m.index;
        const d = text.charCodeAt(i);
        if (d === 34) {
          skipString();
          continue;
        }
        if (d === 123 || d === 91) depth++;
        else {
          depth--;
          if (depth === 0) {
            i++;
            return;
          }
        }
        i++;
      }
      return;
    }
    while (i < n) {
      const d = text.charCodeAt(i);
      if (d === 44 || d === 125 || d === 93 || d === 32 || d === 10 || d === 13 || d === 9) return;
      i++;
    }
  };
  const readKey = (start: number, end: number): string => {
    const raw = text.slice(start + 1, end - 1);
    return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
  };

  /** Visits the value at `i` whose path is `path` (depth bounded by the longest requested path). */
  const visit = (path: (string | number)[], key: string): LocatedValue => {
    const start = i;
    if (!prefixes.has(key)) {
      skipValue();
      return { start, end: i };
    }
    const c = text.charCodeAt(i);
    if (c === 123) {
      i++;
      skipWs();
      if (text.charCodeAt(i) === 125) i++;
      else {
        while (i < n) {
          skipWs();
          const keyStart = i;
          skipString();
          const keyEnd = i;
          skipWs();
          i++; // ':'
          skipWs();
          const childPath = [...path, readKey(keyStart, keyEnd)];
          const childKey = pathKey(childPath);
          const child = visit(childPath, childKey);
          if (targets.has(childKey)) found.set(childKey, { ...child, keyStart, keyEnd });
          skipWs();
          const sep = text.charCodeAt(i++);
          if (sep !== 44) break; // '}'
        }
      }
    } else if (c === 91) {
      i++;
      skipWs();
      if (text.charCodeAt(i) === 93) i++;
      else {
        for (let index = 0; i < n; index++) {
          skipWs();
          const childPath = [...path, index];
          const childKey = pathKey(childPath);
          const child = visit(childPath, childKey);
          if (targets.has(childKey)) found.set(childKey, child);
          skipWs();
          const sep = text.charCodeAt(i++);
          if (sep !== 44) break; // ']'
        }
      }
    } else {
      skipValue();
    }
    return { start, end: i };
  };

  try {
    skipWs();
    const root = visit([], pathKey([]));
    if (targets.has(pathKey([]))) found.set(pathKey([]), root);
  } catch {
    // Only a requested path thousands of levels deep can overflow here: keep what was found.
  }
  return found;
}

/** Resolves {@link JsonTarget}s to ranges in one document text, with one scan for all of them. */
export class JsonLocator {
  private located: Map<string, LocatedValue> | undefined;

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

  private lookup(path: JsonPath): LocatedValue | undefined {
    if (!this.located) {
      // Ancestors too: a path that does not exist falls back to its deepest existing ancestor.
      const all: JsonPath[] = [];
      for (const t of this.targets) for (let k = 0; k <= t.path.length; k++) all.push(t.path.slice(0, k));
      this.located = locatePaths(this.text, all);
    }
    return this.located.get(pathKey(path));
  }

  /**
   * The range a target points at: the value; the property key (`key`); the object's opening brace (`missing`).
   * A path that does not exist falls back to its deepest existing ancestor (its opening bracket).
   */
  rangeOf(target: JsonTarget): OffsetRange {
    let depth = target.path.length;
    let node = this.lookup(target.path);
    while (!node && depth > 0) {
      depth--;
      node = this.lookup(target.path.slice(0, depth));
    }
    if (!node) return this.shifted({ start: 0, end: Math.min(1, this.text.length) });
    const exact = depth === target.path.length;
    if (exact && target.part === 'key' && node.keyStart !== undefined && node.keyEnd !== undefined) {
      return this.shifted({ start: node.keyStart, end: node.keyEnd });
    }
    const opener = this.text.charCodeAt(node.start);
    const container = opener === 123 || opener === 91;
    // An object or array as a whole would underline half the document: point at its opening bracket.
    if (container && (target.part === 'missing' || !exact || depth === 0)) return this.shifted({ start: node.start, end: node.start + 1 });
    return this.shifted({ start: node.start, end: node.end });
  }

  private shifted(r: OffsetRange): OffsetRange {
    return { start: r.start + this.shift, end: r.end + this.shift };
  }
}

/**
 * Array helpers that stay stack-safe at any size. A spread into a call (`out.push(...xs)`,
 * `Math.max(...xs)`, `Object.assign({}, ...xs)`) passes every element as an argument on the stack,
 * and throws RangeError past roughly 10⁵ elements (a document of that many headings or toon fences must still work).
 */

/** Appends every item to `out` (what `out.push(...items)` does, for any number of items); returns `out`. */
export function pushAll<T>(out: T[], items: Iterable<T>): T[] {
  for (const x of items) out.push(x);
  return out;
}

/** The largest value, or `initial` when there is none larger (`Math.max(initial, ...values)`). */
export function maxOf(values: Iterable<number>, initial: number): number {
  let m = initial;
  for (const v of values) if (v > m || Number.isNaN(v)) m = v;
  return m;
}

/**
 * A map for a handful of entries (the memos every slice analysis carries: token counts per text, standalone
 * verdicts per options key): one array of keys and values, searched linearly and copied on insert so it is
 * exactly as long as its entries. A `Map` allocates a hash table of about 600 bytes even for one entry, and a
 * pushed-to array reserves room for 17, which at 10,000+ slices is megabytes; lookups are mostly by the very
 * string object that was stored (the slice text, its segment), which compares in constant time.
 */
export class SmallMap<K, V> {
  /** Keys at even indexes, each followed by its value. */
  private kv: unknown[] = EMPTY;

  get size(): number {
    return this.kv.length >> 1;
  }

  private indexOf(k: K): number {
    const kv = this.kv;
    for (let i = 0; i < kv.length; i += 2) if (kv[i] === k) return i;
    return -1;
  }

  get(k: K): V | undefined {
    const i = this.indexOf(k);
    return i < 0 ? undefined : (this.kv[i + 1] as V);
  }

  has(k: K): boolean {
    return this.indexOf(k) >= 0;
  }

  set(k: K, v: V): this {
    const i = this.indexOf(k);
    if (i < 0) this.kv = this.kv.concat([k, v]);
    else {
      // The new key object replaces the old (equal) one, which the map then no longer keeps alive.
      this.kv[i] = k;
      this.kv[i + 1] = v;
    }
    return this;
  }

  delete(k: K): boolean {
    const i = this.indexOf(k);
    if (i < 0) return false;
    this.kv = this.kv.slice(0, i).concat(this.kv.slice(i + 2));
    return true;
  }

  clear(): void {
    this.kv = EMPTY;
  }

  keys(): K[] {
    return this.kv.filter((_, i) => i % 2 === 0) as K[];
  }

  values(): V[] {
    return this.kv.filter((_, i) => i % 2 === 1) as V[];
  }
}

/** Shared by every empty map (never written: `set` and `delete` replace the array). */
const EMPTY: unknown[] = [];

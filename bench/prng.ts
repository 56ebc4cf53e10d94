/** A small seeded PRNG (mulberry32) and helpers: every generated benchmark input is a pure function of its seed. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

const WORDS = (
  'agent context section token budget review convert keep markdown table list prose fence schema verdict plan report entry ' +
  'path archive stale bloat distill rule must never always should config loader cache server client editor lens hover ' +
  'diagnostic range offset line column value field record row header delimiter comma tab pipe encode decode strict ' +
  'lossless measure estimate savings source target hybrid reassembly workspace file folder glob kind detect parse ' +
  'validate error warning info hint message code fix action command trust apply edit change version release build test'
).split(' ');

export function words(r: Rng, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(r.pick(WORDS));
  return out.join(' ');
}

export function sentence(r: Rng, lo = 6, hi = 16): string {
  const w = words(r, r.int(lo, hi));
  return w.charAt(0).toUpperCase() + w.slice(1) + '.';
}

export function ident(r: Rng): string {
  return `${r.pick(WORDS)}_${r.pick(WORDS)}`;
}

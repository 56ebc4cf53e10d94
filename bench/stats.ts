/** Timing helpers: medians over runs with min–max, and the result rows the report table is made of. */

export interface Sample {
  median: number;
  min: number;
  max: number;
  runs: number;
}

export function sample(values: number[]): Sample {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, runs: s.length };
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Runs `fn` `warmup` times unmeasured, then `runs` times measured (ms each). A GC between runs when exposed. */
export async function time(fn: () => unknown, runs: number, warmup = 1): Promise<Sample> {
  for (let i = 0; i < warmup; i++) await fn();
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    gc?.();
    const t0 = performance.now();
    await fn();
    out.push(performance.now() - t0);
  }
  return sample(out);
}

export type Unit = 'ms' | 'MB' | '%';

/** One line of the results table. */
export interface Row {
  figure: string;
  value: Sample;
  unit: Unit;
  /** What the figure is compared with, measured in the same run (undefined: no anchor). */
  anchor?: { name: string; value: Sample; unit: Unit };
  /** The ratio the target bounds (figure median / anchor median). */
  target?: { max: number; label: string };
  note?: string;
}

export function ratio(r: Row): number | undefined {
  return r.anchor ? r.value.median / r.anchor.value.median : undefined;
}

export function met(r: Row): boolean | undefined {
  const x = ratio(r);
  return r.target && x !== undefined ? x <= r.target.max : undefined;
}

function fmt(x: number, unit: Unit): string {
  const digits = x >= 100 ? 0 : x >= 10 ? 1 : 2;
  return `${x.toFixed(digits)} ${unit}`;
}

function fmtSample(s: Sample, unit: Unit): string {
  return fmt(s.median, unit);
}

function fmtRange(s: Sample, unit: Unit): string {
  return `${fmt(s.min, unit)} – ${fmt(s.max, unit)}`;
}

export function markdownTable(rows: Row[]): string {
  const lines = [
    '| figure | median | min – max | anchor (median) | ratio | target | met? |',
    '|---|---:|---:|---|---:|---|:---:|',
  ];
  for (const r of rows) {
    const x = ratio(r);
    const m = met(r);
    const anchor = r.anchor ? `${r.anchor.name}: ${fmtSample(r.anchor.value, r.anchor.unit)}` : '—';
    lines.push(
      `| ${r.figure}${r.note ? ` (${r.note})` : ''} | ${fmtSample(r.value, r.unit)} | ${fmtRange(r.value, r.unit)} | ${anchor} | ${x === undefined ? '—' : `${x < 0.1 ? x.toFixed(3) : x.toFixed(2)}×`} | ${r.target?.label ?? '—'} | ${m === undefined ? '—' : m ? 'yes' : '**no**'} |`,
    );
  }
  return lines.join('\n');
}

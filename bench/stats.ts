/** Timing helpers: medians over runs with min–max, and the rows the results table is made of. */

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

/**
 * Two figures timed run by run in alternation (a, b, a, b, …, after `warmup` of each), so a change in the
 * machine's load during the measurement moves both alike: what a ratio of one to the other needs.
 */
export async function timePair(a: () => unknown, b: () => unknown, runs: number, warmup = 1): Promise<[Sample, Sample]> {
  for (let i = 0; i < warmup; i++) {
    await a();
    await b();
  }
  const as: number[] = [];
  const bs: number[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [fn, out] of [
      [a, as],
      [b, bs],
    ] as const) {
      gc?.();
      const t0 = performance.now();
      await fn();
      out.push(performance.now() - t0);
    }
  }
  return [sample(as), sample(bs)];
}

export type Unit = 'ms' | 'MB';

/**
 * One line of the results table — the row format every bench module returns (bench/markdown-lsp.bench.ts
 * too): the figure's median, min and max over `runs`, the anchor measured in the same run, the ratio
 * median / anchor median, and the goal with whether this run met it.
 */
export interface BenchRow {
  /** Table section: "JSON", "Markdown", "Server". */
  section: string;
  figure: string;
  unit: Unit;
  median: number;
  min: number;
  max: number;
  runs: number;
  anchorName?: string;
  anchorMedian?: number;
  anchorUnit?: Unit;
  ratio?: number;
  /** Human wording of the goal, e.g. "≤ 3× JSON.parse". */
  goal?: string;
  /** The goal bounds the median itself ("value"), not the ratio. */
  goalOn?: 'value';
  met?: boolean;
  note?: string;
}

export interface Goal {
  max: number;
  label: string;
  /** What the bound applies to: the ratio (default) or the median itself. */
  on?: 'ratio' | 'value';
}

export function row(section: string, figure: string, value: Sample, unit: Unit, anchor?: { name: string; value: Sample; unit?: Unit }, goal?: Goal, note?: string): BenchRow {
  const r: BenchRow = { section, figure, unit, median: value.median, min: value.min, max: value.max, runs: value.runs };
  if (anchor) {
    r.anchorName = anchor.name;
    r.anchorMedian = anchor.value.median;
    r.anchorUnit = anchor.unit ?? unit;
    r.ratio = value.median / anchor.value.median;
  }
  if (goal) {
    r.goal = goal.label;
    if (goal.on === 'value') r.goalOn = 'value';
    const x = goal.on === 'value' ? value.median : r.ratio;
    if (x !== undefined) r.met = x <= goal.max;
  }
  if (note) r.note = note;
  return r;
}

export function fmt(x: number, unit: Unit): string {
  const digits = x >= 100 ? 0 : x >= 10 ? 1 : 2;
  return `${x.toFixed(digits)} ${unit}`;
}

/** The rows as a markdown table (one table, the section as the first column). */
export function markdownTable(rows: readonly BenchRow[]): string {
  const lines = ['| | figure | runs | median | min – max | anchor (median) | ratio | goal | met? |', '|---|---|---:|---:|---:|---|---:|---|:---:|'];
  for (const r of rows) {
    const anchor = r.anchorName !== undefined && r.anchorMedian !== undefined ? `${r.anchorName}: ${fmt(r.anchorMedian, r.anchorUnit ?? r.unit)}` : '—';
    const ratio = r.ratio === undefined ? '—' : `${r.ratio < 0.1 ? r.ratio.toFixed(3) : r.ratio.toFixed(2)}×`;
    const met = r.met === undefined ? '—' : r.met ? 'yes' : '**no**';
    lines.push(`| ${r.section} | ${r.figure}${r.note ? ` (${r.note})` : ''} | ${r.runs} | ${fmt(r.median, r.unit)} | ${fmt(r.min, r.unit)} – ${fmt(r.max, r.unit)} | ${anchor} | ${ratio} | ${r.goal ?? '—'} | ${met} |`);
  }
  return lines.join('\n');
}

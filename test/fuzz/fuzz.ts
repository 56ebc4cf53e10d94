/**
 * The fuzz runner: N cases spread over the properties (properties.ts) by weight, seeded, optionally over
 * several worker processes; prints a summary line per property and a final `N passed, F failed`.
 *
 *   node --import tsx test/fuzz/fuzz.ts --cases 100000 [--seed S] [--jobs J] [--huge] [--only name,prefix/] [--tolerate eof-range]
 *                                       [--processes W] [--cli-per-workspace K] [--large S]
 *
 * After the in-process properties, the process-driving part (processes.ts) runs the BUILT server and CLI over
 * W generated hostile workspaces (default: cases / 500, between 5 and 200 — 200 for `npm run fuzz`) and over
 * large inputs at scale S (1 = markdown of ~6 MB with 10^5 sections and JSON of 8–15 MB; default 1 from
 * 10,000 cases up, else 0.05); `--processes 0` skips it. Build first (`npm run build`).
 *
 * --huge adds 100,000-line sections to the markdown mutations; --tolerate names known issues (each with a
 * failing regression test) that should not stop a property at its first case.
 *
 * A failure prints the shrunk counterexample, the error and how to replay it (fast-check seed + path).
 * Exit code 1 when any property failed.
 */
import { fork } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { newStats, properties, tolerate, type Stats } from './properties';
import { processSummary, runProcessFuzz } from './processes';
import { errorMessage } from '../../server/src/core/errors';

export interface PropertyResult {
  name: string;
  planned: number;
  passed: number;
  failed: number;
  maxCpuMs: number;
  maxWallMs: number;
  maxChars: number;
  notes: Record<string, number>;
  failure?: string;
  ms: number;
}

export interface FuzzOptions {
  cases: number;
  seed: number;
  huge?: boolean;
  only?: string[];
  /** Known issues not to fail on (see KNOWN_ISSUES in properties.ts). */
  tolerate?: string[];
  log?: (line: string) => void;
}

/** Splits `cases` over weights (largest remainders), every property at least one case. */
export function distribute(cases: number, weights: number[]): number[] {
  const total = weights.reduce((a, b) => a + b, 0);
  const raw = weights.map((w) => (cases * w) / total);
  const out = raw.map((x) => Math.max(1, Math.floor(x)));
  let left = cases - out.reduce((a, b) => a + b, 0);
  const order = raw.map((x, i) => [x - Math.floor(x), i] as const).sort((a, b) => b[0] - a[0]);
  for (let k = 0; left > 0; k = (k + 1) % order.length, left--) out[order[k]![1]]!++;
  return out;
}

function selected(only: string[] | undefined) {
  const all = properties();
  return only?.length ? all.filter((p) => only.some((o) => p.name === o || (o.endsWith('/') && p.name.startsWith(o)))) : all;
}

function clip(s: string, n = 1500): string {
  return s.length > n ? `${s.slice(0, n)}… (${s.length} characters)` : s;
}

/** Runs the properties in this process. */
export function runFuzz(opts: FuzzOptions): PropertyResult[] {
  tolerate(opts.tolerate ?? []);
  const props = properties({ huge: opts.huge }).filter((p) => selected(opts.only).some((q) => q.name === p.name));
  const counts = distribute(opts.cases, props.map((p) => p.weight));
  const results: PropertyResult[] = [];
  props.forEach((p, i) => {
    const stats: Stats = newStats();
    const t0 = performance.now();
    const seed = (opts.seed + i * 7919) | 0;
    const details = fc.check(p.make(stats), { numRuns: counts[i]!, seed });
    const r: PropertyResult = {
      name: p.name,
      planned: counts[i]!,
      passed: details.failed ? Math.max(0, details.numRuns - 1) : details.numRuns,
      failed: details.failed ? 1 : 0,
      maxCpuMs: stats.maxCpuMs,
      maxWallMs: stats.maxWallMs,
      maxChars: stats.maxChars,
      notes: Object.fromEntries(stats.notes),
      ms: performance.now() - t0,
    };
    if (details.failed) {
      const err = errorMessage(details.errorInstance);
      r.failure = [
        `error: ${clip(err, 2000)}`,
        `counterexample: ${clip(fc.stringify(details.counterexample))}`,
        `replay: fc.check(…, { seed: ${details.seed}, path: ${JSON.stringify(details.counterexamplePath)} }) (${details.numShrinks} shrinks)`,
      ].join('\n');
    }
    results.push(r);
    opts.log?.(summaryLine(r));
  });
  return results;
}

export function summaryLine(r: PropertyResult): string {
  const notes = Object.entries(r.notes)
    .sort((a, b) => b[1] - a[1])
    .slice(0, process.env.FUZZ_REASONS ? 100 : 8)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const head = `${r.name.padEnd(20)} ${String(r.passed).padStart(7)} passed, ${r.failed} failed`;
  const timing = `max ${r.maxCpuMs.toFixed(0)} ms CPU / ${r.maxWallMs.toFixed(0)} ms wall per document, largest ${r.maxChars.toLocaleString('en-US')} chars, ${(r.ms / 1000).toFixed(1)} s`;
  return `${head}  (${timing}${notes ? `; ${notes}` : ''})${r.failure ? `\n  FAILED\n  ${r.failure.replace(/\n/g, '\n  ')}` : ''}`;
}

/** Merges the per-worker results of one property. */
function merge(parts: PropertyResult[][]): PropertyResult[] {
  const byName = new Map<string, PropertyResult>();
  for (const list of parts) {
    for (const r of list) {
      const m = byName.get(r.name);
      if (!m) {
        byName.set(r.name, { ...r, notes: { ...r.notes } });
        continue;
      }
      m.planned += r.planned;
      m.passed += r.passed;
      m.failed += r.failed;
      m.maxCpuMs = Math.max(m.maxCpuMs, r.maxCpuMs);
      m.maxWallMs = Math.max(m.maxWallMs, r.maxWallMs);
      m.maxChars = Math.max(m.maxChars, r.maxChars);
      m.ms = Math.max(m.ms, r.ms);
      for (const [k, v] of Object.entries(r.notes)) m.notes[k] = (m.notes[k] ?? 0) + v;
      if (r.failure) m.failure = m.failure ? `${m.failure}\n${r.failure}` : r.failure;
    }
  }
  return [...byName.values()];
}

function arg(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : undefined;
}

async function main(argv: string[]): Promise<number> {
  const cases = Number(arg(argv, 'cases') ?? 1000);
  const seed = Number(arg(argv, 'seed') ?? 20261130);
  const huge = argv.includes('--huge');
  const only = arg(argv, 'only')?.split(',');
  const tolerated = arg(argv, 'tolerate')?.split(',') ?? [];
  if (argv.includes('--worker')) {
    const results = runFuzz({ cases, seed, huge, only, tolerate: tolerated });
    process.send!(results);
    return 0;
  }
  const jobs = Math.max(1, Number(arg(argv, 'jobs') ?? (cases >= 2000 ? Math.min(2, availableParallelism()) : 1)));
  const t0 = performance.now();
  console.log(`fuzz: ${cases} cases, seed ${seed}, ${jobs} job(s)${huge ? ', with 100,000-line sections' : ''}${tolerated.length ? `, TOLERATING known issue(s): ${tolerated.join(', ')}` : ''}`);
  let results: PropertyResult[];
  if (jobs === 1) {
    results = runFuzz({ cases, seed, huge, only, tolerate: tolerated, log: (l) => console.log(l) });
  } else {
    const self = fileURLToPath(import.meta.url);
    const shares = distribute(cases, Array.from({ length: jobs }, () => 1));
    const parts = await Promise.all(
      shares.map(
        (n, j) =>
          new Promise<PropertyResult[]>((resolve, reject) => {
            const args = ['--cases', String(n), '--seed', String(seed + j * 1_000_003), '--worker', ...(huge ? ['--huge'] : []), ...(only ? ['--only', only.join(',')] : []), ...(tolerated.length ? ['--tolerate', tolerated.join(',')] : [])];
            const child = fork(self, args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
            let got: PropertyResult[] | undefined;
            child.on('message', (m) => (got = m as PropertyResult[]));
            child.on('exit', (code) => (got ? resolve(got) : reject(new Error(`fuzz worker ${j} exited with ${code} without results`))));
          }),
      ),
    );
    results = merge(parts);
    for (const r of results) console.log(summaryLine(r));
  }
  const passed = results.reduce((n, r) => n + r.passed, 0);
  const failed = results.reduce((n, r) => n + r.failed, 0);
  console.log(`${passed} passed, ${failed} failed (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  const workspaces = Number(arg(argv, 'processes') ?? Math.min(200, Math.max(5, Math.round(cases / 500))));
  let processFailures = 0;
  if (workspaces > 0 && !only) {
    const large = Number(arg(argv, 'large') ?? (cases >= 10_000 ? 1 : 0.05));
    const cliPerWorkspace = Number(arg(argv, 'cli-per-workspace') ?? 3);
    console.log(`\nfuzz: the built server and CLI over ${workspaces} hostile workspaces, then large inputs at scale ${large}`);
    const r = await runProcessFuzz({ workspaces, seed, large, cliPerWorkspace, log: (l) => console.log(l) });
    console.log(processSummary(r));
    processFailures = r.failures.length;
  }
  console.log(`fuzz total: ${passed} in-process cases passed, ${failed} failed; ${processFailures} process failures (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  return failed || processFailures ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

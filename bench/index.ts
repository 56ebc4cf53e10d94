/**
 * The benchmark runner (`npm run bench`): every figure is a median over N runs (N printed per row) with
 * min – max, next to an anchor measured in the same run, as a ratio; goals are marked met or missed.
 * Results go to .bench-data/results.json; `--write-readme` then runs bench/report.ts, which writes the
 * README's performance table and docs/performance.md from that file (never edit the table by hand).
 *
 *   npm run bench -- [--runs N] [--only json,lsp,report,markdown,tokens,cold,markdown-lsp,context,findings] [--write-readme]
 *
 * Inputs are generated from fixed seeds into .bench-data/ (see data.ts). Nothing here asserts timings.
 * Needs `npm run build` (npm run bench does it): the CLI, the server and its worker are the built ones.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkDocument } from '../server/src/core/agentJson/check';
import { DATA_DIR, REPO_ROOT, corpusMarkdown1MB, markdown1MB, plan15MB, producerPlan14MB, report10MB } from './data';
import { cliRows, lspDiagnosticsRows, reportLspRows } from './json-lsp.bench';
import { markdownRows } from './markdown.bench';
import { paragraphEditPoints } from './markdown-gen';
import { tokenRows } from './tokens.bench';
import { coldRows } from './cold.bench';
import { contextRows } from './context.bench';
import { collectionReport, sampleReport } from './findings.bench';
import { markdownTable, row, time, type BenchRow } from './stats';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const runs = Math.max(3, Number(arg('runs') ?? 5));
const only = new Set((arg('only') ?? 'json,lsp,report,markdown,tokens,cold,markdown-lsp,context,findings').split(','));
const log = (s: string) => console.log(s);

export interface Machine {
  cpus: number;
  cpuModel: string;
  memGiB: number;
  node: string;
  platform: string;
}

export interface BenchResults {
  date: string;
  machine: Machine;
  /** 1/5/15-minute load averages at the start and at the end of the run. */
  loadStart: number[];
  loadEnd: number[];
  runs: number;
  seconds: number;
  rows: BenchRow[];
}

export const RESULTS_FILE = join(DATA_DIR, 'results.json');

function machine(): Machine {
  return { cpus: availableParallelism(), cpuModel: cpus()[0]?.model.trim() ?? 'unknown CPU', memGiB: Number((totalmem() / 2 ** 30).toFixed(1)), node: process.version, platform: `${process.platform}-${process.arch}` };
}

/** Rows from C1's bench/markdown-lsp.bench.ts when present: any exported function named *Rows taking ({ runs, log }). */
async function markdownLspRows(): Promise<BenchRow[]> {
  const file = join(REPO_ROOT, 'bench', 'markdown-lsp.bench.ts');
  if (!existsSync(file)) {
    log('  (bench/markdown-lsp.bench.ts is not there yet: no markdown LSP rows)');
    return [];
  }
  const mod = (await import(pathToFileURL(file).toString())) as Record<string, unknown>;
  const out: BenchRow[] = [];
  for (const [name, fn] of Object.entries(mod)) {
    if (!/Rows$/.test(name) || typeof fn !== 'function') continue;
    const rows = (await (fn as (o: { runs: number; log: (s: string) => void }) => Promise<BenchRow[]>)({ runs, log })) ?? [];
    out.push(...rows.map((r) => ({ ...r, section: r.section ?? 'Markdown' })));
  }
  return out;
}

async function main(): Promise<void> {
  // Re-run with --expose-gc so every in-process run starts from a collected heap.
  if (!(globalThis as { gc?: unknown }).gc) {
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  const loadStart = loadavg();
  const rows: BenchRow[] = [];
  const t0 = performance.now();
  const m = machine();
  log(`ToonLens benchmarks — medians of ${runs} runs — ${m.cpus} CPUs (${m.cpuModel}), Node ${m.node}, load ${loadStart.map((x) => x.toFixed(2)).join(' ')}`);
  log('Generating inputs (cached in .bench-data/)…');
  const producer = producerPlan14MB();
  const synthetic = plan15MB();
  const report10 = report10MB();

  if (only.has('json')) {
    log('\nJSON: CLI check process vs a JSON.parse process');
    rows.push(...cliRows([{ input: producer, label: 'producer-derived plan' }, { input: synthetic, label: 'valid synthetic plan' }], runs, log));
    log('\nJSON: checkDocument in-process vs JSON.parse');
    for (const [input, kind, label] of [[producer, 'verdict', 'producer-derived plan'], [synthetic, 'verdict', 'valid synthetic plan'], [report10, 'report', 'hygiene report, no workspace']] as const) {
      const n = checkDocument(input.text, { kind }).diagnostics.length;
      const parse = await time(() => JSON.parse(input.text), runs);
      const check = await time(() => checkDocument(input.text, { kind }), runs);
      log(`    ${label}: ${check.median.toFixed(0)} ms vs JSON.parse ${parse.median.toFixed(0)} ms (${n} diagnostics)`);
      rows.push(row('JSON', `checkDocument in-process, ${label} (${(input.bytes / 1e6).toFixed(1)} MB, ${n.toLocaleString('en-US')} diagnostics)`, check, 'ms', { name: 'JSON.parse', value: parse }));
    }
  }
  if (only.has('lsp')) {
    log('\nJSON: language server round trips (vscode-json-language-server as the anchor)');
    rows.push(...(await lspDiagnosticsRows([{ input: producer, label: 'producer-derived plan', expectFindings: true }, { input: synthetic, label: 'valid synthetic plan', expectFindings: false }], runs, log)));
  }
  if (only.has('report')) {
    log('\nJSON: report lenses and a 47 MB report');
    rows.push(...(await reportLspRows(runs, log)));
  }
  if (only.has('markdown')) {
    log('\nMarkdown: code lenses in-process');
    rows.push(...(await markdownRows(markdown1MB(), runs, log)));
    rows.push(...(await markdownRows(corpusMarkdown1MB(), runs, log, paragraphEditPoints)));
  }
  if (only.has('tokens')) {
    log('\nReal tokens: cost of counting, and the corpus figures');
    rows.push(...(await tokenRows(markdown1MB(), runs, log)));
  }
  if (only.has('cold')) {
    log('\nCold plans: in process against a plain count, and CLI start-up');
    rows.push(...(await coldRows(runs, log)));
  }
  if (only.has('markdown-lsp')) {
    log('\nMarkdown: language server round trips');
    rows.push(...(await markdownLspRows()));
  }
  if (only.has('context')) {
    log('\nAgent context: a 10,000-file repository');
    rows.push(...(await contextRows(runs, log)));
  }
  if (only.has('findings')) {
    log('\nMarkdown findings: per file and precision per rule on the labelled sample, and on a large collection');
    sampleReport(log);
    collectionReport(log);
  }

  const results: BenchResults = { date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'), machine: m, loadStart, loadEnd: loadavg(), runs, seconds: Math.round((performance.now() - t0) / 1000), rows };
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(RESULTS_FILE, JSON.stringify(results, null, 2) + '\n');
  log('\n' + markdownTable(rows) + '\n');
  const missed = rows.filter((r) => r.met === false);
  log(missed.length ? `${missed.length} goal(s) missed.` : 'All goals met.');
  log(`(${results.seconds} s; load at the end ${results.loadEnd.map((x) => x.toFixed(2)).join(' ')}; results in ${RESULTS_FILE})`);
  if (process.argv.includes('--write-readme')) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'bench', 'report.ts')], { stdio: 'inherit' });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}

if (process.argv[1] && /index\.ts$/.test(process.argv[1])) void main();

/**
 * Cold plans and CLI start-up: what a single `toonlens plan` costs beyond counting the text's tokens.
 * - in process: what `plan --json` computes (planOnce and the whole-document verdict, serialized), on the
 *   corpus inputs and on the two large benchmark documents, next to gpt-tokenizer's own `countTokens` (o200k_base) of the
 *   same text; both start from an empty merge cache, run by run in alternation; and markdown-it's block parse
 *   alone next to the same count (the part of any plan the CommonMark parser takes before anything is measured);
 * - spawned: `toonlens --version` and `toonlens plan` on a small agent file (to its first byte of output and to
 *   its exit) next to `node -e 0` and a node process that only loads the tokenizer bundle the CLI loads and
 *   counts the file (the start-up goal: the CLI's own start costs at most one more bare node start).
 * Figures only, never assertions.
 *
 *   node --expose-gc --import tsx bench/cold.bench.ts      (also run by `npm run bench`, group `cold`)
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { planOnce } from '../server/src/core/markdown/engine';
import { blockParser } from '../server/src/core/markdown/parser';
import { clearTokenMergeCaches } from '../server/src/core/tokens';
import { CORPUS_INPUTS } from '../test/paths';
import { REPO_ROOT, corpusMarkdown1MB, markdown1MB } from './data';
import { row, sample, timePair, type BenchRow, type Sample } from './stats';

const CLI = join(REPO_ROOT, 'bin', 'toonlens.js');
const SMALL = join(CORPUS_INPUTS, 'upstream__fixtures__agent-context__AGENTS.md');
const TOKENIZER_BUNDLE = join(REPO_ROOT, 'dist', 'tokenizer-o200k_base.js');

/** gpt-tokenizer's own count (the package's `countTokens`, no special tokens), the anchor of the in-process rows. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const packageCount = (require('gpt-tokenizer/encoding/o200k_base') as { countTokens(t: string): number }).countTokens;

/** What `plan --json` computes for each text: the plan, its whole-document verdict, the JSON written. */
function planJson(texts: readonly string[]): number {
  let n = 0;
  for (const t of texts) n += JSON.stringify(planOnce(t).verdict).length;
  return n;
}

/** markdown-it's parse of each text, what every plan does before anything is measured (the floor under a plan). */
function parseAll(texts: readonly string[]): number {
  const md = blockParser();
  let n = 0;
  for (const t of texts) n += md.parse(t, {}).length;
  return n;
}

function countAll(texts: readonly string[]): number {
  let n = 0;
  for (const t of texts) n += packageCount(t);
  return n;
}

async function inProcessRows(runs: number, log: (s: string) => void): Promise<BenchRow[]> {
  const corpus = readdirSync(CORPUS_INPUTS)
    .filter((f) => f.endsWith('.md') && f !== 'LICENSE.md')
    .sort()
    .map((f) => readFileSync(join(CORPUS_INPUTS, f), 'utf8'));
  const cases: { label: string; texts: string[] }[] = [
    { label: `the corpus inputs (${corpus.length} files, ${(corpus.reduce((n, t) => n + Buffer.byteLength(t), 0) / 1e3).toFixed(0)} KB, each planned alone)`, texts: corpus },
    { label: '1.0 MB markdown (bench/markdown-gen.ts)', texts: [markdown1MB().text] },
    { label: '1.0 MB real markdown, the producer corpus repeated', texts: [corpusMarkdown1MB().text] },
  ];
  packageCount('load the ranks before anything is timed');
  const rows: BenchRow[] = [];
  for (const { label, texts } of cases) {
    const [count, plan] = await timePair(
      () => {
        clearTokenMergeCaches();
        return countAll(texts);
      },
      () => {
        clearTokenMergeCaches();
        return planJson(texts);
      },
      runs,
    );
    log(`    ${label}: plan --json in process ${plan.median.toFixed(0)} ms, countTokens ${count.median.toFixed(0)} ms (${(plan.median / count.median).toFixed(2)}×)`);
    rows.push(row('Markdown', `\`plan --json\` in process (planOnce + the verdict, serialized), ${label}`, plan, 'ms', { name: 'gpt-tokenizer countTokens, o200k_base, same text', value: count }, { max: 2, label: '≤ 2× countTokens' }));
    // The parse alone against the same count: how much of the goal the mandated CommonMark parser leaves.
    const [count2, parse] = await timePair(
      () => {
        clearTokenMergeCaches();
        return countAll(texts);
      },
      () => parseAll(texts),
      runs,
    );
    log(`    ${label}: markdown-it parse alone ${parse.median.toFixed(0)} ms (${(parse.median / count2.median).toFixed(2)}× countTokens)`);
    rows.push(row('Markdown', `markdown-it parse alone (the floor under \`plan\`), ${label}`, parse, 'ms', { name: 'gpt-tokenizer countTokens, o200k_base, same text', value: count2 }));
  }
  return rows;
}

/** Wall time of one spawned node process: to its first byte on stdout and to its exit. */
function timedRun(args: string[]): Promise<{ first: number; exit: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let first = -1;
    let stderr = '';
    const child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', () => {
      if (first < 0) first = performance.now() - t0;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const exit = performance.now() - t0;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(0, 400)}`));
      else resolve({ first: first < 0 ? exit : first, exit });
    });
  });
}

async function startupRows(runs: number, log: (s: string) => void): Promise<BenchRow[]> {
  const cases = {
    node: ['-e', 'process.stdout.write("")'],
    tokenizer: ['-e', `process.stdout.write(String(require(${JSON.stringify(TOKENIZER_BUNDLE)}).countTokens(require('node:fs').readFileSync(${JSON.stringify(SMALL)}, 'utf8'))))`],
    version: [CLI, '--version'],
    plan: [CLI, 'plan', SMALL],
    planJson: [CLI, 'plan', '--json', SMALL],
  } as const;
  type Case = keyof typeof cases;
  const first: Record<Case, number[]> = { node: [], tokenizer: [], version: [], plan: [], planJson: [] };
  const exit: Record<Case, number[]> = { node: [], tokenizer: [], version: [], plan: [], planJson: [] };
  spawnSync(process.execPath, [CLI, 'plan', SMALL], { cwd: REPO_ROOT, stdio: 'ignore' }); // warm the page cache
  for (let i = 0; i < runs; i++) {
    for (const k of Object.keys(cases) as Case[]) {
      const r = await timedRun([...cases[k]]);
      first[k].push(r.first);
      exit[k].push(r.exit);
    }
  }
  const s = (xs: number[]): Sample => sample(xs);
  // The start-up goal's anchor, run by run: a bare node start plus a process that only loads the tokenizer.
  const budget = s(exit.node.map((n, i) => n + exit.tokenizer[i]!));
  const node = s(exit.node);
  log(`    node -e 0 ${node.median.toFixed(0)} ms; tokenizer load + count ${s(exit.tokenizer).median.toFixed(0)} ms; --version ${s(exit.version).median.toFixed(0)} ms`);
  log(`    plan (2.4 KB): first output ${s(first.plan).median.toFixed(0)} ms, exit ${s(exit.plan).median.toFixed(0)} ms; plan --json first output ${s(first.planJson).median.toFixed(0)} ms`);
  const anchor = { name: '`node -e 0` + a node process that only loads the tokenizer bundle and counts the file', value: budget };
  const goal = { max: 1, label: '≤ 2× `node -e 0` + the tokenizer load' };
  return [
    row('CLI', '`toonlens --version` process', s(exit.version), 'ms', { name: '`node -e 0`', value: node }, { max: 2, label: '≤ 2× `node -e 0`' }),
    row('CLI', '`toonlens plan` on a 2.4 KB agent file, process start to first output', s(first.plan), 'ms', anchor, goal),
    row('CLI', '`toonlens plan --json` on the same file, process start to first output', s(first.planJson), 'ms', anchor, goal),
    row('CLI', '`toonlens plan` on the same file, process start to exit', s(exit.plan), 'ms', anchor),
  ];
}

/** The cold rows: in-process plans against a plain count, then CLI start-up (needs `npm run build`). */
export async function coldRows(runs: number, log: (s: string) => void): Promise<BenchRow[]> {
  return [...(await inProcessRows(runs, log)), ...(await startupRows(runs, log))];
}

if (require.main === module) {
  const log = (s: string) => console.log(s);
  coldRows(Number(process.argv[2] ?? 5), log).then(
    (rows) => {
      for (const r of rows) log(`  ${r.figure}: ${r.median.toFixed(0)} ms, ${r.ratio?.toFixed(2)}× ${r.anchorName}${r.goal ? ` (goal ${r.goal}: ${r.met ? 'met' : 'missed'})` : ''}`);
    },
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}

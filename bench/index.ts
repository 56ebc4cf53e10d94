/**
 * The benchmark runner (`npm run bench`): prints medians over ≥ 5 runs with min–max, as ratios against
 * anchors measured in the same run, as a markdown table; writes the table to docs/performance.md.
 *
 *   node --import tsx bench/index.ts [--runs N] [--only json,markdown,tokens,server,engine] [--no-write]
 *
 * Inputs are generated from fixed seeds into .bench-data/ (see data.ts). Nothing here asserts timings.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT, markdown1MB, plan15MB, plan1MB, report10MB, report1MB } from './data';
import { jsonRows } from './json.bench';
import { markdownRows } from './markdown.bench';
import { serverRows } from './server.bench';
import { tokenRows } from './tokens.bench';
import { markdownTable, met, type Row } from './stats';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const runs = Math.max(5, Number(arg('runs') ?? 5));
const only = new Set((arg('only') ?? 'json,markdown,tokens,server,engine').split(','));
const write = !process.argv.includes('--no-write');
const log = (s: string) => console.log(s);

export function machine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU';
  return `${availableParallelism()} CPUs (nproc), ${cpu}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Node ${process.version}, ${process.platform}-${process.arch}`;
}

async function main(): Promise<void> {
  // Re-run with --expose-gc so every measured run starts from a collected heap.
  if (!(globalThis as { gc?: unknown }).gc) {
    const r = spawnSync(process.execPath, ['--expose-gc', '--import', 'tsx', ...process.argv.slice(1)], { stdio: 'inherit' });
    process.exit(r.status ?? 1);
  }
  const rows: Row[] = [];
  const t0 = performance.now();
  log(`ToonLens benchmarks — ${runs} runs each — ${machine()}`);
  log('Generating inputs (cached in .bench-data/)…');
  const inputs = { plan1: plan1MB(), plan15: plan15MB(), report10: report10MB(), report1: report1MB(), md: markdown1MB() };

  if (only.has('json')) {
    log('\nJSON diagnostics');
    rows.push(
      ...(await jsonRows(
        [
          { input: inputs.plan1, kind: 'verdict', label: 'verdict plan', compareLanguageService: true },
          { input: inputs.plan15, kind: 'verdict', label: 'verdict plan', compareLanguageService: true },
          { input: inputs.report10, kind: 'report', label: 'hygiene report', compareLanguageService: true },
        ],
        runs,
        log,
      )),
    );
  }
  if (only.has('markdown')) {
    log('\nMarkdown code lenses');
    rows.push(...(await markdownRows(inputs.md, runs, log)));
  }
  if (only.has('tokens')) {
    log('\nReal tokens (#13): cost of counting, and the corpus figures');
    rows.push(...(await tokenRows(inputs.md, runs, log)));
  }
  if (only.has('server')) {
    log('\nLanguage server');
    rows.push(...(await serverRows(inputs.report1, inputs.plan15, runs, log)));
  }

  const table = markdownTable(rows);
  log('\n' + table + '\n');
  const missed = rows.filter((r) => met(r) === false);
  log(missed.length ? `${missed.length} target(s) not met.` : 'All targets met.');
  log(`(${((performance.now() - t0) / 1000).toFixed(0)} s)`);

  if (write && only.has('json') && only.has('markdown') && only.has('server')) {
    const date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    mkdirSync(join(REPO_ROOT, 'docs'), { recursive: true });
    const file = join(REPO_ROOT, 'docs', 'performance.md');
    // Everything below the marker is hand-written analysis: a re-run replaces only the measured part.
    const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const at = old.indexOf(KEEP_MARKER);
    writeFileSync(file, performanceDoc(table, date) + '\n' + (at >= 0 ? old.slice(at) : `${KEEP_MARKER}\n`));
    log('Wrote docs/performance.md');
  }

  const engineBench = join(REPO_ROOT, 'bench', 'engine.bench.ts');
  if (only.has('engine') && existsSync(engineBench)) {
    log('\nEngine benchmark (bench/engine.bench.ts)');
    spawnSync(process.execPath, ['--import', 'tsx', engineBench], { cwd: REPO_ROOT, stdio: 'inherit' });
  }
}

const KEEP_MARKER = '<!-- Hand-written below this line; `npm run bench` rewrites only what is above it. -->';

function performanceDoc(table: string, date: string): string {
  return `# Performance

Measured ${date} on ${machine()}, with \`npm run bench\` (\`bench/index.ts\`): medians of ${runs} runs with
min – max, each next to an anchor measured in the same run on the same input. Inputs are generated from fixed
seeds (\`bench/data.ts\`): valid documents — a verdict plan is the engine's own output on generated
markdown, a hygiene report has the shape of \`examples/golden/valid-report.json\` — because a valid document
is the realistic case (and the one where every rule runs to the end).

${table}

How each figure is taken:

- **checkDocument**: the server's JSON entry point with the kind forced: \`JSON.parse\`, the kind's JSON Schema
  (ajv, all errors) and every rule of the kind; positions are computed only for findings. The targets
  (≤ 3× \`JSON.parse\`, ≤ 0.15× vscode-json-languageservice) are for the large files. Anchors:
  \`JSON.parse\` of the same text, and vscode-json-languageservice \`parseJSONDocument\` + \`doValidation\` with
  the same schema (registered once, so its resolution is cached, as in VS Code).
- **JSON hover near the end**: \`hoverAt\` (the server's JSON hover entry point) on a property near the end of
  the document, next to \`JSON.parse\` of the same text (no target: it shows what one hover costs).
- **code lenses cold**: a fresh \`EngineCache\`, \`plan\` + \`markdownCodeLenses\` on a new \`TextDocument\`;
  anchor: \`markdownit().parse(text, {})\` (instance reused, warmed).
- **after a one-character edit**: the cache and the \`TextDocument\` primed on the document; each run inserts one
  character into the first body line of a different section (\`TextDocument.update\`, then \`plan\` + lenses).
- **spawn → first publishDiagnostics**: \`node dist/server.js --stdio\` with the test harness's JSON-RPC client:
  initialize, initialized, didOpen, until the first \`textDocument/publishDiagnostics\` for the report (opened
  inside the workspace; its edit targets are not on disk, so the live report rules run and report them).
- **peak RSS**: \`VmHWM\` from \`/proc/<pid>/status\` of the server process after the 15 MB plan's diagnostics
  were published.

Re-run with \`npm run bench\` (\`-- --runs 9\` for more runs, \`-- --only json\` for one group).
`;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});

/**
 * Writes the README's performance summary and the measured part of docs/performance.md from the bench's
 * own output (.bench-data/results.json, written by `npm run bench`), with the run's date, machine, load
 * and which goals were met. Never edit those tables by hand: run `npm run bench -- --write-readme`
 * (or `node --import tsx bench/report.ts` after a bench run).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './data';
import type { BenchResults } from './index';
import { RESULTS_FILE } from './index';
import { fmt, markdownTable, type BenchRow } from './stats';

export const README_BEGIN = '<!-- bench:begin — written by bench/report.ts from the bench output; do not edit by hand -->';
export const README_END = '<!-- bench:end -->';
export const KEEP_MARKER = '<!-- Hand-written below this line; `npm run bench` rewrites only what is above it. -->';

const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');

/** The run's header line: date, machine, Node, load, N. */
export function runLine(r: BenchResults): string {
  return `Measured ${r.date} by \`npm run bench\` on ${r.machine.cpus} CPUs (${r.machine.cpuModel}, ${r.machine.memGiB} GiB), Node ${r.machine.node} ${r.machine.platform}; load average (1/5/15 min) ${load(r.loadStart)} at the start, ${load(r.loadEnd)} at the end; medians of N runs (N per row; default ${r.runs}), min – max, each figure next to an anchor measured in the same run.`;
}

export function goalsLine(r: BenchResults): string {
  const withGoal = r.rows.filter((x) => x.met !== undefined);
  const missed = withGoal.filter((x) => x.met === false);
  if (missed.length === 0) return `All ${withGoal.length} goals met in this run.`;
  return `${withGoal.length - missed.length} of ${withGoal.length} goals met in this run; missed: ${missed.map((x) => `${x.figure} (${x.ratio !== undefined && x.goalOn !== 'value' ? `${x.ratio.toFixed(2)}×` : `${x.median.toFixed(0)} ${x.unit}`}, goal ${x.goal})`).join('; ')}.`;
}

/**
 * The README's summary: one row per section and goal wording (a missed row where that goal was missed, else the
 * first), so a reader sees what is promised and whether this run kept it; the full table is in docs/performance.md.
 */
export function summaryRows(rows: readonly BenchRow[]): BenchRow[] {
  const chosen = new Map<string, BenchRow>();
  for (const r of rows) {
    if (r.goal === undefined) continue;
    const key = `${r.section}\u0000${r.goal}`;
    const had = chosen.get(key);
    if (had === undefined || (had.met !== false && r.met === false)) chosen.set(key, r);
  }
  return [...chosen.values()];
}

export function summaryTable(rows: readonly BenchRow[]): string {
  const lines = ['| | figure | median | ratio | goal | met? |', '|---|---|---:|---:|---|:---:|'];
  for (const r of summaryRows(rows)) {
    const ratio = r.ratio === undefined ? '—' : `${r.ratio < 0.1 ? r.ratio.toFixed(3) : r.ratio.toFixed(2)}×`;
    lines.push(`| ${r.section} | ${r.figure}${r.note ? ` (${r.note})` : ''} | ${fmt(r.median, r.unit)} | ${ratio} | ${r.goal ?? '—'} | ${r.met ? 'yes' : '**no**'} |`);
  }
  return lines.join('\n');
}

/** The README section body between the markers: the run, one row per goal, the count of goals met. */
export function readmeSection(r: BenchResults): string {
  const withGoal = r.rows.filter((x) => x.met !== undefined);
  const met = withGoal.filter((x) => x.met === true).length;
  return [
    README_BEGIN,
    '',
    `Measured ${r.date} by \`npm run bench\` on ${r.machine.cpus} CPUs (${r.machine.cpuModel}), Node ${r.machine.node}; medians of ${r.runs} runs, one row per goal.`,
    '',
    summaryTable(r.rows),
    '',
    `${met} of ${withGoal.length} goals met in this run. Every figure, its anchor and how it is taken: [docs/performance.md](docs/performance.md).`,
    '',
    README_END,
  ].join('\n');
}

/** Replaces the marked block, or the body of the `## Performance` section the first time. */
export function replaceReadmeSection(readme: string, section: string): string {
  const a = readme.indexOf(README_BEGIN);
  const b = readme.indexOf(README_END);
  if (a >= 0 && b > a) return readme.slice(0, a) + section + readme.slice(b + README_END.length);
  const h = readme.indexOf('\n## Performance\n');
  if (h < 0) return readme.trimEnd() + '\n\n## Performance\n\n' + section + '\n';
  const bodyStart = h + '\n## Performance\n'.length;
  const next = readme.indexOf('\n## ', bodyStart);
  return readme.slice(0, bodyStart) + '\n' + section + '\n' + (next >= 0 ? readme.slice(next) : '');
}

export function performanceDoc(r: BenchResults, keep: string): string {
  return `# Performance

${runLine(r)}

${markdownTable(r.rows)}

${goalsLine(r)}

How each figure is taken (\`bench/index.ts\` and the modules it calls; inputs from fixed seeds, \`bench/data.ts\`):

- **CLI \`check\` process**: \`node bin/toonlens.js check --exit-zero FILE\` spawned, against a spawned \`node\`
  that only reads and \`JSON.parse\`s the same file; the two alternate, after one warm-up of the page cache.
- **producer-derived plan**: the producer's (doc2toon 0.4.x) recorded plan of \`realistic/AGENTS.md\`
  (\`test/fixtures/corpus/doc2toon\`), its sections repeated and shifted into a ~14.5 MB consistent plan, then
  producer-style defects planted (\`bench/producer-plan.ts\`): ~1,850 findings. The producer's CLI is Python
  and not installable here, so its recorded output is the input and \`JSON.parse\`, markdown-it and
  vscode-json-language-server are the anchors. **valid synthetic plan**: the engine's own plan of generated
  markdown (no findings).
- **LSP didOpen → publishDiagnostics**: \`dist/server.js --stdio\` and \`vscode-json-language-server --stdio\`
  (npm vscode-langservers-extracted, given the same verdict schema through \`json.schemas\`), each one process,
  a minimal JSON-RPC client (\`bench/lsp-client.ts\`) timing from sending \`didOpen\` of a new URI to that URI's
  first \`publishDiagnostics\`; runs alternate between the servers after one warm-up each.
- **the transport alone**: \`bench/bare-server.ts\`, a server on the same vscode-languageserver that keeps the
  document in \`TextDocuments\` and publishes an empty list (no check), timed and measured like ours: what
  receiving the didOpen costs before any ToonLens code runs; once with vscode-jsonrpc's stream reader (what any
  server gets), once with \`--toonlens-reader\` (the reader \`dist/server.js --stdio\` uses,
  \`server/src/node/stdioTransport.ts\`). **the floor**: \`bench/floor-server.ts\`, no language server at all —
  \`Buffer.concat\` + \`toString\` + \`JSON.parse\`, and with \`--count-only\` nothing decoded (what the client's
  \`JSON.stringify\` + \`Buffer.from\` and the pipe cost; the same for every server in the row).
- **peak RSS**: \`VmHWM\` of a fresh server process after that plan's diagnostics were published (no
  \`--max-semi-space-size\`, which the VS Code client passes). **From a warm server**: the same peak minus the
  VmHWM after a small plan was opened and checked first (ajv and the schemas compiled, the check's code loaded).
- **report code lenses**: the sample report's entries (real targets on disk) repeated into a 5 MB one-line
  report; the first \`textDocument/codeLens\` after \`didOpen\` (its check and lens planning run on the JSON
  worker thread), then five more requests for the same version per run (over 500 lenses the answer is
  unresolved lenses, titles and commands come through \`codeLens/resolve\`).
- **hover while a 47 MB report is checked**: \`didOpen\` of the report, then at once a hover on a small verdict
  in the same server; anchor: the report's own \`didOpen\` → \`publishDiagnostics\` (a ratio below 1× means the
  hover was answered while the report was still being checked).
- **markdown rows**: in-process \`EngineCache.plan\` + lenses against markdown-it's plain parse; the LSP
  markdown rows (1, 4 and 8 MB, first and later edits) come from \`bench/markdown-lsp.bench.ts\` when present.
  The generated documents (bench/markdown-gen.ts \`markdownDocument\`) are built from a vocabulary; the rows
  marked **real markdown** run on the producer's own 21 corpus inputs (test/fixtures/corpus/doc2toon-inputs)
  repeated to 1 MB (in-process) and 4.2 MB (LSP), each copy's headings numbered so no section repeats, and
  edited at the end of a top-level paragraph's first line (\`corpusMarkdownDocument\`, \`paragraphEditPoints\`).
  Only the headings differ between copies, so a section body recurs once per copy (≈ 220 KB apart).
- **cold plans** (\`bench/cold.bench.ts\`): \`plan --json\` in process (\`planOnce\`, the whole-document verdict,
  \`JSON.stringify\`) against gpt-tokenizer's own \`countTokens\` (o200k_base) of the same text, both from an empty
  merge cache, alternating. **CLI start-up**: \`toonlens --version\` and \`toonlens plan\` on a 2.4 KB corpus agent
  file spawned (to the first byte on stdout, and to exit), alternating with \`node -e 0\` and a \`node\` that only
  requires \`dist/tokenizer-o200k_base.js\` (the bundle the CLI loads) and counts the file; the anchor of the plan
  rows is the two added run by run (the goal: the CLI's own start costs at most one more bare node start).

${keep}`;
}

function main(): void {
  if (!existsSync(RESULTS_FILE)) {
    console.error(`bench/report.ts: ${RESULTS_FILE} is missing: run npm run bench first`);
    process.exit(2);
  }
  const r = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as BenchResults;
  const readmePath = join(REPO_ROOT, 'README.md');
  writeFileSync(readmePath, replaceReadmeSection(readFileSync(readmePath, 'utf8'), readmeSection(r)));
  const docPath = join(REPO_ROOT, 'docs', 'performance.md');
  const old = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';
  const at = old.indexOf(KEEP_MARKER);
  writeFileSync(docPath, performanceDoc(r, at >= 0 ? old.slice(at) : `${KEEP_MARKER}\n`));
  console.log(`Wrote README.md (performance table, ${r.rows.length} rows) and docs/performance.md from ${RESULTS_FILE} (${r.date})`);
}

if (process.argv[1] && /report\.ts$/.test(process.argv[1])) main();

/**
 * JSON figures a user waits on, through the built artifacts:
 * - the CLI: a `toonlens check` process on a large plan, next to a node process that only reads and
 *   JSON.parses the same file (both spawned, interleaved);
 * - the language server over stdio: didOpen → publishDiagnostics, next to vscode-json-language-server
 *   (npm vscode-langservers-extracted) given the same verdict schema through its settings;
 * - its peak memory with the plan open, against the file size;
 * - report code lenses: the first request after open and later requests (computed once per version);
 * - a 47 MB report: a hover on another document while the report is checked, next to the same hover on
 *   the idle server.
 * The producer's own CLI (doc2toon, Python, not on PyPI) cannot run here: its recorded outputs are the
 * input (bench/producer-plan.ts), JSON.parse and the VS Code JSON server are the anchors.
 */
import { spawnSync } from 'node:child_process';
import { buildSync } from 'esbuild';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SCHEMAS } from '../server/src/core/json/schema';
import { DATA_DIR, REPO_ROOT, type Input } from './data';
import { BenchClient, launched } from './lsp-client';
import { repeatedSampleReport as repeatedReport } from '../test/fixtures/report/helpers';
import { row, sample, type BenchRow } from './stats';

const SERVER = join(REPO_ROOT, 'dist', 'server.js');
const CLI = join(REPO_ROOT, 'bin', 'toonlens.js');
const JSON_LS = join(REPO_ROOT, 'node_modules', 'vscode-langservers-extracted', 'bin', 'vscode-json-language-server');
const MB = 1e6;
const mb = (input: Input) => `${(input.bytes / MB).toFixed(1)} MB`;

function spawnMs(args: string[]): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, args, { cwd: REPO_ROOT, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 30 });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr.toString().slice(0, 500)}`);
  return ms;
}

/** `toonlens check` process vs a node process that only parses the file, interleaved. */
export function cliRows(inputs: { input: Input; label: string }[], runs: number, log: (s: string) => void): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const { input, label } of inputs) {
    const check: number[] = [];
    const parse: number[] = [];
    const parseOnly = ['-e', 'JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"))', input.path];
    spawnMs([CLI, 'check', '--exit-zero', input.path]); // warm the page cache
    for (let i = 0; i < runs; i++) {
      parse.push(spawnMs(parseOnly));
      check.push(spawnMs([CLI, 'check', '--exit-zero', input.path]));
    }
    const c = sample(check);
    const p = sample(parse);
    log(`    ${label}: check process ${c.median.toFixed(0)} ms, JSON.parse process ${p.median.toFixed(0)} ms`);
    rows.push(row('JSON', `CLI \`check\` process, ${label} (${mb(input)}, ${input.detail})`, c, 'ms', { name: '`node` process that only reads + JSON.parses it', value: p }, { max: 3, label: '≤ 3× JSON.parse process' }));
  }
  return rows;
}

function ourServer(workspaceDir: string, env?: Record<string, string>): Promise<BenchClient> {
  return BenchClient.start({ ...launched([SERVER, '--stdio'], env), workspaceDir, settings: { toonlens: {} } });
}

/** One fresh server process for `fn`, stopped afterwards whatever happens. */
async function withOurServer<T>(workspaceDir: string, fn: (s: BenchClient) => Promise<T>): Promise<T> {
  const s = await ourServer(workspaceDir);
  try {
    return await fn(s);
  } finally {
    await s.stop();
  }
}

/** Bundles a bench server (bench/<name>.ts) into .bench-data/ once per bench run. */
const bundled = new Set<string>();
function bundle(name: string): string {
  const out = join(DATA_DIR, `${name}.js`);
  if (!bundled.has(name)) {
    buildSync({ entryPoints: [join(REPO_ROOT, 'bench', `${name}.ts`)], bundle: true, platform: 'node', target: 'node20', format: 'cjs', mainFields: ['module', 'main'], outfile: out, logLevel: 'error' });
    bundled.add(name);
  }
  return out;
}

/**
 * The bare server of bench/bare-server.ts (the transport alone): vscode-jsonrpc's reader, or with
 * `--toonlens-reader` the one ToonLens's server uses on stdio.
 */
function bareServer(workspaceDir: string, args: string[] = []): Promise<BenchClient> {
  return BenchClient.start({ ...launched([bundle('bare-server'), '--stdio', ...args]), workspaceDir, settings: {} });
}

/** bench/floor-server.ts: no language server at all (`--count-only`: not even a decode). */
function floorServer(workspaceDir: string, args: string[] = []): Promise<BenchClient> {
  return BenchClient.start({ ...launched([bundle('floor-server'), ...args]), workspaceDir, settings: {} });
}

function jsonServer(workspaceDir: string): Promise<BenchClient> {
  return BenchClient.start({
    command: process.execPath,
    args: [JSON_LS, '--stdio'],
    workspaceDir,
    settings: { json: { validate: { enable: true }, schemas: [{ fileMatch: ['*.verdict.json', '*.report.json'], schema: SCHEMAS.verdict }] } },
    initializationOptions: { provideFormatter: false },
  });
}

/** didOpen → publishDiagnostics: our server vs vscode-json-language-server, one process each, interleaved; then peak RSS. */
export async function lspDiagnosticsRows(inputs: { input: Input; label: string; expectFindings: boolean }[], runs: number, log: (s: string) => void): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-bench-'));
  try {
    for (const { input, label, expectFindings } of inputs) {
      // Ours and the anchor, then the transport-alone servers (what receiving the didOpen costs before a
      // server's own code runs): vscode-jsonrpc's reader, ToonLens's reader, and the floor below any reader.
      const servers: { key: string; start: () => Promise<BenchClient> }[] = [
        { key: 'ours', start: () => ourServer(dir) },
        { key: 'theirs', start: () => jsonServer(dir) },
        { key: 'bare', start: () => bareServer(dir) },
        { key: 'bareOurs', start: () => bareServer(dir, ['--toonlens-reader']) },
        { key: 'raw', start: () => floorServer(dir) },
        { key: 'count', start: () => floorServer(dir, ['--count-only']) },
      ];
      const clients = new Map<string, BenchClient>();
      const ms = new Map<string, number[]>(servers.map((s) => [s.key, []]));
      let findings = 0;
      try {
        for (const s of servers) clients.set(s.key, await s.start());
        for (let i = 0; i <= runs; i++) {
          for (const { key } of servers) {
            const client = clients.get(key)!;
            const uri = pathToFileURL(join(dir, `${key}-${i}.verdict.json`)).toString();
            const r = await client.openAndWait(uri, input.text);
            await client.close(uri);
            if (key === 'ours') {
              findings = r.diagnostics.length;
              if (expectFindings !== findings > 0) throw new Error(`${input.name}: ${findings} diagnostics from ToonLens`);
            }
            if (i > 0) ms.get(key)!.push(r.ms); // run 0 warms every server up
          }
        }
      } finally {
        for (const c of clients.values()) await c.stop();
      }
      const at = (key: string) => sample(ms.get(key)!);
      const theirs = { name: 'vscode-json-language-server, same schema', value: at('theirs') };
      log(`    ${label}: ToonLens ${at('ours').median.toFixed(0)} ms (${findings} diagnostics), vscode-json-language-server ${at('theirs').median.toFixed(0)} ms; transport alone: vscode-jsonrpc's reader ${at('bare').median.toFixed(0)} ms, ToonLens's reader ${at('bareOurs').median.toFixed(0)} ms, concat + toString + JSON.parse ${at('raw').median.toFixed(0)} ms, bytes only ${at('count').median.toFixed(0)} ms`);
      rows.push(row('JSON', `LSP didOpen → publishDiagnostics, ${label} (${mb(input)}, ${findings.toLocaleString('en-US')} diagnostics)`, at('ours'), 'ms', theirs, { max: 0.15, label: '≤ 0.15× vscode-json-language-server' }));
      rows.push(row('JSON', `the transport alone: a bare vscode-languageserver server that only receives the ${label} (bench/bare-server.ts)`, at('bare'), 'ms', theirs));
      rows.push(row('JSON', `the transport alone, ToonLens's stdio reader (bench/bare-server.ts --toonlens-reader), ${label}`, at('bareOurs'), 'ms', theirs));
      rows.push(row('JSON', `the floor: no language server, Buffer.concat + toString + JSON.parse (bench/floor-server.ts), ${label}`, at('raw'), 'ms', theirs));
      rows.push(row('JSON', `the floor: the client's encoding and the pipe alone, nothing decoded (bench/floor-server.ts --count-only), ${label}`, at('count'), 'ms', theirs));
    }
    // Peak memory: a fresh server per run (VmHWM is a high-water mark). "Warm": after a small plan was
    // checked (ajv and the verdict schema compiled, the check's code loaded), which is the state of a server
    // that has been in use for a minute; the cold idle figure is kept as the goal's anchor.
    const big = inputs[0]!;
    const small = readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'settings-table.verdict.json'), 'utf8');
    const idle: number[] = [];
    const warm: number[] = [];
    const peak: number[] = [];
    const memRuns = Math.min(runs, 3);
    for (let i = 0; i < memRuns; i++) {
      await withOurServer(dir, async (s) => {
        await new Promise((r) => setTimeout(r, 300));
        idle.push(s.peakRss() / MB);
        const smallUri = pathToFileURL(join(dir, `warm-${i}.verdict.json`)).toString();
        await s.openAndWait(smallUri, small);
        await s.close(smallUri);
        warm.push(s.peakRss() / MB);
        await s.openAndWait(pathToFileURL(join(dir, `mem-${i}.verdict.json`)).toString(), big.input.text);
        peak.push(s.peakRss() / MB);
      });
    }
    // The same for the bare server, with each reader: what receiving the document costs before any of ToonLens's code runs.
    const bareGrowth = async (args: string[]) => {
      const idleB: number[] = [];
      const growth: number[] = [];
      for (let i = 0; i < memRuns; i++) {
        const s = await bareServer(dir, args);
        try {
          await new Promise((r) => setTimeout(r, 300));
          idleB.push(s.peakRss() / MB);
          await s.openAndWait(pathToFileURL(join(dir, `bare-mem-${i}.verdict.json`)).toString(), big.input.text);
          growth.push(s.peakRss() / MB - idleB[i]!);
        } finally {
          await s.stop();
        }
      }
      return { idle: sample(idleB), growth: sample(growth) };
    };
    const bareStock = await bareGrowth([]);
    const bareOurs = await bareGrowth(['--toonlens-reader']);
    const size = sample([big.input.bytes / MB]);
    const idleS = sample(idle);
    const warmS = sample(warm);
    log(`    peak RSS idle ${idleS.median.toFixed(0)} MB (warm ${warmS.median.toFixed(0)} MB), with the ${big.label} open ${sample(peak).median.toFixed(0)} MB; bare server growth ${bareStock.growth.median.toFixed(0)} MB (ToonLens's reader ${bareOurs.growth.median.toFixed(0)} MB)`);
    rows.push(row('JSON', `server peak RSS (VmHWM) with the ${big.label} open`, sample(peak), 'MB', { name: 'file size', value: size }, { max: 4, label: '≤ 4× file size' }, `idle server ${idleS.median.toFixed(0)} MB`));
    rows.push(row('JSON', 'server peak RSS growth (peak − idle VmHWM) for it', sample(peak.map((p, i) => p - idle[i]!)), 'MB', { name: 'file size', value: size }, { max: 4, label: '≤ 4× file size' }));
    rows.push(row('JSON', 'server peak RSS growth from a warm server (peak − VmHWM after a small plan was checked: ajv and schemas compiled)', sample(peak.map((p, i) => p - warm[i]!)), 'MB', { name: 'file size', value: size }, undefined, `warm server ${warmS.median.toFixed(0)} MB`));
    rows.push(row('JSON', 'the transport alone: peak RSS growth of the bare server receiving it', bareStock.growth, 'MB', { name: 'file size', value: size }, undefined, `bare server idle ${bareStock.idle.median.toFixed(0)} MB`));
    rows.push(row('JSON', "the transport alone, ToonLens's stdio reader: peak RSS growth of the bare server receiving it", bareOurs.growth, 'MB', { name: 'file size', value: size }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const hoverParams = (uri: string, text: string, needle: string) => {
  const at = text.indexOf(needle) + 3;
  return { textDocument: { uri }, position: { line: text.slice(0, at).split('\n').length - 1, character: at - text.lastIndexOf('\n', at) - 1 } };
};

/** Report lenses (5 MB one line): first request after open, later requests; a 47 MB report vs a hover elsewhere. */
export async function reportLspRows(runs: number, log: (s: string) => void, hugeMB = 47): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-bench-report-'));
  cpSync(join(REPO_ROOT, 'test', 'fixtures', 'report', 'sample'), dir, { recursive: true });
  const small = readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'settings-table.verdict.json'), 'utf8');
  try {
    const text5 = repeatedReport(dir, 5 * 1024 * 1024);
    writeFileSync(join(dir, 'big.report.json'), text5);
    const first: number[] = [];
    const later: number[] = [];
    let count = 0;
    for (let i = 0; i < runs; i++) {
      await withOurServer(dir, async (s) => {
        const uri = pathToFileURL(join(dir, 'big.report.json')).toString();
        await s.open(uri, text5);
        const f = await s.timed<unknown[]>('textDocument/codeLens', { textDocument: { uri } });
        first.push(f.ms);
        count = f.result.length;
        for (let k = 0; k < 5; k++) later.push((await s.timed('textDocument/codeLens', { textDocument: { uri } })).ms);
      });
    }
    const firstS = sample(first);
    const laterS = sample(later);
    log(`    5 MB one-line report: ${count} lenses, first request ${firstS.median.toFixed(0)} ms, later ${laterS.median.toFixed(1)} ms`);
    rows.push(row('JSON', `report code lenses, first request after didOpen, ${(text5.length / MB).toFixed(1)} MB one-line report (${count.toLocaleString('en-US')} lenses)`, firstS, 'ms'));
    rows.push(row('JSON', 'report code lenses, later requests for the same version', laterS, 'ms', { name: 'first request', value: firstS }, { max: 50, label: '≤ 50 ms', on: 'value' }));

    // 47 MB: a hover on a small document while the report is checked, against the same hover when idle.
    const huge = repeatedReport(dir, hugeMB * 1024 * 1024);
    const idleHover: number[] = [];
    const busyHover: number[] = [];
    const publish: number[] = [];
    const hugeRuns = Math.min(runs, 3);
    for (let i = 0; i < hugeRuns; i++) {
      await withOurServer(dir, async (s) => {
        const smallUri = pathToFileURL(join(dir, 'small.verdict.json')).toString();
        await s.openAndWait(smallUri, small);
        const hp = hoverParams(smallUri, small, '"safe_to_auto_apply"');
        await s.timed('textDocument/hover', hp);
        idleHover.push((await s.timed('textDocument/hover', hp)).ms);
        const uri = pathToFileURL(join(dir, 'huge.report.json')).toString();
        const done = s.openAndWait(uri, huge);
        const t0 = performance.now();
        busyHover.push((await s.timed('textDocument/hover', hp)).ms);
        await done;
        publish.push(performance.now() - t0);
      });
    }
    const pub = sample(publish);
    log(`    ${(huge.length / MB).toFixed(0)} MB report: hover meanwhile ${sample(busyHover).median.toFixed(0)} ms (idle ${sample(idleHover).median.toFixed(1)} ms), its diagnostics after ${pub.median.toFixed(0)} ms`);
    rows.push(row('Server', `hover on another document while a ${(huge.length / MB).toFixed(0)} MB report is checked`, sample(busyHover), 'ms', { name: "the report's didOpen → publishDiagnostics", value: pub }, { max: 1, label: 'answered before the report is checked (< 1×)' }, `same hover on the idle server ${sample(idleHover).median.toFixed(1)} ms`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

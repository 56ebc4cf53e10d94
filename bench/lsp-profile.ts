/**
 * Where the language server spends a didOpen: runs the built server under `node --cpu-prof` (and optionally
 * `--heap-prof`), opens a bench input, waits for its diagnostics (and, for a report, asks for code lenses N
 * times), stops the server and prints the top self-time functions.
 *
 *   node --import tsx bench/lsp-profile.ts producer|plan|report [--heap] [--lenses N]
 */
import { mkdirSync, readdirSync, rmSync, cpSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DATA_DIR, REPO_ROOT, plan15MB, producerPlan14MB } from './data';
import { BenchClient, launched } from './lsp-client';
import { summarize } from './cpuprofile';
import { repeatedSampleReport } from '../test/fixtures/report/helpers';

const what = process.argv[2] ?? 'producer';
const heap = process.argv.includes('--heap');
const li = process.argv.indexOf('--lenses');
const lensRuns = li >= 0 ? Number(process.argv[li + 1]) : 5;
const out = join(DATA_DIR, 'lsp-profile');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

void (async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-lsp-profile-'));
  let text: string;
  let name: string;
  if (what === 'report') {
    cpSync(join(REPO_ROOT, 'test', 'fixtures', 'report', 'sample'), dir, { recursive: true });
    text = repeatedSampleReport(dir, 5 * 1024 * 1024);
    writeFileSync(join(dir, 'big.report.json'), text);
    name = 'big.report.json';
  } else {
    text = (what === 'plan' ? plan15MB() : producerPlan14MB()).text;
    name = 'x.verdict.json';
  }
  const flags = ['--cpu-prof', '--cpu-prof-dir', out, ...(heap ? ['--heap-prof', '--heap-prof-dir', out] : [])];
  const s = await BenchClient.start({ ...launched([...flags, join(REPO_ROOT, 'dist', 'server.js'), '--stdio']), workspaceDir: dir, settings: { toonlens: {} } });
  // A warm-up open (schema compilation, first-use code) first, as the bench does; then the measured one.
  const warm = pathToFileURL(join(dir, `warm-${name}`)).toString();
  await s.openAndWait(warm, text);
  await s.close(warm);
  const uri = pathToFileURL(join(dir, name)).toString();
  const r = await s.openAndWait(uri, text);
  console.log(`didOpen → publishDiagnostics ${r.ms.toFixed(0)} ms, ${r.diagnostics.length} diagnostics; VmHWM ${(s.peakRss() / 1e6).toFixed(0)} MB`);
  if (what === 'report') {
    for (let i = 0; i < lensRuns; i++) {
      const t = await s.timed<unknown[]>('textDocument/codeLens', { textDocument: { uri } });
      console.log(`codeLens #${i + 1}: ${t.ms.toFixed(0)} ms, ${t.result.length} lenses, ${JSON.stringify(t.result).length} chars`);
    }
  }
  await s.stop();
  rmSync(dir, { recursive: true, force: true });
  for (const f of readdirSync(out).filter((f) => f.endsWith('.cpuprofile'))) console.log(`\n${f}\n${summarize(join(out, f), 30)}`);
})();

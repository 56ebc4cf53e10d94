/**
 * Server: start to first published diagnostics on a 1 MB report (spawn dist/server.js over stdio with the
 * test harness's real JSON-RPC client, initialize, didOpen, publishDiagnostics), and peak RSS (VmHWM) of
 * the server process with the 15 MB plan open. Needs `npm run build` first.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { LspHarness, SERVER_PATH } from '../test/lsp/harness';
import type { Input } from './data';
import { sample, type Row } from './stats';

function vmHWM(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(status);
  if (!m) throw new Error('no VmHWM in /proc/<pid>/status');
  return Number(m[1]) * 1024;
}

export async function serverRows(report: Input, plan: Input, runs: number, log: (s: string) => void): Promise<Row[]> {
  if (!existsSync(SERVER_PATH)) throw new Error(`${SERVER_PATH} is missing: run npm run build first`);
  const bare: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    bare.push(performance.now() - t0);
  }
  const nodeStart = sample(bare);
  log(`    bare node start      median ${nodeStart.median.toFixed(1)} ms`);

  const first: number[] = [];
  const init: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const lsp = await LspHarness.start();
    const t1 = performance.now();
    try {
      const uri = lsp.open('big.report.json', report.text);
      await lsp.waitForDiagnostics(uri, () => true, 60_000);
      first.push(performance.now() - t0);
      init.push(t1 - t0);
      if (i === 0) log(`    first publish: ${lsp.latestDiagnostics(uri)!.length} diagnostics (the report's targets are not on disk)`);
    } finally {
      await lsp.shutdown().catch(() => lsp.kill());
    }
  }
  const startToDiag = sample(first);
  log(`    spawn → diagnostics  median ${startToDiag.median.toFixed(1)} ms (initialize alone ${sample(init).median.toFixed(1)} ms)`);

  const idle: number[] = [];
  const peaks: number[] = [];
  for (let i = 0; i < runs; i++) {
    const lsp = await LspHarness.start();
    try {
      await lsp.sleep(200);
      idle.push(vmHWM(lsp.process.pid!));
      const uri = lsp.open('big.verdict.json', plan.text);
      const diags = await lsp.waitForDiagnostics(uri, () => true, 120_000);
      if (i === 0) log(`    15 MB plan published ${diags.length} diagnostics`);
      peaks.push(vmHWM(lsp.process.pid!));
    } finally {
      await lsp.shutdown(30_000).catch(() => lsp.kill());
    }
  }
  const MB = 1e6;
  const peak = sample(peaks.map((b) => b / MB));
  const idleS = sample(idle.map((b) => b / MB));
  const growth = sample(peaks.map((b, i) => (b - idle[i]!) / MB));
  const size = sample([plan.bytes / MB]);
  log(`    VmHWM idle ${idleS.median.toFixed(0)} MB, with the plan open ${peak.median.toFixed(0)} MB`);
  return [
    { figure: `server: spawn → first publishDiagnostics, ${(report.bytes / 1e6).toFixed(1)} MB report (${report.detail})`, value: startToDiag, unit: 'ms', anchor: { name: 'bare `node -e 0`', value: nodeStart, unit: 'ms' } },
    { figure: `server peak RSS (VmHWM) with the ${(plan.bytes / 1e6).toFixed(1)} MB plan open`, value: peak, unit: 'MB', anchor: { name: 'file size', value: size, unit: 'MB' }, target: { max: 4, label: '≤ 4× file size' }, note: `idle server ${idleS.median.toFixed(0)} MB` },
    { figure: 'server RSS growth (peak VmHWM − idle VmHWM) for that plan', value: growth, unit: 'MB', anchor: { name: 'file size', value: size, unit: 'MB' }, target: { max: 4, label: '≤ 4× file size' } },
  ];
}

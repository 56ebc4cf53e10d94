/**
 * Markdown through the built server (dist/server.js over stdio, the test harness's JSON-RPC client):
 * - didOpen → first code lenses (cold), the first one-character edit → lenses, and later edits → lenses,
 *   at 1, 4 and 8 MB; each edit figure next to the cold figure of the same document and run;
 * - the server's RSS after open and after the edits (flat across edits; ≤ 4× the file at 8 MB);
 * - a hover on a small document while a 40 MB document is being measured, next to the same hover
 *   with nothing else open.
 * Rows have the shape C2's table generator reads: { figure, median, min, max, anchor, anchorMedian, ratio, goal }.
 *
 *   npm run build && node --import tsx bench/markdown-lsp.bench.ts [--sizes 1,4,8] [--edits 5] [--no-hover]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CodeLensRequest, HoverRequest } from 'vscode-languageserver-protocol/node';
import { LspHarness } from '../test/lsp/harness';
import { markdownDocument } from './markdown-gen';
import { sample, type Sample } from './stats';

export interface MarkdownLspRow {
  figure: string;
  unit: 'ms' | 'MB';
  median: number;
  min: number;
  max: number;
  /** What the figure is compared with, measured in the same run. */
  anchor: string;
  anchorMedian: number;
  /** median / anchorMedian. */
  ratio: number;
  /** The goal as text, and whether this run met it. */
  goal: string;
  met: boolean;
}

function row(figure: string, unit: MarkdownLspRow['unit'], s: Sample, anchor: string, a: number, goal: string, met: (ratio: number, s: Sample) => boolean): MarkdownLspRow {
  const ratio = s.median / a;
  return { figure, unit, median: s.median, min: s.min, max: s.max, anchor, anchorMedian: a, ratio, goal, met: met(ratio, s) };
}

function vmRSS(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? (Number(m[1]) * 1024) / 1e6 : NaN;
}

const lensesOf = (lsp: LspHarness, uri: string) => lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } });

/** Offsets just inside the first body line of `count` sections spread over the middle of the document. */
function editPoints(text: string, count: number): number[] {
  const heads: number[] = [];
  for (let i = text.indexOf('\n## '); i >= 0; i = text.indexOf('\n## ', i + 1)) heads.push(text.indexOf('\n\n', i + 1) + 2);
  const from = Math.floor(heads.length / 3);
  return Array.from({ length: count }, (_, i) => heads[from + i * 7]! + 1);
}

/** Cold, first-edit and later-edit lenses plus RSS, for one document size. */
export async function editRows(mb: number, edits: number, log: (s: string) => void = () => undefined): Promise<MarkdownLspRow[]> {
  const text = markdownDocument(7, 1500 * mb, mb * 1_000_000);
  const lsp = await LspHarness.start();
  try {
    const pid = lsp.process.pid!;
    const idle = vmRSS(pid);
    let t0 = performance.now();
    const uri = lsp.open('doc.md', text);
    const n = (await lensesOf(lsp, uri))?.length ?? 0;
    const cold = performance.now() - t0;
    const afterOpen = vmRSS(pid);
    log(`  ${mb} MB: cold ${cold.toFixed(0)} ms (${n} lenses), RSS idle ${idle.toFixed(0)} MB → after open ${afterOpen.toFixed(0)} MB`);
    let current = text;
    const times: number[] = [];
    let shift = 0;
    for (const p of editPoints(text, edits + 1)) {
      const at = p + shift;
      const before = current.slice(0, at);
      const line = before.split('\n').length - 1;
      const character = at - (before.lastIndexOf('\n') + 1);
      current = before + 'x' + current.slice(at);
      shift++;
      t0 = performance.now();
      lsp.change(uri, [{ range: { start: { line, character }, end: { line, character } }, text: 'x' }]);
      const lenses = await lensesOf(lsp, uri);
      times.push(performance.now() - t0);
      if (lenses?.length !== n) throw new Error(`a one-character edit changed the lens count (${n} → ${lenses?.length})`);
    }
    const afterEdits = vmRSS(pid);
    log(`    edits → lenses ${times.map((t) => t.toFixed(0)).join(', ')} ms; RSS after edits ${afterEdits.toFixed(0)} MB`);
    const coldS = sample([cold]);
    const first = sample([times[0]!]);
    const later = sample(times.slice(1));
    const fileMB = Buffer.byteLength(text) / 1e6;
    const size = `${fileMB.toFixed(1)} MB markdown`;
    return [
      row(`LSP didOpen → code lenses, ${size}`, 'ms', coldS, 'itself', cold, '—', () => true),
      row(`LSP first one-character edit → lenses, ${size}`, 'ms', first, `cold lenses`, cold, '≤ 0.05× cold', (r) => r <= 0.05),
      row(`LSP later edits → lenses, ${size}`, 'ms', later, `cold lenses`, cold, '≤ 0.05× cold', (r) => r <= 0.05),
      row(`server RSS after ${edits + 1} edits, ${size}`, 'MB', sample([afterEdits]), 'RSS after open', afterOpen, 'flat (≤ 1.1×)', (r) => r <= 1.1),
      row(`server RSS growth (after edits − idle), ${size}`, 'MB', sample([afterEdits - idle]), 'file size', fileMB, '≤ 4× file', (r) => r <= 4),
    ];
  } finally {
    lsp.kill();
    await lsp.exited;
  }
}

const SMALL = '# Small\n\n- key: value\n- other: thing\n- third: item\n';

/** A hover on a small document while a 40 MB document is being measured, against the same hover with nothing else open. */
export async function hoverDuringAnalysisRows(runs: number, log: (s: string) => void = () => undefined): Promise<MarkdownLspRow[]> {
  const hoverOnce = async (lsp: LspHarness, name: string) => {
    const uri = lsp.open(name, SMALL);
    const t0 = performance.now();
    const h = await lsp.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 3 } });
    if (!h) throw new Error('no hover on the small document');
    return performance.now() - t0;
  };
  const idle: number[] = [];
  const busy: number[] = [];
  const big = markdownDocument(11, 150_000, 40_000_000);
  for (let i = 0; i < runs; i++) {
    const lsp = await LspHarness.start();
    try {
      idle.push(await hoverOnce(lsp, `idle-${i}.md`));
      const uri = lsp.open('big.md', big);
      void lensesOf(lsp, uri).catch(() => undefined);
      // Give the server the document and a turn into its analysis (a first lens request is waiting on it).
      await lsp.waitFor(() => (lsp.logs.length >= 1 ? true : undefined), 10_000, () => 'ready log');
      // Until the analysis has run long enough to report $/progress: the hover below lands in the middle of it.
      await lsp.waitFor(() => (lsp.progress.some((p) => p.value.kind === 'begin') ? true : undefined), 60_000, () => 'the analysis $/progress');
      busy.push(await hoverOnce(lsp, `small-${i}.md`));
      log(`  hover: idle ${idle[i]!.toFixed(0)} ms, during 40 MB analysis ${busy[i]!.toFixed(0)} ms`);
    } finally {
      lsp.kill();
      await lsp.exited;
    }
  }
  const b = sample(busy);
  const a = sample(idle);
  return [row(`hover on a small document while a ${(Buffer.byteLength(big) / 1e6).toFixed(0)} MB markdown document is measured`, 'ms', b, 'the same hover, server idle', a.median, '≤ 2 s', (_r, s) => s.median <= 2000)];
}

export async function markdownLspRows(opts: { sizes?: number[]; edits?: number; hoverRuns?: number; log?: (s: string) => void } = {}): Promise<MarkdownLspRow[]> {
  const rows: MarkdownLspRow[] = [];
  for (const mb of opts.sizes ?? [1, 4, 8]) rows.push(...(await editRows(mb, opts.edits ?? 5, opts.log)));
  if ((opts.hoverRuns ?? 3) > 0) rows.push(...(await hoverDuringAnalysisRows(opts.hoverRuns ?? 3, opts.log)));
  return rows;
}

function table(rows: MarkdownLspRow[]): string {
  const f = (x: number, u: string) => `${x >= 100 ? x.toFixed(0) : x.toFixed(1)} ${u}`;
  return [
    '| figure | median | min – max | anchor (median) | ratio | goal | met? |',
    '|---|---:|---:|---|---:|---|:---:|',
    ...rows.map((r) => `| ${r.figure} | ${f(r.median, r.unit)} | ${f(r.min, r.unit)} – ${f(r.max, r.unit)} | ${r.anchor}: ${f(r.anchorMedian, r.anchor === 'file size' ? 'MB' : r.unit)} | ${r.ratio < 0.1 ? r.ratio.toFixed(3) : r.ratio.toFixed(2)}× | ${r.goal} | ${r.goal === '—' ? '—' : r.met ? 'yes' : '**no**'} |`),
  ].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { sizes: { type: 'string' }, edits: { type: 'string' }, 'no-hover': { type: 'boolean' }, 'hover-runs': { type: 'string' } } });
  const rows = await markdownLspRows({
    sizes: values.sizes ? values.sizes.split(',').map(Number) : undefined,
    edits: values.edits ? Number(values.edits) : undefined,
    hoverRuns: values['no-hover'] ? 0 : values['hover-runs'] ? Number(values['hover-runs']) : undefined,
    log: (s) => console.error(s),
  });
  console.log(table(rows));
}

if (process.argv[1]?.endsWith('markdown-lsp.bench.ts')) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

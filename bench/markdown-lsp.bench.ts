/**
 * Markdown through the built server (dist/server.js over stdio, the test harness's JSON-RPC client):
 * - didOpen → first code lenses (cold, a fresh server), next to markdown-it's plain parse of the same text
 *   in-process; the first one-character edit after open → lenses, and later edits → lenses, at 1, 4 and 8 MB,
 *   each edit figure next to the cold figure of the same size; the same rows for ~4.2 MB of real markdown (the
 *   producer's corpus inputs repeated, edited at the end of paragraph lines);
 * - the server's RSS after open and after the edits (flat across edits; ≤ 4× the file), on servers of their own
 *   (the timed servers above are not paused for it): each read once the server is idle (every debounce,
 *   analysis and diagnostics run done, and the idle collection of node/idleGc.ts with it) and V8 has had
 *   {@link RSS_SETTLE_MS} to hand the freed pages back; the growth is given against the fresh server (idle)
 *   and against the same server after a small markdown document was opened (warm: tokenizer, markdown-it
 *   and the JIT loaded), which is what this document costs;
 * - a hover on a small document while a 40 MB document is being measured, next to the same hover
 *   with nothing else open.
 * Rows are bench/stats.ts BenchRows (what bench/index.ts and the README table generator read). bench/index.ts
 * calls every `*Rows` export with `{ runs, log }`: `markdownLspRows` is the only one.
 *
 *   npm run build && node --import tsx bench/markdown-lsp.bench.ts [--runs 3] [--sizes 1,4,8] [--no-corpus] [--edits 3] [--no-hover]
 *   (--sizes '' leaves the generated documents out)
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import MarkdownIt from 'markdown-it';
import { CodeLensRequest, CodeLensResolveRequest, ExecuteCommandRequest, HoverRequest } from 'vscode-languageserver-protocol/node';
import { setTimeout as pause } from 'node:timers/promises';
import { IDLE_COMMAND } from '../server/src/testing/hooks';
import { AGENT_CONTEXT_COMMAND } from '../server/src/protocol/commands';
import { LspHarness } from '../test/lsp/harness';
import { corpusMarkdownDocument, markdownDocument, paragraphEditPoints, type EditPoints } from './markdown-gen';
import { convertSectionEdit, planDocument } from '../server/src/core/markdown/engine';
import { markdownTable, row, sample, time, type BenchRow } from './stats';

function vmRSS(pid: number): number {
  const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? (Number(m[1]) * 1024) / 1e6 : NaN;
}

/** Lines of a screen: the lenses VS Code resolves after an answer are those of the visible lines. */
const SCREEN_LINES = 60;

/**
 * The document's code lenses as an editor shows them: the answer, then `codeLens/resolve` for every unresolved
 * lens on the screen around `line` (VS Code resolves the visible ones; the server sends lenses unresolved
 * to a client that says it resolves them, when there are many). Resolves with the number of markdown lenses.
 */
export async function lensesOf(lsp: LspHarness, uri: string, line = 0): Promise<number> {
  const lenses = (await lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } })) ?? [];
  const from = Math.max(0, line - SCREEN_LINES / 2);
  const shown = lenses.filter((l) => !l.command && l.range.start.line >= from && l.range.start.line < from + SCREEN_LINES);
  const resolved = await Promise.all(shown.map((l) => lsp.connection.sendRequest(CodeLensResolveRequest.type, l)));
  if (resolved.some((l) => !l.command?.title)) throw new Error('a shown lens resolved without a title');
  // The agent-context lens of a large file arrives with a later refresh (docs/agent-context.md): not counted.
  return lenses.filter((l) => l.command?.command !== AGENT_CONTEXT_COMMAND).length;
}

/** Offsets just inside the first body line of `count` sections spread over the middle of the document. */
const sectionEditPoints: EditPoints = (text, count) => {
  const heads: number[] = [];
  for (let i = text.indexOf('\n## '); i >= 0; i = text.indexOf('\n## ', i + 1)) heads.push(text.indexOf('\n\n', i + 1) + 2);
  const from = Math.floor(heads.length / 3);
  return Array.from({ length: count }, (_, i) => heads[from + i * 7]! + 1);
};

/** One server's figures for one document: cold lenses, the first edit, later edits. */
interface EditRun {
  cold: number;
  first: number;
  later: number[];
}

/** One memory server's figures (MB), each read when the server is idle. */
interface MemoryRun {
  idle: number;
  warm: number;
  afterOpen: number;
  afterEdits: number;
  /** The server's idle collections (node/idleGc.ts): how many, and their wall time (ms) in all. */
  gc: { collections: number; ms: number } | null;
}

export const SMALL = '# Small\n\n- key: value\n- other: thing\n- third: item\n';

/** After the server reports idle, this long for V8's background threads to return freed pages to the OS. */
export const RSS_SETTLE_MS = 200;

/** The server's RSS once it is idle (its idle collection included) and settled, with its idle-collector figures. */
async function idleRSS(lsp: LspHarness): Promise<{ rss: number; gc: MemoryRun['gc'] }> {
  const r = (await lsp.connection.sendRequest(ExecuteCommandRequest.type, { command: IDLE_COMMAND, arguments: [] })) as { gc?: MemoryRun['gc'] } | null;
  await pause(RSS_SETTLE_MS);
  return { rss: vmRSS(lsp.process.pid!), gc: r?.gc ?? null };
}

/** `1 + later` one-character edits of the open document, each → lenses; their times (ms). */
export async function editLenses(lsp: LspHarness, uri: string, text: string, later: number, n: number, points: EditPoints = sectionEditPoints): Promise<number[]> {
  let current = text;
  const times: number[] = [];
  let shift = 0;
  for (const p of points(text, later + 1)) {
    const at = p + shift;
    const before = current.slice(0, at);
    const line = before.split('\n').length - 1;
    const character = at - (before.lastIndexOf('\n') + 1);
    current = before + 'x' + current.slice(at);
    shift++;
    const t0 = performance.now();
    lsp.change(uri, [{ range: { start: { line, character }, end: { line, character } }, text: 'x' }]);
    const count = await lensesOf(lsp, uri, line);
    times.push(performance.now() - t0);
    if (count !== n) throw new Error(`a one-character edit changed the lens count (${n} → ${count})`);
  }
  return times;
}

/** Opens the document in a fresh server: didOpen → lenses (cold), then `1 + later` one-character edits, each → lenses. */
async function editRun(text: string, later: number, points: EditPoints): Promise<EditRun> {
  const lsp = await LspHarness.start({ resolvesLenses: true, settings: { codeLens: { sections: 'all' } } });
  try {
    const t0 = performance.now();
    const uri = lsp.open('AGENTS.md', text);
    const n = await lensesOf(lsp, uri);
    const cold = performance.now() - t0;
    const times = await editLenses(lsp, uri, text, later, n, points);
    return { cold, first: times[0]!, later: times.slice(1) };
  } finally {
    lsp.kill();
    await lsp.exited;
  }
}

/**
 * A fresh server's RSS: idle; warm (a small markdown document opened and its lenses answered); with the
 * document open (its lenses answered); after the same `1 + later` edits as the timed runs. Each read idle.
 */
async function memoryRun(text: string, later: number, points: EditPoints): Promise<MemoryRun> {
  const lsp = await LspHarness.start({ resolvesLenses: true, settings: { codeLens: { sections: 'all' } } });
  try {
    const idle = (await idleRSS(lsp)).rss;
    const small = lsp.open('warm.md', SMALL);
    await lensesOf(lsp, small);
    const warm = (await idleRSS(lsp)).rss;
    const uri = lsp.open('AGENTS.md', text);
    const n = await lensesOf(lsp, uri);
    const afterOpen = (await idleRSS(lsp)).rss;
    await editLenses(lsp, uri, text, later, n, points);
    const after = await idleRSS(lsp);
    return { idle, warm, afterOpen, afterEdits: after.rss, gc: after.gc };
  } finally {
    lsp.kill();
    await lsp.exited;
  }
}

/** A document the markdown rows are measured on. */
export interface BenchDocument {
  /** Its name in the log. */
  key: string;
  text: string;
  /** What the rows call it, after its size ("4.2 MB markdown"). */
  kind: string;
  points: EditPoints;
}

/** The generated document of about `mb` MB (bench/markdown-gen.ts, seed 7, 1,500 sections a MB). */
export const generatedDocument = (mb: number): BenchDocument => ({ key: `${mb} MB`, text: markdownDocument(7, 1500 * mb, mb * 1_000_000), kind: 'markdown', points: sectionEditPoints });

/** About 4.2 MB of real markdown: the producer's inputs repeated (bench/markdown-gen.ts corpusMarkdownDocument). */
export const corpusDocument = (): BenchDocument => ({ key: 'corpus 4 MB', text: corpusMarkdownDocument(4_100_000), kind: 'real markdown (the producer corpus repeated)', points: paragraphEditPoints });

/**
 * The same real markdown after a user's work: every other section that converts is converted to TOON (the
 * ```toon fence Convert writes, engine's convertSectionEdit) and every tenth heading has an inline disable
 * comment above it — what lenses, fences and diagnostics read per slice instead of parsing the whole text.
 */
export function convertedCorpusDocument(): BenchDocument {
  let text = corpusMarkdownDocument(4_100_000);
  const plan = planDocument(text);
  const sections = plan.sections.filter((s) => s.slice.kind === 'section');
  const converting = sections.filter((s) => s.action === 'convert' && s.candidate).filter((_, i) => i % 2 === 0);
  const commented = new Set(sections.filter((_, i) => i % 10 === 5).map((s) => s.slice.charStart));
  // In document order, applied in one pass (edits do not overlap: a comment goes before a heading, a conversion after it).
  const edits = [
    ...converting.map((s) => convertSectionEdit(text, s.slice, s.candidate!)),
    ...[...commented].map((at) => ({ start: at, end: at, newText: '<!-- toonlens-disable-next-line toon/long-section -->\n' })),
  ].sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let at = 0;
  for (const e of edits) {
    parts.push(text.slice(at, e.start), e.newText);
    at = e.end;
  }
  parts.push(text.slice(at));
  text = parts.join('');
  if (converting.length < 20) throw new Error(`only ${converting.length} sections converted`);
  return { key: 'corpus 4 MB converted', text, kind: `real markdown, ${converting.length} sections converted to TOON and ${commented.size} disable comments`, points: paragraphEditPoints };
}

/**
 * Cold, first-edit and later-edit lenses for one document over `runs` fresh servers (medians over the runs;
 * later edits pooled), then RSS over min(runs, 3) more.
 */
async function editRows(doc: BenchDocument, runs: number, later: number, log: (s: string) => void, memory = true): Promise<BenchRow[]> {
  const { text, key, points } = doc;
  const fileMB = Buffer.byteLength(text) / 1e6;
  const size = `${fileMB.toFixed(1)} MB ${doc.kind}`;
  const md = new MarkdownIt();
  const parse = await time(() => md.parse(text, {}), Math.min(runs, 3));
  const rs: EditRun[] = [];
  for (let r = 0; r < runs; r++) {
    const x = await editRun(text, later, points);
    rs.push(x);
    const edits = [x.first, ...x.later].map((t) => t.toFixed(0)).join(', ');
    log(`  ${key} run ${r + 1}: cold ${x.cold.toFixed(0)} ms (markdown-it ${parse.median.toFixed(0)} ms); edits → lenses ${edits} ms`);
  }
  const ms: MemoryRun[] = [];
  for (let r = 0; r < (memory ? Math.min(runs, 3) : 0); r++) {
    const x = await memoryRun(text, later, points);
    ms.push(x);
    const gc = x.gc ? `; idle collections ${x.gc.collections}, ${x.gc.ms.toFixed(0)} ms in all` : '';
    log(`  ${key} memory run ${r + 1}: RSS idle ${x.idle.toFixed(0)} → warm ${x.warm.toFixed(0)} → open ${x.afterOpen.toFixed(0)} → after edits ${x.afterEdits.toFixed(0)} MB${gc}`);
  }
  const cold = sample(rs.map((x) => x.cold));
  const S = 'Markdown';
  const timing = [
    row(S, `LSP didOpen → code lenses (cold, fresh server), ${size}`, cold, 'ms', { name: 'markdown-it parse in-process', value: parse }),
    row(S, `LSP first one-character edit after open → lenses, ${size}`, sample(rs.map((x) => x.first)), 'ms', { name: 'LSP cold lenses', value: cold }, { max: 0.05, label: '≤ 0.05× cold' }),
    row(S, `LSP later one-character edits → lenses, ${size}`, sample(rs.flatMap((x) => x.later)), 'ms', { name: 'LSP cold lenses', value: cold }, { max: 0.05, label: '≤ 0.05× cold' }),
  ];
  if (!memory) return timing;
  return [
    ...timing,
    row(S, `server RSS after ${later + 1} edits, ${size}`, sample(ms.map((x) => x.afterEdits)), 'MB', { name: 'RSS after open', value: sample(ms.map((x) => x.afterOpen)) }, { max: 1.1, label: 'flat (≤ 1.1×)' }),
    row(S, `server RSS growth (after edits − idle), ${size}`, sample(ms.map((x) => x.afterEdits - x.idle)), 'MB', { name: 'file size', value: sample([fileMB]) }, { max: 4, label: '≤ 4× file' }),
    row(S, `server RSS growth (after edits − warm server: a small markdown document open), ${size}`, sample(ms.map((x) => x.afterEdits - x.warm)), 'MB', { name: 'file size', value: sample([fileMB]) }, { max: 4, label: '≤ 4× file' }),
  ];
}


/**
 * A hover on a small document while a 40 MB document is being measured (its first lens request waiting on
 * the analysis, which has run long enough to report `$/progress`), against the same hover on the idle server
 * (after one warm-up hover: the busy one also comes after it); then that document's code lenses, still during
 * the analysis (they must arrive: a run without them throws). Goal: the hover within 2 s.
 */
async function hoverDuringAnalysis(runs: number, log: (s: string) => void): Promise<BenchRow[]> {
  const hoverOnce = async (lsp: LspHarness, uri: string) => {
    const t0 = performance.now();
    const h = await lsp.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 3 } });
    if (!h) throw new Error('no hover on the small document');
    return performance.now() - t0;
  };
  const lensesOnce = async (lsp: LspHarness, uri: string) => {
    const t0 = performance.now();
    const lenses = await lensesOf(lsp, uri);
    if (lenses < 2) throw new Error(`the small document got ${lenses} lenses (its plan and section lenses expected)`);
    return performance.now() - t0;
  };
  const idle: number[] = [];
  const busy: number[] = [];
  const idleLenses: number[] = [];
  const busyLenses: number[] = [];
  const big = markdownDocument(11, 150_000, 40_000_000);
  for (let i = 0; i < runs; i++) {
    // Every section's lens, not only those where converting helps: the small document's lenses must arrive.
    const lsp = await LspHarness.start({ settings: { codeLens: { sections: 'all' } } });
    try {
      await hoverOnce(lsp, lsp.open(`warm-${i}.md`, SMALL)); // a server's first request loads settings and the tokenizer
      const idleUri = lsp.open(`idle-${i}.md`, SMALL);
      idle.push(await hoverOnce(lsp, idleUri));
      idleLenses.push(await lensesOnce(lsp, idleUri));
      const uri = lsp.open('big/AGENTS.md', big);
      void lensesOf(lsp, uri).catch(() => undefined);
      // Until the analysis has run long enough to report $/progress: the hover below lands in the middle of it.
      await lsp.waitFor(() => (lsp.progress.some((p) => p.value.kind === 'begin') ? true : undefined), 120_000, () => 'the analysis $/progress');
      const small = lsp.open(`small-${i}.md`, SMALL);
      busy.push(await hoverOnce(lsp, small));
      busyLenses.push(await lensesOnce(lsp, small));
      const running = !lsp.progress.some((p) => p.value.kind === 'end');
      log(`  hover: idle ${idle[i]!.toFixed(0)} ms, during 40 MB analysis ${busy[i]!.toFixed(0)} ms; then its lenses ${busyLenses[i]!.toFixed(0)} ms (idle ${idleLenses[i]!.toFixed(0)} ms)${running ? ', the analysis still running' : ''}`);
    } finally {
      lsp.kill();
      await lsp.exited;
    }
  }
  const mb = (Buffer.byteLength(big) / 1e6).toFixed(0);
  return [
    row('Markdown', `hover on a small document while a ${mb} MB markdown document is measured`, sample(busy), 'ms', { name: 'the same hover, server idle', value: sample(idle) }, { max: 2000, label: '≤ 2 s', on: 'value' }),
    row('Markdown', `then that document's code lenses, the ${mb} MB analysis still running`, sample(busyLenses), 'ms', { name: 'the same lenses, server idle', value: sample(idleLenses) }),
  ];
}

/**
 * Every markdown LSP row: `runs` fresh servers per size (each: cold, then 1 + `edits` edits), then the
 * hover figure over min(runs, 3) servers. The only `*Rows` export (bench/index.ts calls each with `{ runs, log }`).
 */
export async function markdownLspRows(opts: { runs?: number; sizes?: number[]; corpus?: boolean; edits?: number; hoverRuns?: number; log?: (s: string) => void } = {}): Promise<BenchRow[]> {
  const log = opts.log ?? (() => undefined);
  const runs = Math.max(1, opts.runs ?? 3);
  const t0 = performance.now();
  const rows: BenchRow[] = [];
  for (const mb of opts.sizes ?? [1, 4, 8]) rows.push(...(await editRows(generatedDocument(mb), runs, opts.edits ?? 3, log)));
  if (opts.corpus ?? true) {
    rows.push(...(await editRows(corpusDocument(), runs, opts.edits ?? 3, log)));
    rows.push(...(await editRows(convertedCorpusDocument(), runs, opts.edits ?? 3, log, false)));
  }
  const hoverRuns = opts.hoverRuns ?? Math.min(runs, 3);
  if (hoverRuns > 0) rows.push(...(await hoverDuringAnalysis(hoverRuns, log)));
  log(`  (markdown LSP rows: ${((performance.now() - t0) / 1000).toFixed(0)} s)`);
  return rows;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { runs: { type: 'string' }, sizes: { type: 'string' }, edits: { type: 'string' }, 'no-hover': { type: 'boolean' }, 'no-corpus': { type: 'boolean' }, 'hover-runs': { type: 'string' } } });
  const rows = await markdownLspRows({
    runs: values.runs ? Number(values.runs) : undefined,
    sizes: values.sizes !== undefined ? values.sizes.split(',').filter(Boolean).map(Number) : undefined,
    corpus: !values['no-corpus'],
    edits: values.edits ? Number(values.edits) : undefined,
    hoverRuns: values['no-hover'] ? 0 : values['hover-runs'] ? Number(values['hover-runs']) : undefined,
    log: (s) => console.error(s),
  });
  console.log(markdownTable(rows));
}

if (process.argv[1]?.endsWith('markdown-lsp.bench.ts')) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

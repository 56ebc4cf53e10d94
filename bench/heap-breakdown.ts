/**
 * Where a markdown document's memory goes in the server: the built server (dist/server.js, started as users
 * run it: server/src/protocol/launch.ts, through the test harness) with `--heapsnapshot-signal`, warmed with a small markdown document, then the
 * bench document of `--mb` megabytes (bench/markdown-gen.ts, seed 7, as bench/markdown-lsp.bench.ts) opened and
 * edited `1 + --edits` times, each time to its lenses (read idle after the open too, as the bench does). Read idle (the test-only idle command: every analysis,
 * diagnostics run and idle collection done) before and after, it prints
 * - the process's figures: RSS and its anonymous part and the server's CPU time (/proc), V8's heap committed / in use per space,
 *   external and array buffers (the idle command's answer), and what RSS holds beyond V8's committed heap,
 *   also once the document is closed again;
 * - from a heap snapshot at each point, the growth: self size by type/constructor (after − before), the new
 *   strings by size bucket and the largest of them with their retainers, and the top retainer paths (edge
 *   names, from the nearest owning class) of every object the second snapshot has that the first had not.
 *
 *   npm run bench:heap -- [--mb 4] [--corpus] [--edits 3] [--top 25] [--no-snapshots] [--keep]
 *
 * `--corpus` measures real markdown instead of the generated document: corpusMarkdownDocument(4_100_000) of
 * bench/markdown-gen.ts (the producer's 21 corpus inputs repeated, headings numbered), the document of the
 * bench's real-markdown row (`--mb` is then ignored).
 *
 * Snapshots go to .bench-data/heap/ (git-ignored) and are removed after the analysis unless `--keep`.
 * Taking a snapshot leaves the server's RSS hundreds of MB higher (the snapshot generator's own memory), so the
 * process figures come from a server of their own that takes none; a second server, the same steps, takes the
 * snapshots.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as pause } from 'node:timers/promises';
import { ExecuteCommandRequest } from 'vscode-languageserver-protocol/node';
import type { IdleAnswer } from '../server/src/lsp/idle';
import { IDLE_COMMAND, PING_COMMAND } from '../server/src/testing/hooks';
import { LspHarness } from '../test/lsp/harness';
import { DATA_DIR } from './data';
import type { EditPoints } from './markdown-gen';
import { corpusDocument, editLenses, generatedDocument, lensesOf, RSS_SETTLE_MS, SMALL } from './markdown-lsp.bench';
import { SERVER_ENV, SERVER_EXEC_ARGV } from '../server/src/protocol/launch';
import { isString, nodeLabel, readHeapSnapshot, retainerPath, retainerTree, type HeapSnapshot } from './heapsnapshot';

const MB = 1e6;
const fmt = (bytes: number, digits = 1) => `${(bytes / MB).toFixed(digits)} MB`;
const signed = (bytes: number) => `${bytes >= 0 ? '+' : '−'}${(Math.abs(bytes) / MB).toFixed(2)}`;

/** What the process holds at one point, read idle. */
interface Figures {
  rss: number;
  /** Anonymous memory in RSS (/proc/<pid>/smaps_rollup). */
  anon: number;
  /** The server's CPU time so far, user + system (ms, /proc/<pid>/stat). */
  cpuMs: number;
  answer: IdleAnswer;
}

function procKB(file: string, key: string): number {
  const m = new RegExp(`^${key}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(file, 'utf8'));
  return m ? Number(m[1]) * 1024 : NaN;
}

async function figures(lsp: LspHarness): Promise<Figures> {
  const answer = (await lsp.connection.sendRequest(ExecuteCommandRequest.type, { command: IDLE_COMMAND, arguments: [] })) as IdleAnswer;
  await pause(RSS_SETTLE_MS);
  const pid = lsp.process.pid!;
  // utime and stime: fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const cpuMs = ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  return { rss: procKB(`/proc/${pid}/status`, 'VmRSS'), anon: procKB(`/proc/${pid}/smaps_rollup`, 'Anonymous'), cpuMs, answer };
}

/** Sends SIGUSR2 and waits for the snapshot file (complete once a round trip after it appeared is answered: V8 writes it on the main thread). */
async function snapshot(lsp: LspHarness, dir: string): Promise<string> {
  const before = new Set(readdirSync(dir));
  lsp.process.kill('SIGUSR2');
  const t0 = performance.now();
  for (;;) {
    const made = readdirSync(dir).find((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (made) {
      await lsp.executeCommand(PING_COMMAND, [], 600_000);
      return join(dir, made);
    }
    if (performance.now() - t0 > 180_000) throw new Error('no heap snapshot after 180 s');
    await pause(250);
  }
}

/** The figures at each point, and the growth from point `fromAt` to point `growthAt`. */
function printFigures(points: [string, Figures][], fromAt: number, growthAt: number): void {
  const rows: [string, (f: Figures) => number][] = [
    ['RSS', (f) => f.rss],
    ['  anonymous', (f) => f.anon],
    ['V8 heap committed (heapTotal)', (f) => f.answer.memory.heapTotal],
    ['V8 heap in use (heapUsed)', (f) => f.answer.memory.heapUsed],
    ['external', (f) => f.answer.memory.external],
    ['  of which array buffers', (f) => f.answer.memory.arrayBuffers],
    ['RSS − (heap committed + external)', (f) => f.rss - f.answer.memory.heapTotal - f.answer.memory.external],
  ];
  const spaces = points[0]![1].answer.heapSpaces?.map((s) => s.name) ?? [];
  console.log(`\n## Process figures (read idle, before each snapshot)\n`);
  console.log(`| | ${points.map(([n]) => n).join(' | ')} | ${points[growthAt]![0]} − ${points[fromAt]![0]} |`);
  console.log(`|---|${points.map(() => '---:').join('|')}|---:|`);
  const line = (name: string, get: (f: Figures) => number) => {
    const v = points.map(([, f]) => get(f));
    console.log(`| ${name} | ${v.map((x) => fmt(x)).join(' | ')} | ${signed(v[growthAt]! - v[fromAt]!)} |`);
  };
  for (const [name, get] of rows) line(name, get);
  for (const sp of spaces) {
    const get = (key: 'space_size' | 'space_used_size' | 'physical_space_size') => (f: Figures) => f.answer.heapSpaces?.find((s) => s.name === sp)?.[key] ?? 0;
    if (points.every(([, f]) => get('space_size')(f) < 0.05 * MB)) continue;
    line(`${sp}: committed`, get('space_size'));
    line(`${sp}: in use`, get('space_used_size'));
  }
  console.log(`\nServer CPU (user + system, clock ticks of 10 ms): ${points.map(([n, f]) => `${n} ${f.cpuMs.toFixed(0)} ms`).join(', ')}.`);
  const gc = points[growthAt]![1].answer.gc;
  if (gc) console.log(`\nIdle collections so far: ${gc.collections}, ${gc.ms.toFixed(0)} ms in all, ${fmt(gc.freed)} freed.`);
}

/** Sorted ids of a snapshot's nodes (a binary search tells whether an object of the second snapshot was there before). */
function sortedIds(s: HeapSnapshot): Uint32Array {
  return Uint32Array.from(s.id).sort();
}

function has(sorted: Uint32Array, id: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid]!;
    if (v === id) return true;
    if (v < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

type Agg = Map<string, { count: number; bytes: number }>;
function add(m: Agg, key: string, bytes: number): void {
  const e = m.get(key);
  if (e) {
    e.count++;
    e.bytes += bytes;
  } else m.set(key, { count: 1, bytes });
}

function byLabel(s: HeapSnapshot): Agg {
  const m: Agg = new Map();
  for (let i = 0; i < s.count; i++) add(m, `${s.nodeTypes[s.type[i]!]} · ${nodeLabel(s, i)}`, s.selfSize[i]!);
  return m;
}

function top(m: Agg, n: number): [string, { count: number; bytes: number }][] {
  return [...m].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, n);
}

const BUCKETS = [64, 1024, 16 * 1024, 256 * 1024, 1024 * 1024, Infinity];
const bucketName = (i: number) => (i === 0 ? '< 64 B' : BUCKETS[i] === Infinity ? `≥ ${BUCKETS[i - 1]! / 1024} KB` : `${BUCKETS[i - 1]! < 1024 ? BUCKETS[i - 1] + ' B' : BUCKETS[i - 1]! / 1024 + ' KB'} – ${BUCKETS[i]! / 1024} KB`);

function growth(a: HeapSnapshot, b: HeapSnapshot, topN: number): void {
  const total = (s: HeapSnapshot) => s.selfSize.reduce((x, y) => x + y, 0);
  console.log(`\n## Heap snapshots\n\nbefore: ${a.count.toLocaleString('en-US')} objects, ${fmt(total(a))}; after: ${b.count.toLocaleString('en-US')} objects, ${fmt(total(b))}; growth ${signed(total(b) - total(a))} MB\n`);

  const la = byLabel(a);
  const lb = byLabel(b);
  const keys = new Set([...la.keys(), ...lb.keys()]);
  const delta = [...keys].map((k) => ({ k, count: (lb.get(k)?.count ?? 0) - (la.get(k)?.count ?? 0), bytes: (lb.get(k)?.bytes ?? 0) - (la.get(k)?.bytes ?? 0) }));
  delta.sort((x, y) => y.bytes - x.bytes);
  console.log(`### Self size by type · constructor (after − before, top ${topN})\n`);
  console.log('| type · constructor | objects | MB |');
  console.log('|---|---:|---:|');
  for (const d of delta.slice(0, topN)) console.log(`| ${d.k.replace(/\|/g, '\\|')} | ${d.count.toLocaleString('en-US')} | ${signed(d.bytes)} |`);

  const ids = sortedIds(a);
  const fresh: number[] = [];
  for (let i = 0; i < b.count; i++) if (!has(ids, b.id[i]!)) fresh.push(i);
  const freshBytes = fresh.reduce((x, i) => x + b.selfSize[i]!, 0);
  console.log(`\n${fresh.length.toLocaleString('en-US')} objects of the second snapshot were not in the first: ${fmt(freshBytes, 2)}.\n`);

  const buckets = BUCKETS.map(() => ({ count: 0, bytes: 0 }));
  const strings: number[] = [];
  for (const i of fresh) {
    if (!isString(b, i)) continue;
    strings.push(i);
    const sz = b.selfSize[i]!;
    const k = BUCKETS.findIndex((x) => sz < x);
    buckets[k]!.count++;
    buckets[k]!.bytes += sz;
  }
  console.log('### New strings by self size\n');
  console.log('| size | strings | MB |');
  console.log('|---|---:|---:|');
  buckets.forEach((x, i) => console.log(`| ${bucketName(i)} | ${x.count.toLocaleString('en-US')} | ${(x.bytes / MB).toFixed(2)} |`));

  const tree = retainerTree(b);
  console.log(`\n### The largest new strings\n`);
  console.log('| MB | type | text | retainer path |');
  console.log('|---:|---|---|---|');
  strings.sort((x, y) => b.selfSize[y]! - b.selfSize[x]!);
  for (const i of strings.slice(0, Math.min(15, topN))) {
    const text = JSON.stringify((b.strings[b.name[i]!] ?? '').slice(0, 40)).replace(/\|/g, '\\|');
    console.log(`| ${(b.selfSize[i]! / MB).toFixed(3)} | ${b.nodeTypes[b.type[i]!]} | ${text} | ${retainerPath(b, tree, i).replace(/\|/g, '\\|')} |`);
  }

  const paths: Agg = new Map();
  for (const i of fresh) add(paths, `${retainerPath(b, tree, i)} → ${nodeLabel(b, i)}`, b.selfSize[i]!);
  console.log(`\n### Retainer paths of the new objects (self size, from the nearest owning class; top ${topN})\n`);
  console.log('| path → object | objects | MB |');
  console.log('|---|---:|---:|');
  for (const [k, v] of top(paths, topN)) console.log(`| ${k.replace(/\|/g, '\\|')} | ${v.count.toLocaleString('en-US')} | ${(v.bytes / MB).toFixed(2)} |`);

  // The owners: the same objects grouped by their nearest owning class alone (its first step kept).
  const owners: Agg = new Map();
  for (const i of fresh) {
    const p = retainerPath(b, tree, i);
    const cut = p.search(/[.[]/);
    const firstStep = cut < 0 ? '' : /^(\.[^.[]*|\[\])/.exec(p.slice(cut))?.[0] ?? '';
    add(owners, (cut < 0 ? p : p.slice(0, cut)) + firstStep, b.selfSize[i]!);
  }
  console.log(`\n### New objects by owner (nearest owning class and its first edge; top ${topN})\n`);
  console.log('| owner.edge | objects | MB |');
  console.log('|---|---:|---:|');
  for (const [k, v] of top(owners, topN)) console.log(`| ${k.replace(/\|/g, '\\|')} | ${v.count.toLocaleString('en-US')} | ${(v.bytes / MB).toFixed(2)} |`);
}

interface Steps {
  idle?(): Promise<void>;
  warm(): Promise<void>;
  /** The document opened, its lenses answered (read idle, as the bench does before its edits). */
  open(): Promise<void>;
  after(): Promise<void>;
  /** After the document was closed again. */
  closed?(): Promise<void>;
}

/** One server through the bench steps: idle, warm (a small document's lenses), the document opened and edited. */
async function run(text: string, later: number, points: EditPoints, env: Record<string, string>, at: (lsp: LspHarness) => Steps): Promise<void> {
  const lsp = await LspHarness.start({ resolvesLenses: true, env });
  try {
    const steps = at(lsp);
    await steps.idle?.();
    await lensesOf(lsp, lsp.open('warm.md', SMALL));
    await steps.warm();
    const uri = lsp.open('AGENTS.md', text);
    const n = await lensesOf(lsp, uri);
    await steps.open();
    await editLenses(lsp, uri, text, later, n, points);
    await steps.after();
    if (steps.closed) {
      lsp.close(uri);
      await steps.closed();
    }
  } finally {
    lsp.kill();
    await lsp.exited;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { mb: { type: 'string' }, edits: { type: 'string' }, top: { type: 'string' }, 'no-snapshots': { type: 'boolean' }, keep: { type: 'boolean' }, corpus: { type: 'boolean' } } });
  const mb = Number(values.mb ?? 4);
  const later = Number(values.edits ?? 3);
  const topN = Number(values.top ?? 25);
  const dir = join(DATA_DIR, 'heap');
  mkdirSync(dir, { recursive: true });
  const corpus = values.corpus === true;
  // The bench's own documents, edited where the bench edits them (real markdown: at paragraph ends).
  const { text, points: editPoints } = corpus ? corpusDocument() : generatedDocument(mb);
  const fileBytes = Buffer.byteLength(text);
  // The harness starts the server with the launch flags (server/src/protocol/launch.ts); the snapshot flags go on top.
  const envWith = (flags: readonly string[]): Record<string, string> => (flags.length ? { NODE_OPTIONS: [process.env.NODE_OPTIONS ?? '', ...flags].join(' ').trim() } : {});
  console.log(`# Heap breakdown: ${(fileBytes / MB).toFixed(2)} MB markdown (${corpus ? 'the producer corpus repeated' : 'seed 7'}), ${later + 1} edits; server flags ${SERVER_EXEC_ARGV.join(' ')}; ${Object.entries(SERVER_ENV).map(([k, v]) => `${k}=${v}`).join(' ')}`);

  const points: [string, Figures][] = [];
  await run(text, later, editPoints, envWith([]), (lsp) => ({
    idle: async () => void points.push(['idle', await figures(lsp)]),
    warm: async () => void points.push(['warm', await figures(lsp)]),
    open: async () => void points.push(['open', await figures(lsp)]),
    after: async () => void points.push([`after ${later + 1} edits`, await figures(lsp)]),
    closed: async () => void points.push(['closed', await figures(lsp)]),
  }));
  const [warm, after] = [points[1]![1], points[3]![1]];
  printFigures(points, 1, 3);
  console.log(`\nGrowth from warm: RSS ${fmt(after.rss - warm.rss)} = ${((after.rss - warm.rss) / fileBytes).toFixed(2)}× the file; heap in use ${fmt(after.answer.memory.heapUsed - warm.answer.memory.heapUsed)} = ${((after.answer.memory.heapUsed - warm.answer.memory.heapUsed) / fileBytes).toFixed(2)}×.`);
  if (values['no-snapshots']) return;

  const files: string[] = [];
  try {
    await run(text, later, editPoints, envWith(['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`]), (lsp) => ({
      warm: async () => {
        await lsp.waitIdle();
        files.push(await snapshot(lsp, dir));
      },
      open: () => lsp.waitIdle(120_000),
      after: async () => {
        await lsp.waitIdle(120_000);
        files.push(await snapshot(lsp, dir));
      },
    }));
    console.log(`\n(snapshots: ${files.map((f) => `${f} ${fmt(statSync(f).size, 0)}`).join(', ')})`);
    growth(readHeapSnapshot(files[0]!), readHeapSnapshot(files[1]!), topN);
  } finally {
    if (!values.keep) for (const f of files) rmSync(f, { force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

// Editor timings, printed and never asserted (a wall time depends on the machine and its load): in the real
// editor, how long a large markdown document takes from open to its first lenses, and from an edit that adds a
// section to that section's lens, beside a small anchor cut from the same text (the ratio is what compares
// across machines). The runner generates both documents (real markdown: the corpus fixtures repeated) into
// TOONLENS_E2E_TIMING_DIR; each is copied into the workspace, opened, edited three times, and closed unsaved.
//
// Beside each wall time, the CPU time the language server and the extension host spent meanwhile (Linux: the
// server's /proc/<pid>/stat, found by its command line; the host's process.cpuUsage()): on a loaded machine the
// wall time is mostly waiting for a core, and the CPU time says which process the work was in.
//
// A lens counts once the extension host gets it from the provider with its command (the first RESOLVE_COUNT
// lenses resolved, about a screenful): the language server's answer as the editor receives it, without the
// workbench's own CodeLens debounce before it asks.
import * as assert from 'assert';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';

import { file, installedExtension, sleep } from './helpers';

/** How many lenses are resolved per answer (the ones a screen shows). */
const RESOLVE_COUNT = 20;
/** Edits per document; the median is printed with each. */
const EDITS = 3;

/** A section whose verdict converts (a plain table TOON encodes in fewer tokens), under a heading naming it. */
function addedSection(name: string): string {
  const rows = Array.from({ length: 10 }, (_, i) => `| svc${i} | ${8080 + i} | team${i % 3} |`);
  return `## ${name}\n\n| Service | Port | Owner |\n| --- | --- | --- |\n${rows.join('\n')}\n\n`;
}

/** The CPU seconds the language servers started from `extensionPath` have used so far (undefined without /proc). */
function serverCpu(extensionPath: string): number | undefined {
  const server = path.join(extensionPath, 'dist', 'server.js');
  const names = new Set([server, fs.realpathSync(server)]);
  let total = 0;
  let found = false;
  try {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      let cmdline: string;
      try {
        cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        continue; // exited meanwhile
      }
      if (!cmdline.split('\0').some((arg) => names.has(arg))) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      // Fields after the parenthesised command name: utime and stime are the 12th and 13th, in clock ticks.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
      found = true;
    }
  } catch {
    return undefined;
  }
  return found ? total : undefined;
}

/** Linux's USER_HZ, what /proc/<pid>/stat counts CPU time in. */
const CLOCK_TICKS = 100;

/** CPU seconds of the language server and of this extension host, to subtract later. */
function cpuNow(extensionPath: string): { server: number | undefined; host: number } {
  const u = process.cpuUsage();
  return { server: serverCpu(extensionPath), host: (u.user + u.system) / 1e6 };
}

function cpuSince(extensionPath: string, from: { server: number | undefined; host: number }): string {
  const now = cpuNow(extensionPath);
  const server = now.server !== undefined && from.server !== undefined ? `server ${(now.server - from.server).toFixed(2)} s` : 'server ?';
  return `CPU ${server}, extension host ${(now.host - from.host).toFixed(2)} s`;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms < 1000 ? 3 : 2)} s`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');

async function lensesNow(uri: vscode.Uri): Promise<vscode.CodeLens[]> {
  return (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, RESOLVE_COUNT)) ?? [];
}

/** Asks for the lenses until `pred` holds; the milliseconds since `t0` when it did. */
async function until(uri: vscode.Uri, t0: number, what: string, pred: (ls: vscode.CodeLens[]) => boolean, near?: number, timeoutMs = 180000): Promise<{ ms: number; lenses: vscode.CodeLens[] }> {
  for (;;) {
    const ls = await lensesNow(uri);
    const ms = performance.now() - t0;
    if (pred(ls)) return { ms, lenses: ls };
    if (ms > timeoutMs) {
      const seen = ls.filter((l) => near === undefined || Math.abs(l.range.start.line - near) <= 3).map((l) => `${l.range.start.line + 1}: ${l.command?.title ?? '(unresolved)'}`);
      throw new Error(`timed out after ${seconds(ms)} waiting for ${what}; lenses ${near === undefined ? '' : 'near it '}: ${seen.join(' | ') || 'none'}`);
    }
    await sleep(10);
  }
}

interface Timing {
  chars: number;
  lenses: number;
  firstMs: number;
  firstCpu: string;
  editMs: number[];
  editCpu: string[];
  load: string;
}

async function measure(extensionPath: string, name: string): Promise<Timing> {
  const dir = process.env.TOONLENS_E2E_TIMING_DIR!;
  const text = fs.readFileSync(path.join(dir, name), 'utf8');
  const rel = `docs/timing-${name}`;
  await vscode.workspace.fs.writeFile(file(rel), Buffer.from(text, 'utf8'));
  const uri = file(rel);
  const cpu0 = cpuNow(extensionPath);
  const t0 = performance.now();
  const doc = await vscode.workspace.openTextDocument(uri);
  const editor = await vscode.window.showTextDocument(doc);
  // First lenses: the plan lens (a document's lenses come from its whole plan, all at once).
  const first = await until(uri, t0, `the first lenses of ${rel}`, (ls) => ls.some((l) => l.command?.command === 'toonlens.showPlan'));
  const firstCpu = cpuSince(extensionPath, cpu0);
  const editMs: number[] = [];
  const editCpu: string[] = [];
  let current = first.lenses;
  for (let k = 1; k <= EDITS; k++) {
    // The new section goes before the first section that has a lens (the top of the screen), else at the end;
    // after a blank line, so that it starts a block whatever precedes it.
    const before = current.map((l) => l.range.start.line).find((l) => l > 0);
    const at = before !== undefined ? new vscode.Position(before, 0) : doc.lineAt(doc.lineCount - 1).range.end;
    const blank = at.line === 0 || (at.character === 0 && doc.lineAt(at.line - 1).isEmptyOrWhitespace);
    const prefix = blank ? '' : at.character === 0 ? '\n' : '\n\n';
    const headingLine = at.line + (prefix.match(/\n/g)?.length ?? 0);
    const heading = `Timing ports ${k}`;
    const cpu1 = cpuNow(extensionPath);
    const t1 = performance.now();
    assert.ok(await editor.edit((e) => e.insert(at, prefix + addedSection(heading))), 'the edit applies');
    const after = await until(uri, t1, `the lens of “${heading}” at line ${headingLine + 1}`, (ls) => ls.some((l) => l.range.start.line === headingLine && (l.command?.tooltip ?? '').includes(heading)), headingLine);
    editMs.push(after.ms);
    editCpu.push(cpuSince(extensionPath, cpu1));
    current = after.lenses;
  }
  const total = (await lensesNow(uri)).length;
  await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  await vscode.workspace.fs.delete(uri);
  return { chars: text.length, lenses: total, firstMs: first.ms, firstCpu, editMs, editCpu, load: load() };
}

function lines(label: string, t: Timing): string[] {
  const head = `[e2e timing] ${label} (${t.chars.toLocaleString('en-US')} chars, ${t.lenses} lenses): first lenses ${seconds(t.firstMs)}; edit → lens ${seconds(median(t.editMs))} (median of ${t.editMs.map((x) => seconds(x)).join(', ')}); load ${t.load} on ${os.availableParallelism()} cores`;
  return [head, `[e2e timing] ${label}: first lenses ${t.firstCpu}; edits ${t.editCpu.join(' / ')}`];
}

describe('editor timings (printed, never asserted)', () => {
  let extensionPath = '';
  before(async () => {
    extensionPath = (await installedExtension()).extensionPath;
  });

  it('a 1 MB markdown: open → first lenses, an edit adding a section → its lens; a 10 KB anchor', async function () {
    this.timeout(8 * 60000);
    if (!process.env.TOONLENS_E2E_TIMING_DIR) {
      console.log('      [e2e timing] not measured: the runner made no timing documents (E2E_SKIP_TIMINGS=1)');
      this.skip();
    }
    const anchor = await measure(extensionPath, 'anchor-10kb.md');
    for (const l of lines('10 KB anchor', anchor)) console.log(`      ${l}`);
    const large = await measure(extensionPath, 'large-1mb.md');
    for (const l of lines('1 MB markdown', large)) console.log(`      ${l}`);
    const ratio = (a: number, b: number) => `${(a / b).toFixed(1)}×`;
    console.log(`      [e2e timing] 1 MB / 10 KB: first lenses ${ratio(large.firstMs, anchor.firstMs)}, edit → lens ${ratio(median(large.editMs), median(anchor.editMs))} (size ${ratio(large.chars, anchor.chars)})`);
  });
});

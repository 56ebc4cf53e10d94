// The layers hold: ESLint's no-restricted-imports (eslint.config.mjs) keeps core/ pure, node/ below the
// framework and the client on the protocol; this file checks that rule really fires and that server/src and
// client/src have no import cycle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ESLint } from 'eslint';
import { REPO_ROOT, tsSources } from '../paths';


const ROOTS = ['server/src', 'client/src'].map((d) => join(REPO_ROOT, d));
const rel = (p: string): string => relative(REPO_ROOT, p).split('\\').join('/');

// Imports and re-exports with a relative specifier, type-only ones included: an erased import cannot make a
// module load too early, but two files that need each other's types are still one unit to a reader.
const IMPORT = /^\s*(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?['"](\.{1,2}\/[^'"]+)['"]/gm;

function resolveImport(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec);
  for (const cand of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(cand) && statSync(cand).isFile()) return cand;
  }
  return undefined;
}

function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of ROOTS.flatMap((r) => tsSources(r))) {
    const text = readFileSync(file, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(IMPORT)) {
      const target = resolveImport(file, m[1]!);
      if (target) deps.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** Every cycle's files, one per strongly connected component of more than one file (Tarjan, iterative). */
function cycles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  for (const root of graph.keys()) {
    if (idx.has(root)) continue;
    const work: Array<[string, number]> = [[root, 0]];
    idx.set(root, index); low.set(root, index); index++; stack.push(root); onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [v, i] = frame;
      const deps = graph.get(v) ?? [];
      if (i < deps.length) {
        frame[1]++;
        const w = deps[i]!;
        if (!idx.has(w)) {
          idx.set(w, index); low.set(w, index); index++; stack.push(w); onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) { const u = work[work.length - 1]![0]; low.set(u, Math.min(low.get(u)!, low.get(v)!)); }
      if (low.get(v) === idx.get(v)) {
        const comp: string[] = [];
        let w: string;
        do { w = stack.pop()!; onStack.delete(w); comp.push(w); } while (w !== v);
        if (comp.length > 1) out.push(comp.map(rel).sort());
      }
    }
  }
  return out;
}

test('server/src and client/src have no import cycle', () => {
  const graph = importGraph();
  assert.ok(graph.size > 50, 'found the sources');
  assert.ok([...graph.values()].some((d) => d.length > 0), 'parsed some imports');
  assert.deepEqual(cycles(graph), [], 'break these import cycles');
});

test('the cycle finder reports a two-file cycle', () => {
  const g = new Map([['/a.ts', ['/b.ts']], ['/b.ts', ['/a.ts']], ['/c.ts', ['/a.ts']]]);
  assert.equal(cycles(g).length, 1);
});

test('ESLint rejects a core file importing vscode, node:fs or a higher layer', async () => {
  const eslint = new ESLint({ cwd: REPO_ROOT });
  const code = "import * as vscode from 'vscode';\nimport { readFileSync } from 'node:fs';\nimport { x } from '../lsp/idle';\nexport const y = [vscode, readFileSync, x];\n";
  const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, 'server/src/core/layerProbe.ts') });
  const hits = result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.line);
  assert.deepEqual(hits, [1, 2, 3]);
  const [node] = await eslint.lintText("import { x } from '../features/markdown/plans';\nexport const y = x;\n", { filePath: join(REPO_ROOT, 'server/src/node/layerProbe.ts') });
  assert.equal(node!.messages.filter((m) => m.ruleId === 'no-restricted-imports').length, 1);
  const [client] = await eslint.lintText("import { x } from '../../server/src/core/files';\nimport { y } from '../../server/src/protocol/commands';\nexport const z = [x, y];\n", { filePath: join(REPO_ROOT, 'client/src/layerProbe.ts') });
  assert.deepEqual(client!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.line), [1]);
});

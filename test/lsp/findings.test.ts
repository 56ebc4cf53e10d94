// The editor reports on real agent files exactly what `toonlens check` does (test/fixtures/precision): the same
// codes, ranges, severities, messages and related locations, agent-file advice on agent files only. And the
// Compact table action beside Convert.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { CodeAction } from 'vscode-languageserver-protocol';
import MarkdownIt from 'markdown-it';
import { LspHarness, REPO_ROOT, applyTextEdits, asCliDiagnostics } from './harness';
import { compactTables } from '../../server/src/core/markdown/compactTable';
import { run, type FileReport } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { FIXTURES } from '../paths';

const DIR = join(FIXTURES, 'precision');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : /\.(md|mdc)$/.test(n) ? [relative(DIR, p).split(sep).join('/')] : [];
  });
}

const asCli = asCliDiagnostics;

test('the editor publishes what check reports on every file of the precision sample', async () => {
  const names = files(DIR).sort();
  assert.ok(names.length >= 25);
  const h = await LspHarness.start();
  try {
    const uris = names.map((n) => h.openFile(n, readFileSync(join(DIR, n), 'utf8'), 'markdown'));
    await h.waitIdle();
    let out = '';
    const io: CliIO = { cwd: h.workspaceDir, stdout: (t) => void (out += t), stderr: () => undefined, readStdin: async () => '' };
    await run(['--format', 'json', ...names], io);
    const cli = JSON.parse(out) as FileReport[];
    let total = 0;
    names.forEach((n, i) => {
      const report = cli.find((r) => r.file === n);
      assert.ok(report, n);
      // The markdown findings: context/* depends on the repository the file is in, which the editor knows (its
      // workspace folder) and a check of named files outside a git repository does not (test/unit/context-*.test.ts).
      const markdownOnly = (ds: { code?: unknown }[]) => ds.filter((d) => !String(d.code).startsWith('context/'));
      assert.deepEqual(markdownOnly(asCli(h.latestDiagnostics(uris[i]!) ?? [])), report.diagnostics, n);
      total += report.diagnostics.length;
    });
    assert.ok(total > 20, `${total} findings`);
  } finally {
    await h.shutdown();
  }
});

test('Compact table is offered on a table beside Convert, and keeps the markdown and its rendering', async () => {
  const text = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'config-table.md'), 'utf8');
  const h = await LspHarness.start();
  try {
    const uri = h.openFile('config-table.md', text, 'markdown');
    await h.waitIdle();
    const line = text.split('\n').findIndex((l) => l.startsWith('|'));
    const actions = (await h.codeActions(uri, { start: { line, character: 1 }, end: { line, character: 1 } })) ?? [];
    const compact = actions.find((a): a is CodeAction => 'kind' in a && a.title.startsWith('Compact table'));
    assert.ok(compact?.edit, actions.map((a) => a.title).join('; '));
    assert.match(compact.title, /saves \d+ tokens?/);
    const after = applyTextEdits(text, LspHarness.editsFor(compact.edit, uri));
    assert.ok(after.length < text.length);
    const md = MarkdownIt('commonmark').enable(['table', 'strikethrough']);
    assert.equal(md.render(after), md.render(text));
    assert.ok(compactTables(text).edits.some((e) => after.includes(e.text)));
  } finally {
    await h.shutdown();
  }
});

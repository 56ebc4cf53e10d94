// The project config over LSP: the editor publishes what `toonlens check` prints for the same markdown and
// .toonlens.json; toonlens.rules wins in the editor; ignore globs; the config file's own diagnostics,
// completion and hover; a config change on disk re-publishes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompletionRequest, FileChangeType, type CompletionItem, type Diagnostic, type MarkupContent } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, positionAt, asCliDiagnostics, SEVERITY_WORDS } from './harness';
import { run, type FileReport } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';

const LONG = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'long-section.md'), 'utf8');
const DUP = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'duplicate-rules.md'), 'utf8');
const SEVERITY = SEVERITY_WORDS;

async function cliReports(cwd: string, files: string[]): Promise<FileReport[]> {
  let out = '';
  const io: CliIO = { cwd, stdout: (t) => void (out += t), stderr: () => undefined, readStdin: async () => '' };
  await run(['--format', 'json', ...files], io);
  return JSON.parse(out) as FileReport[];
}

const asCli = asCliDiagnostics;
const summary = (ds: Diagnostic[]) => ds.map((d) => `${d.code}:${SEVERITY[d.severity ?? 1]}`);

test('.toonlens.json over LSP: same diagnostics as the CLI, the setting wins per code, ignore, reload on change', async () => {
  const h = await LspHarness.start();
  try {
    h.writeFile('.toonlens.json', '{\n  // the project says\n  "agentFiles": ["**/*.md"],\n  "rules": { "toon/long-section": "off", "toon/split-candidate": "error", "toon/duplicate-rule": "info" },\n  "ignore": ["vendor/**"]\n}\n');
    const long = h.openFile('long-section.md', LONG, 'markdown');
    const dup = h.openFile('duplicate-rules.md', DUP, 'markdown');
    const vendored = h.openFile('vendor/duplicate-rules.md', DUP, 'markdown');
    const longDs = await h.waitForDiagnostics(long, (d) => d.length > 0);
    const dupDs = await h.waitForDiagnostics(dup, (d) => d.length > 0);
    assert.deepEqual(summary(longDs), ['toon/split-candidate:error']);
    const cli = await cliReports(h.workspaceDir, ['long-section.md', 'duplicate-rules.md', 'vendor']);
    assert.deepEqual(cli.map((r) => r.file), ['long-section.md', 'duplicate-rules.md'], 'vendor/ is ignored by the CLI too');
    assert.deepEqual(asCli(longDs), cli[0]!.diagnostics, 'the editor and the CLI agree exactly');
    assert.deepEqual(asCli(dupDs), cli[1]!.diagnostics);
    assert.deepEqual(await h.waitForDiagnostics(vendored), [], 'ignored: nothing published');

    // The user's editor-only choice wins over the project's file, per code.
    await h.setSettings({ rules: { 'toon/split-candidate': 'off', 'toon/long-section': 'warning' } });
    const mine = await h.waitForDiagnostics(long, (d) => summary(d).join() === 'toon/long-section:warning');
    assert.deepEqual(summary(mine), ['toon/long-section:warning']);
    await h.setSettings({});

    // The config file changes on disk: every open document is re-checked with it.
    h.writeFile('.toonlens.json', '{ "agentFiles": ["**/*.md"], "rules": { "toon/split-candidate": "off" } }');
    await h.fileEvents([{ uri: h.uri('.toonlens.json'), type: FileChangeType.Changed }]);
    const reloaded = await h.waitForDiagnostics(long, (d) => summary(d).join() === 'toon/long-section:info');
    assert.deepEqual(summary(reloaded), ['toon/long-section:info']);
    assert.ok((await h.waitForDiagnostics(vendored, (d) => d.length > 0)).length > 0, 'no longer ignored');
  } finally {
    await h.shutdown();
  }
});

test('.toonlens.json itself: schema diagnostics at the value, completion of its keys and levels, hovers', async () => {
  const h = await LspHarness.start();
  try {
    const text = '{\n  // comments are fine\n  "rules": { "toon/long-section": "loud", },\n  "colour": 1\n}\n';
    const uri = h.openFile('.toonlens.json', text, 'jsonc');
    const ds = await h.waitForDiagnostics(uri, (d) => d.length >= 2);
    assert.deepEqual(
      ds.map((d) => [d.code, d.range.start.line]),
      [['schema', 2], ['schema', 3]],
    );
    assert.match(String(ds[0]!.message), /"off", "info", "warning", "error"/);
    assert.match(String(ds[1]!.message), /unknown property "colour"/);

    const empty = '{\n  \n}\n';
    h.change(uri, empty);
    const complete = async (t: string, offset: number): Promise<string[]> => {
      const r = await h.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionAt(t, offset) });
      return (Array.isArray(r) ? r : (r?.items ?? [])).map((c: CompletionItem) => c.label);
    };
    const keys = await complete(empty, 4);
    for (const k of ['rules', 'documentKinds', 'tokenizer', 'minTokenSavings', 'ignore']) assert.ok(keys.includes(k), `${k} offered: ${keys.join(', ')}`);
    const levelsText = '{ "rules": { "toon/vague-rule":  } }';
    h.change(uri, levelsText);
    const levels = await complete(levelsText, levelsText.indexOf(':  ') + 2);
    for (const l of ['"off"', '"info"', '"warning"', '"error"']) assert.ok(levels.includes(l), `${l} offered: ${levels.join(', ')}`);

    const codesText = '{ "rules": {  } }';
    h.change(uri, codesText);
    const codeKeys = await complete(codesText, codesText.indexOf('{  }') + 2);
    for (const c of ['toon/long-section', 'toon/fence-decode', 'verdict/decision', 'schema']) assert.ok(codeKeys.some((k) => k === c || k === `"${c}"`), `${c} offered from the catalogue`);

    const hoverText = '{ "minTokenSavings": 10 }';
    h.change(uri, hoverText);
    await h.waitForDiagnostics(uri, (d) => d.length === 0);
    const hover = await h.hover(uri, positionAt(hoverText, 5));
    assert.match((hover?.contents as MarkupContent | undefined)?.value ?? JSON.stringify(hover), /saves at least this many tokens/);
  } finally {
    await h.shutdown();
  }
});

test('inline comments in the editor: disables hide what they name, <!-- toonlens: keep --> is never converted', async () => {
  const h = await LspHarness.start();
  try {
    const heading = '## Everything about releases\n';
    const text = LONG.replace(heading, '<!-- toonlens-disable-next-line toon/split-candidate -->\n' + heading);
    // Where Copilot reads instruction files (elsewhere the file would also get context/unreachable).
    const uri = h.openFile('.github/instructions/inline.instructions.md', text, 'markdown');
    const ds = await h.waitForDiagnostics(uri, (d) => d.length > 0);
    assert.deepEqual(summary(ds), ['toon/long-section:info']);
    assert.deepEqual(asCli(ds), (await cliReports(h.workspaceDir, ['.github/instructions/inline.instructions.md']))[0]!.diagnostics);

    const table = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'config-table.md'), 'utf8');
    const convertTitles = async (line: number) => {
      const actions = (await h.codeActions(h.uri('kept.md'), { start: { line, character: 0 }, end: { line, character: 0 } })) ?? [];
      return actions.map((a) => a.title).filter((x) => x.startsWith('Convert section'));
    };
    const kept = h.openFile('kept.md', table, 'markdown');
    await h.waitForDiagnostics(kept);
    const firstHeading = table.split('\n').findIndex((l) => /^## /.test(l));
    assert.ok((await convertTitles(firstHeading + 1)).length > 0, 'convertible before the marker');
    const lines = table.split('\n');
    lines.splice(firstHeading + 1, 0, '', '<!-- toonlens: keep -->');
    const withKeep = lines.join('\n');
    h.change(kept, withKeep);
    await h.waitForDiagnostics(kept, (_d, v) => v === h.version(kept));
    assert.deepEqual(await convertTitles(firstHeading + 3), [], 'no Convert action on a kept section');
    const r = (await h.executeCommand('toonlens.convertSection', [{ uri: kept, position: { line: firstHeading + 3, character: 0 } }])) as { applied: boolean; message?: string };
    assert.equal(r.applied, false);
    assert.match(String(r.message), /toonlens: keep/);
  } finally {
    await h.shutdown();
  }
});

test('Check Workspace honours each file’s .toonlens.json (rules and ignore), as toonlens check does', async () => {
  const h = await LspHarness.start();
  try {
    // (the example is an agent file by content, not by name: each config says so)
    h.writeFile('.toonlens.json', '{ "agentFiles": ["*.md"] }');
    h.writeFile('docs/.toonlens.json', '{ "agentFiles": ["*.md"], "rules": { "toon/split-candidate": "off" }, "ignore": ["old/"] }');
    h.writeFile('docs/long-section.md', LONG);
    h.writeFile('docs/old/long-section.md', LONG);
    h.writeFile('long-section.md', LONG);
    await h.executeCommand('toonlens.checkWorkspace', []);
    const inDocs = await h.waitForDiagnostics(h.uri('docs/long-section.md'), (d) => d.length > 0);
    const atRoot = await h.waitForDiagnostics(h.uri('long-section.md'), (d) => d.length > 0);
    assert.deepEqual(summary(inDocs), ['toon/long-section:info'], 'docs/.toonlens.json applies below docs/');
    assert.deepEqual(summary(atRoot), ['toon/long-section:info', 'toon/split-candidate:info'], 'not above it');
    assert.deepEqual(h.latestDiagnostics(h.uri('docs/old/long-section.md')) ?? [], [], 'ignored');
    const cli = await cliReports(h.workspaceDir, ['.']);
    assert.deepEqual(asCli(inDocs), cli.find((r) => r.file === 'docs/long-section.md')!.diagnostics);
    assert.ok(!cli.some((r) => r.file === 'docs/old/long-section.md'));
  } finally {
    await h.shutdown();
  }
});

// Diagnostics over a real JSON-RPC connection to dist/server.js: every document kind, edits, close, syntax errors.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { LspHarness, positionAt } from './harness';
import {
  corpusVerdictFiles,
  critiqueText,
  openingBrace,
  recipeInputText,
  recipeOutputText,
  reportText,
  valueRange,
  VALID_VERDICT_PATH,
  verdictText,
} from './fixtures';

const codes = (ds: Diagnostic[]) => ds.map((d) => d.code);
const msg = (d: Diagnostic) => (typeof d.message === 'string' ? d.message : d.message.value);
const nonEmpty = (ds: Diagnostic[]) => ds.length > 0;

describe('diagnostics', () => {
  let lsp: LspHarness;
  before(async () => {
    lsp = await LspHarness.start();
  });
  after(async () => {
    await lsp.shutdown();
  });

  test('advertises incremental sync, hovers and both code action kinds', () => {
    const caps = lsp.initializeResult!.capabilities;
    assert.equal(caps.textDocumentSync, 2);
    assert.equal(caps.hoverProvider, true);
    const kinds = (caps.codeActionProvider as { codeActionKinds: string[] }).codeActionKinds ?? [];
    for (const k of ['quickfix', 'source.fixAll.toonlens']) assert.ok(kinds.includes(k), JSON.stringify(kinds));
    assert.equal(lsp.initializeResult!.serverInfo?.name, 'toonlens');
  });

  test('a valid producer verdict gets zero diagnostics', async () => {
    const uri = lsp.open('valid.verdict.json', readFileSync(VALID_VERDICT_PATH, 'utf8'));
    const ds = await lsp.waitForDiagnostics(uri);
    assert.deepEqual(ds, []);
  });

  test('no corpus verdict gets an error-severity diagnostic', async () => {
    const files = corpusVerdictFiles();
    assert.ok(files.length > 10, 'the shared corpus is present');
    const uris = files.map((f) => lsp.open(`corpus/${basename(f)}`, readFileSync(f, 'utf8')));
    for (const uri of uris) {
      const ds = await lsp.waitForDiagnostics(uri, () => true, 15_000);
      const errors = ds.filter((d) => d.severity === 1);
      assert.deepEqual(errors.map((d) => `${d.code}: ${d.message}`), [], uri);
    }
    for (const uri of uris) lsp.close(uri);
  });

  test('verdict: a schema defect is published with source, code, severity and the value range', async () => {
    const text = verdictText((d) => (d.mode = 'fast'));
    const uri = lsp.open('mode.verdict.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.deepEqual(codes(ds), ['schema']);
    assert.equal(ds[0]!.source, 'toonlens');
    assert.equal(ds[0]!.severity, 1);
    assert.match(msg(ds[0]!), /mode/);
    assert.deepEqual(ds[0]!.range, valueRange(text, 'mode', '"fast"'));
  });

  test('verdict: rule findings point at the recorded value', async () => {
    const text = verdictText((d) => (d.measured_chars.savings = -100));
    const uri = lsp.open('savings.verdict.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.deepEqual(codes(ds), ['verdict/savings']);
    assert.deepEqual(ds[0]!.range, valueRange(text, 'savings', '-100'));
    assert.equal((ds[0]!.data as { fixes: number }).fixes, 1);
  });

  test('report: a schema defect (wrong type) at the value', async () => {
    const text = reportText((d) => (d.scan.files_scanned = 'many'));
    const uri = lsp.openFile('docs-hygiene-report.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.deepEqual(codes(ds), ['schema']);
    assert.deepEqual(ds[0]!.range, valueRange(text, 'files_scanned', '"many"'));
  });

  test('report: a missing required property at the opening brace', async () => {
    const text = reportText((d) => delete d.promotion_candidates);
    const uri = lsp.openFile('missing.hygiene-report.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    // The report rules may add their own warning (with a quick fix) next to the schema error.
    assert.ok(codes(ds).includes('schema'), JSON.stringify(codes(ds)));
    for (const d of ds) {
      assert.match(msg(d), /promotion_candidates/);
      assert.deepEqual(d.range, openingBrace(text));
    }
  });

  test('critique: a schema defect (enum) at the value', async () => {
    const text = critiqueText((d) => (d.fidelity = 'full'));
    const uri = lsp.open('critique-report.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.deepEqual(codes(ds), ['schema']);
    assert.deepEqual(ds[0]!.range, valueRange(text, 'fidelity', '"full"'));
  });

  test('recipe-input: a schema defect (pattern) at the value', async () => {
    const text = recipeInputText((d) => (d.revision = 'r1'));
    const uri = lsp.open('build.recipe-input.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.deepEqual(codes(ds), ['schema']);
    assert.deepEqual(ds[0]!.range, valueRange(text, 'revision', '"r1"'));
  });

  test('recipe-output: a schema defect (type) at the value, kind found by content alone', async () => {
    const text = recipeOutputText((d) => (d.poll_after_seconds = 'soon'));
    const uri = lsp.open('payloads/answer.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.ok(ds.every((d) => d.code === 'schema'), JSON.stringify(codes(ds)));
    assert.ok(ds.some((d) => JSON.stringify(d.range) === JSON.stringify(valueRange(text, 'poll_after_seconds', '"soon"'))));
  });

  test('every valid base document is clean', async () => {
    const docs: [string, string][] = [
      ['clean/hygiene-report.json', reportText()],
      ['clean/critique-report.json', critiqueText()],
      ['clean/recipe-input.json', recipeInputText()],
      ['clean/recipe-output.json', recipeOutputText()],
    ];
    for (const [path, text] of docs) {
      const uri = lsp.openFile(path, text);
      assert.deepEqual(await lsp.waitForDiagnostics(uri), [], path);
    }
  });

  test('an edit updates the diagnostics, a fix clears them, a bad edit brings them back', async () => {
    const bad = verdictText((d) => (d.mode = 'fast'));
    const good = verdictText();
    const uri = lsp.open('edit.verdict.json', bad);
    await lsp.waitForDiagnostics(uri, nonEmpty);

    const v2 = lsp.change(uri, good);
    const cleared = await lsp.waitForDiagnostics(uri, (_, version) => version === v2);
    assert.deepEqual(cleared, []);

    // Incremental change: only the value of "mode" is replaced.
    const r = valueRange(good, 'mode', '"lossless"');
    const v3 = lsp.change(uri, [{ range: r, text: '"fast"' }]);
    const back = await lsp.waitForDiagnostics(uri, (_, version) => version === v3);
    assert.deepEqual(codes(back), ['schema']);
    assert.deepEqual(back[0]!.range, valueRange(lsp.text(uri)!, 'mode', '"fast"'));
  });

  test('a burst of edits is checked once, for the newest version only', async () => {
    const uri = lsp.open('burst.verdict.json', verdictText());
    await lsp.waitForDiagnostics(uri);
    const before = lsp.published.get(uri)!.length;
    let last = 0;
    for (let i = 0; i < 20; i++) last = lsp.change(uri, verdictText((d) => (d.measured_chars.savings = -200 - i)));
    const ds = await lsp.waitForDiagnostics(uri, (_, version) => version === last);
    assert.deepEqual(codes(ds), ['verdict/savings']);
    assert.match(msg(ds[0]!), /-219/);
    await lsp.waitIdle(); // every pending check has run and published
    const after = lsp.published.get(uri)!.slice(before);
    assert.deepEqual(after.map((p) => p.version), [last], 'no diagnostics were published for superseded versions');
  });

  test('closing a document clears its diagnostics', async () => {
    const uri = lsp.open('close.verdict.json', verdictText((d) => (d.mode = 'fast')));
    await lsp.waitForDiagnostics(uri, nonEmpty);
    lsp.close(uri);
    const ds = await lsp.waitForDiagnostics(uri, (d) => d.length === 0);
    assert.deepEqual(ds, []);
    await lsp.waitIdle();
    assert.deepEqual(lsp.latestDiagnostics(uri), [], 'nothing is published after the close');
  });

  test('closing during the debounce publishes nothing stale', async () => {
    const uri = lsp.open('race.verdict.json', verdictText());
    await lsp.waitForDiagnostics(uri);
    lsp.change(uri, verdictText((d) => (d.mode = 'fast')));
    lsp.close(uri);
    await lsp.waitIdle(); // the debounced check of the change would have published by now
    assert.deepEqual(lsp.latestDiagnostics(uri), []);
  });

  test('malformed JSON gets json-syntax at the offending character', async () => {
    const text = '{\n  "schema_version": "1.0",\n  "verdict": "convert",,\n}\n';
    const uri = lsp.open('broken.verdict.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.deepEqual(codes(ds), ['json-syntax']);
    assert.equal(ds[0]!.severity, 1);
    assert.deepEqual(ds[0]!.range.start, positionAt(text, text.indexOf(',,') + 1));
  });

  test('an unrelated JSON document gets nothing', async () => {
    const uri = lsp.open('package.json', JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'node t.js' } }, null, 2));
    assert.deepEqual(await lsp.waitForDiagnostics(uri), []);
    const broken = lsp.open('tsconfig.json', '{ "compilerOptions": { // comment\n } }');
    assert.deepEqual(await lsp.waitForDiagnostics(broken), []);
  });

  test('markdown and plain text are not JSON-checked', async () => {
    const uri = lsp.open('notes.md', '# Notes\n\n{"schema_version": "1.0"}\n');
    await lsp.waitIdle();
    for (const p of lsp.published.get(uri) ?? []) assert.deepEqual(p.diagnostics, []);
  });

  test('an untitled JSON document is checked by content', async () => {
    const text = recipeOutputText((d) => (d.poll_after_seconds = 'soon'));
    const uri = lsp.open('untitled:Untitled-1', text, 'json');
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.ok(ds.every((d) => d.code === 'schema'));
  });
});

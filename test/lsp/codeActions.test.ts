// Quick fixes and source.fixAll.toonlens over a real connection: the returned edits, applied as a client
// would, remove the diagnostics they claim to fix.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CodeAction, Diagnostic } from 'vscode-languageserver-protocol/node';
import { applyTextEdits, LspHarness } from './harness';
import { createHash } from 'node:crypto';
import { recipeInputText, valueRange, verdictText } from './fixtures';

const nonEmpty = (ds: Diagnostic[]) => ds.length > 0;
const isAction = (a: unknown): a is CodeAction => typeof a === 'object' && a !== null && 'kind' in a;

describe('code actions', () => {
  let lsp: LspHarness;
  before(async () => {
    lsp = await LspHarness.start();
  });
  after(async () => {
    await lsp.shutdown();
  });

  test('a quick fix at a diagnostic removes it once applied', async () => {
    const text = verdictText((d) => (d.measured_chars.savings = -100));
    const uri = lsp.open('qf.verdict.json', text);
    const [diag] = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.equal(diag!.code, 'verdict/savings');

    const actions = (await lsp.codeActions(uri, diag!.range, { diagnostics: [diag!], only: ['quickfix'] }))!.filter(isAction);
    assert.equal(actions.length, 1);
    const [fix] = actions;
    assert.equal(fix!.kind, 'quickfix');
    assert.equal(fix!.isPreferred, true);
    assert.match(fix!.title, /savings.*-102/);
    assert.deepEqual(fix!.diagnostics?.map((d) => d.code), ['verdict/savings']);

    const edits = LspHarness.editsFor(fix!.edit, uri);
    assert.ok(edits.length > 0);
    const fixed = applyTextEdits(text, edits);
    assert.equal(JSON.parse(fixed).measured_chars.savings, -102);
    const v = lsp.change(uri, fixed);
    assert.deepEqual(await lsp.waitForDiagnostics(uri, (_, version) => version === v), []);
  });

  test('quick fixes use versioned documentChanges when the client supports them', async () => {
    const text = verdictText((d) => (d.measured_chars.savings = -100));
    const uri = lsp.open('versioned.verdict.json', text);
    const [diag] = await lsp.waitForDiagnostics(uri, nonEmpty);
    const [fix] = (await lsp.codeActions(uri, diag!.range))!.filter(isAction);
    const dc = fix!.edit!.documentChanges![0] as { textDocument: { uri: string; version: number } };
    assert.deepEqual(dc.textDocument, { uri, version: 1 });
  });

  test('no quick fix away from a diagnostic, none for a clean document', async () => {
    const text = verdictText((d) => (d.measured_chars.savings = -100));
    const uri = lsp.open('away.verdict.json', text);
    await lsp.waitForDiagnostics(uri, nonEmpty);
    const far = valueRange(text, 'schema_version', '"1.0"');
    assert.deepEqual(await lsp.codeActions(uri, far, { only: ['quickfix'] }), []);

    const clean = lsp.open('clean.verdict.json', verdictText());
    await lsp.waitForDiagnostics(clean);
    assert.deepEqual(await lsp.codeActions(clean, far), []);
  });

  test('fixes are recomputed from the current text, not from stale diagnostics', async () => {
    const text = verdictText((d) => (d.measured_chars.savings = -100));
    const uri = lsp.open('stale.verdict.json', text);
    const [diag] = await lsp.waitForDiagnostics(uri, nonEmpty);
    // Fix it by hand, then ask for actions with the old diagnostic before the new diagnostics arrive.
    lsp.change(uri, verdictText());
    const actions = await lsp.codeActions(uri, diag!.range, { diagnostics: [diag!] });
    assert.deepEqual(actions, []);
  });

  test('a quick fix that is not a fix-all fix: offered under the cursor, never by source.fixAll', async () => {
    const wrongSha = '0'.repeat(64);
    const text = recipeInputText((d) => {
      d.ops = [
        { op: 'begin_chunk', chunk_id: 'spec' },
        { op: 'append_chunk', chunk_id: 'spec', seq: 0, text: '{"a":1}' },
        { op: 'commit_chunk', chunk_id: 'spec', sha256: wrongSha, target: 'replace_spec' },
      ];
    });
    const uri = lsp.open('chunks.recipe-input.json', text);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    const sha = ds.find((d) => d.code === 'recipe/chunk-sha');
    assert.ok(sha, JSON.stringify(ds.map((d) => d.code)));
    assert.deepEqual(sha.range, valueRange(text, 'sha256', JSON.stringify(wrongSha)));

    const whole = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    assert.deepEqual(await lsp.codeActions(uri, whole, { only: ['source.fixAll'] }), [], 'a digest is never fixed unattended');

    const [fix] = (await lsp.codeActions(uri, sha.range, { only: ['quickfix'] }))!.filter(isAction);
    assert.ok(fix, 'a quick fix is offered');
    const fixed = applyTextEdits(text, LspHarness.editsFor(fix.edit, uri));
    assert.equal(JSON.parse(fixed).ops[2].sha256, createHash('sha256').update('{"a":1}').digest('hex'));
    const v = lsp.change(uri, fixed);
    assert.deepEqual(await lsp.waitForDiagnostics(uri, (_, version) => version === v), []);
  });

  test('source.fixAll.toonlens applies every unattended fix in one edit and clears those diagnostics', async () => {
    const text = verdictText((d) => {
      d.measured_chars.savings = -100;
      d.safe_to_auto_apply = true;
    });
    const uri = lsp.open('all.verdict.json', text);
    const ds = await lsp.waitForDiagnostics(uri, (d) => d.length === 2);
    assert.deepEqual(ds.map((d) => d.code).sort(), ['verdict/safe-to-auto-apply', 'verdict/savings']);

    const whole = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
    for (const only of [['source.fixAll'], ['source.fixAll.toonlens'], ['source']]) {
      const actions = (await lsp.codeActions(uri, whole, { only }))!.filter(isAction);
      assert.equal(actions.length, 1, `only ${only}`);
      assert.equal(actions[0]!.kind, 'source.fixAll.toonlens');
    }
    // Not offered in the lightbulb (no `only`), and no quick fixes at the top of the file.
    assert.deepEqual(await lsp.codeActions(uri, whole), []);

    const [all] = (await lsp.codeActions(uri, whole, { only: ['source.fixAll'] }))!.filter(isAction);
    const edits = LspHarness.editsFor(all!.edit, uri);
    assert.equal(edits.length, 1, 'one edit');
    const fixed = applyTextEdits(text, edits);
    const v = JSON.parse(fixed);
    assert.equal(v.measured_chars.savings, -102);
    assert.equal(v.safe_to_auto_apply, false);
    assert.equal(fixed, verdictText(), 'only the two values changed, formatting kept');
    const ver = lsp.change(uri, fixed);
    assert.deepEqual(await lsp.waitForDiagnostics(uri, (_, version) => version === ver), []);
    assert.deepEqual(await lsp.codeActions(uri, whole, { only: ['source.fixAll'] }), []);
  });

  test('no code actions for markdown or unknown documents', async () => {
    const md = lsp.open('readme.md', '# Title\n');
    const json = lsp.open('data.json', '{"a": 1}');
    const r = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
    assert.deepEqual(await lsp.codeActions(md, r, { only: ['source.fixAll'] }), []);
    assert.deepEqual(await lsp.codeActions(json, r), []);
    assert.equal(await lsp.codeActions('file:///nowhere/not-open.json', r), null);
  });
});

// features/json/codeActions.ts in process (a FeatureContext double, no server): the quick fixes and the
// fix-all action a real verdict's diagnostics map to, applied to the text as a client would.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnostic, Range } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { codeActionsFeature } from '../../server/src/features/json/codeActions';
import { jsonDiagnosticsFeature } from '../../server/src/features/json/documents';
import { FIX_ALL_KIND } from '../../server/src/protocol/commands';
import { ContextDouble, codeActionsOf } from '../lsp/featureContext';
import { LspHarness, applyTextEdits } from '../lsp/harness';
import { valueRange, verdictText } from '../lsp/fixtures';

const inside = (inner: Range, outer: Range) =>
  (inner.start.line > outer.start.line || (inner.start.line === outer.start.line && inner.start.character >= outer.start.character)) &&
  (inner.end.line < outer.end.line || (inner.end.line === outer.end.line && inner.end.character <= outer.end.character));

function setup(options: ConstructorParameters<typeof ContextDouble>[0] = {}) {
  const double = new ContextDouble(options);
  const actions = double.create(codeActionsFeature);
  const diagnostics = double.create(jsonDiagnosticsFeature);
  const diagnose = (doc: TextDocument) => double.diagnose(diagnostics, doc);
  const request = (doc: TextDocument, range: Range, ds: Diagnostic[], only?: string[]) => codeActionsOf(actions, doc, range, ds, only);
  return { double, diagnose, request };
}

describe('json code actions feature', () => {
  const { double, diagnose, request } = setup();
  after(() => double.dispose());

  test('a quick fix at a diagnostic edits where it is and removes it once applied', async () => {
    const text = verdictText((d) => (d.measured_chars.savings = -100));
    const doc = double.open('file:///w/qf.verdict.json', 'json', text);
    const [diag, ...rest] = await diagnose(doc);
    assert.equal(diag?.code, 'verdict/savings');
    assert.deepEqual(rest, []);

    const actions = await request(doc, diag!.range, [diag!], ['quickfix']);
    assert.equal(actions.length, 1);
    const [fix] = actions;
    assert.equal(fix!.kind, 'quickfix');
    assert.equal(fix!.isPreferred, true);
    assert.match(fix!.title, /savings.*-102/);
    assert.deepEqual(fix!.diagnostics?.map((d) => d.code), ['verdict/savings']);
    const edits = LspHarness.editsFor(fix!.edit, doc.uri);
    assert.ok(edits.length > 0);
    for (const e of edits) assert.ok(inside(e.range, diag!.range), `edit ${JSON.stringify(e.range)} lies in the diagnostic ${JSON.stringify(diag!.range)}`);

    const fixed = applyTextEdits(text, edits);
    assert.equal(JSON.parse(fixed).measured_chars.savings, -102);
    const after = double.change(doc.uri, fixed);
    assert.deepEqual((await diagnose(after)).map((d) => d.code), []);
    assert.deepEqual(await request(after, diag!.range, [diag!]), [], 'no fix once the text is fixed, even for the stale diagnostic');
    assert.deepEqual(double.logs.filter((l) => l.level === 'error'), []);
  });

  test('no quick fix for a range without diagnostics, none for a clean document', async () => {
    const text = verdictText((d) => (d.measured_chars.savings = -100));
    const doc = double.open('file:///w/away.verdict.json', 'json', text);
    assert.equal((await diagnose(doc)).length, 1);
    const far = valueRange(text, 'schema_version', '"1.0"');
    assert.deepEqual(await request(doc, far, [], ['quickfix']), []);

    const clean = double.open('file:///w/clean.verdict.json', 'json', verdictText());
    assert.deepEqual(await diagnose(clean), []);
    assert.deepEqual(await request(clean, far, []), []);
    assert.deepEqual(await request(clean, far, [], [FIX_ALL_KIND]), []);
  });

  test('source.fixAll is offered only when asked for, and its edit leaves no fixable diagnostic', async () => {
    const text = verdictText((d) => (d.measured_chars.savings = -100));
    const doc = double.open('file:///w/all.verdict.json', 'json', text);
    const [diag] = await diagnose(doc);
    assert.ok(!(await request(doc, diag!.range, [diag!])).some((a) => a.kind === FIX_ALL_KIND), 'no source action without `only`');
    const [all, ...more] = await request(doc, diag!.range, [diag!], [FIX_ALL_KIND]);
    assert.deepEqual(more, []);
    assert.equal(all!.kind, FIX_ALL_KIND);
    assert.equal(all!.title, 'Fix all auto-fixable ToonLens problems');
    const fixed = applyTextEdits(text, LspHarness.editsFor(all!.edit, doc.uri));
    assert.equal(JSON.parse(fixed).measured_chars.savings, -102);
    assert.deepEqual(await diagnose(double.change(doc.uri, fixed)), []);
  });

  test('versioned documentChanges when the client supports them', async () => {
    const versioned = setup({ clientCapabilities: { workspace: { workspaceEdit: { documentChanges: true } } } });
    try {
      const doc = versioned.double.open('file:///w/v.verdict.json', 'json', verdictText((d) => (d.measured_chars.savings = -100)), 3);
      const [diag] = await versioned.diagnose(doc);
      const [fix] = await versioned.request(doc, diag!.range, [diag!]);
      const dc = fix!.edit!.documentChanges![0] as { textDocument: { uri: string; version: number } };
      assert.deepEqual(dc.textDocument, { uri: doc.uri, version: 3 });
      assert.equal(fix!.edit!.changes, undefined);
    } finally {
      versioned.double.dispose();
    }
  });

  test('restricted mode: the quick fix disabled without an edit, no fix-all, nothing for a client without disabled actions', async () => {
    for (const disabledSupport of [true, false]) {
      const untrusted = setup({ trusted: false, clientCapabilities: { textDocument: { codeAction: { disabledSupport } } } });
      try {
        const doc = untrusted.double.open('file:///w/r.verdict.json', 'json', verdictText((d) => (d.measured_chars.savings = -100)));
        const [diag] = await untrusted.diagnose(doc);
        assert.equal(diag?.code, 'verdict/savings', 'diagnostics stay in restricted mode');
        const quick = await untrusted.request(doc, diag!.range, [diag!], ['quickfix']);
        if (disabledSupport) {
          assert.equal(quick.length, 1);
          assert.match(quick[0]!.title, /savings.*-102/, 'the user sees what trusting would offer');
          assert.match(quick[0]!.disabled?.reason ?? '', /restricted mode/);
          assert.equal(quick[0]!.edit, undefined);
        } else assert.deepEqual(quick, []);
        assert.deepEqual(await untrusted.request(doc, diag!.range, [diag!], [FIX_ALL_KIND]), [], 'a workspace cannot make a save edit it');
      } finally {
        untrusted.double.dispose();
      }
    }
  });

  test('markdown gets no actions from it', async () => {
    const md = double.open('file:///w/notes.md', 'markdown', '# Notes\n');
    const r = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
    assert.deepEqual(await request(md, r, []), []);
  });
});

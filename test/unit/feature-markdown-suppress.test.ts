// features/markdown/suppress.ts in process (a FeatureContext double, no server): the disable comments a toon/*
// diagnostic maps to, applied to the text as a client would, and what restricted mode leaves of them.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Diagnostic, Range } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { markdownSuppressFeature } from '../../server/src/features/markdown/suppress';
import { markdownDiagnosticsFeature } from '../../server/src/features/markdown/diagnostics';
import { ContextDouble, codeActionsOf } from '../lsp/featureContext';
import { LspHarness, applyTextEdits } from '../lsp/harness';
import { REPO_ROOT } from '../paths';

const DUPLICATES = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'duplicate-rules.md'), 'utf8');
const ofCode = (ds: Diagnostic[], code: string) => ds.filter((d) => d.code === code);

function setup(options: ConstructorParameters<typeof ContextDouble>[0] = {}) {
  const double = new ContextDouble(options);
  const suppress = double.create(markdownSuppressFeature);
  const provider = double.create(markdownDiagnosticsFeature);
  const diagnose = (doc: TextDocument) => double.diagnose(provider, doc);
  const request = (doc: TextDocument, range: Range, ds: Diagnostic[], only = ['quickfix']) => codeActionsOf(suppress, doc, range, ds, only);
  return { double, diagnose, request };
}

describe('markdown suppress feature', () => {
  const { double, diagnose, request } = setup();
  after(() => double.dispose());

  test('"for this line" writes the comment before the diagnostic\'s line; only that diagnostic goes', async () => {
    const doc = double.open('file:///w/line/AGENTS.md', 'markdown', DUPLICATES);
    const dup = ofCode(await diagnose(doc), 'toon/duplicate-rule');
    assert.ok(dup.length >= 2, 'the example repeats rules');
    const target = dup[0]!;
    const actions = await request(doc, target.range, [target]);
    assert.deepEqual(actions.map((a) => a.title), ['Disable toon/duplicate-rule for this line', 'Disable toon/duplicate-rule for this file']);
    for (const a of actions) {
      assert.equal(a.kind, 'quickfix');
      assert.equal(a.isPreferred, undefined, 'a suppression is never the preferred fix');
      assert.deepEqual(a.diagnostics, [target]);
    }
    const edits = LspHarness.editsFor(actions[0]!.edit, doc.uri);
    assert.equal(edits.length, 1);
    assert.deepEqual(edits[0]!.range.start, { line: target.range.start.line, character: 0 }, 'inserted at the start of the diagnostic\'s line');
    const text = applyTextEdits(DUPLICATES, edits);
    const lines = text.split('\n');
    const at = target.range.start.line;
    assert.equal(lines[at], '<!-- toonlens-disable-next-line toon/duplicate-rule -->');
    assert.equal(lines[at + 1], DUPLICATES.split('\n')[at]);
    const again = ofCode(await diagnose(double.change(doc.uri, text)), 'toon/duplicate-rule');
    assert.deepEqual(again.map((d) => d.range.start.line), dup.slice(1).map((d) => d.range.start.line + 1), 'only that line\'s diagnostic is gone');
    assert.deepEqual(double.logs.filter((l) => l.level === 'error'), []);
  });

  test('"for this file" writes one comment after the frontmatter and every diagnostic of that code goes', async () => {
    const FRONT = '---\ndescription: support rules\n---\n';
    const doc = double.open('file:///w/file/AGENTS.md', 'markdown', FRONT + DUPLICATES);
    const before = await diagnose(doc);
    const target = ofCode(before, 'toon/duplicate-rule')[0]!;
    const file = (await request(doc, target.range, [target])).find((a) => a.title.endsWith('for this file'))!;
    const text = applyTextEdits(doc.getText(), LspHarness.editsFor(file.edit, doc.uri));
    assert.equal(text, FRONT + '<!-- toonlens-disable toon/duplicate-rule -->\n' + DUPLICATES);
    const after = await diagnose(double.change(doc.uri, text));
    assert.deepEqual(ofCode(after, 'toon/duplicate-rule'), []);
    assert.equal(after.length, before.length - ofCode(before, 'toon/duplicate-rule').length, 'the other codes stay');
  });

  test('no actions without a toon/* diagnostic, for JSON, or outside markdown', async () => {
    const doc = double.open('file:///w/none/AGENTS.md', 'markdown', DUPLICATES);
    const r = { start: { line: 0, character: 0 }, end: { line: 0, character: 3 } };
    assert.deepEqual(await request(doc, r, []), []);
    assert.deepEqual(await request(doc, r, [{ range: r, message: 'x', source: 'markdownlint', code: 'MD001' }]), []);
    const target = ofCode(await diagnose(doc), 'toon/duplicate-rule')[0]!;
    assert.deepEqual(await request(doc, target.range, [target], ['refactor']), [], 'not a quick fix request');
    const json = double.open('file:///w/x.json', 'json', '{ "a": 1 }');
    assert.deepEqual(await request(json, r, [{ ...target, range: r }]), []);
  });

  test('restricted mode: disabled and without an edit for a client that shows them, none otherwise', async () => {
    for (const disabledSupport of [true, false]) {
      const untrusted = setup({ trusted: false, clientCapabilities: { textDocument: { codeAction: { disabledSupport } } } });
      try {
        const doc = untrusted.double.open('file:///w/r/AGENTS.md', 'markdown', DUPLICATES);
        const target = ofCode(await untrusted.diagnose(doc), 'toon/duplicate-rule')[0]!;
        const actions = await untrusted.request(doc, target.range, [target]);
        if (disabledSupport) {
          assert.deepEqual(actions.map((a) => a.title), ['Disable toon/duplicate-rule for this line', 'Disable toon/duplicate-rule for this file']);
          assert.ok(actions.every((a) => a.disabled?.reason.includes('restricted mode') && !a.edit), JSON.stringify(actions));
        } else {
          assert.deepEqual(actions, []);
        }
        assert.deepEqual(untrusted.double.logs.filter((l) => l.level === 'error'), []);
      } finally {
        untrusted.double.dispose();
      }
    }
  });
});

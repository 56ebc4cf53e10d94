// features/json/hover.ts in process (a FeatureContext double, no server): the hover a verdict field maps to.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MarkupContent } from 'vscode-languageserver/node';
import { jsonHoverFeature } from '../../server/src/features/json/hover';
import { ContextDouble, NO_CANCEL } from '../lsp/featureContext';
import { positionAt } from '../lsp/harness';
import { verdictText } from '../lsp/fixtures';

describe('json hover feature', () => {
  const double = new ContextDouble();
  const feature = double.create(jsonHoverFeature);
  after(() => double.dispose());

  test('hovering a verdict field returns markdown', async () => {
    const text = verdictText();
    const doc = double.open('file:///w/hover.verdict.json', 'json', text);
    const at = text.indexOf('"safe_to_auto_apply"') + 3;
    const h = await feature.hover!(doc, { textDocument: { uri: doc.uri }, position: positionAt(text, at) }, NO_CANCEL);
    assert.ok(h, 'a hover');
    const contents = h.contents as MarkupContent;
    assert.equal(contents.kind, 'markdown');
    // A derived field shows its recorded value, the derived value and the inputs that decide it.
    assert.match(contents.value, /recorded `(true|false)`, derived `(true|false)`/);
    assert.match(contents.value, /\| mode \|/);
    assert.match(contents.value, /Decided by:/);
    assert.ok(h.range, 'the hover names its range');
    assert.ok(h.range.start.line <= positionAt(text, at).line && h.range.end.line >= positionAt(text, at).line);
    assert.deepEqual(double.logs.filter((l) => l.level === 'error'), []);
  });

  test('unrelated JSON and markdown get no hover from it', async () => {
    const json = double.open('file:///w/other.json', 'json', '{ "name": "x" }');
    assert.equal(await feature.hover!(json, { textDocument: { uri: json.uri }, position: { line: 0, character: 4 } }, NO_CANCEL) ?? null, null);
    const md = double.open('file:///w/notes.md', 'markdown', '# Notes\n');
    assert.equal(await feature.hover!(md, { textDocument: { uri: md.uri }, position: { line: 0, character: 2 } }, NO_CANCEL) ?? null, null);
  });
});

// Hovers on agent JSON come back as markdown with a range inside the document.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { MarkupContent } from 'vscode-languageserver-protocol/node';
import { LspHarness, positionAt } from './harness';
import { verdictText } from './fixtures';

describe('hover', () => {
  let lsp: LspHarness;
  before(async () => {
    lsp = await LspHarness.start();
  });
  after(async () => {
    await lsp.shutdown();
  });

  test('hovering a verdict field returns markdown', async () => {
    const text = verdictText();
    const uri = lsp.open('hover.verdict.json', text);
    await lsp.waitForDiagnostics(uri);
    const at = text.indexOf('"safe_to_auto_apply"') + 3;
    const h = await lsp.hover(uri, positionAt(text, at));
    assert.ok(h, 'a hover');
    const contents = h.contents as MarkupContent;
    assert.equal(contents.kind, 'markdown');
    // A derived field shows its recorded value, the derived value and the inputs that decide it.
    assert.match(contents.value, /recorded `(true|false)`, derived `(true|false)`/);
    assert.match(contents.value, /\| mode \|/);
    assert.match(contents.value, /Decided by:/);
    if (h.range) {
      assert.ok(h.range.start.line <= positionAt(text, at).line && h.range.end.line >= positionAt(text, at).line);
    }
  });

  test('no hover on unrelated JSON or a closed document', async () => {
    const json = lsp.open('other.json', '{ "name": "x" }');
    assert.equal(await lsp.hover(json, { line: 0, character: 4 }), null);
    assert.equal(await lsp.hover('file:///not/open.json', { line: 0, character: 0 }), null);
  });

  test('a hover past the end of the document does not fail', async () => {
    const text = verdictText();
    const uri = lsp.open('end.verdict.json', text);
    const h = await lsp.hover(uri, { line: 100000, character: 5 });
    assert.ok(h === null || typeof h === 'object');
  });
});

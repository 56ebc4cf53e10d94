// Hovers on agent JSON over real LSP: none where none applies, never a failure past the end.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { LspHarness } from './harness';
import { verdictText } from './fixtures';

describe('hover', () => {
  let lsp: LspHarness;
  before(async () => {
    lsp = await LspHarness.start();
  });
  after(async () => {
    await lsp.shutdown();
  });

  // What a verdict field's hover says is tested in process: test/unit/feature-json-hover.test.ts.
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

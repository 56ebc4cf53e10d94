// features/markdown/hover.ts in process (a FeatureContext double, no server): the verdict table a heading maps to.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Hover, MarkupContent } from 'vscode-languageserver/node';
import { markdownHoverFeature } from '../../server/src/features/markdown/hover';
import { ContextDouble, NO_CANCEL } from '../lsp/featureContext';
import { REPO_ROOT } from '../paths';

const AGENTS = readFileSync(join(REPO_ROOT, 'test', 'e2e', 'workspace', 'AGENTS.md'), 'utf8');
const hoverText = (h: Hover | null | undefined) => (h ? (h.contents as MarkupContent).value : '');

describe('markdown hover feature', () => {
  const double = new ContextDouble();
  const feature = double.create(markdownHoverFeature);
  after(() => double.dispose());

  test('hovering a heading shows the verdict table and the candidate preview', async () => {
    const doc = double.open('file:///w/hover.md', 'markdown', AGENTS);
    const line = AGENTS.split('\n').findIndex((l) => l.startsWith('## Services'));
    const hover = (character: number, at = line) => feature.hover!(doc, { textDocument: { uri: doc.uri }, position: { line: at, character } }, NO_CANCEL);
    const text = hoverText(await hover(5));
    assert.match(text, /verdict `convert`/);
    assert.match(text, /gpt-tokenizer@4\.0\.0:o200k_base/);
    assert.match(text, /```toon\n/);
    assert.equal(hoverText(await hover(2, line + 3)), '', 'no hover inside the body');
    assert.deepEqual(double.logs.filter((l) => l.level === 'error'), []);
  });

  test('JSON gets no hover from it', async () => {
    const json = double.open('file:///w/x.json', 'json', '{ "a": 1 }');
    assert.equal(hoverText(await feature.hover!(json, { textDocument: { uri: json.uri }, position: { line: 0, character: 2 } }, NO_CANCEL)), '');
  });
});

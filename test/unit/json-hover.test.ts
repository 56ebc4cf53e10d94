/** Hovers: the kind's explainer first, else the description from OUR schema of what is under the cursor. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { hoverAt } from '../../server/src/core/agentJson/hover';
import { EXPLAINERS } from '../../server/src/core/agentJson/rules/explain';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const read = (...p: string[]) => readFileSync(join(repoRoot, ...p), 'utf8');
const schemaDescription = (file: string, ...path: string[]) => {
  let node: any = JSON.parse(read('schemas', file));
  for (const p of path) node = node[p];
  return node.description as string;
};

describe('hoverAt', () => {
  test('on a report key: the schema description, range = the key', () => {
    const text = read('examples', 'golden', 'valid-report.json');
    const at = text.indexOf('"op_type"') + 3;
    const h = hoverAt(text, at, { fsPath: '/x/hygiene-report.json' });
    assert.ok(h);
    assert.ok(h.markdown.includes(schemaDescription('report.v1.json', '$defs', 'entry', 'properties', 'op_type')));
    assert.equal(text.slice(h.range.start, h.range.end), '"op_type"');
  });

  test('inside a oneOf branch picked by its discriminator (exact_edit kind move-to-archive)', () => {
    const text = read('examples', 'golden', 'valid-report.json');
    const at = text.indexOf('"dest_path"') + 2;
    const h = hoverAt(text, at, { fsPath: '/x/hygiene-report.json' });
    assert.ok(h);
    assert.match(h.markdown, /archive file/);
  });

  test('on an enum value: the description and the allowed values', () => {
    const text = read('examples', 'agent-json', 'queued.recipe-output.json');
    const at = text.indexOf('"queued"') + 2;
    const h = hoverAt(text, at, { fsPath: '/x/queued.recipe-output.json' });
    assert.ok(h);
    assert.match(h.markdown, /Allowed: `"queued"`/);
    assert.equal(text.slice(h.range.start, h.range.end), '"queued"');
  });

  test('verdict hovers defer to the verdict explainer when it has something to say', () => {
    const text = read('examples', 'agent-json', 'settings-table.verdict.json');
    const at = text.indexOf('"safe_to_auto_apply"') + 2;
    const h = hoverAt(text, at, { fsPath: '/x/a.verdict.json' });
    assert.ok(h);
    const expected = EXPLAINERS.verdict?.(JSON.parse(text), ['safe_to_auto_apply']);
    assert.equal(h.markdown, expected ?? h.markdown);
    assert.ok(h.markdown.length > 0);
  });

  test('critique: hovers on nested properties from our draft-07 copy', () => {
    const text = read('examples', 'agent-json', 'config-loader.critique.json');
    const at = text.indexOf('"totalUsd"') + 2;
    const h = hoverAt(text, at, { fsPath: '/x/a.critique.json' });
    assert.ok(h);
    assert.match(h.markdown, /totalUsd/);
  });

  test('nothing for unrelated JSON, broken positions or absurd nesting', () => {
    assert.equal(hoverAt('{"name": "x"}', 3, { fsPath: '/x/package.json' }), undefined);
    assert.equal(hoverAt('['.repeat(100_000), 5, { kind: 'verdict' }), undefined);
    const text = read('examples', 'agent-json', 'settings-table.verdict.json');
    assert.doesNotThrow(() => hoverAt(text, text.length + 10, { fsPath: '/x/a.verdict.json' }));
  });
});

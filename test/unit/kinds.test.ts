/** Document-kind association: $schema, then the setting, then file-name conventions, then content sniffing. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { detectKind, kindFromContent, kindFromFileName, kindFromSchemaUrl } from '../../server/src/core/agentJson/kinds';
import { checkDocument } from '../../server/src/core/agentJson/check';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const examples = join(repoRoot, 'examples', 'agent-json');
const readJson = (p: string) => JSON.parse(readFileSync(p, 'utf8'));

const verdictLike = { schema_version: '1.0', verdict: 'convert', measured_chars: {}, flags: {} };
const reportLike = { shortlist: [], entries: [], generated_at: '2026-11-29T10:00:00Z' };

describe('association order', () => {
  test('$schema wins over the setting, the file name and the content', () => {
    const value = { $schema: 'https://toonlens.dev/schemas/report.v1.json', ...verdictLike };
    const k = detectKind('', value, { fsPath: '/ws/x.verdict.json', settings: { documentKinds: { '**/*.json': 'critique' } }, root: '/ws' });
    assert.equal(k, 'report');
  });

  test('the setting wins over the file name and the content', () => {
    const k = detectKind('', verdictLike, { fsPath: '/ws/out/x.verdict.json', settings: { documentKinds: { 'out/**': 'recipe-output' } }, root: '/ws' });
    assert.equal(k, 'recipe-output');
  });

  test('the setting matches the workspace-relative path and the basename', () => {
    const settings = { documentKinds: { 'agents/*.json': 'critique' as const, 'run-*.json': 'recipe-input' as const } };
    assert.equal(detectKind('', {}, { fsPath: '/ws/agents/a.json', settings, root: '/ws' }), 'critique');
    assert.equal(detectKind('', {}, { fsPath: '/ws/deep/down/run-7.json', settings, root: '/ws' }), 'recipe-input');
    assert.equal(detectKind('', {}, { fsPath: '/ws/other/a.json', settings, root: '/ws' }), undefined);
  });

  test('a malformed glob or an unknown kind in the setting is ignored', () => {
    const settings = { documentKinds: { '[': 'verdict', '*.json': 'nonsense' } as never };
    assert.equal(detectKind('', {}, { fsPath: '/ws/a.json', settings, root: '/ws' }), undefined);
  });

  test('the file name wins over the content', () => {
    assert.equal(detectKind('', verdictLike, { fsPath: '/ws/hygiene-report.json' }), 'report');
  });

  test('the content decides last', () => {
    assert.equal(detectKind('', verdictLike, { fsPath: '/ws/out.json' }), 'verdict');
    assert.equal(detectKind('', reportLike, {}), 'report');
    assert.equal(detectKind('', { name: 'pkg' }, { fsPath: '/ws/package.json' }), undefined);
  });

  test('a forced kind overrides everything in checkDocument', () => {
    assert.equal(checkDocument('{"a":1}', { kind: 'critique', fsPath: '/ws/a.verdict.json' }).kind, 'critique');
  });

  test('$schema in a text that does not parse still names the kind', () => {
    assert.equal(checkDocument('{"$schema": "../schemas/verdict.v1.json", "x": ', {}).kind, 'verdict');
  });
});

describe('conventions', () => {
  test('$schema URLs: ours, upstream, relative', () => {
    assert.equal(kindFromSchemaUrl('https://cheapagent.ai/schemas/verdict.v1.json'), 'verdict');
    assert.equal(kindFromSchemaUrl('../schemas/report.v1.json'), 'report');
    assert.equal(kindFromSchemaUrl('https://toonlens.dev/schemas/critique-report.v1.json'), 'critique');
    assert.equal(kindFromSchemaUrl('critique-report.json'), 'critique');
    assert.equal(kindFromSchemaUrl('./schemas/recipe-input.v1.json#'), 'recipe-input');
    assert.equal(kindFromSchemaUrl('review_recipe_build.output.change1.new.schema.json'), 'recipe-output');
    assert.equal(kindFromSchemaUrl('https://json.schemastore.org/package.json'), undefined);
  });

  test('file names', () => {
    const cases: [string, string | undefined][] = [
      ['/a/x.verdict.json', 'verdict'],
      ['/a/verdict.json', 'verdict'],
      ['/a/hygiene-report.json', 'report'],
      ['/a/weekly.report.json', 'report'],
      ['C:\\a\\critique-report.json', 'critique'],
      ['/a/run.critique.json', 'critique'],
      ['/a/x.recipe-input.json', 'recipe-input'],
      ['/a/x.recipe-output.json', 'recipe-output'],
      ['/a/report.json', undefined],
      ['/a/package.json', undefined],
    ];
    for (const [p, k] of cases) assert.equal(kindFromFileName(p), k, p);
  });

  test('content sniffing recognizes every example by its keys alone', () => {
    for (const f of readdirSync(examples).filter((n) => n.endsWith('.json'))) {
      const expected = kindFromFileName(f);
      const value = readJson(join(examples, f));
      assert.equal(kindFromContent(value), expected, f);
    }
    assert.equal(kindFromContent(readJson(join(repoRoot, 'examples', 'golden', 'valid-report.json'))), 'report');
  });
});

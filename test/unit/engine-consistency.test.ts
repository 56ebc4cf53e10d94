// Self-consistency (docs/engine.md#self-consistency): every verdict the engine emits raises no error-severity diagnostic
// from ToonLens's own verdict rules, on the corpus inputs, the examples and generated markdown.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { convertDocument, planDocument, profileDocument, type VerdictV1 } from '../../server/src/core/markdown/engine';
import { verdictRules } from '../../server/src/core/agentJson/rules/verdict';
import { CORPUS_INPUTS } from '../paths';

const repoRoot = path.resolve(__dirname, '..', '..');

function errorsOf(v: VerdictV1): string[] {
  const text = JSON.stringify(v, null, 2);
  return verdictRules(JSON.parse(text), { text })
    .filter((f) => f.severity === 'error')
    .map((f) => `${f.code}: ${f.message}`);
}

function allVerdicts(text: string): VerdictV1[] {
  return [
    profileDocument(text),
    convertDocument(text),
    convertDocument(text, { mode: 'record' }),
    convertDocument(text, { mode: 'budget', targetChars: 50 }),
    convertDocument(text, { mode: 'budget', targetChars: 50, allowLossy: true }),
    convertDocument(text, { mode: 'budget', targetChars: 10_000_000 }),
    planDocument(text).verdict,
  ];
}

test('corpus inputs and examples: no error-severity verdict diagnostic', () => {
  const dirs = [CORPUS_INPUTS, path.join(repoRoot, 'examples', 'markdown'), path.join(repoRoot, 'test', 'fixtures', 'markdown')];
  let n = 0;
  for (const dir of dirs) {
    let files: string[];
    try {
      files = readdirSync(dir).filter((f) => f.endsWith('.md') && !f.startsWith('LICENSE'));
    } catch {
      continue;
    }
    for (const f of files) {
      const text = readFileSync(path.join(dir, f), 'utf8');
      for (const v of allVerdicts(text)) {
        assert.deepEqual(errorsOf(v), [], `${f} (${v.mode}, ${v.schema_version})`);
        n++;
      }
    }
  }
  assert.ok(n > 150);
});

test('generated markdown: no error-severity verdict diagnostic', () => {
  const line = fc.constantFrom('# Title', '## Rules', '- must do x', '- should do y', '| a | b |\n| - | - |\n| 1 | 2 |', 'Some prose here.', '```\ncode\n```', 'Setext\n---', '', '- Be careful always');
  fc.assert(
    fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
      const text = lines.join('\n');
      for (const v of allVerdicts(text)) assert.deepEqual(errorsOf(v), [], JSON.stringify(text));
    }),
    { numRuns: 60 },
  );
});

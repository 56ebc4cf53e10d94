// toon/vague-rule precision: on every corpus input, the vague rules we flag are exactly the lines the
// producer (doc2toon) flags in its profile output, and quoted examples or concrete hedged rules are not flagged.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { profileDocument } from '../../server/src/core/markdown/engine';
import { isVagueRule, quotedSpans } from '../../server/src/core/markdown/warnings';
import { CORPUS_DIR, CORPUS_INPUTS, REPO_ROOT } from '../paths';

const vagueLines = (text: string): number[] =>
  profileDocument(text).warnings.filter((w) => w.code === 'vague_rule').map((w) => w.range!.line_start).sort((a, b) => a - b);

describe('toon/vague-rule precision', () => {
  test('flags exactly the producer-labelled vague rules on the corpus (precision and recall 100 %)', () => {
    const files = readdirSync(CORPUS_INPUTS).filter((f) => f.startsWith('upstream') && f.endsWith('.md'));
    assert.ok(files.length >= 20);
    let flagged = 0;
    for (const f of files) {
      const profile = JSON.parse(readFileSync(path.join(CORPUS_DIR, `${f}.profile.json`), 'utf8')) as { warnings: { code: string; range?: { line_start: number } }[] };
      const expected = profile.warnings.filter((w) => w.code === 'vague_rule').map((w) => w.range!.line_start).sort((a, b) => a - b);
      const ours = vagueLines(readFileSync(path.join(CORPUS_INPUTS, f), 'utf8'));
      assert.deepEqual(ours, expected, f);
      flagged += ours.length;
    }
    assert.ok(flagged >= 9, `the corpus has vague rules to find (${flagged})`);
  });

  test('the example AGENTS.md keeps its one deliberate vague rule', () => {
    const text = readFileSync(path.join(REPO_ROOT, 'examples', 'markdown', 'AGENTS.md'), 'utf8');
    const lines = text.split('\n');
    assert.deepEqual(vagueLines(text).map((l) => lines[l - 1]), ['- Be careful with currency conversions.']);
  });

  test('quoted examples and concrete hedged rules are not vague; bare hedges and strong phrases are', () => {
    assert.equal(isVagueRule('"Be smart."'), false);
    assert.equal(isVagueRule('Avoid rules like “use good judgment” — say what to check.'), false);
    assert.equal(isVagueRule('Run `pnpm lint --fix` where possible before committing.'), false);
    assert.equal(isVagueRule('Retry failed uploads up to 3 times when needed.'), false);
    assert.equal(isVagueRule('Write high-quality tests for src/parser.'), false);
    assert.equal(isVagueRule('Handle errors gracefully.'), true);
    assert.equal(isVagueRule('Refactor where possible.'), true);
    assert.equal(isVagueRule('Add tests as appropriate.'), true);
    // A condition hedge on a concrete instruction is how real prompts are written, not a vague rule.
    assert.equal(isVagueRule('Offer concrete next steps when possible.'), false);
    assert.equal(isVagueRule('Keep the output brief, and ask for feedback or additional input if needed.'), false);
    assert.equal(isVagueRule('Be careful with `prod` credentials.'), true);
    assert.equal(isVagueRule('Use good judgment about "the hotfix" branch.'), true);
    assert.deepEqual(quotedSpans('a "b" `c` "open'), [[2, 4], [6, 8]]);
  });
});

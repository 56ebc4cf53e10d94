/** JsonFix → text edits: formatting preserved, positions re-read after each fix, idempotent. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { applyFixes, applyTextEditsTo, fixToTextEdits } from '../../server/src/core/json/edits';
import { checkDocument } from '../../server/src/core/agentJson/check';
import type { JsonFix } from '../../server/src/core/types';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const tabbed = readFileSync(join(repoRoot, 'test', 'fixtures', 'json', 'formatted.verdict.json'), 'utf8');

const setSafe: JsonFix = { title: 'Set safe_to_auto_apply to false', edits: [{ path: ['safe_to_auto_apply'], value: false }], fixAll: true };

describe('fixToTextEdits', () => {
  test('replacing a value touches only that value', () => {
    const edits = fixToTextEdits(tabbed, setSafe);
    assert.equal(edits.length, 1);
    assert.equal(tabbed.slice(edits[0]!.offset, edits[0]!.offset + edits[0]!.length), 'true');
    assert.equal(edits[0]!.content, 'false');
  });

  test('an inserted property follows the document’s tab indentation', () => {
    const fix: JsonFix = { title: 'add', edits: [{ path: ['delimiter'], value: ',' }], fixAll: true };
    const out = applyTextEditsTo(tabbed, fixToTextEdits(tabbed, fix));
    assert.match(out, /\n\t"delimiter": ","\n\}/);
    assert.ok(out.includes('"nested": { "keep": [1, 2, 3] }'), 'untouched parts keep their formatting');
  });

  test('several edits in one fix become one edit against the original text', () => {
    const fix: JsonFix = {
      title: 'two',
      edits: [
        { path: ['verdict'], value: 'review' },
        { path: ['nested', 'keep'], remove: true },
      ],
      fixAll: true,
    };
    const edits = fixToTextEdits(tabbed, fix);
    assert.equal(edits.length, 1);
    const out = applyTextEditsTo(tabbed, edits);
    assert.deepEqual(JSON.parse(out), { ...JSON.parse(tabbed), verdict: 'review', nested: {} });
  });

  test('with a BOM, offsets refer to the text including it', () => {
    const text = '\uFEFF' + tabbed;
    const edits = fixToTextEdits(text, setSafe);
    assert.equal(text.slice(edits[0]!.offset, edits[0]!.offset + edits[0]!.length), 'true');
    const out = applyTextEditsTo(text, edits);
    assert.equal(out.charCodeAt(0), 0xfeff);
    assert.equal(JSON.parse(out.slice(1)).safe_to_auto_apply, false);
  });

  test('text that cannot be edited yields no edit, not a crash', () => {
    assert.deepEqual(fixToTextEdits('['.repeat(100_000), setSafe), []);
  });
});

describe('applyFixes', () => {
  test('applies every fixAll fix, skips the others, and is idempotent', () => {
    const fixes: JsonFix[] = [
      setSafe,
      { title: 'not unattended', edits: [{ path: ['verdict'], value: 'refused' }], fixAll: false },
      { title: 'add a mode', edits: [{ path: ['mode'], value: 'lossless' }], fixAll: true },
    ];
    const once = applyFixes(tabbed, fixes);
    const parsed = JSON.parse(once);
    assert.equal(parsed.safe_to_auto_apply, false);
    assert.equal(parsed.verdict, 'convert');
    assert.equal(parsed.mode, 'lossless');
    assert.equal(applyFixes(once, fixes), once);
  });

  test('fixes that rules attach apply cleanly to a real example', () => {
    const text = readFileSync(join(repoRoot, 'examples', 'agent-json', 'unsafe-auto-apply.verdict.json'), 'utf8');
    const fixes = checkDocument(text, { fsPath: '/x/unsafe-auto-apply.verdict.json' }).diagnostics.flatMap((d) => d.fixes ?? []);
    const once = applyFixes(text, fixes);
    assert.equal(applyFixes(once, fixes), once);
    assert.doesNotThrow(() => JSON.parse(once));
  });
});

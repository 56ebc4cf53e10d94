/**
 * Against the built server over stdio: a section of tens of thousands of list items, and a document of thousands of
 * sections repeating each other's rules, are worked on in many turns of the time slicer, none of which is a large
 * share of the whole (the test hooks record every turn); a hover on another document answers meanwhile.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LspHarness, busy } from './harness';
import { SLICE_TURNS_COMMAND } from '../../server/src/testing/hooks';
import type { TurnTrace } from '../../server/src/testing/turnTrace';

const SMALL = '# Small\n\n- key: value\n- other: thing\n';

function hugeSection(n: number): string {
  let body = '';
  for (let i = 0; i < n; i++) body += `- item-${i}: the value of entry number ${i} here\n`;
  return '# Intro\n\nSome text.\n\n## Big\n\n' + body + '\n## After\n\nmore\n';
}

test('one huge list section: no turn is a large share of its work; a hover answers meanwhile', async () => {
  const lsp = await LspHarness.start();
  try {
    await lsp.hover(lsp.open('warm.md', SMALL), { line: 0, character: 3 });
    await lsp.waitIdle();
    const text = hugeSection(51_000);
    assert.ok(text.length > 2_400_000);
    const shares: number[] = [];
    // The least share of two documents (a collection pause can land in any turn of one).
    for (const k of [0, 1]) {
      await lsp.executeCommand(SLICE_TURNS_COMMAND, []);
      const heavy = lsp.open(`heavy-${k}.md`, k ? text.replace('## After', '## Later') : text);
      const other = lsp.open(`other-${k}.md`, SMALL.replace('Small', `Small ${k}`));
      const t0 = performance.now();
      assert.ok(await lsp.hover(other, { line: 0, character: 3 }), 'the other document has its hover');
      const ms = performance.now() - t0;
      assert.ok(ms < busy(2000), `the hover on another document took ${ms.toFixed(0)} ms`);
      assert.ok(await lsp.codeLenses(heavy));
      await lsp.waitIdle(busy(120_000));
      const t = (await lsp.executeCommand(SLICE_TURNS_COMMAND, [])) as TurnTrace;
      // Its parse and analysis are steps of a bounded number of lines, its count, encodings and decode check steps of
      // their own: the longest turn is one encoding (one call of the library) or a collection pause, not the parse.
      assert.ok(t.turns >= 40, `${t.turns} turns`);
      shares.push(t.longest / t.total);
      lsp.close(heavy);
      lsp.close(other);
    }
    const least = Math.min(...shares);
    assert.ok(least <= 0.12, `the longest turn was ${shares.map((s) => (100 * s).toFixed(0) + '%').join(', ')} of the sliced work`);
  } finally {
    lsp.kill();
    await lsp.exited;
  }
});

/** Sections that each repeat the same rules: every section's rules are duplicates of the first's. */
function repeatedRules(sections: number): string {
  let text = '# Rules\n\n';
  for (let i = 0; i < sections; i++) {
    text += `## Part ${i}\n\n- Always run the full test suite before you push a change to the main branch.\n- Never commit generated files or secrets to the repository, even in a draft branch.\n- Keep each pull request small and focused on one change so that it can be reviewed.\n\n`;
  }
  return text;
}

test('a document whose sections repeat each other: the duplicate findings are read in turns, not one', async () => {
  const lsp = await LspHarness.start();
  try {
    await lsp.hover(lsp.open('warm.md', SMALL), { line: 0, character: 3 });
    await lsp.waitIdle();
    const shares: number[] = [];
    for (const k of [0, 1]) {
      await lsp.executeCommand(SLICE_TURNS_COMMAND, []);
      const uri = lsp.open(k ? 'CLAUDE.md' : 'AGENTS.md', repeatedRules(6000 + k));
      assert.ok(await lsp.codeLenses(uri));
      await lsp.waitIdle(busy(120_000));
      const t = (await lsp.executeCommand(SLICE_TURNS_COMMAND, [])) as TurnTrace;
      const dups = (lsp.latestDiagnostics(uri) ?? []).filter((d) => d.code === 'toon/duplicate-rule').length;
      assert.ok(dups > 0, 'the repeats are reported');
      shares.push(t.longest / t.total);
      lsp.close(uri);
    }
    const least = Math.min(...shares);
    assert.ok(least <= 0.12, `the longest turn was ${shares.map((s) => (100 * s).toFixed(0) + '%').join(', ')} of the sliced work`);
  } finally {
    lsp.kill();
    await lsp.exited;
  }
});

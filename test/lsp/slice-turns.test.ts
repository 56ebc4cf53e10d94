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

/**
 * Opens two documents in turn on a warmed server (the least share of two: a collection pause can land in any turn
 * of one) and asserts that the longest turn of the sliced work each caused is at most 12 % of it. `each` runs once a
 * document is open, before its work is waited for; `after` once it is done, with its turns.
 */
async function longestTurnShare(docs: { name: string; text: string }[], each: (lsp: LspHarness, uri: string, k: number) => Promise<void>, after: (lsp: LspHarness, uri: string, t: TurnTrace) => void): Promise<void> {
  const lsp = await LspHarness.start();
  try {
    await lsp.hover(lsp.open('warm.md', SMALL), { line: 0, character: 3 });
    await lsp.waitIdle();
    const shares: number[] = [];
    for (const [k, d] of docs.entries()) {
      await lsp.executeCommand(SLICE_TURNS_COMMAND, []);
      const uri = lsp.open(d.name, d.text);
      await each(lsp, uri, k);
      assert.ok(await lsp.codeLenses(uri));
      await lsp.waitIdle(busy(120_000));
      const t = (await lsp.executeCommand(SLICE_TURNS_COMMAND, [])) as TurnTrace;
      after(lsp, uri, t);
      shares.push(t.longest / t.total);
      lsp.close(uri);
    }
    const least = Math.min(...shares);
    assert.ok(least <= 0.12, `the longest turn was ${shares.map((x) => (100 * x).toFixed(0) + '%').join(', ')} of the sliced work`);
  } finally {
    lsp.kill();
    await lsp.exited;
  }
}

test('one huge list section: no turn is a large share of its work; a hover answers meanwhile', async () => {
  const text = hugeSection(51_000);
  assert.ok(text.length > 2_400_000);
  const docs = [
    { name: 'heavy-0.md', text },
    { name: 'heavy-1.md', text: text.replace('## After', '## Later') },
  ];
  await longestTurnShare(
    docs,
    async (lsp, _uri, k) => {
      const other = lsp.open(`other-${k}.md`, SMALL.replace('Small', `Small ${k}`));
      const t0 = performance.now();
      assert.ok(await lsp.hover(other, { line: 0, character: 3 }), 'the other document has its hover');
      const ms = performance.now() - t0;
      assert.ok(ms < busy(2000), `the hover on another document took ${ms.toFixed(0)} ms`);
      lsp.close(other);
    },
    // Its parse and analysis are steps of a bounded number of lines, its count, encodings and decode check steps of
    // their own: the longest turn is one encoding (one call of the library) or a collection pause, not the parse.
    (_lsp, _uri, t) => assert.ok(t.turns >= 40, `${t.turns} turns`),
  );
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
  await longestTurnShare(
    [
      { name: 'AGENTS.md', text: repeatedRules(6000) },
      { name: 'CLAUDE.md', text: repeatedRules(6001) },
    ],
    async () => undefined,
    (lsp, uri) => assert.ok((lsp.latestDiagnostics(uri) ?? []).some((d) => d.code === 'toon/duplicate-rule'), 'the repeats are reported'),
  );
});

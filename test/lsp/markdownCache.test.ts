// A markdown document's engine cache through the server: an edit re-analyses only the slices whose text
// changed (observed through the test-only counter toonlens.test.markdownCache under TOONLENS_TEST_COUNTERS),
// diagnostics and hovers of a version reuse its plan, and closing the document drops its cache.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CodeLensRequest } from 'vscode-languageserver-protocol/node';
import { LspHarness } from './harness';
import { sliceDocument } from '../../server/src/core/markdown/slices';

const COMMAND = 'toonlens.test.markdownCache';
interface Counters {
  analysed: number;
  held: number;
  /** Slices looked up by their text (the others were carried over by position from the previous version). */
  lookedUp: number;
  /** Times the document's text was held compactly once the server was idle. */
  compacted: number;
}

/** A document of `n` sections, each a key/value list long enough for a lens. */
function doc(n: number): string {
  const parts = ['# Agent context', '', 'What the agent reads first.', ''];
  for (let i = 1; i <= n; i++) parts.push(`## Section ${i}`, '', `- name: item ${i}`, `- owner: team ${i % 5}`, `- limit: ${100 + i}`, '');
  return parts.join('\n');
}

/** The LSP position of `offset` in `text`. */
function positionAt(text: string, offset: number): { line: number; character: number } {
  const before = text.slice(0, offset);
  return { line: before.split('\n').length - 1, character: offset - (before.lastIndexOf('\n') + 1) };
}

describe('markdown engine cache through the server', () => {
  test('an edit re-analyses the edited section only; diagnostics and hovers reuse the plan; close drops the cache', async () => {
    const h = await LspHarness.start({ settings: { codeLens: { sections: 'all' } } });
    try {
      let text = doc(30);
      const slices = sliceDocument(text).length;
      assert.equal(slices, 31);
      const all = async (u: string) => (await h.executeCommand(COMMAND, [u])) as Counters | null;
      const counters = async (u: string) => {
        const c = await all(u);
        return c && { analysed: c.analysed, held: c.held };
      };
      const lenses = (u: string) => h.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: u } });
      const uri = h.open('cache.md', text, 'markdown');
      const n = (await lenses(uri))?.length ?? 0;
      assert.ok(n > 30, `${n} lenses`);
      await h.waitIdle();
      assert.deepEqual(await counters(uri), { analysed: slices, held: slices }, 'each slice analysed once by open, lenses and diagnostics together');
      const lookedUp = (await all(uri))!.lookedUp;
      assert.equal(lookedUp, slices, 'on open every slice is looked up by its text once');

      // One character inside section 12's body: that slice alone is analysed again.
      const at = text.indexOf('- name: item 12') + 2;
      h.change(uri, [{ range: { start: positionAt(text, at), end: positionAt(text, at) }, text: 'x' }]);
      text = text.slice(0, at) + 'x' + text.slice(at);
      assert.equal((await lenses(uri))?.length, n);
      await h.waitIdle();
      const hover = await h.hover(uri, positionAt(text, text.indexOf('## Section 12') + 3));
      assert.ok(hover, 'a hover on the edited heading');
      assert.deepEqual(await counters(uri), { analysed: slices + 1, held: slices }, 'one slice re-analysed; the replaced analysis dropped');
      // The sections before and after the edited one are carried over by position (the slicing rescans from the
      // heading before the edit): at most those two slices are looked up by their text, not all 31.
      const afterEdit = (await all(uri))!.lookedUp - lookedUp;
      assert.ok(afterEdit >= 1 && afterEdit <= 2, `${afterEdit} slices looked up by text after a one-character edit`);

      // A new heading inside section 20 splits it: the two slices it became are analysed, nothing else.
      const split = text.indexOf('- limit: 120');
      h.change(uri, [{ range: { start: positionAt(text, split), end: positionAt(text, split) }, text: '## Inserted\n\n' }]);
      text = text.slice(0, split) + '## Inserted\n\n' + text.slice(split);
      assert.ok(((await lenses(uri))?.length ?? 0) >= n);
      await h.waitIdle();
      assert.deepEqual(await counters(uri), { analysed: slices + 3, held: slices + 1 });

      // The same version asked again: nothing analysed.
      await lenses(uri);
      assert.equal((await counters(uri))?.analysed, slices + 3);

      h.close(uri);
      await h.waitIdle();
      assert.equal(await counters(uri), null, 'closing the document drops its engine cache');
    } finally {
      await h.shutdown();
    }
  });

  test('an idle large document with em dashes holds its text compactly, and answers as before, edited or not', async () => {
    // 300 sections of ~1.1 KB, an em dash in every heading and in one line of each body: over COMPACT_MIN_CHARS.
    const parts = ['# Runbook \u2014 on call', ''];
    for (let i = 1; i <= 300; i++) {
      parts.push(`## Step ${i} \u2014 checks`, '', `- name: check ${i}`, `- owner: team ${i % 7}`, `- note: first \u2014 then second`, '');
      for (let k = 0; k < 12; k++) parts.push(`Plain prose line ${k} of step ${i}, long enough to weigh something in the section's text.`);
      parts.push('');
    }
    let text = parts.join('\n');
    assert.ok(text.length > 300_000, `${text.length} characters`);
    const h = await LspHarness.start();
    const fresh = await LspHarness.start();
    try {
      // Each lens as its line, title and tooltip (the two servers' documents have different URIs).
      const lenses = async (s: LspHarness, u: string) =>
        ((await s.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: u } })) ?? []).map((l) => `${l.range.start.line} ${l.command?.title} | ${l.command?.tooltip}`).join('\n');
      const compacted = async () => ((await h.executeCommand(COMMAND, [uri])) as Counters).compacted;
      const uri = h.open('runbook.md', text, 'markdown');
      const before = await lenses(h, uri);
      const at = positionAt(text, text.indexOf('## Step 150') + 4);
      const hoverBefore = JSON.stringify(await h.hover(uri, at));
      await h.waitIdle();
      assert.equal(await compacted(), 1, 'held compactly once idle');
      assert.equal(await lenses(h, uri), before, 'the same lenses from the held text');
      assert.equal(JSON.stringify(await h.hover(uri, at)), hoverBefore, 'the same hover');
      // Convert on the held text writes what it writes on a text never held (the edit is recorded, not applied).
      const sectionStart = text.indexOf('## Step 150');
      const convertEdit = async (s: LspHarness, u: string) => {
        const o = (await s.executeCommand('toonlens.convertSection', [{ uri: u, version: s.version(u), sectionStart }])) as { applied: boolean };
        assert.equal(o.applied, true);
        return JSON.stringify(s.appliedEdits.at(-1)!.edit).split(u).join('<uri>');
      };
      const original = fresh.open('runbook-original.md', text, 'markdown');
      assert.equal(await convertEdit(h, uri), await convertEdit(fresh, original), 'Convert of a section of the held text');
      await h.waitIdle();
      assert.equal(await compacted(), 1, 'an unchanged document is not held again');

      // An edit of the held text: the lenses are those of a server that never held it.
      const edit = text.indexOf('- owner: team 3', text.indexOf('## Step 200'));
      h.change(uri, [{ range: { start: positionAt(text, edit), end: positionAt(text, edit) }, text: '- extra: \u2014\n' }]);
      text = text.slice(0, edit) + '- extra: \u2014\n' + text.slice(edit);
      const after = await lenses(h, uri);
      const other = fresh.open('runbook.md', text, 'markdown');
      assert.equal(after, await lenses(fresh, other), 'lenses after an edit of the held text');
      await h.waitIdle();
      assert.equal(await compacted(), 2, 'the edited version held compactly in its turn');
      assert.equal(await lenses(h, uri), after);
    } finally {
      await h.shutdown();
      await fresh.shutdown();
    }
  });
});

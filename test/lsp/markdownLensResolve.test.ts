// Markdown lenses through codeLens/resolve: a client that says it resolves lens commands
// (`textDocument.codeLens.resolveSupport`, as VS Code's client does) gets a document with many lenses as
// ranges and data, and each lens resolves to exactly the title and command a client that does not resolve
// gets complete; small documents, and clients that do not say they resolve, always get complete lenses.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CodeLensRequest, CodeLensResolveRequest, type CodeLens } from 'vscode-languageserver-protocol/node';
import { LspHarness } from './harness';
import { RESOLVE_LENSES_ABOVE } from '../../server/src/lsp/lensResolve';

/**
 * `n` sections: a table (which converts: a verdict and a Convert lens) every other one, else a key/value list
 * (kept); with `fenceAt`, a section converted already (a ```toon fence: its own lenses) after that section.
 */
function doc(n: number, fenceAt?: number): string {
  const parts = ['# Agent context', '', 'What the agent reads first.', ''];
  for (let i = 1; i <= n; i++) {
    if (i === fenceAt) parts.push('## Converted already', '', '```toon', 'items[2]{name,owner,limit}:', '  a,team 1,100', '  b,team 2,200', '```', '');
    parts.push(`## Section ${i}`, '');
    if (i % 2 === 0) parts.push('| name | owner | limit |', '|---|---|---|', ...[0, 1, 2, 3, 4, 5].map((k) => `| item${k} | team ${i % 5} | ${100 + k} |`));
    else parts.push(`- name: item ${i}`, `- owner: team ${i % 5}`, `- limit: ${100 + i}`);
    parts.push('');
  }
  return parts.join('\n');
}

const lensesOf = (h: LspHarness, uri: string) => h.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } });
const resolve = (h: LspHarness, l: CodeLens) => h.connection.sendRequest(CodeLensResolveRequest.type, l);
const counters = async (h: LspHarness) => (await h.executeCommand('toonlens.test.markdownLensCounters')) as { unresolved: number; resolves: number };

describe('markdown lenses resolved when shown', () => {
  test('over the threshold a resolving client gets ranges; every lens resolves to the complete lens a non-resolving client gets', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonlens-mdresolve-'));
    const text = doc(400, 150);
    const plain = await LspHarness.start({ workspaceDir: dir, settings: { codeLens: { sections: 'all' } } });
    let full: CodeLens[];
    try {
      full = (await lensesOf(plain, plain.open('big.md', text, 'markdown')))!;
      assert.ok(full.length > RESOLVE_LENSES_ABOVE, `${full.length} lenses`);
      assert.ok(full.every((l) => l.command?.title && l.command.tooltip), 'a client that does not resolve gets every title and tooltip');
      assert.ok(full.some((l) => l.command?.title === 'Convert to TOON'), 'action lenses among them');
      const fenceLine = text.split('\n').indexOf('```toon');
      assert.deepEqual(
        full.filter((l) => l.range.start.line === fenceLine).map((l) => l.command?.command),
        ['toonlens.showVerdict', 'toonlens.revertSection'],
        "the converted section's fence lenses, in line order among the others",
      );
      assert.deepEqual(
        full.map((l) => l.range.start.line),
        full.map((l) => l.range.start.line).sort((a, b) => a - b),
      );
      assert.deepEqual(await counters(plain), { unresolved: 0, resolves: 0 });
    } finally {
      await plain.shutdown();
    }
    const h = await LspHarness.start({ workspaceDir: dir, resolvesLenses: true, settings: { codeLens: { sections: 'all' } } });
    try {
      const uri = h.open('big.md', text, 'markdown');
      const sent = (await lensesOf(h, uri))!;
      assert.equal(sent.length, full.length);
      assert.ok(sent.every((l) => l.command === undefined && Array.isArray(l.data)), 'unresolved lenses: a range and data');
      assert.deepEqual(
        sent.map((l) => l.range),
        full.map((l) => l.range),
      );
      assert.ok(JSON.stringify(sent).length * 2 < JSON.stringify(full).length, 'under half the bytes');
      const resolved = await Promise.all(sent.map((l) => resolve(h, l)));
      assert.deepEqual(resolved, full, 'each lens resolves to the complete lens, title, tooltip, command and arguments');
      assert.deepEqual(await counters(h), { unresolved: 1, resolves: sent.length });

      // An edit: the new answer resolves to the new version's commands; a lens of the older answer resolves to
      // no command (the client asks for the new lenses itself).
      const line = text.split('\n').indexOf('- name: item 201');
      h.change(uri, [{ range: { start: { line, character: 2 }, end: { line, character: 2 } }, text: 'x' }]);
      const next = (await lensesOf(h, uri))!;
      assert.equal(next.length, sent.length);
      const convertAll = full.findIndex((l) => l.command?.command === 'toonlens.convertAll');
      const stale = await resolve(h, sent[convertAll >= 0 ? convertAll : 0]!);
      assert.equal(stale.command?.command, '');
      const again = await resolve(h, next[0]!);
      assert.match(again.command?.title ?? '', /^TOON plan: /);
      const argsOf = (l: CodeLens) => l.command?.arguments?.[0] as { version?: number } | undefined;
      const withVersion = next.findIndex((_, i) => argsOf(full[i]!)?.version !== undefined);
      assert.equal(argsOf(await resolve(h, next[withVersion]!))?.version, 2, 'a Convert lens of the new answer names the new version');
    } finally {
      await h.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a small document gets complete lenses even from a resolving client, each on its heading line (CRLF too)', async () => {
    const h = await LspHarness.start({ resolvesLenses: true, settings: { codeLens: { sections: 'all' } } });
    try {
      const text = doc(20).replace(/\n/g, '\r\n');
      const lenses = (await lensesOf(h, h.open('small.md', text, 'markdown')))!;
      assert.ok(lenses.length > 20 && lenses.length <= RESOLVE_LENSES_ABOVE);
      assert.ok(lenses.every((l) => l.command?.title));
      const headingLines = text.split('\n').flatMap((l, i) => (l.startsWith('## ') ? [i] : []));
      const sectionLenses = lenses.filter((l) => l.command?.command === 'toonlens.showVerdict' && l.range.start.line > 0);
      assert.deepEqual([...new Set(sectionLenses.map((l) => l.range.start.line))], headingLines);
      assert.ok(sectionLenses.every((l) => l.range.start.character === 0));
      assert.deepEqual(await counters(h), { unresolved: 0, resolves: 0 });
    } finally {
      await h.shutdown();
    }
  });
});

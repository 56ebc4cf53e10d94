// One figure before and after Convert: the verdict lens of a section and the fence lens after converting it
// say the same tokens and characters, and the document's length changes by exactly the characters saved.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeLens } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, applyTextEdits } from './harness';

const AGENTS = readFileSync(join(REPO_ROOT, 'test', 'e2e', 'workspace', 'AGENTS.md'), 'utf8');
const titles = (ls: CodeLens[] | null) => (ls ?? []).map((l) => l.command?.title ?? '');
const parseInt10 = (s: string) => Number(s.replace(/,/g, ''));

/** The figures of a verdict or fence lens title: tokens saved, chars before → after, and the percent words. */
function figures(title: string): { tokens: number; source: number; toon: number; pct: string } {
  const m = /(saves|costs) ([\d,]+) tokens? · ([\d,]+) → ([\d,]+) chars \(([^)]*)\)/.exec(title);
  assert.ok(m, `figures in "${title}"`);
  return { tokens: (m[1] === 'costs' ? -1 : 1) * parseInt10(m[2]!), source: parseInt10(m[3]!), toon: parseInt10(m[4]!), pct: m[5]! };
}

describe('one figure before and after Convert', () => {
  let h: LspHarness;
  let storage: string;
  before(async () => {
    storage = mkdtempSync(join(tmpdir(), 'toonlens-storage-'));
    h = await LspHarness.start({ initializationOptions: { storagePath: storage } });
  });
  after(async () => {
    await h.shutdown();
    rmSync(storage, { recursive: true, force: true });
  });

  for (const [name, text] of [
    ['LF', AGENTS],
    ['CRLF', AGENTS.replace(/\n/g, '\r\n')],
    ['the last section without a final line break', AGENTS.replace(/\n+$/, '')],
  ] as const) {
    test(`every converting section of AGENTS.md (${name}): the fence lens repeats the verdict lens's figures`, async () => {
      const uri = h.openFile(`figures-${name.replace(/\W+/g, '-')}.md`, text, 'markdown');
      let current = text;
      let converted = 0;
      for (;;) {
        const ls = (await h.codeLenses(uri)) ?? [];
        const convert = ls.find((l) => l.command?.command === 'toonlens.convertSection');
        if (!convert) break;
        const line = convert.range.start.line;
        const verdictTitle = ls.find((l) => l.range.start.line === line && l.command?.command === 'toonlens.showVerdict')?.command?.title;
        assert.ok(verdictTitle, `a verdict lens beside Convert: ${titles(ls).join(' | ')}`);
        const before = figures(verdictTitle);
        const outcome = (await h.executeCommand('toonlens.convertSection', convert.command!.arguments)) as { applied: boolean };
        assert.equal(outcome.applied, true);
        const next = applyTextEdits(current, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit, uri));
        assert.equal(current.length - next.length, before.source - before.toon, 'the file changes by exactly the characters the verdict lens said');
        h.change(uri, next);
        current = next;
        const after = (await h.codeLenses(uri)) ?? [];
        const fenceTitle = after.map((l) => l.command?.title ?? '').find((t, i) => t.startsWith('TOON fence') && after[i]!.range.start.line >= line && after[i]!.range.start.line <= line + 2);
        assert.ok(fenceTitle, `a fence lens where the section was: ${titles(after).join(' | ')}`);
        assert.match(fenceTitle, /vs its original markdown$/);
        assert.deepEqual(figures(fenceTitle), before, `${verdictTitle}\n${fenceTitle}`);
        converted++;
      }
      assert.ok(converted >= 1, 'at least one section converts');
      h.close(uri);
    });
  }
});

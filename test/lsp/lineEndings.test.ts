// One text model for every line-ending mix: the editor's Convert all writes the bytes `toonlens plan --out` writes,
// and Revert gives back the exact original ("\n", "\r\n", a lone "\r", mixed, and NUL bytes beside lone "\r").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspHarness, REPO_ROOT, applyTextEdits, positionAt } from './harness';
import { findToonFences } from '../../server/src/core/toon/fences';
import { Rng } from '../../bench/prng';

const AGENTS = readFileSync(join(REPO_ROOT, 'test', 'e2e', 'workspace', 'AGENTS.md'), 'utf8');
const lines = AGENTS.split('\n');
const BREAKS = ['\n', '\r\n', '\r'];
const variants: [string, string][] = [
  ['lf', AGENTS],
  ['crlf', lines.join('\r\n')],
  ['cr', lines.join('\r')],
  ['nul-and-cr', lines.map((l, i) => l + (i % 5 === 0 ? '\u0000' : '') + (i % 2 ? '\r' : '\n')).join('')],
];
for (const seed of [1, 2, 3]) {
  const rng = new Rng(seed);
  variants.push([`mixed-${seed}`, lines.map((l) => l + rng.pick(BREAKS)).join('')]);
}

/** Reverts every fence of `uri` (its text `text`), first to last; the text after. */
async function revertAll(h: LspHarness, uri: string, text: string): Promise<string> {
  let cur = text;
  for (let fences = findToonFences(cur); fences.length; fences = findToonFences(cur)) {
    const before = h.appliedEdits.length;
    const out = (await h.executeCommand('toonlens.revertSection', [{ uri, version: h.version(uri), position: positionAt(cur, fences[0]!.contentStart) }])) as { applied: boolean; message: string };
    assert.ok(out.applied && h.appliedEdits.length === before + 1, out.message);
    cur = applyTextEdits(cur, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit, uri));
    h.change(uri, cur);
  }
  return cur;
}

test('every line-ending mix: editor Convert all = plan --out, exact Revert, and a canonical Revert keeps every heading', async () => {
  // The token floor is policy, not line endings: off, so every variant converts the same sections.
  const h = await LspHarness.start({ settings: { minTokenSavingsPct: 0 } });
  const dir = mkdtempSync(join(tmpdir(), 'line-endings-'));
  try {
    for (const [name, text] of variants) {
      const uri = h.openFile(`${name}.md`, text, 'markdown');
      const before = h.appliedEdits.length;
      const out = (await h.executeCommand('toonlens.convertAll', [{ uri, version: h.version(uri) }])) as { applied: boolean; message: string };
      assert.ok(out.applied && h.appliedEdits.length === before + 1, `${name}: ${out.message}`);
      const converted = applyTextEdits(text, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit, uri));
      assert.ok(findToonFences(converted).length > 0, name);
      writeFileSync(join(dir, `${name}.md`), text);
      execFileSync(process.execPath, [join(REPO_ROOT, 'bin', 'toonlens.js'), 'plan', '--min-token-savings-pct', '0', join(dir, `${name}.md`), '--out', join(dir, `${name}.out.md`)], { stdio: 'pipe' });
      assert.equal(converted, readFileSync(join(dir, `${name}.out.md`), 'utf8'), `${name}: the editor and plan --out write the same bytes`);
      h.change(uri, converted);
      assert.equal(await revertAll(h, uri, converted), text, `${name}: Revert gives back the exact bytes`);
      h.close(uri);
    }
  } finally {
    await h.shutdown();
  }
  // A server that never saw the conversions renders canonical markdown: every heading line stays, none is eaten.
  const fresh = await LspHarness.start({ settings: { minTokenSavingsPct: 0 } });
  try {
    for (const [name, text] of variants) {
      writeFileSync(join(dir, `${name}.md`), text);
      const converted = readFileSync(join(dir, `${name}.out.md`), 'utf8');
      const uri = fresh.openFile(`canonical-${name}.md`, converted, 'markdown');
      const reverted = await revertAll(fresh, uri, converted);
      const headings = (t: string) => t.split(/\r\n|\r|\n/).filter((l) => /^#{1,6} /.test(l));
      assert.deepEqual(headings(reverted), headings(text), `${name}: headings after a canonical Revert`);
      fresh.close(uri);
    }
  } finally {
    await fresh.shutdown();
  }
});

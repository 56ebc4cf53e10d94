// Large JSON documents (over the analyzer's RETAIN_VALUE_MAX_CHARS) keep only kind and diagnostics between
// requests and parse their value again on demand: hovers, code lenses and diagnostics must be exactly
// those of the same document below the threshold, also after an edit. (Equivalence only, no timings.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspHarness, REPO_ROOT, positionAt } from './harness';

/** Trailing whitespace: still the same JSON value and the same offsets, but over the 2 MB threshold. */
const pad = (text: string) => text + '\n' + ' '.repeat(2.2 * 1024 * 1024) + '\n';

/** Offsets inside every key and literal (just after each quote, and on each digit / true / false / null). */
function probeOffsets(text: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"' || /[0-9tfn-]/.test(c)) out.push(i + 1);
  }
  return out;
}

describe('large JSON documents: values parsed on demand', () => {
  test('hovers on a large verdict equal those on the small one, before and after an edit', async () => {
    const h = await LspHarness.start();
    try {
      const small = readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'settings-table.verdict.json'), 'utf8');
      const a = h.open('small.verdict.json', small);
      const b = h.open('large.verdict.json', pad(small));
      const da = await h.waitForDiagnostics(a);
      const db = await h.waitForDiagnostics(b, () => true, 60_000);
      assert.deepEqual(db.map((d) => [d.code, d.range, d.message]), da.map((d) => [d.code, d.range, d.message]));

      let hovers = 0;
      for (const off of probeOffsets(small)) {
        const pos = positionAt(small, off);
        const [ha, hb] = [await h.hover(a, pos), await h.hover(b, pos)];
        assert.deepEqual(hb, ha, `hover at ${off}`);
        if (ha) hovers++;
      }
      assert.ok(hovers > 20, `${hovers} hovers`);

      // An edit: the value parsed for the old version must not answer for the new one.
      const at = small.indexOf('"safe_to_auto_apply": true') + '"safe_to_auto_apply": '.length;
      const edited = small.slice(0, at) + 'false' + small.slice(at + 4);
      const edit = { range: { start: positionAt(small, at), end: positionAt(small, at + 4) }, text: 'false' };
      const va = h.change(a, [edit]);
      const vb = h.change(b, [edit]);
      await h.waitForDiagnostics(a, (_d, v) => v === va);
      await h.waitForDiagnostics(b, (_d, v) => v === vb, 60_000);
      const pos = positionAt(edited, edited.indexOf('"safe_to_auto_apply"') + 3);
      const [ha, hb] = [await h.hover(a, pos), await h.hover(b, pos)];
      assert.ok(ha && JSON.stringify(ha).includes('recorded `false`'), JSON.stringify(ha));
      assert.deepEqual(hb, ha);
      // And a hover before the new version was checked (the memo is for the old one) answers for the new text too.
      const vb2 = h.change(b, [{ range: { start: positionAt(edited, at), end: positionAt(edited, at + 5) }, text: 'true' }]);
      const hb2 = await h.hover(b, pos);
      assert.ok(hb2 && JSON.stringify(hb2).includes('recorded `true`'), JSON.stringify(hb2));
      await h.waitForDiagnostics(b, (_d, v) => v === vb2, 60_000);
    } finally {
      await h.shutdown(30_000);
    }
  });

  test('report code lenses on a large report equal those on the small one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonlens-large-'));
    cpSync(join(REPO_ROOT, 'test', 'fixtures', 'report', 'sample'), dir, { recursive: true });
    const h = await LspHarness.start({ workspaceDir: dir });
    try {
      const report = readFileSync(join(dir, 'hygiene.report.json'), 'utf8');
      const a = h.open('hygiene.report.json', report, 'json');
      const b = h.open('large.report.json', pad(report), 'json');
      await h.waitForDiagnostics(a);
      await h.waitForDiagnostics(b, () => true, 60_000);
      const la = (await h.codeLenses(a)) ?? [];
      const lb = (await h.codeLenses(b)) ?? [];
      assert.ok(la.length > 0, 'lenses on the small report');
      const strip = (ls: typeof la) => ls.map((l) => ({ range: l.range, title: l.command?.title, command: l.command?.command }));
      assert.deepEqual(strip(lb), strip(la));
    } finally {
      await h.shutdown(30_000);
    }
  });
});

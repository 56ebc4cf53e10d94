// Over real LSP: for every `convert` section of every markdown file in the producer corpus inputs,
// the examples and test/fixtures/markdown, Convert (run through the server, as a lens click does) changes
// the document's length by exactly the measured_chars.savings the lens claims, and lowers its o200k count.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { CodeLens } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, applyTextEdits } from './harness';
import { planDocument } from '../../server/src/core/markdown/engine';
import { blocksConvertDespiteSplit } from '../../server/src/core/markdown/blockConvert';
import { CORPUS_INPUTS, FIXTURES } from '../paths';

const DIRS = [CORPUS_INPUTS, join(REPO_ROOT, 'examples', 'markdown'), join(FIXTURES, 'markdown')];
const FILES = DIRS.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.md') && f !== 'LICENSE.md').map((f) => join(d, f)));
const o200k = (text: string) => countTokens(text, { disallowedSpecial: new Set() });

/** "TOON saves 1,062 tokens · 32,319 → 27,703 chars (14.3% fewer) · convert" → [32319, 27703]. */
function lensChars(title: string): [number, number] {
  const m = / ([\d,]+) → ([\d,]+) chars \(/.exec(title);
  assert.ok(m, title);
  return [Number(m[1]!.replace(/,/g, '')), Number(m[2]!.replace(/,/g, ''))];
}

/** The verdict lens standing on the same line as an action lens. */
function verdictLensBeside(lenses: CodeLens[], action: CodeLens): CodeLens {
  const v = lenses.find((l) => l.range.start.line === action.range.start.line && l.command?.command === 'toonlens.showVerdict');
  assert.ok(v, `a verdict lens on line ${action.range.start.line}`);
  return v;
}

describe('Convert writes exactly what the lens claims, and saves real tokens', () => {
  let h: LspHarness;
  before(async () => {
    h = await LspHarness.start({ settings: { codeLens: { sections: 'all' } } });
  });
  after(async () => {
    await h.shutdown();
  });

  test('every markdown file of the corpus, examples and fixtures: every convert section', async () => {
    assert.ok(FILES.length >= 25, `found ${FILES.length} markdown files`);
    let converts = 0;
    for (const file of FILES) {
      const name = relative(REPO_ROOT, file);
      const text = readFileSync(file, 'utf8');
      const plan = planDocument(text);
      const uri = h.openFile(`walk/${name.replace(/[\\/]/g, '__')}`, text, 'markdown');
      const all = (await h.codeLenses(uri)) ?? [];
      const lenses = all.filter((l: CodeLens) => l.command?.command === 'toonlens.convertSection');
      // (and a split_first section whose tables and lists convert by block: its action lens converts them)
      const expected = plan.sections.filter((s) => s.action === 'convert' || (s.blockSummary !== null && !!s.verdict && blocksConvertDespiteSplit(s.verdict)));
      assert.equal(lenses.length, expected.length, `${name}: one convert lens per convert section`);
      const before = o200k(text);
      for (const lens of lenses) {
        const [source, toon] = lensChars(verdictLensBeside(all, lens).command!.title);
        const at = (lens.command!.arguments![0] as { sectionStart: number }).sectionStart;
        const s = plan.sections.find((x) => x.slice.charStart === at)!;
        assert.ok(s, `${name}: a plan section at ${at}`);
        assert.deepEqual([source, toon], [s.verdict!.measured_chars.source, s.verdict!.measured_chars.toon], `${name}: the lens shows the plan's figures`);
        const n = h.appliedEdits.length;
        const outcome = (await h.executeCommand(lens.command!.command, lens.command!.arguments)) as { applied: boolean; message: string };
        assert.equal(outcome.applied, true, `${name}: ${outcome.message}`);
        assert.equal(h.appliedEdits.length, n + 1);
        const written = applyTextEdits(text, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit, uri));
        const label = `${name} “${s.slice.heading}”`;
        assert.equal(text.length - written.length, s.verdict!.measured_chars.savings, `${label}: the document length changes by measured_chars.savings`);
        assert.equal(source - toon, s.verdict!.measured_chars.savings);
        const after = o200k(written);
        assert.ok(after < before, `${label}: o200k ${before} → ${after} must drop`);
        assert.equal(before - after, s.tokens!.savings, `${label}: the claimed token saving is the real one`);
        assert.ok((before - after) * 100 >= 5 * s.tokens!.source, `${label}: saves ≥ 5 % of the section's ${s.tokens!.source} tokens (the token floor)`);
        converts++;
      }
      h.close(uri);
    }
    // (the token floor keeps the corpus's marginal table sections as markdown: four real converts remain)
    assert.ok(converts >= 4, `converted ${converts} sections`);
  });

  test('a CRLF document: Convert writes CRLF fence lines and still changes the length by the claimed savings', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => `| item_${i} | resource | networking | none | 0.${i} |`).join('\r\n');
    const text = `# Catalog\r\n\r\n| Entry | Kind | Type | Default | Since |\r\n| --- | --- | --- | --- | --- |\r\n${rows}\r\n\r\n## Next\r\n\r\ntext\r\n`;
    const uri = h.openFile('crlf-walk.md', text, 'markdown');
    const all = (await h.codeLenses(uri)) ?? [];
    const lens = all.find((l) => l.command?.command === 'toonlens.convertSection');
    assert.ok(lens, 'a convert lens');
    const [source, toon] = lensChars(verdictLensBeside(all, lens).command!.title);
    await h.executeCommand(lens.command!.command, lens.command!.arguments);
    const written = applyTextEdits(text, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit, uri));
    assert.equal(text.length - written.length, source - toon);
    assert.doesNotMatch(written.replace(/\r\n/g, ''), /\n|\r/, 'every line break is CRLF');
    assert.match(written, /^# Catalog\r\n```toon\r\n\[12\t?\]\{/);
    h.close(uri);
  });

  test('a token regression: review, toon/token-regression on the heading; toonlens.tokenizer estimate turns the gate off', async () => {
    // Cells with commas: TOON saves characters (tab rows) but not one o200k token.
    const text = '## Topics\n\n| Topic | Group |\n|---|---|\n| `a.v1`, `a.v2` | `sg-a`, `sg-b` |\n| `b.v1`, `b.v2` | `sg-c`, `sg-d` |\n| `c.v1`, `c.v2` | `sg-e`, `sg-f` |\n';
    const s = planDocument(text).sections[0]!;
    assert.ok(s.verdict!.measured_chars.savings > 0);
    assert.ok(s.verdict!.warnings.some((w) => w.code === 'token_regression'));
    assert.equal(s.verdict!.verdict, 'review');
    const uri = h.openFile('regression.md', text, 'markdown');
    // A note about a conversion nobody proposed is lens and hover content, not a problem of the file...
    await h.waitIdle();
    assert.deepEqual((h.latestDiagnostics(uri) ?? []).map((x) => x.code), []);
    // ...unless the user asks for it.
    await h.setSettings({ codeLens: { sections: 'all' }, tokenNotesAsDiagnostics: true });
    const diags = await h.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'toon/token-regression'));
    const d = diags.find((x) => x.code === 'toon/token-regression')!;
    assert.equal(d.severity, 3, 'information');
    assert.deepEqual([d.range.start, d.range.end], [{ line: 0, character: 0 }, { line: 0, character: '## Topics'.length }]);
    assert.match(typeof d.message === 'string' ? d.message : d.message.value, /o200k_base \(\d+ → \d+\)/);
    const lens = ((await h.codeLenses(uri)) ?? []).find((l) => l.range.start.line === 0 && l.command?.command === 'toonlens.showVerdict' && !/^TOON plan/.test(l.command.title));
    assert.match(lens!.command!.title, /^TOON saves no tokens · [\d,]+ → [\d,]+ chars \([\d.]+% fewer\) · review first: token regression$/);
    await h.setSettings({ codeLens: { sections: 'all' }, tokenizer: 'estimate' });
    const hover = await h.hover(uri, { line: 0, character: 3 });
    assert.match(JSON.stringify(hover), /tokenx@1\.3\.0/);
    // The estimate turns the gate off: the producer's verdict (convert) comes back.
    const lens2 = ((await h.codeLenses(uri)) ?? []).find((l) => l.range.start.line === 0 && l.command?.command === 'toonlens.showVerdict' && !/^TOON plan/.test(l.command.title));
    assert.match(lens2!.command!.title, /^TOON saves ~[\d,]+ tokens? · .* · convert$/);
    await h.setSettings({ codeLens: { sections: 'all' } });
    h.close(uri);
  });
});

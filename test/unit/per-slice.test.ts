// What the markdown features read of a document's structure is read slice by slice: inline control comments
// (docs/config.md, "Inline comments in markdown"), ```toon fences with their extents (lenses, hovers, Convert,
// Revert, the section diagnostics) and `toon/fence-decode`. Each slice's are parsed once per slice text and
// shifted to the document, so an edit re-parses only the edited slice, never the whole text. They must be what
// markdown-it finds in the whole text: on random documents of headings, fences, HTML blocks, lists, quotes,
// tables, comments of every kind and ```toon fences (inside code, after a list, in a quote), after random edits,
// and on every markdown file of the repository with comments and fences inserted. Frontmatter is metadata: a
// comment or fence inside it counts for nothing, and those after it are the ones markdown-it finds in the text
// after it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import MarkdownIt from 'markdown-it';
import { EngineCache, planDocument, runSteps, toonFenceDiagnosticSteps, type PlanResult } from '../../server/src/core/markdown/engine';
import { toonFencesIn, toonFencesOfPlan, type FenceAt } from '../../server/src/core/markdown/sectionFences';
import { toonFenceDiagnostics } from '../../server/src/core/toon/fences';
import type { CoreDiagnostic } from '../../server/src/core/types';
import { markdownDiagnostics, planDirectives, sectionWarningDiagnostics } from '../../server/src/core/markdown/diagnostics';
import { applyInlineDisables, inlineDirectives, type InlineDirective } from '../../server/src/core/markdown/inlineControl';
import { LineIndex } from '../../server/src/core/lineIndex';
import { CORPUS_INPUTS, FIXTURES, REPO_ROOT } from '../paths';

const COMMENTS = [
  '<!-- toonlens-disable -->',
  '<!-- toonlens-disable toon/vague-rule -->',
  '<!-- toonlens-enable -->',
  '<!-- toonlens-enable vague-rule -->',
  '<!-- toonlens-disable-line -->',
  '<!-- toonlens-disable-next-line toon/long-section, duplicate_rule -->',
  '<!-- toonlens: keep -->',
  '<!--\ntoonlens-disable-next-line\n-->',
  '<!-- toonlens-disable',
  '-->',
  '  <!-- toonlens-disable -->',
  '- <!-- toonlens-disable -->',
  '> <!-- toonlens-enable -->',
  '`<!-- toonlens-disable -->`',
  '<div>\n<!-- toonlens-disable -->\n</div>',
  '```toon\na: 1\n```',
  '```toon\nitems[2]{id}:\n  1\n```',
  '~~~ toon\nx: "unterminated\n~~~',
  '- ```toon\n  a: 1\n  ```',
  '> ```toon\n> [1]: a\n> ```',
  '```toon',
  '    ```toon',
];
const LINES = ['# Heading', '## Sub', 'Title', '===', '---', '```', '~~~', '    indented', '- item', '  continued', '1. first', '> quote', '<div>', '</div>', '<pre>', '</pre>', '<!--', '| a | b |', '|---|---|', 'Always do it.', 'Never do it.', 'key: value', '', '', 'text'];

/** The directives of the text after a frontmatter that ends at `end` (0-based line `line`), as document positions. */
function after(text: string, end: number, line: number): InlineDirective[] {
  return inlineDirectives(text.slice(end)).map((d) => ({ ...d, start: d.start + end, end: d.end + end, line: d.line + line, endLine: d.endLine + line }));
}

/** What the whole text's parse gives (frontmatter left out). */
function wholeText(text: string): InlineDirective[] {
  const plan = planDocument(text);
  const fm = plan.sections[0]?.slice.kind === 'frontmatter' ? plan.sections[0].slice : undefined;
  return fm ? after(text, fm.charEnd, fm.lineEnd) : inlineDirectives(text);
}

/** The whole text's ```toon fences and fence diagnostics (frontmatter left out), as document positions. */
function wholeTextFences(text: string): { fences: FenceAt[]; diagnostics: CoreDiagnostic[] } {
  const plan = planDocument(text);
  const fm = plan.sections[0]?.slice.kind === 'frontmatter' ? plan.sections[0].slice : undefined;
  const end = fm ? fm.charEnd : 0;
  const line = fm ? fm.lineEnd : 0;
  const body = text.slice(end);
  const fences = toonFencesIn(body).map(({ fence: f, start, end: e }) => ({ fence: { ...f, infoStart: f.infoStart + end, contentStart: f.contentStart + end, contentEnd: f.contentEnd + end, openLine: f.openLine + line }, start: start + end, end: e + end }));
  const diagnostics = toonFenceDiagnostics(body).map((d) => ({ ...d, range: { start: d.range.start + end, end: d.range.end + end } }));
  return { fences, diagnostics };
}

/** The plan's fences and fence diagnostics, read per slice. */
function perSliceFences(plan: PlanResult): { fences: FenceAt[]; diagnostics: CoreDiagnostic[] } {
  return { fences: toonFencesOfPlan(plan), diagnostics: runSteps(toonFenceDiagnosticSteps(plan)) };
}

const md = MarkdownIt('commonmark').enable(['table', 'strikethrough']);

/**
 * Whether the slices start where markdown-it's document-level headings are (after the frontmatter). The claim is
 * about such documents: where the slicer and markdown-it disagree on a heading (test/unit/engine-core.test.ts
 * checks they agree), a slice's comments are read as the sections the user sees them.
 */
function slicedAsMarkdownIt(text: string): boolean {
  const plan = planDocument(text);
  const fm = plan.sections[0]?.slice.kind === 'frontmatter' ? plan.sections[0].slice : undefined;
  const body = fm ? text.slice(fm.charEnd) : text;
  const shift = fm ? fm.lineEnd : 0;
  const expected = md.parse(body.replace(/^\uFEFF/, ''), {}).filter((t) => t.type === 'heading_open' && t.level === 0).map((t) => t.map![0] + shift + 1);
  return JSON.stringify(plan.sections.filter((s) => s.slice.kind === 'section').map((s) => s.slice.lineStart)) === JSON.stringify(expected);
}

const doc = fc
  .record({
    frontmatter: fc.constantFrom(undefined, '---\ntitle: x\n---\n', '---\n<!-- toonlens-disable -->\n---\n', '---\n<!--\n---\n', '---\n```toon\n---\n'),
    lines: fc.array(fc.oneof({ arbitrary: fc.constantFrom(...LINES), weight: 3 }, { arbitrary: fc.constantFrom(...COMMENTS), weight: 1 }), { maxLength: 60 }),
    eol: fc.constantFrom('\n', '\r\n'),
  })
  .map(({ frontmatter, lines, eol }) => ((frontmatter ?? '') + lines.join('\n') + '\n').replace(/\n/g, eol));

test('a plan\'s directives, fences and fence diagnostics are those of the whole text\'s parse (random documents)', () => {
  const cache = new EngineCache();
  fc.assert(
    fc.property(doc, (text) => {
      fc.pre(slicedAsMarkdownIt(text));
      const plan = cache.plan(text);
      assert.deepEqual(planDirectives(plan), wholeText(text));
      assert.deepEqual(perSliceFences(plan), wholeTextFences(text));
    }),
    { numRuns: 1500 },
  );
});

test('after an edit, the directives and fences of the reused slices and the edited one are the whole text\'s', () => {
  const cache = new EngineCache();
  fc.assert(
    fc.property(doc, fc.nat(), fc.constantFrom(...COMMENTS, ...LINES), (text, at, insert) => {
      cache.plan(text);
      const lines = text.split('\n');
      const i = at % lines.length;
      const edited = [...lines.slice(0, i), insert, ...lines.slice(i)].join('\n');
      fc.pre(slicedAsMarkdownIt(edited));
      const plan = cache.plan(edited);
      assert.deepEqual(planDirectives(plan), wholeText(edited));
      assert.deepEqual(perSliceFences(plan), wholeTextFences(edited));
    }),
    { numRuns: 500 },
  );
});

function markdownFiles(): { name: string; text: string }[] {
  const dirs = [CORPUS_INPUTS, path.join(REPO_ROOT, 'examples', 'markdown'), path.join(FIXTURES, 'markdown')];
  return dirs.flatMap((dir) => readdirSync(dir).filter((f) => f.endsWith('.md') && !f.startsWith('LICENSE')).map((f) => ({ name: f, text: readFileSync(path.join(dir, f), 'utf8') })));
}

test('on the repository\'s markdown with comments and fences inserted, directives, fences and diagnostics are the whole text\'s', () => {
  const files = markdownFiles();
  assert.ok(files.length >= 20, `${files.length} markdown files`);
  let filtered = 0;
  let fenced = 0;
  let failing = 0;
  for (const { name, text } of files) {
    const lines = text.split('\n');
    // A comment before every seventh line, of a kind chosen by its position.
    const withComments = lines.flatMap((l, i) => (i % 7 === 3 ? [COMMENTS[i % COMMENTS.length]!, l] : [l])).join('\n');
    const plan = planDocument(withComments);
    const ds = planDirectives(plan);
    assert.deepEqual(ds, wholeText(withComments), name);
    assert.deepEqual(perSliceFences(plan), wholeTextFences(withComments), name);
    // The diagnostics are the unfiltered ones minus what the whole text's directives switch off.
    const all = markdownDiagnostics(withComments, plan);
    const index = new LineIndex(withComments);
    const unfiltered = [...runSteps(toonFenceDiagnosticSteps(plan)), ...sectionWarningDiagnostics(plan, withComments)].sort((a, b) => a.range.start - b.range.start);
    const expected = applyInlineDisables(unfiltered, wholeText(withComments), (o) => index.positionAt(o).line);
    assert.deepEqual(all.map((d) => [d.code, d.range.start, d.range.end]), expected.map((d) => [d.code, d.range.start, d.range.end]), name);
    filtered += unfiltered.length - all.length;
    fenced += toonFencesOfPlan(plan).length;
    failing += runSteps(toonFenceDiagnosticSteps(plan)).length;
  }
  assert.ok(filtered > 0, 'some diagnostic was switched off');
  assert.ok(fenced > 0 && failing > 0, `${fenced} fences, ${failing} failing a decode`);
});

test('an edit parses the comments of the edited slice only: the others are read from their analyses', () => {
  const cache = new EngineCache();
  const sections = Array.from({ length: 40 }, (_, i) => `## Section ${i}\n\n${i % 5 === 0 ? '<!-- toonlens-disable-next-line -->\n' : ''}- Always do ${i}.\n- Never skip ${i}.\n`);
  const text = sections.join('\n');
  const plan = cache.plan(text);
  const before = planDirectives(plan);
  assert.equal(before.length, 8);
  // Every slice's comments are memoized with its analysis (none parsed for a slice that never says "toon").
  for (const s of plan.sections) assert.ok(s.analysis.directives !== undefined, s.slice.heading ?? s.slice.kind);
  const at = text.indexOf('Always do 17');
  const edited = text.slice(0, at) + 'x' + text.slice(at);
  const next = cache.plan(edited);
  const reused = next.sections.filter((s, i) => s.analysis === plan.sections[i]!.analysis);
  assert.equal(reused.length, plan.sections.length - 1, 'only the edited slice is analysed again');
  for (const s of reused) assert.ok(s.analysis.directives !== undefined);
  assert.deepEqual(planDirectives(next).map((d) => [d.line, d.start > at ? d.start - 1 : d.start]), before.map((d) => [d.line, d.start]));
});

/** The rule as it reads: for each diagnostic, replay every comment that starts on or before its line. */
function disablesByReplay(diagnostics: CoreDiagnostic[], directives: InlineDirective[], lineOf: (offset: number) => number): CoreDiagnostic[] {
  const control = directives.filter((d) => d.kind !== 'keep');
  const hit = (codes: readonly string[], code: string) => codes.length === 0 || codes.includes(code);
  return diagnostics.filter((diag) => {
    const line = lineOf(diag.range.start);
    let all = false;
    const on = new Set<string>();
    const off = new Set<string>();
    for (const d of control) {
      if (d.kind === 'disable-line' && line >= d.line && line <= d.endLine && hit(d.codes, diag.code)) return false;
      if (d.kind === 'disable-next-line' && line === d.endLine + 1 && hit(d.codes, diag.code)) return false;
      if (d.line > line) continue;
      if (d.kind === 'disable') {
        if (d.codes.length === 0) {
          all = true;
          off.clear();
        } else for (const c of d.codes) if (all) off.delete(c); else on.add(c);
      } else if (d.kind === 'enable') {
        if (d.codes.length === 0) {
          all = false;
          on.clear();
          off.clear();
        } else for (const c of d.codes) if (all) off.add(c); else on.delete(c);
      }
    }
    return !(all ? !off.has(diag.code) : on.has(diag.code));
  });
}

test('inline disables in one sweep leave what replaying every comment for every diagnostic leaves', () => {
  const CODES = ['toon/vague-rule', 'toon/long-section', 'toon/duplicate-rule'];
  const directive = fc.record({
    kind: fc.constantFrom('disable' as const, 'enable' as const, 'disable-line' as const, 'disable-next-line' as const, 'keep' as const),
    codes: fc.subarray(CODES),
    line: fc.nat({ max: 40 }),
    span: fc.nat({ max: 3 }),
  });
  const diagnostic = fc.record({ line: fc.nat({ max: 45 }), code: fc.constantFrom(...CODES) });
  fc.assert(
    fc.property(fc.array(directive, { maxLength: 12 }), fc.array(diagnostic, { maxLength: 30 }), (ds, diags) => {
      // Directives in document order; each diagnostic's offset is its line (lineOf is the identity).
      const directives: InlineDirective[] = ds.map((d) => ({ kind: d.kind, codes: d.codes, line: d.line, endLine: d.line + d.span, start: d.line, end: d.line + d.span })).sort((a, b) => a.line - b.line);
      const core: CoreDiagnostic[] = diags.map((d, i) => ({ code: d.code, severity: 'warning', message: String(i), range: { start: d.line, end: d.line } }) as CoreDiagnostic);
      const id = (o: number) => o;
      assert.deepEqual(applyInlineDisables(core, directives, id), disablesByReplay(core, directives, id));
    }),
    { numRuns: 3000 },
  );
});

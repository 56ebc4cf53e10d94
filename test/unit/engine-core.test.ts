import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { encode, decode } from '@toon-format/toon';
import Ajv2020 from 'ajv/dist/2020';
import MarkdownIt from 'markdown-it';
import {
  sliceDocument,
  profileDocument,
  convertDocument,
  planDocument,
  convertSectionEdit,
  renderToonAsMarkdown,
  EngineCache,
  type VerdictV1,
} from '../../server/src/core/markdown/engine';
import { analyzeSlice } from '../../server/src/core/markdown/analysis';
import { joinSoftBreaks, parseSlice } from '../../server/src/core/markdown/blocks';
import { renderModel } from '../../server/src/core/markdown/model';
import { modelAlnum, sourceAlnum } from '../../server/src/core/markdown/coverage';
import { frontmatterEnd, resliceAfterEdit } from '../../server/src/core/markdown/slices';
import { LineIndex } from '../../server/src/core/lineIndex';
import { TOKENX_VERSION } from '../../server/src/core/markdown/measure';
import { GPT_TOKENIZER_VERSION } from '../../server/src/core/tokens';
import { buildVerdict } from '../../server/src/core/markdown/verdict';
import { decide, safeToAutoApply } from '../../server/src/core/markdown/policy';
import { SPECS, CORPUS_DIR, CORPUS_INPUTS } from '../paths';

const repoRoot = path.resolve(__dirname, '..', '..');
const schema = JSON.parse(readFileSync(path.join(SPECS, 'verdict.v1.schema.json'), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validateVerdict = ajv.compile(schema);

function assertSchemaValid(v: unknown): void {
  const ok = validateVerdict(JSON.parse(JSON.stringify(v)));
  assert.ok(ok, JSON.stringify(validateVerdict.errors));
}

/** A document model built the way the engine does, from standalone slice analyses. */
function docModel(text: string): unknown {
  const slices = sliceDocument(text);
  const entries = slices
    .map((s) => analyzeSlice(text.slice(s.charStart, s.charEnd), s.kind, s.headingEnd - s.charStart))
    .filter((a) => !(a.kind === 'preamble' && a.body === ''));
  const keys = entries.map((a) => a.key);
  if (new Set(keys).size === keys.length) return Object.assign({}, ...entries.map((a) => a.model));
  return entries.map((a) => a.model);
}

// ---------------------------------------------------------------------------
// Generated markdown (CRLF, BOM, fences, setext, tables, frontmatter, lists, links).
const word = fc.constantFrom('alpha', 'beta', 'Gamma', 'delta', 'must', 'never', 'x1', '42', '0.5', 'true', '007', 'p1', 'émoji😀', '中文', '[link](http://a.b/c)', '`code|x`', 'a|b', 'key:', '#tag', '- dash', '"q"', 'São', 'should');
const words = fc.array(word, { minLength: 1, maxLength: 6 }).map((w) => w.join(' '));
const block = fc.oneof(
  words.map((w) => w),
  fc.tuple(fc.integer({ min: 1, max: 6 }), words).map(([l, w]) => `${'#'.repeat(l)} ${w}`),
  words.map((w) => `${w}\n${'='.repeat(3)}`),
  words.map((w) => `${w}\n---`),
  fc.array(words, { minLength: 1, maxLength: 4 }).map((ws) => ws.map((w) => `- ${w}`).join('\n')),
  fc.array(words, { minLength: 1, maxLength: 4 }).map((ws) => ws.map((w, i) => `${i + 1}. ${w}`).join('\n')),
  fc.array(words, { minLength: 1, maxLength: 3 }).map((ws) => `- ${ws[0]}\n  - ${ws.slice(1).join(' ') || 'nested'}\n\n  # inside item`),
  fc.tuple(words, fc.array(fc.tuple(words, words), { minLength: 1, maxLength: 3 })).map(
    ([h, rows]) => `| H1 | ${h.replace(/\|/g, '\\|')} |\n| --- | :-: |\n${rows.map(([a, b]) => `| ${a.replace(/\|/g, '\\|')} | ${b.replace(/\|/g, '\\|')} |`).join('\n')}`,
  ),
  words.map((w) => '```js\n# not a heading\n' + w + '\n```'),
  words.map((w) => '~~~\n' + w + '\n# still code'),
  words.map((w) => `    indented ${w}\n    # code`),
  words.map((w) => `> ${w}\n> # quoted`),
  words.map((w) => `<div>\n# html ${w}\n</div>`),
  words.map((w) => `[ref]: http://example.com/${w.length}\n\n**Term**: ${w}`),
  words.map((w) => `- **Alpha**: ${w}\n- **Beta**: ${w}`),
);
const markdownDoc = fc
  .tuple(
    fc.boolean(),
    fc.boolean(),
    fc.boolean(),
    fc.array(block, { minLength: 0, maxLength: 8 }),
    fc.constantFrom('\n', '\r\n'),
    fc.constantFrom('\n\n', '\n'),
  )
  .map(([bom, fm, trailing, blocks, eol, sep]) => {
    let s = (fm ? '---\ntitle: x\n---\n' : '') + blocks.join(sep) + (trailing ? '\n' : '');
    s = s.replace(/\n/g, eol);
    return (bom ? '\uFEFF' : '') + s;
  });

describe('slicing', () => {
  test('sections tile the source byte-exactly (generated markdown)', () => {
    fc.assert(
      fc.property(markdownDoc, (text) => {
        const slices = sliceDocument(text);
        let pos = 0;
        for (const s of slices) {
          assert.equal(s.charStart, pos);
          assert.ok(s.charEnd >= s.charStart);
          assert.ok(s.headingEnd >= s.charStart && s.headingEnd <= s.charEnd);
          pos = s.charEnd;
        }
        assert.equal(pos, text.length);
        assert.equal(slices.map((s) => text.slice(s.charStart, s.charEnd)).join(''), text);
      }),
      { numRuns: 300 },
    );
  });

  test('document-level headings agree with markdown-it (generated markdown, LF, no BOM)', () => {
    const md = MarkdownIt('commonmark').enable(['table', 'strikethrough']);
    fc.assert(
      fc.property(markdownDoc, (raw) => {
        const text = raw.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
        const lines = new LineIndex(text);
        const fm = frontmatterEnd(lines);
        let offset = 0;
        while (fm >= 0 && lines.lineEnd(offset) !== fm) offset++;
        if (fm >= 0) offset++;
        const rest = Array.from({ length: lines.spanCount - offset }, (_, k) => lines.lineText(offset + k)).join('\n');
        const expected = md
          .parse(rest, {})
          .filter((t) => t.type === 'heading_open' && t.level === 0)
          .map((t) => t.map![0] + offset + 1);
        const got = sliceDocument(text)
          .filter((s) => s.kind === 'section')
          .map((s) => s.lineStart);
        assert.deepEqual(got, expected, JSON.stringify(text));
      }),
      { numRuns: 300 },
    );
  });

  test('document-level headings agree with markdown-it line by line: containers, HTML blocks, fences, lazy lines', () => {
    // Random sequences of single lines (the block-level test above joins whole blocks): what a list item or
    // block quote last held decides whether the next line continues it lazily, so an HTML block, fence, code or
    // heading inside one changes whether an ATX or setext heading can follow. Four sets: every construct; tabs
    // after container markers (a tab counts to the line's tab stop, one column of it the quote's optional space);
    // lists inside block quotes (an item's content column, the next item ending an empty one); tables inside
    // quotes and list items (no paragraph for a lazy line to continue).
    const md = MarkdownIt('commonmark').enable(['table', 'strikethrough']);
    const TABS = ['# H', 'text', '> > a', '\tcode', '    code', '> a', '-', '- a', '  b', '> -', '> - a', '>', '', ' x', '> \tx', '-\tx', '- \tx', '> -\tx', '>\tx', '>\t\tx', '  \tb', '\tb', '> 1.\tx', '>  -\tx', '1.\t\tx', '---', '==='];
    const CONTAINED_TABLES = ['# H', 'Title', 'text', '===', '---', '| a | b |', '|---|---|', '> | a | b |', '> |---|---|', '- | a |', '  |---|', '\t| a |', 'a | b', '- a', '> a', '', '  - b', '1. x', '   y', '<!-- c -->', '<!--', '-->', '***'];
    const QUOTED_LISTS = ['# H', 'text', '> -', '> - a', '>   x', '>     x', '> 1.', '>    x', '-', '  x', '    x', '> >', '> > -', '>', '', ' x', '---', '===', '> ---', '> 1. a', '> 2) b', '> * c'];
    const ALL = ['# Heading', '## Sub', 'Title', '===', '---', '```', '~~~', '    indented', '- item', '  continued', '1. first', '2. two', '10) ten', '* star', '+ plus', '-', '>', '> quote', '> > a', '- > a', '> - a', '> ---', '>     code', '> ```', '> <div>', '> <!-- x -->', '- <!-- x -->', '- ```', '- ***', '  ```', '  <div>', '  # in item', '   # three', '***', '<div>', '</div>', '<pre>', '</pre>', '<!--', '-->', '<!-- x -->', '<span>', 'text', '', '', '| a | b |', '|---|---|', '- | a |', '# a | b', 'a | b'];
    for (const LINES of [ALL, TABS, QUOTED_LISTS, CONTAINED_TABLES]) {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...LINES), { maxLength: 12 }), (ls) => {
          const text = ls.join('\n') + '\n';
          fc.pre(!text.startsWith('---')); // frontmatter
          const expected = md.parse(text, {}).filter((t) => t.type === 'heading_open' && t.level === 0).map((t) => t.map![0] + 1);
          const got = sliceDocument(text).filter((s) => s.kind === 'section').map((s) => s.lineStart);
          assert.deepEqual(got, expected, JSON.stringify(text));
        }),
        { numRuns: 3000 },
      );
      // Re-slicing after an edit stays a full slicing on the same documents (a line inserted or removed anywhere).
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...LINES), { maxLength: 12 }), fc.nat(), fc.constantFrom(...LINES, null), (ls, at, line) => {
          const text = ls.join('\n') + '\n';
          const i = ls.length ? at % ls.length : 0;
          const edited = (line === null ? [...ls.slice(0, i), ...ls.slice(i + 1)] : [...ls.slice(0, i), line, ...ls.slice(i)]).join('\n') + '\n';
          assert.deepEqual(resliceAfterEdit(text, sliceDocument(text), edited), sliceDocument(edited), JSON.stringify({ text, edited }));
        }),
        { numRuns: 3000 },
      );
    }
    // The shortest of the cases this found (each was a heading the slicer saw and markdown-it did not, or back).
    for (const [text, headings] of [
      ['- <!-- x -->\n</pre>\n# H\n', []],
      ['> ---\nTitle\n-\n', [2]],
      ['>     code\nTitle\n===\n', [2]],
      ['-\n\n  # in item\n', [3]],
      ['- a\n  <div>\n</pre>\n# H\n', []],
      ['> q\n-\n  # x\n', []],
      ['> <div>\n> x\n</pre>\n# H\n', []],
      // Tables: markdown-it tries one before any other block, and a type-7 tag line is a table row.
      ['# a | b\n|---|---|\n## H\n', [3]],
      ['- | a |\n|---|---|\n   # three\n', [3]],
      ['|---|---|\n|---|---|\n</pre>\n## Sub\n', [4]],
      ['+ plus\n- | a |\n|---|---|\n   # x\n', [4]],
      // A tab after `> ` reaches the next tab stop: two columns, paragraph text, not indented code.
      ['> \tx\ntext\n-\n', []],
      ['-\tx\n    b\n-\n', []],
      // Lists in a quote: the next item ends an item's paragraph even when empty; a line indented to an empty
      // item's content column is its paragraph; a blank line ends an item that began empty.
      ['> 1. a\n> 1.\ntext\n---\n', [3]],
      ['> - a\n> 1.\n===\n', []],
      ['> -\n>     x\ntext\n===\n', []],
      ['> - a\n> -\n>     x\n x\n-\n', []],
      ['> -\n>\n>     x\n x\n>     x\n x\n===\n', [6]],
      // A quote in a list item: a `>` line after the item's paragraph starts a quote (its four-column text is
      // code, the paragraph does not go on), one after the quote's lazy text continues it.
      ['- a\n  >     x\ntext\n---\n', [3]],
      ['- > a\n  \ty\n  >     x\n x\n===\n', []],
      // A table in a quote or a list item is no paragraph: the next line does not continue it lazily.
      ['> |---|---|\n> |---|---|\ntext\n---\n', [3]],
      ['- | a |\n  |---|\na | b\n===\n', [3]],
      ['> | a | b |\n> |---|---|\n-->\n|---|---|\n===\n', [3]],
    ] as const) {
      assert.deepEqual(sliceDocument(text).filter((s) => s.kind === 'section').map((s) => s.lineStart), headings, JSON.stringify(text));
    }
  });

  test('line numbers: CRLF counts 2 chars, a trailing newline opens no line, BOM belongs to slice 0', () => {
    const text = '\uFEFF# A\r\n\r\ntext\r\n## B\r\nx';
    const s = sliceDocument(text);
    assert.deepEqual(
      s.map((x) => [x.kind, x.heading, x.lineStart, x.lineEnd, x.charStart, x.charEnd]),
      [
        ['section', 'A', 1, 3, 0, 14],
        ['section', 'B', 4, 5, 14, text.length],
      ],
    );
    assert.equal(sliceDocument('# A\n').at(-1)!.lineEnd, 1);
    assert.deepEqual(sliceDocument(''), []);
  });

  test('setext headings start at their paragraph and frontmatter is its own slice', () => {
    const text = '---\na: 1\n---\n\nTitle\nline two\n===\nbody\n';
    const s = sliceDocument(text);
    assert.deepEqual(s.map((x) => x.kind), ['frontmatter', 'preamble', 'section']);
    assert.equal(s[2]!.lineStart, 5);
    assert.equal(text.slice(s[2]!.charStart, s[2]!.headingEnd), 'Title\nline two\n===\n');
  });

  test('section ranges equal the producer plan ranges on every corpus document', () => {
    const inputs = CORPUS_INPUTS;
    const files = readdirSync(inputs).filter((f) => f.startsWith('upstream'));
    assert.ok(files.length >= 20);
    for (const f of files) {
      const text = readFileSync(path.join(inputs, f), 'utf8');
      const plan = JSON.parse(readFileSync(path.join(CORPUS_DIR, `${f}.plan.json`), 'utf8'));
      const ours = sliceDocument(text).map((s) => ({ heading: s.heading, kind: s.kind, range: { line_start: s.lineStart, line_end: s.lineEnd, char_start: s.charStart, char_end: s.charEnd } }));
      const theirs = plan.context_plan.sections.map((s: { heading: string; kind: string; range: unknown }) => ({ heading: s.heading, kind: s.kind, range: s.range }));
      assert.deepEqual(ours, theirs, f);
    }
  });
});

describe('slice parse', () => {
  test('parseSlice agrees with markdown-it: counts, section heading, paragraphs, code and units (generated markdown)', () => {
    const md = MarkdownIt('commonmark').enable(['table', 'strikethrough']);
    fc.assert(
      fc.property(markdownDoc, fc.boolean(), (text, isSection) => {
        const p = parseSlice(text, isSection);
        // markdown-it's view of the same text: the BOM dropped, lines joined by \n, NUL replaced (CommonMark).
        const src = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').replace(/\n$/, '').replace(/\0/g, '\uFFFD');
        const tokens = md.parse(src, {});
        const top = tokens.filter((t) => t.level === 0 && t.nesting !== -1);
        const count = (type: string, list = tokens) => list.filter((t) => t.type === type).length;
        assert.equal(p.headingCount, count('heading_open'));
        assert.equal(p.listItems, count('list_item_open'));
        assert.equal(p.paragraphs, count('paragraph_open', top));
        assert.equal(p.tables, count('table_open', top));
        const own = isSection && top[0]?.type === 'heading_open' && top[0].map![0] === 0 ? top[0] : undefined;
        assert.deepEqual(p.heading, own ? { level: Number(own.tag.slice(1)), text: tokens[1]!.content } : null);
        // Every paragraph and code block the model keeps is markdown-it's, in order (the others fell back to raw lines).
        const inOrder = (got: string[], all: string[]) => {
          let k = 0;
          for (const g of got) {
            while (k < all.length && all[k] !== g) k++;
            assert.ok(k < all.length, `${JSON.stringify(g)} in order among ${JSON.stringify(all)}`);
            k++;
          }
        };
        const paragraphs = top.filter((t) => t.type === 'paragraph_open').map((t) => joinSoftBreaks(tokens[tokens.indexOf(t) + 1]!.content));
        inOrder(p.blocks.flatMap((b) => (b.kind === 'p' ? [b.text] : [])), paragraphs);
        const code = top.filter((t) => t.type === 'fence' || t.type === 'code_block').map((t) => JSON.stringify([t.type === 'fence' ? t.info.trim() : '', t.content.replace(/\n$/, '')]));
        inOrder(p.blocks.flatMap((b) => (b.kind === 'c' ? [JSON.stringify([b.lang, b.code])] : [])), code);
        // Units are in source order, on the slice's own lines, and start where their first word is.
        let last = 0;
        for (const u of p.units) {
          assert.ok(u.start >= last && u.start <= u.end && u.end <= text.length && u.lineStart <= u.lineEnd && u.lineEnd < p.lines.spanCount, JSON.stringify(u));
          assert.equal(p.lines.positionAt(u.start).line, u.lineStart);
          if (u.source === 'sentence') assert.ok(text.startsWith(u.text.split(' ', 1)[0]!, u.start), JSON.stringify({ u, at: text.slice(u.start, u.end) }));
          if (u.source === 'item') assert.match(text.slice(u.start, u.start + 1), /[-*+\d]/, JSON.stringify({ u, at: text.slice(u.start, u.end) }));
          last = u.start;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('model, candidate, coverage', () => {
  test('rendering a model and re-parsing it yields the same model (generated markdown)', () => {
    fc.assert(
      fc.property(markdownDoc, (text) => {
        const model = docModel(text);
        const rendered = renderModel(model as never);
        assert.deepEqual(docModel(rendered), model, JSON.stringify({ text, rendered }));
      }),
      { numRuns: 300 },
    );
  });

  test('lossless coverage is 1.0: every letter and digit of the source is in the model', () => {
    fc.assert(
      fc.property(markdownDoc, (text) => {
        for (const s of sliceDocument(text)) {
          if (s.kind === 'frontmatter') continue;
          const raw = text.slice(s.charStart, s.charEnd);
          const a = analyzeSlice(raw, s.kind, s.headingEnd - s.charStart);
          const src = sourceAlnum(raw);
          assert.ok(modelAlnum(a.model) >= src, JSON.stringify(raw));
        }
      }),
      { numRuns: 300 },
    );
  });

  test('document candidate composed from slices equals encode() of the document model', () => {
    fc.assert(
      fc.property(markdownDoc, fc.constantFrom<',' | '\t' | '|'>(',', '\t', '|'), (text, d) => {
        const v = convertDocument(text, { delimiter: d === ',' ? 'comma' : d === '\t' ? 'tab' : 'pipe' });
        assert.equal(v.toon_candidate, encode(docModel(text) as never, { delimiter: d }));
        assert.equal(v.flags.valid, true);
        assert.deepEqual(decode(v.toon_candidate!, { strict: true }), docModel(text));
      }),
      { numRuns: 200 },
    );
  });

  test('renderToonAsMarkdown reverts a candidate and rejects non-TOON clearly', () => {
    const text = '## Rules\n\n- one must hold\n- two should hold\n';
    const v = convertDocument(text);
    assert.equal(renderToonAsMarkdown(v.toon_candidate!), '## Rules\n\n- one must hold\n- two should hold\n');
    assert.throws(() => renderToonAsMarkdown('a:\n   b: [x'), /TOON does not decode/);
  });
});

describe('verdicts and plans', () => {
  test('every verdict validates against the schema and every plan is self-consistent (generated markdown)', () => {
    fc.assert(
      fc.property(markdownDoc, (text) => {
        const all: VerdictV1[] = [profileDocument(text), convertDocument(text), convertDocument(text, { mode: 'record' })];
        all.push(convertDocument(text, { mode: 'budget', targetChars: 10 }), convertDocument(text, { mode: 'budget', targetChars: 10, allowLossy: true }));
        const plan = planDocument(text);
        all.push(plan.verdict);
        for (const v of all) {
          assertSchemaValid(v);
          assert.equal(v.verdict, decide({ refused: v.verdict === 'refused', source: v.measured_chars.source, toon: v.measured_chars.toon, warnings: v.warnings }).verdict);
        }
        const cp = plan.verdict.context_plan!;
        assert.equal(cp.net.hybrid, plan.hybrid.length);
        assert.equal(cp.reassembly_verified, true);
        for (const m of plan.hybrid.matchAll(/^(`{3,})toon\r?\n([\s\S]*?)\r?\n\1$/gm)) decode(m[2]!, { strict: true });
        for (const s of plan.sections) {
          if (s.action === 'convert') {
            // Block conversion writes fences for the tables and lists only; whole-body conversion writes the
            // section edit. Either way the plan's hybrid holds exactly what Convert writes.
            assert.ok(plan.hybrid.includes(s.segment()));
            if (!s.blocks) assert.equal(s.segment(), convertSectionEdit(text, s.slice, s.candidate!).newText);
          }
          for (const w of s.verdict?.warnings ?? []) {
            if (!w.range) continue;
            assert.ok(w.range.char_start >= s.slice.charStart && w.range.char_end <= s.slice.charEnd, JSON.stringify(w));
            assert.ok(w.range.line_start >= s.slice.lineStart && w.range.line_end <= s.slice.lineEnd, JSON.stringify(w));
          }
        }
      }),
      { numRuns: 80, examples: [["| H1 | alpha |\r\n| --- | :-: |\r\n| a\\|b alpha | alpha |\r\n| alpha | alpha |\r\n\r\n<div>\r\n# html alpha\r\n</div>"]] },
    );
  });

  test('decision policy table, incl. the raw-vs-rounded 5% boundary', () => {
    // 4.96% raw rounds to 5.0 on the wire and still decides keep_markdown.
    assert.equal(decide({ refused: false, source: 10000, toon: 9504, warnings: [] }).verdict, 'keep_markdown');
    assert.equal(decide({ refused: false, source: 10000, toon: 9500, warnings: [] }).verdict, 'convert');
    assert.equal(decide({ refused: false, source: 100, toon: 50, warnings: [{ code: 'vague_rule' }] }).verdict, 'review');
    assert.equal(decide({ refused: false, source: 100, toon: 50, warnings: [{ code: 'long_section' }] }).verdict, 'split_first');
    assert.equal(decide({ refused: false, source: 100, toon: 150, warnings: [{ code: 'split_candidate' }] }).verdict, 'split_first');
    assert.equal(decide({ refused: true, source: 100, toon: 50, warnings: [] }).verdict, 'refused');
    assert.equal(safeToAutoApply({ verdict: 'convert', mode: 'lossless', lossless: true, valid: true, savings: 5, warnings: [{ code: 'long_section', severity: 'info' }] }).safe, true);
  });

  test('the wire rounds 4.96% to 5 while the verdict still says keep_markdown', () => {
    const v = buildVerdict({
      schemaVersion: '1.0',
      profile: { name: 'table', title: null, source_type: 'markdown', stats: { lines: 1, headings: 0, paragraphs: 0, list_items: 0, tables: 1, table_rows: 1, definitions: 0, rules: 0 } },
      sourceChars: 10000,
      sourceTokens: () => 2500,
      candidateChars: 9504,
      candidateText: () => 'x'.repeat(9504),
      candidateTokens: () => 2400,
      valid: true,
      delimiter: ',',
      warnings: [],
      mode: 'lossless',
      lossless: true,
      targetReached: null,
      refused: false,
      includeCandidate: true,
    });
    assert.equal(v.measured_chars.savings_pct, 5);
    assert.equal(v.verdict, 'keep_markdown');
    assert.equal(v.safe_to_auto_apply, false);
    assertSchemaValid(v);
  });

  test('corpus: decision fields follow the decision policy and plan rules from the engine\'s own numbers', () => {
    const inputs = CORPUS_INPUTS;
    for (const f of readdirSync(inputs).filter((x) => x.startsWith('upstream'))) {
      const text = readFileSync(path.join(inputs, f), 'utf8');
      const plan = planDocument(text);
      const check = (v: { verdict: string; safe_to_auto_apply: boolean; measured_chars: { source: number; toon: number; savings: number }; warnings: { code: string; severity: string }[]; mode: string; flags: { lossless: boolean; valid: boolean } }) => {
        assert.equal(v.verdict, decide({ refused: false, source: v.measured_chars.source, toon: v.measured_chars.toon, warnings: v.warnings }).verdict, f);
        assert.equal(v.safe_to_auto_apply, safeToAutoApply({ verdict: v.verdict, mode: v.mode, lossless: v.flags.lossless, valid: v.flags.valid, savings: v.measured_chars.savings, warnings: v.warnings }).safe, f);
      };
      check(plan.verdict);
      check(convertDocument(text));
      for (const s of plan.sections) if (s.verdict) check(s.verdict);
      const cp = plan.verdict.context_plan!;
      const converted = plan.sections.filter((s) => s.action === 'convert');
      assert.equal(cp.recommend_hybrid, converted.length >= 1 && cp.net.savings > 0 && ((cp.net.source - cp.net.hybrid) / cp.net.source) * 100 >= 5, f);
      assert.equal(cp.safe_to_auto_apply, cp.recommend_hybrid && converted.length >= 1 && converted.every((s) => s.verdict!.safe_to_auto_apply) && cp.reassembly_verified, f);
    }
  });

  test('a table section converts, is safe, and the plan recommends the hybrid', () => {
    const rows = Array.from({ length: 12 }, (_, i) => `| item_${i} | resource | networking | - | 0.${i} |`).join('\n');
    const text = `# Catalog\n\n| Entry | Kind | Type | Default | Since |\n| --- | --- | --- | --- | --- |\n${rows}\n`;
    const plan = planDocument(text);
    const cp = plan.verdict.context_plan!;
    assert.equal(cp.sections[0]!.verdict, 'convert');
    assert.equal(cp.sections[0]!.safe_to_auto_apply, true);
    assert.equal(cp.recommend_hybrid, true);
    assert.equal(cp.safe_to_auto_apply, true);
    assert.ok(plan.hybrid.startsWith('# Catalog\n```toon\n'));
  });

  test('budget: refused without lossy, lossy steps with', () => {
    const text = readFileSync(path.join(CORPUS_INPUTS, 'upstream__examples__prose.md'), 'utf8');
    const refused = convertDocument(text, { mode: 'budget', targetChars: 200 });
    assert.equal(refused.verdict, 'refused');
    assert.equal(refused.toon_candidate, null);
    assert.equal(refused.delimiter, null);
    assert.equal(refused.warnings.at(-1)!.code, 'budget_refused');
    assert.equal(refused.flags.target_reached, false);
    const lossy = convertDocument(text, { mode: 'budget', targetChars: 200, allowLossy: true });
    assert.equal(lossy.flags.lossless, false);
    assert.ok(lossy.warnings.some((w) => w.code === 'lossy_applied'));
    const reachable = convertDocument(text, { mode: 'budget', targetChars: 100000 });
    assert.equal(reachable.flags.target_reached, true);
    assert.equal(reachable.flags.lossless, true);
  });

  test('warnings: duplicate, vague, long_section, split_candidate with whole-document ranges', () => {
    const dupText = readFileSync(path.join(CORPUS_INPUTS, 'upstream__fixtures__agent-context__problematic__duplicate-rules.md'), 'utf8');
    const v = profileDocument(dupText);
    const dups = v.warnings.filter((w) => w.code === 'duplicate_rule');
    assert.equal(dups.length, 2);
    assert.equal(dupText.slice(dups[0]!.range!.char_start, dups[0]!.range!.char_end), '- The converter must validate official TOON round trips before writing output.');
    assert.equal(dups[0]!.range!.line_start, 7);
    const vague = profileDocument(readFileSync(path.join(CORPUS_INPUTS, 'upstream__fixtures__agent-context__problematic__vague-rules.md'), 'utf8'));
    assert.ok(vague.warnings.filter((w) => w.code === 'vague_rule').length >= 3);
    const split = profileDocument(readFileSync(path.join(CORPUS_INPUTS, 'upstream__fixtures__agent-context__problematic__split-candidate.md'), 'utf8'));
    assert.equal(split.verdict, 'split_first');
    const long = profileDocument(readFileSync(path.join(CORPUS_INPUTS, 'upstream__fixtures__agent-context__problematic__long-section.md'), 'utf8'));
    assert.ok(long.warnings.some((w) => w.code === 'long_section'));
  });

  test('the estimator names the installed gpt-tokenizer (default) or tokenx (estimate) version', () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', 'tokenx', 'package.json'), 'utf8'));
    const gpt = JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', 'gpt-tokenizer', 'package.json'), 'utf8'));
    assert.equal(TOKENX_VERSION, pkg.version);
    assert.equal(GPT_TOKENIZER_VERSION, gpt.version);
    assert.equal(profileDocument('# A\n').token_estimates.estimator, `gpt-tokenizer@${gpt.version}:o200k_base`);
    assert.equal(profileDocument('# A\n', { tokenizer: 'cl100k_base' }).token_estimates.estimator, `gpt-tokenizer@${gpt.version}:cl100k_base`);
    assert.equal(profileDocument('# A\n', { tokenizer: 'estimate' }).token_estimates.estimator, `tokenx@${pkg.version}`);
  });
});

describe('robustness', () => {
  const nasty: [string, string][] = [
    ['binary', Buffer.from(Array.from({ length: 2048 }, (_, i) => (i * 7919) % 256)).toString('latin1')],
    ['NUL', '# A\n\0\0 text \0\n- item\0\n'],
    ['unterminated fence', '# A\n```js\n# B\ncode'],
    ['emoji + CJK', '# 标题 😀\n\n- 必须 must 😀😀\n- 应该 should\n\n| 列 | 😀 |\n|---|---|\n| 值 | 🎉 |\n'],
    ['CRLF', '# A\r\n\r\n- one\r\n- two\r\n## B\r\ntext\r\n'],
    ['lists with links', '# L\n\n- [a](http://x.y/a): see [b][c]\n- <http://x.y> and ![img](i.png)\n\n[c]: http://x.y/c\n'],
    ['lone surrogate', '# A\n\n- \ud800 broken\n'],
    ['only frontmatter', '---\na: b\n---\n'],
    ['empty', ''],
  ];
  for (const [name, text] of nasty) {
    test(`${name} → schema-valid verdicts, no exception`, () => {
      for (const v of [profileDocument(text), convertDocument(text), convertDocument(text, { mode: 'record' }), convertDocument(text, { mode: 'budget', targetChars: 5, allowLossy: true }), planDocument(text).verdict]) {
        assertSchemaValid(v);
      }
    });
  }

  test('a 100,000-line section plans without an exception', () => {
    const text = '# Big\n\n' + Array.from({ length: 100000 }, (_, i) => `- item ${i} must hold`).join('\n') + '\n';
    const plan = planDocument(text);
    assertSchemaValid(plan.verdict);
    assert.equal(plan.verdict.context_plan!.sections[0]!.verdict, 'split_first');
  });

  test('a candidate that fails to encode is flags.valid false and never converts', () => {
    // TOON refuses to encode an unpaired surrogate.
    const text = '# A\n\n| a | b |\n| - | - |\n| \ud800 | 2 |\n| x | 3 |\n| y | 4 |\n';
    for (const v of [convertDocument(text), profileDocument(text), planDocument(text).verdict]) {
      assertSchemaValid(v);
      assert.equal(v.flags.valid, false);
      assert.equal(v.verdict, 'keep_markdown');
      assert.equal(v.safe_to_auto_apply, false);
    }
    const plan = planDocument(text);
    assert.equal(plan.sections[0]!.action, 'keep');
    assert.equal(plan.hybrid, text);
  });
});

/** A plan as its readers see it: every field but `analysis`, the memo handle whose lazy caches a warm cache has filled. */
function observable(plan: ReturnType<typeof planDocument>) {
  // Each section's fields read one by one (a section may compute its verdict and tokens on first read, as getters).
  return { ...plan, tokens: plan.tokens, sections: plan.sections.map((s) => ({ slice: s.slice, verdict: s.verdict, candidate: s.candidate, action: s.action, tokens: s.tokens })) };
}

describe('cache', () => {
  test('EngineCache plans equal uncached plans, before and after an edit', () => {
    const cache = new EngineCache();
    fc.assert(
      fc.property(markdownDoc, fc.nat(), (text, at) => {
        assert.deepEqual(observable(cache.plan(text)), observable(planDocument(text)));
        const i = text.length ? at % text.length : 0;
        const edited = text.slice(0, i) + 'x' + text.slice(i);
        assert.deepEqual(observable(cache.plan(edited)), observable(planDocument(edited)));
      }),
      { numRuns: 60 },
    );
  });
});

describe('cache: the last plan\'s analyses found by their text', () => {
  test('sections moved by an edit (not carried by position) are reused from the last plan, also two plans later', () => {
    const sec = (i: number) => `## Section ${i}\n\n| key | value |\n|---|---|\n| a${i} | ${i} |\n| b${i} | ${i * 2} |\n\n- always run the tests ${i}\n`;
    const order = [0, 1, 2, 3, 4, 5];
    const doc = (o: number[]) => `# Doc\n\n${o.map(sec).join('\n')}`;
    const cache = new EngineCache();
    const first = doc(order);
    assert.deepEqual(observable(cache.plan(first)), observable(planDocument(first)));
    const made = cache.analysed;
    // Swap sections 1 and 4: both are re-sliced around the edit and must be found by their text, not re-analysed.
    const swapped = doc([0, 4, 2, 3, 1, 5]);
    assert.deepEqual(observable(cache.plan(swapped)), observable(planDocument(swapped)));
    assert.ok(cache.lookedUp > order.length + 1, 'the moved sections were looked up by their text');
    assert.equal(cache.analysed, made, 'no section was analysed again');
    // And back: the plan in between turned the generation over; its analyses are found again.
    assert.deepEqual(observable(cache.plan(first)), observable(planDocument(first)));
    assert.equal(cache.analysed, made);
    assert.equal(cache.size, order.length + 1);
  });
});

describe('cache across a chain of edits', () => {
  test('each plan of one EngineCache after several edits (analyses and verdicts carried by position) equals the uncached plan', () => {
    fc.assert(
      fc.property(fc.tuple(markdownDoc, markdownDoc).map(([a, b]) => [a, b.replace(/^\uFEFF/, '')].join('\n\n')), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 6 }), fc.constantFrom('x', '\n', '## H\n', '- ', '')), { minLength: 2, maxLength: 5 }), (start, edits) => {
        const cache = new EngineCache();
        let text = start;
        cache.plan(text);
        for (const [at, del, ins] of edits) {
          const i = text.length ? at % (text.length + 1) : 0;
          text = text.slice(0, i) + ins + text.slice(Math.min(text.length, i + del));
          assert.deepEqual(observable(cache.plan(text)), observable(planDocument(text)), JSON.stringify(text));
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe('incremental slicing', () => {
  test('resliceAfterEdit equals a full slicing after any edit (generated markdown)', () => {
    fc.assert(
      fc.property(fc.tuple(markdownDoc, markdownDoc, markdownDoc).map(([a, b, c]) => [a, b.replace(/^\uFEFF/, ''), c.replace(/^\uFEFF/, '')].join('\n\n')), fc.nat(), fc.nat({ max: 12 }), fc.constantFrom('x', '\n', '# ', '```\n', '- ', '\r\n', '', '|', '===\n', '<div>\n'), (text, at, del, ins) => {
        const i = text.length ? at % (text.length + 1) : 0;
        const edited = text.slice(0, i) + ins + text.slice(Math.min(text.length, i + del));
        assert.deepEqual(resliceAfterEdit(text, sliceDocument(text), edited), sliceDocument(edited), JSON.stringify({ text, edited }));
      }),
      { numRuns: 3000 },
    );
  });

  test('resliceAfterEdit sees frontmatter closed by a line far below its opener', () => {
    // A first line `---` that nothing closed yet: the `---` or `...` line an edit brings closes it, and everything
    // above that line becomes frontmatter (found by the line-by-line property test; the re-scan started at the edit).
    for (const [text, edited] of [
      ['---\n# H\n# H\n# H\n# H\n', '---\n# H\n# H\n---\n# H\n# H\n'],
      ['---\nname: x\n# A\n## B\ntext\n', '---\nname: x\n# A\n...\n## B\ntext\n'],
    ] as const) {
      const full = sliceDocument(edited);
      assert.equal(full[0]!.kind, 'frontmatter');
      assert.deepEqual(resliceAfterEdit(text, sliceDocument(text), edited), full, JSON.stringify({ text, edited }));
    }
  });

  test('what resliceAfterEdit says it carried over is the previous slices: the same objects before the edit, the same text after it', () => {
    fc.assert(
      fc.property(fc.tuple(markdownDoc, markdownDoc).map(([a, b]) => [a, b.replace(/^\uFEFF/, '')].join('\n\n')), fc.nat(), fc.nat({ max: 12 }), fc.constantFrom('x', '\n', '# ', '```\n', '- ', ''), (text, at, del, ins) => {
        const i = text.length ? at % (text.length + 1) : 0;
        const edited = text.slice(0, i) + ins + text.slice(Math.min(text.length, i + del));
        const prev = sliceDocument(text);
        const carry = { head: -1, tail: -1, prevTail: -1 };
        const next = resliceAfterEdit(text, prev, edited, carry);
        const what = JSON.stringify({ text, edited, carry });
        assert.ok(carry.head >= 0 && carry.head <= carry.tail && carry.tail <= next.length && carry.prevTail <= prev.length, what);
        assert.equal(next.length - carry.tail, prev.length - carry.prevTail, what);
        for (let k = 0; k < carry.head; k++) assert.equal(next[k], prev[k], what);
        for (let k = carry.tail, j = carry.prevTail; k < next.length; k++, j++) {
          const [n, p] = [next[k]!, prev[j]!];
          assert.equal(edited.slice(n.charStart, n.charEnd), text.slice(p.charStart, p.charEnd), what);
          assert.equal(n.kind, p.kind, what);
          assert.equal(n.headingEnd - n.charStart, p.headingEnd - p.charStart, what);
        }
      }),
      { numRuns: 2000 },
    );
  });

  test('resliceAfterEdit equals a full slicing when sections end in open lists (a column-0 ATX heading ends them)', () => {
    const block = fc.constantFrom('- a\n- b\n', '1. one\n2. two\n', '- a\n\n  continued\n', '- a\n  - nested\n', '- a\n  ```\n  code\n', '  ## in list?\n', '> quote\n', '```\nfence\n', '<div>\n', 'para\n', '   # indented\n', '- a\n## right after\n');
    const section = fc.tuple(fc.constantFrom('## S\n\n', '# T\n', 'Setext\n---\n'), fc.array(block, { minLength: 1, maxLength: 3 })).map(([h, bs]) => h + bs.join(''));
    fc.assert(
      fc.property(fc.array(section, { minLength: 2, maxLength: 6 }), fc.nat(), fc.nat({ max: 6 }), fc.constantFrom('x', '\n', '- ', '```\n', '## ', '  ', ''), (sections, at, del, ins) => {
        const text = sections.join('\n');
        const i = at % (text.length + 1);
        const edited = text.slice(0, i) + ins + text.slice(Math.min(text.length, i + del));
        assert.deepEqual(resliceAfterEdit(text, sliceDocument(text), edited), sliceDocument(edited), JSON.stringify({ text, edited }));
      }),
      { numRuns: 3000 },
    );
  });
});

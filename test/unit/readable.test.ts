// Readable as written: a convert never puts an escape inside a code span, markdown a fence would not keep
// (admonitions, reference links and definitions, HTML blocks, footnotes, values that span lines) keeps its section
// markdown, and every TOON value an agent reads is the markdown's own text for that cell or item, checked on the
// corpus.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { decode } from '@toon-format/toon';
import { planDocument, sectionConvertEdit, type EngineOptions } from '../../server/src/core/markdown/engine';
import { codeSpans, footnoteIn, referenceLinkIn } from '../../server/src/core/markdown/rules/markdownOnly';
import { blocksConvertDespiteSplit } from '../../server/src/core/markdown/blockConvert';
import fc from 'fast-check';
import { sectionLensTitle, sectionLensTooltip } from '../../server/src/features/markdown/lenses';
import { checkDocument } from '../../server/src/core/agentJson/check';
import { explainVerdict } from '../../server/src/core/agentJson/rules/verdictExplain';
import { CORPUS_INPUTS, FIXTURES, REPO_ROOT } from '../paths';

const DIRS = [CORPUS_INPUTS, path.join(REPO_ROOT, 'examples', 'markdown'), path.join(FIXTURES, 'markdown')];
const DOCS = DIRS.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.md') && f !== 'LICENSE.md').map((f) => ({ name: f, text: readFileSync(path.join(d, f), 'utf8') })));

/** A table that converts on its own (it saves well over 5 % of its tokens), with one cell chosen by the test. */
function table(cell: string, after = ''): string {
  const rows = Array.from({ length: 12 }, (_, i) => `| item_${i} | resource | networking | none | 0.${i} |`);
  rows[3] = `| item_3 | ${cell} | networking | none | 0.3 |`;
  return `## Catalog\n\n| Entry | Kind | Type | Default | Since |\n| --- | --- | --- | --- | --- |\n${rows.join('\n')}\n${after}`;
}

function only(text: string, opts: EngineOptions = {}) {
  const plan = planDocument(text, opts);
  const s = plan.sections.find((x) => x.slice.kind === 'section')!;
  return { plan, s };
}

describe('readable as written: what keeps a section markdown', () => {
  test('the control: a plain code span in a cell converts', () => {
    const { s } = only(table('`grep gone`'));
    assert.equal(s.action, 'convert');
    assert.match(s.candidate!, /`grep gone`/);
  });

  // [what, text, message, the markdown a fence would not keep (when it is a block of its own beside the table)]
  const cases: [string, string, RegExp, string?][] = [
    ['a code span with a quote and a backslash', table('`grep ": gone\\]"`'), /code TOON would have to escape/],
    ['an admonition', table('resource', '\n!!! note\n    On Windows use the other port.\n'), /an admonition/, '!!! note\n    On Windows use the other port.'],
    ['a collapsible admonition', table('resource', '\n???+ tip "Faster"\n    Cache the ranks.\n'), /an admonition/, '???+ tip "Faster"\n    Cache the ranks.'],
    ['a collapsed reference link and its definition', table('[22.x][]', '\n[22.x]: https://nodejs.org/\n'), /a reference-style link/],
    ['a link reference definition alone', table('resource', '\n[docs]: https://example.com/docs\n'), /a link reference definition/, '[docs]: https://example.com/docs'],
    ['an HTML block', table('resource', '\n<details>\n<summary>More</summary>\n\nhidden\n</details>\n'), /an HTML block/, '<details>\n<summary>More</summary>\n\nhidden\n</details>'],
    ['a footnote', table('resource[^1]', '\n[^1]: Only on Linux.\n'), /a footnote/],
    ['a list item holding a nested list', table('resource', '\n- Ports\n  - 8080 for the API\n  - 9090 for metrics\n- Hosts\n'), /a value that spans lines/, '- Ports\n  - 8080 for the API\n  - 9090 for metrics\n- Hosts'],
    ['a list item holding a code block', table('resource', '\n- Run:\n\n  ```sh\n  npm ci\n  ```\n- Done\n'), /a value that spans lines/, '- Run:\n\n  ```sh\n  npm ci\n  ```\n- Done'],
  ];
  for (const [what, text, message, beside] of cases) {
    test(`${what}: keep_markdown with markdown_only, never in the hybrid${beside ? ' (by block, the table converts and it stays as written)' : ', on every tokenizer'}`, () => {
      for (const tokenizer of ['o200k_base', 'cl100k_base', 'estimate'] as const) {
        if (beside && tokenizer !== 'estimate') {
          // Block conversion: the table is fenced alone, the block a fence would not keep stays markdown byte for byte.
          const { plan, s } = only(text, { tokenizer });
          assert.deepEqual(s.blockSummary, { tables: 1, lists: 0 }, `${what} ${tokenizer}`);
          assert.ok(!s.verdict!.warnings.some((x) => x.code === 'markdown_only'), `${what} ${tokenizer}`);
          assert.equal(s.action, 'convert');
          assert.ok(plan.hybrid.includes(beside), `${what} ${tokenizer}: kept as written`);
          assert.ok(plan.hybrid.includes('```toon\n'), `${what} ${tokenizer}: the table is fenced`);
          continue;
        }
        const { plan, s } = only(text, { tokenizer });
        const w = s.verdict!.warnings.find((x) => x.code === 'markdown_only');
        assert.ok(w, `${what} ${tokenizer}: ${s.verdict!.warnings.map((x) => x.code).join(',')}`);
        assert.match(w.message, message);
        assert.equal(w.severity, 'info');
        assert.equal(s.verdict!.verdict, 'keep_markdown');
        assert.equal(s.verdict!.safe_to_auto_apply, false);
        assert.equal(s.action, 'keep');
        assert.equal(plan.hybrid, text);
        // The range points at the text it names, in document coordinates.
        if (w.range) assert.ok(text.slice(w.range.char_start, w.range.char_end).trim().length > 0);
      }
    });
  }

  test('an escaped pipe in a cell is the cell text `|` (GFM), written without a backslash', () => {
    const { s } = only(table('`a \\| b`'));
    assert.equal(s.action, 'convert');
    assert.match(s.candidate!, /`a \| b`/);
    assert.doesNotMatch(s.candidate!, /\\/);
  });

  test('a reference link or a quote inside a code span is literal text, not a reason', () => {
    for (const cell of ['`[a][b]`', '`x[^1]`', 'say "hi"']) {
      const { s } = only(table(cell));
      assert.ok(!s.verdict!.warnings.some((w) => w.code === 'markdown_only'), cell);
    }
  });
});

describe('code spans', () => {
  test('CommonMark matching: a run closes at the next run of the same length; an unmatched run is literal', () => {
    assert.deepEqual(codeSpans('a `b` c'), { spans: ['b'], outside: 'a  c' });
    assert.deepEqual(codeSpans('``a ` b`` x'), { spans: ['a ` b'], outside: ' x' });
    assert.deepEqual(codeSpans('`a`` b'), { spans: [], outside: '`a`` b' });
    assert.deepEqual(codeSpans('``` x ` y `'), { spans: [' y '], outside: '``` x ' });
    assert.deepEqual(codeSpans('none'), { spans: [], outside: 'none' });
  });

  test('linear: 200,000 unmatched runs of distinct lengths cost about what 20,000 do', () => {
    const make = (n: number) => Array.from({ length: n }, (_, i) => '`'.repeat((i % 50) + 1) + 'x').join('');
    const ops = (n: number) => {
      const t = make(n);
      const started = process.cpuUsage();
      for (let k = 0; k < 3; k++) codeSpans(t);
      const u = process.cpuUsage(started);
      return u.user + u.system;
    };
    ops(2000);
    const small = Math.max(ops(20_000), 1000);
    const large = ops(200_000);
    assert.ok(large <= small * 10 * 4, `${large} vs ${small} µs`);
  });
});

/** Markdown-it's own (independent) cells of every table in a section body, row by row. */
function tableCells(body: string): string[][] {
  const md = MarkdownIt('commonmark').enable(['table']);
  const tokens = md.parse(body, {});
  const rows: string[][] = [];
  let row: string[] | null = null;
  for (const t of tokens) {
    if (t.type === 'tr_open') row = [];
    else if (t.type === 'inline' && row) row.push(t.content);
    else if (t.type === 'tr_close' && row) {
      rows.push(row);
      row = null;
    }
  }
  return rows;
}

/**
 * Markdown-it's own items of a body that is one bullet list and nothing else (each item one paragraph: its inline
 * text, soft breaks read as spaces); null for any other body.
 */
function listItems(body: string): string[] | null {
  const tokens = MarkdownIt('commonmark').parse(body, {});
  const top = tokens.filter((t) => t.level === 0);
  if (top.length !== 2 || top[0]!.type !== 'bullet_list_open') return null;
  const items: string[] = [];
  let depth = 0;
  let inlines = 0;
  for (const t of tokens) {
    if (t.type === 'list_item_open' && ++depth === 1) inlines = 0;
    else if (t.type === 'list_item_close') depth--;
    else if (t.type === 'inline' && depth === 1) {
      if (++inlines > 1) return null;
      items.push(t.content);
    } else if (depth === 1 && t.level > 2) return null;
  }
  return items;
}

/** Every string an agent reads in a decoded TOON value (keys of row objects and term → text maps included). */
function leaves(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) leaves(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      // (block keys, and the column of a list past the inline-array cap, are structure, not text)
      if (!/^[pltocdm][1-9]\d*$/.test(k) && !(k === 'item' && Object.keys(v).length === 1)) out.push(k);
      leaves(x, out);
    }
  }
  return out;
}

/** Soft line breaks (with the indentation around them) read as one space; a table's escaped pipe reads `|`. */
const visible = (s: string) => s.replace(/[ \t]*\r?\n[ \t]*/g, ' ').replace(/\\\|/g, '|');

describe('readable as written: every convert of the corpus', () => {
  test('every value is the markdown\'s text for its cell or item; no escape inside a code span; tables cell for cell', () => {
    let converts = 0;
    let cells = 0;
    let listed = 0;
    const seen = new Set<string>();
    for (const { name, text } of DOCS) {
      for (const opts of [{}, { tokenizer: 'cl100k_base' }, { tokenizer: 'estimate' }, { minTokenSavingsPct: 0 }] as EngineOptions[]) {
        for (const s of planDocument(text, opts).sections) {
          // (and a split_first section's blocks, which its action lens converts)
          const splitBlocks = s.blockSummary !== null && !!s.verdict && blocksConvertDespiteSplit(s.verdict);
          if ((s.action !== 'convert' && !splitBlocks) || (s.candidate === null && s.blockSummary === null)) continue;
          const written = sectionConvertEdit(s).newText;
          const key = `${name}\0${s.slice.charStart}\0${written}`;
          if (seen.has(key)) continue;
          seen.add(key);
          converts++;
          const raw = text.slice(s.slice.charStart, s.slice.charEnd);
          // What Convert writes: the whole body's candidate, or each block's TOON in place of that block.
          const pieces = s.blockSummary ? s.blocks!.map((b) => ({ toon: b.toon, body: b.original })) : [{ toon: s.candidate!, body: raw.slice(s.slice.headingEnd - s.slice.charStart) }];
          for (const { toon, body } of pieces) {
            const at = `${name} “${s.slice.heading}”`;
            assert.ok(written.includes(toon.split('\n')[0]!), at);
            for (const line of toon.split('\n')) {
              for (const span of codeSpans(line).spans) assert.ok(!span.includes('\\'), `${at}: an escape inside the code span \`${span}\``);
            }
            const value = decode(toon, { strict: true });
            const source = visible(body);
            for (const leaf of leaves(value)) assert.ok(source.includes(visible(leaf)), `${at}: “${leaf}” is not the markdown's text`);
            // A list alone: its items are markdown-it's items, item for item.
            const items = listItems(body);
            if (items && Array.isArray(value)) {
              const got = value.map((x) => (x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>).item : x));
              assert.deepEqual(got.map((x) => visible(String(x))), items.map(visible), `${at}: list items`);
              listed += items.length;
            }
            // A table body: its rows are markdown-it's cells, header for header and cell for cell.
            const rows = tableCells(body);
            if (rows.length > 1 && Array.isArray(value) && value.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
              const header = rows[0]!;
              assert.deepEqual(Object.keys(value[0] as object), header, at);
              (value as Record<string, unknown>[]).forEach((r, i) => {
                assert.deepEqual(header.map((h) => String(r[h])), rows[i + 1], `${at}: row ${i + 1}`);
                cells += header.length;
              });
            }
          }
        }
      }
    }
    assert.ok(converts >= 10, `${converts} converts checked`);
    assert.ok(cells > 100, `${cells} table cells checked`);
    assert.ok(listed > 10, `${listed} list items checked`);
  });
});

describe('markdown_only beside the keep marker', () => {
  test('a section with only `<!-- toonlens: keep -->` says keep_marker, not markdown_only; another comment is an HTML block', () => {
    const kept = only(table('resource').replace('\n\n|', '\n\n<!-- toonlens: keep -->\n\n|')).s;
    assert.ok(kept.verdict!.warnings.some((w) => w.code === 'keep_marker'));
    assert.ok(!kept.verdict!.warnings.some((w) => w.code === 'markdown_only'));
    // (by block the table would convert and the comment stay: the estimate keeps the whole section's rule)
    const other = only(table('resource').replace('\n\n|', '\n\n<!-- generated: do not edit -->\n\n|'), { tokenizer: 'estimate' }).s;
    assert.ok(other.verdict!.warnings.some((w) => w.code === 'markdown_only'));
    assert.equal(other.verdict!.verdict, 'keep_markdown');
  });
});

describe('the verdict lens of a markdown_only section', () => {
  test('its tooltip says why (the warning), not that TOON would not save enough', () => {
    const { s } = only(table('resource', '\n!!! note\n    On Windows use the other port.\n'), { tokenizer: 'estimate' });
    const tip = sectionLensTooltip(s);
    assert.match(tip, /^Kept as markdown: "Catalog" holds an admonition/);
    assert.doesNotMatch(tip, /would not save enough/);
    assert.match(sectionLensTitle(s), /· keep markdown$/);
  });
});

describe('markdown_only in verdict JSON', () => {
  test('the verdict rules accept it (no finding) and the JSON hover explains it', () => {
    const v = JSON.parse(JSON.stringify(only(table('resource', '\n<div>note</div>\n'), { tokenizer: 'estimate' }).plan.verdict));
    const codes = checkDocument(JSON.stringify(v, null, 2), { kind: 'verdict' }).diagnostics.map((d) => d.code);
    assert.deepEqual(codes.filter((c) => c.startsWith('verdict/') || c.startsWith('plan/')), [], codes.join(','));
    const sec = v.context_plan.sections.findIndex((x: { heading: string }) => x.heading === 'Catalog');
    const i = v.context_plan.sections[sec].warnings.findIndex((w: { code: string }) => w.code === 'markdown_only');
    assert.ok(i >= 0);
    const md = explainVerdict(v, ['context_plan', 'sections', sec, 'warnings', i, 'code'])!;
    assert.match(md, /markdown_only/);
    assert.match(md, /keep_markdown/);
  });
});

test('reference links and footnotes are found in one pass: the same match as the regexes, linear on runs of brackets', () => {
  const REFERENCE_LINK = /\[[^\]\n]*\]\[[^\]\n]*\]/;
  const FOOTNOTE = /\[\^[^\]\s]+\]/;
  fc.assert(
    fc.property(fc.array(fc.constantFrom('[', ']', '^', 'a', ' ', '\n', '\t'), { maxLength: 40 }).map((a) => a.join('')), (s) => {
      assert.equal(referenceLinkIn(s), REFERENCE_LINK.exec(s)?.[0], JSON.stringify(s));
      assert.equal(footnoteIn(s), FOOTNOTE.exec(s)?.[0], JSON.stringify(s));
    }),
    { numRuns: 20000 },
  );
  const cpu = (f: () => void) => {
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const c = process.cpuUsage();
      f();
      const u = process.cpuUsage(c);
      best = Math.min(best, u.user + u.system);
    }
    return Math.max(best, 1);
  };
  const shape = (n: number) => () => {
    referenceLinkIn('['.repeat(n / 2) + 'a' + ']'.repeat(n / 2));
    footnoteIn('[^'.repeat(n / 2));
  };
  const ratio = cpu(shape(160_000)) / cpu(shape(20_000));
  assert.ok(ratio < 40, `cpu(160 K) / cpu(20 K) = ${ratio.toFixed(1)}× (linear ≈ 8×)`);
});

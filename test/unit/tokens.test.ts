// Real token counts, the measured segment, the token gate, delimiter choice by tokens, and the shapes
// (body-only fences, joined soft breaks, canonical definition lists), on real corpus documents.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { decode, encode } from '@toon-format/toon';
import { convertDocument, convertSectionEdit, planDocument, sectionConvertEdit, profileDocument, renderToonAsMarkdown } from '../../server/src/core/markdown/engine';
import { analyzeSlice } from '../../server/src/core/markdown/analysis';
import { joinSoftBreaks } from '../../server/src/core/markdown/blocks';
import fc from 'fast-check';
import { pieceCounter, TOKEN_MERGE_CACHE_ENTRIES, tokenizer, TOKENIZERS } from '../../server/src/core/tokens';
import { explainVerdict } from '../../server/src/core/agentJson/rules/verdictExplain';
import { checkDocument } from '../../server/src/core/agentJson/check';
import { decide, underTokenFloor } from '../../server/src/core/markdown/policy';
import { parseConfig } from '../../server/src/core/config';
import { normalizeSettings, withProjectConfig } from '../../server/src/lsp/settings';
import { planOptions } from '../../server/src/features/markdown/plans';
import { sectionLensTooltip } from '../../server/src/features/markdown/lenses';
import { main } from '../../server/src/cli/main';
import type { CliIO } from '../../server/src/cli/io';
import { CORPUS_INPUTS, FIXTURES, REPO_ROOT } from '../paths';

const DIRS = [CORPUS_INPUTS, path.join(REPO_ROOT, 'examples', 'markdown'), path.join(FIXTURES, 'markdown')];
const DOCS = DIRS.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.md') && f !== 'LICENSE.md').map((f) => ({ name: f, text: readFileSync(path.join(d, f), 'utf8') })));
/** Saves characters (tab rows) but not one o200k token. */
const REGRESSION = '## Topics\n\n| Topic | Group |\n|---|---|\n| `a.v1`, `a.v2` | `sg-a`, `sg-b` |\n| `b.v1`, `b.v2` | `sg-c`, `sg-d` |\n| `c.v1`, `c.v2` | `sg-e`, `sg-f` |\n';
const TABLE = `# Catalog\n\n| Entry | Kind | Type | Default | Since |\n| --- | --- | --- | --- | --- |\n${Array.from({ length: 12 }, (_, i) => `| item_${i} | resource | networking | none | 0.${i} |`).join('\n')}\n`;

describe('tokenizers', () => {
  test('o200k_base and cl100k_base count real BPE tokens; estimate is tokenx; special-token text is plain text', () => {
    assert.deepEqual(TOKENIZERS, ['o200k_base', 'cl100k_base', 'estimate']);
    const o = tokenizer('o200k_base');
    assert.equal(o.real, true);
    assert.equal(o.count(''), 0);
    assert.equal(o.count('hello world'), 2);
    assert.ok(o.count('<|endoftext|>') > 1, 'counted as text, not rejected');
    assert.equal(tokenizer('cl100k_base').count('hello world'), 2);
    assert.equal(tokenizer('estimate').real, false);
    assert.equal(tokenizer('estimate').estimator, 'tokenx@1.3.0');
    // Padding of aligned markdown tables is cheap in BPE tokens: 40 spaces are far fewer than 10 tokens.
    assert.ok(o.count(' '.repeat(40)) < 10);
  });
  test("the BPE merge cache stays bounded: many distinct words never grow it past TOKEN_MERGE_CACHE_ENTRIES, and counts do not depend on it", () => {
    // gpt-tokenizer's default keeps 100,000 entries for the life of the process (docs on TOKEN_MERGE_CACHE_ENTRIES).
    const o = tokenizer('o200k_base');
    const words = Array.from({ length: 30_000 }, (_, i) => `zq${(i * 2654435761 >>> 0).toString(36)}xv`);
    const text = words.join(' ');
    const first = o.count(text);
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const core = (require('gpt-tokenizer/encoding/o200k_base') as { default: { bytePairEncodingCoreProcessor: { mergeCache?: Map<string, unknown> } } }).default.bytePairEncodingCoreProcessor;
    assert.ok(core.mergeCache, 'the merge cache is on');
    assert.ok(core.mergeCache.size <= TOKEN_MERGE_CACHE_ENTRIES, `${core.mergeCache.size} entries`);
    assert.ok(core.mergeCache.size > TOKEN_MERGE_CACHE_ENTRIES / 2, 'the words went through the cache');
    assert.equal(o.count(text), first, 'the same count with a warm cache');
    assert.equal(words.slice(0, 50).reduce((n, w) => n + o.count(` ${w}`), 0), o.count(words.slice(0, 50).map((w) => ` ${w}`).join('')), 'word by word equals the whole');
  });
  test("the pre-token counter counts what gpt-tokenizer's countTokens counts (random text, the corpus, both encodings)", () => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const plain = { disallowedSpecial: new Set<string>() };
    const corpus = readdirSync(CORPUS_INPUTS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => readFileSync(path.join(CORPUS_INPUTS, f), 'utf8'));
    const pieces = fc.constantFrom('a', 'Ab', ' the', "'s", "n't", '12345', ' ', '  ', '\t', '\n', '\r\n', '\r', ' \n', '/', '//', ':\n/', '\u00a0', '—', 'é', 'e\u0301', '漢字', '🧪', '\ud800', '<|endoftext|>', '```toon', '- ', '|', ',', '"', '\\', '{', '[3]:');
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const lib = require(`gpt-tokenizer/encoding/${name}`) as { countTokens(t: string, o: object): number; default: { bytePairEncodingCoreProcessor: object } };
      const count = pieceCounter(lib.default.bytePairEncodingCoreProcessor);
      assert.ok(count, `${name}: the pinned package's core has the shape the counter reads`);
      for (const t of corpus) assert.equal(count(t), lib.countTokens(t, plain), name);
      fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (t) => count(t) === lib.countTokens(t, plain)), { numRuns: 3000 });
      fc.assert(fc.property(fc.array(pieces, { maxLength: 40 }), (ps) => count(ps.join('')) === lib.countTokens(ps.join(''), plain)), { numRuns: 3000 });
    }
    // The server's and the CLI's tokenizer (what tokenizer() counts with) takes this path too.
    assert.equal(tokenizer('o200k_base').count(corpus.join('\n')), (require('gpt-tokenizer/encoding/o200k_base') as { countTokens(t: string, o: object): number }).countTokens(corpus.join('\n'), plain));
    assert.equal(pieceCounter(undefined), null);
    assert.equal(pieceCounter({ tokenSplitRegex: /x/g }), null, 'a core of another shape: the package count');
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
  test('the built tokenizers (dist/tokenizer-<encoding>.js) read the package\'s own ranks from JSON and count as the package does', () => {
    // esbuild.mjs writes the ranks as JSON (no 200,000-element literal to compile); the unused ranks are holes again.
    /* eslint-disable @typescript-eslint/no-require-imports */
    const texts = ['README.md', 'docs/engine.md', 'docs/performance.md', 'server/src/core/markdown/slices.ts'].map((f) => readFileSync(path.join(REPO_ROOT, f), 'utf8'));
    texts.push(readdirSync(CORPUS_INPUTS, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md')).map((f) => readFileSync(path.join(CORPUS_INPUTS, f), 'utf8')).join('\n'));
    texts.push('<|endoftext|> emoji 🧪 and 漢字 and \u{1F600}\r\n\ttabs');
    for (const name of ['o200k_base', 'cl100k_base'] as const) {
      const bundle = path.join(REPO_ROOT, 'dist', `tokenizer-${name}.js`);
      assert.ok(readFileSync(bundle, 'utf8').length < 300_000, `${bundle} holds no rank list`);
      const ranks = require(`gpt-tokenizer/cjs/bpeRanks/${name}`).default as (string | number[])[];
      const json = JSON.parse(readFileSync(path.join(REPO_ROOT, 'dist', `tokenizer-${name}.json`), 'utf8')) as (string | number[] | null)[];
      assert.equal(json.length, ranks.length);
      for (let i = 0; i < ranks.length; i++) {
        if (!(i in ranks)) assert.equal(json[i], null, `rank ${i} is unused`);
        else assert.deepEqual(json[i], ranks[i], `rank ${i}`);
      }
      const built = require(bundle) as { countTokens(t: string, o: object): number; encode(t: string, o: object): number[]; vocabularySize: number; bytePairEncodingCoreProcessor: object };
      assert.ok(pieceCounter(built.bytePairEncodingCoreProcessor), `${bundle}: the pre-token counter applies`);
      const lib = require(`gpt-tokenizer/encoding/${name}`) as { countTokens(t: string, o: object): number; encode(t: string, o: object): number[]; vocabularySize: number };
      const plain = { disallowedSpecial: new Set<string>() };
      assert.equal(built.vocabularySize, lib.vocabularySize);
      for (const t of texts) {
        assert.equal(built.countTokens(t, plain), lib.countTokens(t, plain), name);
        assert.deepEqual(built.encode(t.slice(0, 20_000), plain), lib.encode(t.slice(0, 20_000), plain), name);
      }
    }
    /* eslint-enable @typescript-eslint/no-require-imports */
  });
});

describe('the measured segment', () => {
  test('every section on the corpus: measured_chars.toon is the length of what Convert writes; net = Σ converted savings', () => {
    for (const { name, text } of DOCS) {
      const plan = planDocument(text);
      let saved = 0;
      for (const s of plan.sections) {
        if (!s.verdict || (s.candidate === null && s.blockSummary === null)) continue;
        // (whole body or by block: what the section's conversion writes)
        const e = sectionConvertEdit(s);
        assert.equal(e.newText.length, s.verdict.measured_chars.toon, `${name} ${s.slice.heading}`);
        assert.equal(e.end - e.start, s.verdict.measured_chars.source);
        if (s.action === 'convert') saved += s.verdict.measured_chars.savings;
      }
      assert.equal(plan.verdict.context_plan!.net.savings, saved, name);
      assert.equal(plan.tokens.source - plan.tokens.hybrid, plan.sections.filter((s) => s.action === 'convert').reduce((n, s) => n + s.tokens!.savings, 0), name);
    }
  });

  test('the fence holds the body, not the heading; Revert renders the body (and still renders an older heading-keyed fence)', () => {
    const plan = planDocument(TABLE);
    const s = plan.sections[0]!;
    assert.equal(s.action, 'convert');
    assert.doesNotMatch(s.candidate!, /Catalog/);
    assert.match(s.candidate!, /^\[12\t?\]\{Entry\t?,?Kind/);
    assert.ok(plan.hybrid.startsWith('# Catalog\n```toon\n[12'));
    const body = renderToonAsMarkdown(s.candidate!);
    assert.ok(body.startsWith('| Entry | Kind | Type | Default | Since |\n| --- |'));
    assert.deepEqual(planDocument(`# Catalog\n\n${body}`).sections[0]!.candidate, s.candidate);
    const legacy = encode({ '# Catalog': decode(s.candidate!) } as never);
    assert.ok(renderToonAsMarkdown(legacy).startsWith('# Catalog\n\n| Entry |'));
  });

  test('CRLF: the segment uses CRLF throughout and the fenced candidate decodes', () => {
    const text = TABLE.replace(/\n/g, '\r\n');
    const s = planDocument(text).sections[0]!;
    const e = convertSectionEdit(text, s.slice, s.candidate!);
    assert.doesNotMatch(e.newText.replace(/\r\n/g, ''), /[\r\n]/);
    assert.equal(e.newText.length, s.verdict!.measured_chars.toon);
    assert.equal(e.newText.split('\r\n').slice(2, -2).join('\n'), s.candidate, 'the fence holds the candidate, line by line');
    assert.equal(s.candidate, planDocument(TABLE).sections[0]!.candidate);
  });
});

describe('the token gate', () => {
  test('saves characters but no token → token_regression (warning, evidence), review, not safe, kept out of the hybrid', () => {
    const plan = planDocument(REGRESSION);
    const s = plan.sections[0]!;
    const v = s.verdict!;
    assert.ok(v.measured_chars.savings > 0);
    assert.ok(s.tokens!.savings < 1);
    const w = v.warnings.find((x) => x.code === 'token_regression')!;
    assert.equal(w.severity, 'warning');
    assert.equal(w.evidence, `o200k_base: ${s.tokens!.source} → ${s.tokens!.toon} tokens (saving ${s.tokens!.savings}, minimum 1 and 5% of ${s.tokens!.source})`);
    assert.match(w.message, /o200k_base/);
    assert.equal(v.verdict, 'review');
    assert.equal(v.safe_to_auto_apply, false);
    assert.equal(s.action, 'keep');
    assert.equal(plan.hybrid, REGRESSION);
  });

  test('estimate turns the gate off (the producer decides on characters alone); minTokenSavings moves the bar', () => {
    const est = planDocument(REGRESSION, { tokenizer: 'estimate' }).sections[0]!;
    assert.equal(est.verdict!.verdict, 'convert');
    assert.equal(est.verdict!.token_estimates.estimator, 'tokenx@1.3.0');
    assert.ok(!est.verdict!.warnings.some((w) => w.code === 'token_regression'));
    const good = planDocument(TABLE).sections[0]!;
    assert.equal(good.verdict!.verdict, 'convert');
    const high = planDocument(TABLE, { minTokenSavings: good.tokens!.savings + 1 }).sections[0]!;
    assert.equal(high.verdict!.verdict, 'review');
    assert.equal(planDocument(REGRESSION, { minTokenSavings: -5, minTokenSavingsPct: 0 }).sections[0]!.verdict!.verdict, 'convert');
  });

  test('whole-document profile and convert carry the same gate', () => {
    for (const v of [profileDocument(REGRESSION), convertDocument(REGRESSION)]) {
      const t = v.token_estimates;
      assert.equal(v.warnings.some((w) => w.code === 'token_regression'), v.measured_chars.savings > 0 && underTokenFloor(t.source, t.toon, 1, 5));
    }
    for (const { name, text } of DOCS) {
      for (const tok of ['o200k_base', 'cl100k_base', 'estimate'] as const) {
        const v = profileDocument(text, { tokenizer: tok });
        const expect = tok !== 'estimate' && v.measured_chars.savings > 0 && underTokenFloor(v.token_estimates.source, v.token_estimates.toon, 1, 5);
        assert.equal(v.warnings.some((w) => w.code === 'token_regression'), expect, `${name} ${tok}`);
      }
    }
  });

  test('no convert section on the corpus costs tokens, with either real tokenizer', () => {
    for (const { name, text } of DOCS) {
      for (const tok of ['o200k_base', 'cl100k_base'] as const) {
        for (const s of planDocument(text, { tokenizer: tok }).sections) if (s.action === 'convert') assert.ok(s.tokens!.savings >= 1, `${name} ${s.slice.heading} ${tok}`);
      }
    }
  });

  test('the verdict rules accept token_regression and the JSON hover explains it', () => {
    const v = JSON.parse(JSON.stringify(planDocument(REGRESSION).verdict));
    const codes = checkDocument(JSON.stringify(v, null, 2), { kind: 'verdict' }).diagnostics.map((d) => d.code);
    assert.ok(!codes.includes('verdict/unknown-warning-code'), codes.join(','));
    assert.deepEqual(codes.filter((c) => c.startsWith('verdict/') || c.startsWith('plan/')), []);
    const i = v.context_plan.sections[0].warnings.findIndex((w: { code: string }) => w.code === 'token_regression');
    const md = explainVerdict(v, ['context_plan', 'sections', 0, 'warnings', i, 'code'])!;
    assert.match(md, /token_regression/);
    assert.match(md, /review/);
    assert.match(md, /o200k_base: \d+ → \d+ tokens/);
  });
});

describe('the token floor (minTokenSavingsPct)', () => {
  test('underTokenFloor compares in integers: exactly 5 % passes, one token less does not; 0 turns the percentage off', () => {
    assert.equal(underTokenFloor(100, 95, 1, 5), false);
    assert.equal(underTokenFloor(100, 96, 1, 5), true);
    assert.equal(underTokenFloor(79, 78, 1, 5), true, "a skill's table: 79 → 78 tokens");
    assert.equal(underTokenFloor(79, 78, 1, 0), false);
    assert.equal(underTokenFloor(20, 19, 1, 5), false, '1 of 20 is 5 %');
    assert.equal(underTokenFloor(10, 10, 1, 0), true, 'the count still applies');
    assert.equal(underTokenFloor(10, 12, -5, 0), false, 'no minimum at all');
  });

  test('every corpus section, both real tokenizers: a convert saves ≥ 5 % of its tokens; a marginal one is review, not safe, out of the hybrid', () => {
    let marginal = 0;
    let decidedByTokens = 0;
    for (const { name, text } of DOCS) {
      for (const tok of ['o200k_base', 'cl100k_base'] as const) {
        const floor = planDocument(text, { tokenizer: tok });
        const off = planDocument(text, { tokenizer: tok, minTokenSavingsPct: 0 });
        floor.sections.forEach((s, i) => {
          const o = off.sections[i]!;
          const at = `${name} ${s.slice.heading} ${tok}`;
          if (s.action === 'convert') assert.ok(s.tokens!.savings * 100 >= 5 * s.tokens!.source, at);
          // Decided on real tokens (token_savings): ≥ 5 % of its tokens where its characters save under 5 %; with the
          // percentage off (0) the character policy's 5 % decides, as the producer's does.
          if (s.verdict?.warnings.some((w) => w.code === 'token_savings')) {
            decidedByTokens++;
            assert.ok(s.tokens!.savings * 100 >= 5 * s.tokens!.source, at);
            assert.ok(s.verdict.measured_chars.savings > 0 && s.verdict.measured_chars.savings * 100 < 5 * s.verdict.measured_chars.source, at);
            assert.ok(!o.verdict!.warnings.some((w) => w.code === 'token_savings'), at);
            if (o.verdict!.verdict !== 'split_first') assert.equal(o.verdict!.verdict, 'keep_markdown', at);
            return;
          }
          if (o.action !== 'convert' || o.tokens!.savings * 100 >= 5 * o.tokens!.source) {
            // (by block the floor is per block too: without it a marginal block may be fenced beside a good one)
            if (o.blockSummary === null || s.verdict?.verdict === o.verdict?.verdict) assert.equal(s.verdict?.verdict, o.verdict?.verdict, at);
            return;
          }
          marginal++;
          assert.equal(s.action, 'keep', at);
          // The floor applies per block too: a marginal block stays markdown, and the section may then save too little
          // to convert at all (keep_markdown); otherwise it is review with the floor's warning.
          if (s.verdict!.verdict === 'keep_markdown') return;
          const w = s.verdict!.warnings.find((x) => x.code === 'token_regression');
          assert.ok(w, at);
          assert.match(w.message, /under 5% of its tokens|saves no tokens|saves only|costs/, at);
          assert.equal(s.verdict!.verdict, 'review', at);
          assert.equal(s.verdict!.safe_to_auto_apply, false, at);
          assert.equal(s.action, 'keep', at);
          assert.ok(!floor.hybrid.includes(s.candidate!), `${at}: not in the hybrid`);
        });
      }
    }
    assert.ok(marginal > 0, 'the corpus has converts under 5 % of their tokens without the floor');
    assert.ok(decidedByTokens > 0, 'the corpus has sections whose 5 % only real tokens reach');
  });

  test('the 5 % decided on real tokens: a glossary saving 4.4 % of its characters and 12 % of its tokens converts', () => {
    const text = readFileSync(path.join(CORPUS_INPUTS, 'upstream__fixtures__agent-context__realistic__AGENTS.md'), 'utf8');
    const at = (opts: Parameters<typeof planDocument>[1]) => {
      const plan = planDocument(text, opts);
      const i = plan.sections.findIndex((x) => x.slice.heading === 'Glossary');
      return { plan, i, s: plan.sections[i]! };
    };
    for (const tokenizerName of ['o200k_base', 'cl100k_base'] as const) {
      const { plan, i, s } = at({ tokenizer: tokenizerName });
      const v = s.verdict!;
      const mc = v.measured_chars;
      assert.ok(mc.savings > 0 && mc.savings * 100 < 5 * mc.source, `${tokenizerName}: under 5 % of the characters`);
      assert.ok(s.tokens!.savings * 100 >= 5 * s.tokens!.source, `${tokenizerName}: at least 5 % of the tokens`);
      assert.equal(v.verdict, 'convert', tokenizerName);
      assert.equal(v.safe_to_auto_apply, true, tokenizerName);
      assert.equal(s.action, 'convert');
      const w = v.warnings.find((x) => x.code === 'token_savings')!;
      assert.equal(w.severity, 'info');
      assert.match(w.message, new RegExp(`saves ${s.tokens!.savings} of ${s.tokens!.source} ${tokenizerName} tokens`));
      // What Convert writes is what was counted.
      const e = sectionConvertEdit(s);
      const written = text.slice(0, e.start) + e.newText + text.slice(e.end);
      assert.equal(text.length - written.length, mc.savings);
      assert.equal(tokenizer(tokenizerName).count(text) - tokenizer(tokenizerName).count(written) >= s.tokens!.savings - 1, true);
      // The verdict rules recompute the same decision from the wire (the warning carries it).
      const wire = JSON.parse(JSON.stringify(plan.verdict));
      assert.equal(wire.context_plan.sections[i].verdict, 'convert');
      const codes = checkDocument(JSON.stringify(wire, null, 2), { kind: 'verdict' }).diagnostics.map((d) => d.code);
      assert.deepEqual(codes.filter((c) => c.startsWith('verdict/') || c.startsWith('plan/')), [], codes.join(','));
      assert.match(sectionLensTooltip(s), /Decided on real tokens: TOON saves \d+ of \d+/);
      const wi = wire.context_plan.sections[i].warnings.findIndex((x: { code: string }) => x.code === 'token_savings');
      assert.match(explainVerdict(wire, ['context_plan', 'sections', i, 'warnings', wi, 'code'])!, /decided on real tokens/);
    }
    // estimate: the producer's character policy; the percentage off: no token share asked, the character 5 % decides.
    for (const opts of [{ tokenizer: 'estimate' as const }, { minTokenSavingsPct: 0 }]) {
      const { s } = at(opts);
      assert.equal(s.verdict!.verdict, 'keep_markdown', JSON.stringify(opts));
      assert.ok(!s.verdict!.warnings.some((x) => x.code === 'token_savings'));
    }
    // A higher share than the section's saves: the floor's warning, no convert.
    const { s: high } = at({ minTokenSavingsPct: 50 });
    assert.notEqual(high.verdict!.verdict, 'convert');
    assert.ok(high.verdict!.warnings.some((x) => x.code === 'token_regression'));
  });

  test('decide: token_savings lifts only the character 5 %; any other warning still reviews', () => {
    const ts = { code: 'token_savings', severity: 'info' };
    assert.equal(decide({ refused: false, source: 1000, toon: 970, warnings: [] }).verdict, 'keep_markdown');
    assert.equal(decide({ refused: false, source: 1000, toon: 970, warnings: [ts] }).verdict, 'convert');
    assert.equal(decide({ refused: false, source: 1000, toon: 970, warnings: [ts, { code: 'vague_rule', severity: 'warning' }] }).verdict, 'review');
    assert.equal(decide({ refused: false, source: 1000, toon: 1000, warnings: [ts] }).verdict, 'keep_markdown', 'no character saved');
    assert.equal(decide({ refused: false, source: 1000, toon: 970, warnings: [ts, { code: 'long_section', severity: 'info' }] }).verdict, 'split_first');
    assert.equal(decide({ refused: false, source: 1000, toon: 970, warnings: [ts, { code: 'markdown_only', severity: 'info' }] }).verdict, 'keep_markdown');
  });

  test('estimate: the floor is off, verdicts byte-for-byte the character policy; a higher floor keeps more', () => {
    for (const { name, text } of DOCS) {
      const a = planDocument(text, { tokenizer: 'estimate' });
      const b = planDocument(text, { tokenizer: 'estimate', minTokenSavingsPct: 0 });
      assert.equal(JSON.stringify(a.verdict), JSON.stringify(b.verdict), name);
    }
    const good = planDocument(TABLE).sections[0]!;
    const pct = Math.floor((good.tokens!.savings * 100) / good.tokens!.source);
    assert.equal(planDocument(TABLE, { minTokenSavingsPct: pct }).sections[0]!.verdict!.verdict, 'convert');
    assert.equal(planDocument(TABLE, { minTokenSavingsPct: pct + 1 }).sections[0]!.verdict!.verdict, 'review');
  });

  test('.toonlens.json and the setting: a number 0–100, the project file wins; a bad value is a problem and falls back', () => {
    assert.equal(parseConfig('{ "minTokenSavingsPct": 2.5 }').config.minTokenSavingsPct, 2.5);
    const bad = parseConfig('{ "minTokenSavingsPct": 150 }');
    assert.equal(bad.config.minTokenSavingsPct, undefined);
    assert.match(bad.problems.join('\n'), /minTokenSavingsPct/);
    assert.equal(normalizeSettings({}).minTokenSavingsPct, 5);
    assert.equal(normalizeSettings({ minTokenSavingsPct: 10 }).minTokenSavingsPct, 10);
    assert.equal(normalizeSettings({ minTokenSavingsPct: -1 }).minTokenSavingsPct, 5);
    assert.equal(normalizeSettings({ minTokenSavingsPct: '7' }).minTokenSavingsPct, 5);
    const merged = withProjectConfig(normalizeSettings({ minTokenSavingsPct: 10 }), { file: '/p/.toonlens.json', rules: {}, documentKinds: {}, ignored: false, minTokenSavingsPct: 0 });
    assert.equal(merged.minTokenSavingsPct, 0);
    assert.deepEqual(planOptions(merged), { tokenizer: 'o200k_base', minTokenSavings: 1, minTokenSavingsPct: 0 });
  });

  test('CLI: --min-token-savings-pct moves the floor; a bad value is a one-line usage error', async () => {
    const io = (): CliIO & { out: string; err: string } => {
      const x = { out: '', err: '', stdout: (t: string) => void (x.out += t), stderr: (t: string) => void (x.err += t), readStdin: async () => TABLE, cwd: REPO_ROOT };
      return x;
    };
    const ok = io();
    assert.equal(await main(['plan', '--stdin', '--json', '--min-token-savings-pct', '99'], ok), 0);
    assert.equal(JSON.parse(ok.out).context_plan.sections[0].verdict, 'review');
    for (const bad of ['-1', '101', 'five', '']) {
      const e = io();
      assert.notEqual(await main(['plan', '--stdin', `--min-token-savings-pct=${bad}`], e), 0, bad);
      assert.match(e.err, /min-token-savings-pct/, bad);
      assert.equal(e.err.trim().split('\n').length, 1, bad);
    }
  });
});

describe('delimiter by real tokens', () => {
  test('every corpus section that can save characters: the chosen delimiter has the fewest o200k tokens among the valid ones, ties → comma, tab, pipe', () => {
    const o = tokenizer('o200k_base');
    let differing = 0;
    for (const { name, text } of DOCS) {
      for (const s of planDocument(text).sections) {
        if (!s.verdict || !s.verdict.flags.valid) continue;
        const a = analyzeSlice(text.slice(s.slice.charStart, s.slice.charEnd), s.slice.kind, s.slice.headingEnd - s.slice.charStart);
        const raw = text.slice(s.slice.charStart, s.slice.charEnd);
        const savesChars = ([',', '\t', '|'] as const).some((d) => convertSectionEdit(text, s.slice, a.bodyCandidates.text(d)!).newText.length < raw.length);
        // Where no encoding saves characters the verdict is keep_markdown whatever the tokens: the shortest stands.
        const measure = (t: string) => (savesChars ? o.count(t) : t.length);
        const costs = ([',', '\t', '|'] as const).map((d) => ({ d, t: a.bodyCandidates.valid(d) ? measure(a.bodyCandidates.text(d)!) : Infinity }));
        const best = costs.reduce((x, y) => (y.t < x.t ? y : x));
        assert.equal(s.verdict.delimiter, best.d, `${name} ${s.slice.heading}`);
        if (savesChars && new Set(costs.map((c) => c.t)).size > 1) differing++;
      }
    }
    assert.ok(differing > 0, 'some sections encode differently per delimiter');
  });

  test('with estimate the shortest encoding wins (the producer rule)', () => {
    const s = planDocument(REGRESSION, { tokenizer: 'estimate' }).sections[0]!;
    const a = analyzeSlice(REGRESSION, 'section', REGRESSION.indexOf('\n') + 1);
    const lens = ([',', '\t', '|'] as const).map((d) => a.bodyCandidates.text(d)!.length);
    assert.equal(s.candidate!.length, Math.min(...lens));
  });
});

describe('shapes', () => {
  test('soft line breaks join with a space; hard breaks keep the text as written', () => {
    assert.equal(joinSoftBreaks('one\ntwo  \n   three'), 'one\ntwo  \n   three');
    assert.equal(joinSoftBreaks('one \n  two\nthree'), 'one two three');
    assert.equal(joinSoftBreaks('a\\\nb'), 'a\\\nb');
    const text = '## Notes\n\nA paragraph that wraps\nacross three lines, with a comma\nand `code`.\n\n- an item that\n  wraps too\n- short\n';
    const s = planDocument(text).sections[0]!;
    assert.doesNotMatch(s.candidate!, /\\n/, 'no \\n escapes');
    const model = decode(s.candidate!);
    assert.deepEqual(model, { p1: 'A paragraph that wraps across three lines, with a comma and `code`.', l2: ['an item that wraps too', 'short'] });
    // Revert renders it; measuring the rendering gives the same TOON back.
    assert.equal(planDocument(`## Notes\n\n${renderToonAsMarkdown(s.candidate!)}`).sections[0]!.candidate, s.candidate);
  });

  test('definition lists: only `**term**: text` items become term → text; other forms stay list items, as written', () => {
    const canonical = '## Glossary\n\n- **Spool**: the local staging area\n- **Horizon**: the dedupe window\n';
    const c = planDocument(canonical).sections[0]!;
    assert.deepEqual(decode(c.candidate!), { Spool: 'the local staging area', Horizon: 'the dedupe window' });
    assert.equal(renderToonAsMarkdown(c.candidate!), '- **Spool**: the local staging area\n- **Horizon**: the dedupe window\n');
    for (const other of ['- **Spool:** the local staging area\n- **Horizon:** the dedupe window\n', '- Spool — the local staging area\n- Horizon — the dedupe window\n']) {
      const s = planDocument(`## Glossary\n\n${other}`).sections[0]!;
      assert.equal(renderToonAsMarkdown(s.candidate!), other, 'the term keeps its bold and its separator');
    }
  });

  test('every corpus section candidate strictly decodes to its model and re-measures to itself after Revert', () => {
    for (const { name, text } of DOCS) {
      const plan = planDocument(text);
      for (const s of plan.sections) {
        if (!s.verdict?.flags.valid || s.candidate === null || s.slice.kind !== 'section') continue;
        const raw = text.slice(s.slice.charStart, s.slice.charEnd);
        const a = analyzeSlice(raw, 'section', s.slice.headingEnd - s.slice.charStart);
        assert.deepEqual(decode(s.candidate, { strict: true }), a.body, `${name} ${s.slice.heading}`);
        const heading = raw.slice(0, s.slice.headingEnd - s.slice.charStart).replace(/[\r\n]+$/, '');
        const reverted = `${heading}\n\n${renderToonAsMarkdown(s.candidate)}`;
        assert.deepEqual(analyzeSlice(reverted, 'section', heading.length + 1).body, a.body, `${name} ${s.slice.heading}: Revert is lossless`);
      }
    }
  });
});

describe('CLI --tokenizer', () => {
  async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => REGRESSION, cwd: REPO_ROOT };
    return { code: await main(argv, io), out, err };
  }
  test('profile/convert/plan take --tokenizer and --min-token-savings; a bad value is a usage error', async () => {
    const est = JSON.parse((await run(['plan', '--stdin', '--json', '--tokenizer', 'estimate'])).out);
    assert.equal(est.token_estimates.estimator, 'tokenx@1.3.0');
    assert.equal(est.context_plan.sections[0].verdict, 'convert');
    const real = JSON.parse((await run(['plan', '--stdin', '--json'])).out);
    assert.equal(real.context_plan.sections[0].verdict, 'review');
    assert.ok(real.context_plan.sections[0].warnings.some((w: { code: string }) => w.code === 'token_regression'));
    const cl = JSON.parse((await run(['profile', '--stdin', '--json', '--tokenizer', 'cl100k_base'])).out);
    assert.equal(cl.token_estimates.estimator, 'gpt-tokenizer@4.0.0:cl100k_base');
    const lenient = JSON.parse((await run(['convert', '--stdin', '--json', '--min-token-savings=-100', '--min-token-savings-pct', '0'])).out);
    assert.ok(!lenient.warnings.some((w: { code: string }) => w.code === 'token_regression'));
    const bad = await run(['plan', '--stdin', '--tokenizer', 'gpt2']);
    assert.notEqual(bad.code, 0);
    assert.match(bad.err, /tokenizer/);
    const table = await run(['plan', '--stdin']);
    assert.match(table.out, /tokens: [\d,]+ → [\d,]+ \(savings [\d,]+, gpt-tokenizer@4\.0\.0:o200k_base\)/);
  });
});

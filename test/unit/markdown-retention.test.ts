// What the engine cache keeps per slice (docs/performance.md, "Markdown server memory"): once a plan has measured
// a slice, its analysis drops the parse, the model, the candidates and the rules (rebuilt from the slice text on
// demand), keeps no copy of its text, candidate or converted segment (rebuilt from the current version on
// read) and holds its measurement as one compact record (the verdict object built on read). Nothing a user sees may
// change: on every markdown file of the repository, lenses, hovers, diagnostics, the plan, the whole-document
// verdict and the conversions from the compacted cache equal those of a fresh, uncompacted plan — after the cold
// pass, and after an edit elsewhere and back (so the compacted analyses are what the plan reuses).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { EngineCache, PLAN_RUN, convertDocument, planDocument, planOnce, profileDocument, sectionWarnings, type EngineOptions, type PlanResult } from '../../server/src/core/markdown/engine';
import { holdsDetail } from '../../server/src/core/markdown/analysis';
import { markdownDiagnostics } from '../../server/src/core/markdown/diagnostics';
import { sectionLensTitle, sectionLensTooltip, planLensTitle } from '../../server/src/features/markdown/lenses';
import { sectionHoverMarkdown } from '../../server/src/features/markdown/hover';
import { SmallMap } from '../../server/src/core/smallMap';
import { CORPUS_INPUTS, FIXTURES, REPO_ROOT } from '../paths';

function markdownFiles(): { name: string; text: string }[] {
  const dirs = [CORPUS_INPUTS, path.join(REPO_ROOT, 'examples', 'markdown'), path.join(FIXTURES, 'markdown')];
  const out: { name: string; text: string }[] = [];
  for (const dir of dirs) {
    for (const f of readdirSync(dir)) if (f.endsWith('.md') && !f.startsWith('LICENSE')) out.push({ name: path.join(path.basename(dir), f), text: readFileSync(path.join(dir, f), 'utf8') });
  }
  return out;
}

/** Everything a user sees of a plan: per section its lens title and tooltip, hover, tokens and candidate; the plan lens; diagnostics. */
function seen(text: string, plan: PlanResult): unknown {
  return {
    plan: planLensTitle(plan),
    contextPlan: JSON.stringify(plan.contextPlan),
    tokens: plan.tokens,
    sections: plan.sections.map((s) =>
      s.verdict
        ? { lens: sectionLensTitle(s), tooltip: sectionLensTooltip(s), hover: sectionHoverMarkdown(s), tokens: s.tokens, candidate: s.candidate, verdict: JSON.stringify(s.verdict), warnings: JSON.stringify(sectionWarnings(s)), action: s.action }
        : { frontmatter: true },
    ),
    diagnostics: markdownDiagnostics(text, plan),
  };
}

/** An edit inside the middle section's body (or at the end of a one-section file). */
function edited(text: string, plan: PlanResult): string {
  const s = plan.sections[Math.floor(plan.sections.length / 2)]!.slice;
  const at = Math.max(s.headingEnd, Math.min(s.charEnd, s.headingEnd + 1));
  return text.slice(0, at) + 'x' + text.slice(at);
}

const OPTIONS: EngineOptions[] = [{}, { tokenizer: 'cl100k_base', minTokenSavings: 5 }, { tokenizer: 'estimate' }];

test('the compacted engine cache shows exactly what a fresh plan shows, on every markdown file of the repository', () => {
  const files = markdownFiles();
  assert.ok(files.length >= 20, `markdown files found: ${files.length}`);
  let released = 0;
  let compacted = 0;
  for (const { name, text } of files) {
    for (const opts of OPTIONS) {
      const fresh = planDocument(text, opts);
      const want = seen(text, fresh);
      const cache = new EngineCache();
      const cold = cache.plan(text, opts);
      for (const s of cold.sections) if (!holdsDetail(s.analysis)) released++;
      // What an idle server does to a large document: the text held as the pieces the analyses read.
      const held = cache.compactText(text);
      if (held !== undefined) {
        compacted++;
        assert.equal(held, text, `${name}: the held text equals the text`);
        for (const s of cold.sections) assert.equal(s.analysis.raw, text.slice(s.slice.charStart, s.slice.charEnd), `${name}: a slice's text once held compactly`);
        assert.equal(cache.compactText(held), undefined, `${name}: held compactly already`);
      }
      assert.deepEqual(seen(held ?? text, cold), want, `${name} ${JSON.stringify(opts)}: cold`);
      // An edit elsewhere (in the held text when there is one), then back: the plan of the original text reuses the compacted analyses.
      const other = edited(held ?? text, cold);
      assert.deepEqual(seen(other, cache.plan(other, opts)), seen(other, planDocument(other, opts)), `${name} ${JSON.stringify(opts)}: edited`);
      const again = cache.plan(text, opts);
      assert.deepEqual(seen(text, again), want, `${name} ${JSON.stringify(opts)}: after an edit and back`);
      if (opts === OPTIONS[0]) {
        // What rebuilds the detail: the whole-document verdict (the conversions below too).
        assert.equal(JSON.stringify(again.verdict), JSON.stringify(fresh.verdict), `${name}: whole-document verdict`);
        assert.equal(again.hybrid, fresh.hybrid, `${name}: hybrid`);
      }
    }
    const cache = new EngineCache();
    cache.plan(text);
    assert.deepEqual(cache.profile(text), profileDocument(text), `${name}: profile`);
    for (const o of [{ mode: 'record' as const }, { mode: 'budget' as const, targetChars: 50, allowLossy: true }, {}]) {
      assert.equal(JSON.stringify(cache.convert(text, o)), JSON.stringify(convertDocument(text, o)), `${name}: convert ${JSON.stringify(o)}`);
    }
  }
  assert.ok(released > 100, `analyses released after their plan: ${released}`);
  assert.ok(compacted >= 10, `texts held compactly (those with a character beyond Latin-1): ${compacted}`);
});

test("compactText holds only the last plan's text, only when it has a character beyond Latin-1", () => {
  const cache = new EngineCache();
  const plain = '# A\n\n- name: x\n- owner: y\n\n## B\n\ncafé au lait\n';
  cache.plan(plain);
  assert.equal(cache.compactText(plain), undefined, 'all Latin-1: nothing to gain');
  const wide = plain + '\n## C \u2014 dashes\n\nline one\nline \u2014 two\nline three\n';
  assert.equal(cache.compactText(wide), undefined, "not the last plan's text");
  const plan = cache.plan(wide);
  const held = cache.compactText(wide)!;
  assert.equal(held, wide);
  for (const s of plan.sections) assert.equal(s.analysis.raw, wide.slice(s.slice.charStart, s.slice.charEnd));
  // The plan reads the held text; the next plan (an edit) reads it like any text.
  assert.equal(plan.hybrid, planDocument(wide).hybrid);
  const next = held.replace('line three', 'line 3');
  assert.deepEqual(seen(next, cache.plan(next)), seen(next, planDocument(next)));
});

test('a plan leaves its analyses compact: no detail held, the slice text kept', () => {
  const text = markdownFiles().find((f) => f.text.length > 2000)!.text;
  const cache = new EngineCache();
  const plan = cache.plan(text);
  for (const s of plan.sections) {
    assert.equal(holdsDetail(s.analysis), false, s.slice.heading ?? s.slice.kind);
    assert.equal(s.analysis.raw, text.slice(s.slice.charStart, s.slice.charEnd));
  }
  // Reading a detail rebuilds it, with the same values as a fresh analysis.
  const a = plan.sections.find((s) => s.slice.kind === 'section')!.analysis;
  const body = JSON.stringify(a.body);
  assert.equal(holdsDetail(a), true);
  assert.equal(body, JSON.stringify(planDocument(text).sections.find((s) => s.slice.kind === 'section')!.analysis.body));
});


test("the document's duplicate rules read each slice's rules once and leave every detail released", () => {
  const rules = '- Always run the tests before you push a change.\n- Never commit secrets to the repository.\n';
  const text = Array.from({ length: 12 }, (_, i) => `## Part ${i}\n\nSome words about part ${i}.\n\n${rules}`).join('\n');
  const cache = new EngineCache();
  const plan = cache.plan(text);
  const found = plan.duplicates;
  assert.equal(found.length, 22, 'every later copy of the two rules');
  for (const s of plan.sections) assert.equal(holdsDetail(s.analysis), false, s.slice.heading ?? s.slice.kind);
  assert.deepEqual(found, planDocument(text).duplicates);
  assert.match(found[0]!.evidence, /^Always run the tests/);
});
test("planOnce (the CLI's plan) equals planDocument; beyond one run of slices it releases each run's details as it goes", async () => {
  const { markdownDocument } = await import('../../bench/markdown-gen');
  const large = markdownDocument(11, PLAN_RUN + 400, (PLAN_RUN + 400) * 120);
  const small = markdownFiles().find((f) => f.text.length > 2000)!.text;
  for (const opts of [{}, { tokenizer: 'cl100k_base', minTokenSavings: 5 }, { delimiter: 'tab' }] as EngineOptions[]) {
    for (const text of [large, small]) {
      const once = planOnce(text, opts);
      const held = once.sections.filter((s) => holdsDetail(s.analysis)).length;
      if (text === large) {
        assert.ok(once.sections.length > PLAN_RUN, `${once.sections.length} sections`);
        assert.equal(held, 0, `details still held after the plan: ${held} of ${once.sections.length}`);
      } else assert.equal(held, once.sections.length, 'one run: every detail kept for the verdict');
      const fresh = planDocument(text, opts);
      assert.equal(JSON.stringify(once.verdict, null, 2), JSON.stringify(fresh.verdict, null, 2), JSON.stringify(opts));
      assert.equal(once.hybrid, fresh.hybrid);
      assert.deepEqual(once.tokens, fresh.tokens);
    }
  }
});

test('SmallMap behaves as a Map for the memos (get, set replacing the key object, delete, clear, keys, values)', () => {
  const m = new SmallMap<string, number>();
  const ref = new Map<string, number>();
  const ops: [string, string, number][] = [
    ['set', 'a', 1],
    ['set', 'b', 2],
    ['set', 'a', 3],
    ['delete', 'b', 0],
    ['set', 'c', 4],
    ['delete', 'zz', 0],
    ['set', 'b', 5],
  ];
  for (const [op, k, v] of ops) {
    if (op === 'set') {
      m.set(k, v);
      ref.set(k, v);
    } else assert.equal(m.delete(k), ref.delete(k));
    assert.equal(m.size, ref.size);
    assert.deepEqual(m.keys(), [...ref.keys()]);
    assert.deepEqual(m.values(), [...ref.values()]);
    for (const key of ['a', 'b', 'c', 'zz']) {
      assert.equal(m.get(key), ref.get(key));
      assert.equal(m.has(key), ref.has(key));
    }
  }
  m.clear();
  assert.equal(m.size, 0);
  assert.equal(m.get('a'), undefined);
});

/** The heap in use after two full collections. */
async function settledHeap(): Promise<() => number> {
  const { exposeGc } = await import('../../server/src/node/idleGc');
  const gc = exposeGc();
  assert.ok(gc, 'gc can be exposed');
  return () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
}

test("a token count of a slice keeps no view into the sliced text in the tokenizer's merge cache", async () => {
  // A long word that is no rank is merged and kept as the cache's key; sliced from a large text, the key would be
  // a view into all of it (V8 slices of 13 or more characters), for as long as the cache holds it. And V8 keeps
  // the subject of the last successful regular-expression match (RegExp.input) until the next one.
  const { tokenizer } = await import('../../server/src/core/tokens');
  const heap = await settledHeap();
  const o = tokenizer('o200k_base');
  o.count('warm up');
  // (The text and its slice live in a function of their own: nothing of the test's frame holds them.)
  const countSlice = (): number => {
    const big = 'zqxvkjwpfhgtrnmlb'.repeat(3) + ' ' + 'x'.repeat(20_000_000 - 52) + '\u2014';
    return o.count(big.slice(0, 52));
  };
  const before = heap();
  assert.ok(countSlice() > 5);
  const after = heap();
  assert.ok(after - before < 5_000_000, `heap after counting a slice of a 20 M-character text it no longer holds: +${((after - before) / 1e6).toFixed(1)} MB`);
});

test('a plan of many sections holds the details of one run of slices at a time, not of every slice until it completes', async () => {
  // 12,000 small sections: about 2.3 KB of heap a section at 90 % of the plan (the analyses kept, one run of
  // details); 5.3 KB when every slice's parse, model and candidates stayed until the plan completed.
  const { markdownDocument } = await import('../../bench/markdown-gen');
  const heap = await settledHeap();
  const text = markdownDocument(97, 12_000, 1_440_000);
  const base = heap();
  const steps = new EngineCache().planSteps(text);
  let r = steps.next();
  let mid = -1;
  while (!r.done) {
    if (mid < 0 && r.value.done >= r.value.total * 0.9) mid = heap() - base;
    r = steps.next();
  }
  const n = r.value.sections.length;
  assert.ok(n > 12_000);
  assert.ok(mid / n < 4_000, `heap at 90 % of the plan: ${(mid / n).toFixed(0)} B a section`);
});

test('an engine cache edited many times keeps one version of a large document, not one per edit', async () => {
  const { markdownDocument } = await import('../../bench/markdown-gen');
  const heap = await settledHeap();
  let text = markdownDocument(7, 12000, 8_000_000);
  const cache = new EngineCache();
  let plan = cache.plan(text);
  // Each edit inserts a character in a different section's body (the sections after it shift), and reads what
  // the lenses read of every section, so the plan and its sections are the cache's as a server keeps them.
  const edit = (i: number, n: number) => {
    const s = plan.sections[Math.floor((plan.sections.length * (i + 1)) / (n + 1))]!.slice;
    const at = s.headingEnd + 1;
    text = text.slice(0, at) + 'x' + text.slice(at);
    plan = cache.plan(text);
    for (const x of plan.sections) void x.tokens;
  };
  edit(0, 25);
  const afterOne = heap();
  for (let i = 1; i < 25; i++) edit(i, 25);
  const afterMany = heap();
  // Holding every version would add 24 × 8 MB; a version's worth is the bound.
  assert.ok(afterMany - afterOne < text.length, `heap after 25 edits − after 1: ${((afterMany - afterOne) / 1e6).toFixed(1)} MB (file ${(text.length / 1e6).toFixed(1)} MB)`);
  // The analyses read their text from the current version.
  for (const s of plan.sections) assert.equal(s.analysis.raw.length, s.slice.charEnd - s.slice.charStart);
  const mid = plan.sections[Math.floor(plan.sections.length / 2)]!;
  assert.equal(mid.analysis.raw, text.slice(mid.slice.charStart, mid.slice.charEnd));
});

test('the fences and inline comments memoized with the analyses keep no old version alive either', async () => {
  const { markdownDocument } = await import('../../bench/markdown-gen');
  const { planDirectives } = await import('../../server/src/core/markdown/diagnostics');
  const { toonFencesOfPlan } = await import('../../server/src/core/markdown/sectionFences');
  const heap = await settledHeap();
  // Every 20th section gets a converted-looking ```toon fence and a disable comment naming a code.
  const base = markdownDocument(9, 6000, 4_000_000);
  let text = base
    .split('\n## ')
    .map((part, i) => (i > 0 && i % 20 === 0 ? part.replace('\n', '\n\n<!-- toonlens-disable-next-line toon/long-section toon/vague-rule -->\n```toon\nitems[2]{id,name}:\n  1,alpha\n  2,beta\n```\n') : part))
    .join('\n## ');
  const cache = new EngineCache();
  let plan = cache.plan(text);
  const read = () => {
    assert.ok(planDirectives(plan).length > 100 && toonFencesOfPlan(plan).length > 100);
  };
  read();
  // Each edit goes into a section that has a fence and a comment, so the edited slice's new analysis memoizes them.
  const edit = (i: number, n: number) => {
    const marked = plan.sections.filter((x) => x.analysis.raw.includes('```toon'));
    const s = marked[Math.floor((marked.length * (i + 1)) / (n + 1))]!.slice;
    const at = s.headingEnd + 1;
    text = text.slice(0, at) + 'x' + text.slice(at);
    plan = cache.plan(text);
    read();
  };
  edit(0, 25);
  const afterOne = heap();
  for (let i = 1; i < 25; i++) edit(i, 25);
  const afterMany = heap();
  assert.ok(afterMany - afterOne < text.length, `heap after 25 edits − after 1: ${((afterMany - afterOne) / 1e6).toFixed(1)} MB (file ${(text.length / 1e6).toFixed(1)} MB)`);
});

test("an analysis's packed and derived fields read what its parse says, on every markdown file and past the packing's range", async () => {
  const { parseSlice } = await import('../../server/src/core/markdown/blocks');
  const { sliceStats, profileName } = await import('../../server/src/core/markdown/stats');
  const { sourceAlnum } = await import('../../server/src/core/markdown/coverage');
  const { bodyValue } = await import('../../server/src/core/markdown/model');
  const { sliceMentionsToon } = await import('../../server/src/core/markdown/analysis');
  // A section of 40,000 list items (more than a 15-bit count holds) and one of 70,000 lines.
  const big = ['# Big', '', ...Array.from({ length: 40_000 }, (_, i) => `- item ${i} must pass`), '', '## Long', '', ...Array.from({ length: 70_000 }, (_, i) => `line ${i}`), ''].join('\n');
  let checked = 0;
  for (const { name, text } of [...markdownFiles(), { name: 'big', text: big }]) {
    for (const s of new EngineCache().plan(text).sections) {
      const a = s.analysis;
      const raw = text.slice(s.slice.charStart, s.slice.charEnd);
      assert.equal(a.kind, s.slice.kind, name);
      if (a.kind === 'frontmatter') continue;
      const p = parseSlice(raw, a.kind === 'section');
      const stats = sliceStats(p, p.lines.spanCount);
      const where = `${name} ${s.slice.heading ?? a.kind}`;
      assert.deepEqual(a.stats, stats, where);
      assert.equal(a.profile, profileName(stats), where);
      assert.equal(a.headingText, p.heading?.text ?? null, where);
      assert.equal(a.title, p.heading?.level === 1 ? p.heading.text : null, where);
      assert.equal(a.section, p.heading ? p.heading.text.replace(/\s+/g, ' ') : '(preamble)', where);
      assert.equal(a.sourceAlnum, sourceAlnum(raw), where);
      assert.equal(a.emptyBody, bodyValue(p.blocks) === '', where);
      assert.equal(sliceMentionsToon(a), /toon/i.test(raw), where);
      checked++;
    }
  }
  assert.ok(checked > 200, `sections checked: ${checked}`);
});

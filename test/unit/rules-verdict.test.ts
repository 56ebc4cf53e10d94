// verdict/* and plan/* rules: one test per rule (a valid real document, then a minimal defect
// that raises exactly that code at the right path), the producer's corpus, fix-all
// convergence, hovers, and robustness on arbitrary values.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { verdictRules, VERDICT_RULES } from '../../server/src/core/agentJson/rules/verdict';
import { CODES, DIAGNOSTIC_CODES } from '../../server/src/core/codes';
import { explainVerdict } from '../../server/src/core/agentJson/rules/verdictExplain';
import { RULES } from '../../server/src/core/agentJson/rules/index';
import { EXPLAINERS } from '../../server/src/core/agentJson/rules/explain';
import { rawSavingsPct, roundPct, safeToAutoApply, sectionAction, VERDICTS } from '../../server/src/core/markdown/policy';
import type { Finding, JsonEdit, JsonPath, JsonTarget, Severity } from '../../server/src/core/types';
import { applyFixes } from '../../server/src/core/json/edits';
import { convertDocument, planDocument, profileDocument } from '../../server/src/core/markdown/engine';
import { CORPUS_DIR, CORPUS_INPUTS } from '../paths';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const corpusDir = CORPUS_DIR;
const inputsDir = CORPUS_INPUTS;
const fixturesDir = path.join(repoRoot, 'test', 'fixtures', 'verdict');

type Doc = any;

function check(doc: unknown): Finding[] {
  return verdictRules(doc, { text: JSON.stringify(doc) });
}

function corpus(name: string): Doc {
  return JSON.parse(readFileSync(path.join(corpusDir, `upstream__${name}`), 'utf8'));
}

const BASES = {
  /** convert, lossless, safe, with its candidate */
  convert: 'fixtures__agent-context__realistic__config-reference.md.convert.json',
  /** convert, lossless, safe, candidate withheld */
  profile: 'fixtures__agent-context__realistic__config-reference.md.profile.json',
  /** convert in record mode (not safe) */
  record: 'examples__definitions.md.convert.record.json',
  /** keep_markdown, lossless, with a candidate */
  keep: 'examples__definitions.md.convert.json',
  refused: 'examples__definitions.md.convert.budget-refused.json',
  /** budget, lossy, target missed */
  lossy: 'examples__prose.md.convert.budget-tokens-lossy.json',
  /** budget, lossless, target reached */
  reachable: 'examples__prose.md.convert.budget-reachable.json',
  /** plan: split_first/keep sections with ranged warnings, one converting table section, net below the band */
  plan: 'fixtures__agent-context__problematic__mixed-agent-context.md.plan.json',
  /** plan: one converting section, recommended and safe */
  planConvert: 'fixtures__agent-context__realistic__config-reference.md.plan.json',
  /** plan: frontmatter, preamble and sections */
  planFrontmatter: 'fixtures__agent-context__realistic__SKILL.md.plan.json',
} as const;
type BaseName = keyof typeof BASES;

function base(name: BaseName): Doc {
  return corpus(BASES[name]);
}

/** Set or remove one JSON edit on a value in place (the value-level twin of the text applier). */
function applyEdit(root: Doc, edit: JsonEdit): Doc {
  if (edit.path.length === 0) return edit.remove ? undefined : structuredClone(edit.value);
  let cur = root;
  for (const seg of edit.path.slice(0, -1)) cur = cur[seg];
  const last = edit.path[edit.path.length - 1]!;
  if (edit.remove) {
    if (Array.isArray(cur) && typeof last === 'number') cur.splice(last, 1);
    else delete cur[last];
  } else {
    cur[last] = structuredClone(edit.value);
  }
  return root;
}

/** Applies every fixAll fix of one check; returns the new value and how many edits ran. */
function fixAll(doc: Doc): { value: Doc; edits: number } {
  let value = structuredClone(doc);
  const edits = check(value).flatMap((f) => f.fixes ?? []).filter((x) => x.fixAll).flatMap((x) => x.edits);
  for (const e of edits) value = applyEdit(value, e);
  return { value, edits: edits.length };
}

function errors(fs: Finding[]): Finding[] {
  return fs.filter((f) => f.severity === 'error');
}

function describeFindings(fs: Finding[]): string {
  return fs.map((f) => `${f.severity} ${f.code} ${JSON.stringify(f.target)} ${f.message}`).join('\n');
}

interface Defect {
  name: string;
  base: BaseName;
  mutate(d: Doc): void;
  target: JsonTarget;
  severity?: Severity;
}

/** Asserts the base has no finding, and each defect raises only `code`, one finding of it at `target`. */
function assertRule(code: string, defects: Defect[]): void {
  const bases = new Set(defects.map((d) => d.base));
  for (const b of bases) {
    const fs = check(base(b));
    assert.deepEqual(fs, [], `base ${b} should be clean:\n${describeFindings(fs)}`);
  }
  const rule = VERDICT_RULES.find((r) => r.code === code);
  assert.ok(rule, `rule ${code} is in the table`);
  for (const d of defects) {
    const doc = base(d.base);
    d.mutate(doc);
    const fs = check(doc);
    assert.deepEqual([...new Set(fs.map((f) => f.code))], [code], `${d.name}: only ${code}:\n${describeFindings(fs)}`);
    const at = fs.filter((f) => JSON.stringify(f.target) === JSON.stringify(d.target));
    assert.equal(at.length, 1, `${d.name}: one finding at ${JSON.stringify(d.target)}:\n${describeFindings(fs)}`);
    assert.equal(at[0]!.severity, d.severity ?? rule.severity, `${d.name}: severity`);
    assert.ok(at[0]!.message.length > 0 && at[0]!.message.length < 200, `${d.name}: a short message`);
    const fixes = fs.flatMap((f) => f.fixes ?? []);
    for (const fx of fixes) assert.match(fx.title, /^Set .+ to .+ — .+/, `${d.name}: title states the derivation`);
    if (fixes.length > 0 && errors(fs).every((f) => f.fixes?.some((x) => x.fixAll))) {
      const once = fixAll(doc);
      assert.deepEqual(errors(check(once.value)), [], `${d.name}: fix-all leaves no error`);
      assert.deepEqual(fixAll(once.value).edits, 0, `${d.name}: a second fix-all changes nothing`);
    }
  }
}

const set = (p: JsonPath, v: unknown) => (d: Doc) => applyEdit(d, { path: p, value: v });
const P = (...p: JsonPath) => p;
const sec = (i: number, ...rest: (string | number)[]) => P('context_plan', 'sections', i, ...rest);

/** A string of exactly `length` characters that fails a strict TOON decode. */
function undecodable(length: number): string {
  const head = 'a[2]: 1\nb: ';
  return head + 'x'.repeat(length - head.length);
}
/** A string of exactly `length` characters that decodes. */
function decodable(length: number): string {
  return 'a: ' + 'x'.repeat(length - 3);
}

/** Rewrites token_estimates ratio rows from measured_chars, as the engine would (test input, not an expectation). */
function consistentRatios(d: Doc): void {
  const { source, toon } = d.measured_chars;
  d.token_estimates.ratio_estimates = [3.5, 4, 4.5].map((r) => ({
    chars_per_token: r,
    source: Math.round(source / r),
    toon: Math.round(toon / r),
    savings: Math.round(source / r - toon / r),
    savings_pct: roundPct(rawSavingsPct(source / r, toon / r)),
  }));
}

/** The boundary document: source 10000, toon 9504 — 4.96% unrounded, 5.0 on the wire. */
function boundary(verdict: string): Doc {
  const d = base('profile');
  d.measured_chars = { source: 10000, toon: 9504, savings: 496, savings_pct: roundPct(rawSavingsPct(10000, 9504)) };
  consistentRatios(d);
  d.token_estimates.source = 2500;
  d.token_estimates.toon = 2380;
  d.token_estimates.savings = 120;
  d.token_estimates.savings_pct = 4.8;
  d.verdict = verdict;
  // As the producer writes it: safety consistent with the recorded verdict (only the verdict is wrong).
  d.safe_to_auto_apply = verdict === 'convert';
  return d;
}

describe('verdict rules', () => {
  test('the registry maps the verdict kind to this rule set, and the explainer too', () => {
    assert.equal(RULES.verdict, verdictRules);
    assert.equal(EXPLAINERS.verdict, explainVerdict);
  });

  test('every verdict and plan code of the catalogue has a rule, with the catalogue severity', () => {
    const codes = DIAGNOSTIC_CODES.filter((c) => /^(verdict|plan)\//.test(c));
    assert.ok(codes.length >= 20, 'found the verdict and plan codes');
    for (const code of codes) {
      const rule = VERDICT_RULES.find((r) => r.code === code);
      assert.ok(rule, `a rule for ${code}`);
      assert.equal(rule.severity, CODES[code].severity, `${code} severity`);
    }
  });

  test('verdict/safe-to-auto-apply', () => assertRule('verdict/safe-to-auto-apply', [
    { name: 'safe convert recorded unsafe', base: 'convert', mutate: set(P('safe_to_auto_apply'), false), target: { path: ['safe_to_auto_apply'] } },
    { name: 'record mode recorded safe', base: 'record', mutate: set(P('safe_to_auto_apply'), true), target: { path: ['safe_to_auto_apply'] } },
  ]));

  test('verdict/savings', () => assertRule('verdict/savings', [
    { name: 'savings off by one', base: 'convert', mutate: (d) => { d.measured_chars.savings += 1; }, target: { path: ['measured_chars', 'savings'] } },
  ]));

  test('verdict/savings-pct', () => assertRule('verdict/savings-pct', [
    { name: 'percent off by 0.2', base: 'convert', mutate: (d) => { d.measured_chars.savings_pct += 0.2; }, target: { path: ['measured_chars', 'savings_pct'] } },
  ]));

  test('verdict/savings-pct accepts any one-decimal rounding (±0.05) and the unrounded value', () => {
    const d = base('convert');
    const raw = rawSavingsPct(d.measured_chars.source, d.measured_chars.toon);
    for (const pct of [raw, raw + 0.049, raw - 0.049, roundPct(raw)]) {
      d.measured_chars.savings_pct = pct;
      assert.deepEqual(check(d), []);
    }
  });

  test('verdict/token-arithmetic', () => assertRule('verdict/token-arithmetic', [
    { name: 'primary savings', base: 'convert', mutate: (d) => { d.token_estimates.savings += 1; }, target: { path: ['token_estimates', 'savings'] } },
    { name: 'ratio row source', base: 'convert', mutate: (d) => { d.token_estimates.ratio_estimates[0].source += 2; }, target: { path: ['token_estimates', 'ratio_estimates', 0, 'source'] } },
  ]));

  test('verdict/candidate-length', () => assertRule('verdict/candidate-length', [
    { name: 'shorter candidate', base: 'convert', mutate: set(P('toon_candidate'), 'a: 1'), target: { path: ['measured_chars', 'toon'] } },
  ]));

  test('verdict/candidate-length counts UTF-16 code units', () => {
    const d = base('convert');
    d.toon_candidate = 'a: 😀' + 'x'.repeat(d.measured_chars.toon - 5); // the emoji counts 2
    assert.equal(d.toon_candidate.length, d.measured_chars.toon);
    assert.deepEqual(check(d), []);
  });

  test('verdict/candidate-decode', () => assertRule('verdict/candidate-decode', [
    { name: 'valid but undecodable', base: 'convert', mutate: (d) => { d.toon_candidate = undecodable(d.measured_chars.toon); }, target: { path: ['flags', 'valid'] } },
    { name: 'invalid but decodes', base: 'record', mutate: set(P('flags', 'valid'), false), target: { path: ['flags', 'valid'] }, severity: 'warning' },
  ]));

  test('verdict/refused-shape', () => assertRule('verdict/refused-shape', [
    { name: 'refused with a delimiter', base: 'refused', mutate: set(P('delimiter'), ','), target: { path: ['delimiter'] } },
    { name: 'refused with a candidate', base: 'refused', mutate: (d) => { d.toon_candidate = decodable(d.measured_chars.toon); }, target: { path: ['toon_candidate'] } },
    { name: 'convert without a delimiter', base: 'profile', mutate: set(P('delimiter'), null), target: { path: ['delimiter'] } },
  ]));

  test('verdict/refused-shape: a null toon_candidate alone is a profile response and is fine', () => {
    const d = base('convert');
    d.toon_candidate = null;
    assert.deepEqual(check(d), []);
  });

  test('verdict/decision', () => assertRule('verdict/decision', [
    { name: 'says convert at 4.96% (5.0 on the wire)', base: 'profile', mutate: (d) => Object.assign(d, boundary('convert')), target: { path: ['verdict'] } },
    { name: 'refused outside budget mode', base: 'refused', mutate: set(P('mode'), 'lossless'), target: { path: ['verdict'] } },
    { name: 'keep instead of split_first', base: 'plan', mutate: set(P('verdict'), 'keep_markdown'), target: { path: ['verdict'] } },
    { name: 'a section verdict', base: 'plan', mutate: set(sec(0, 'verdict'), 'review'), target: { path: sec(0, 'verdict') } },
  ]));

  test('verdict/decision: the raw percent decides, not the wire percent', () => {
    const keep = boundary('keep_markdown');
    assert.equal(keep.measured_chars.savings_pct, 5);
    assert.deepEqual(check(keep), [], describeFindings(check(keep)));
    const convert = boundary('convert');
    const fs = check(convert);
    assert.deepEqual(fs.map((f) => f.code), ['verdict/decision']);
    assert.match(fs[0]!.message, /keep_markdown/);
    assert.match(fs[0]!.fixes![0]!.title, /^Set verdict to "keep_markdown" — savings 4\.96% < 5% \(and safe_to_auto_apply to false\)$/);
    // The fix leaves no new error: safe_to_auto_apply follows the corrected verdict in the same edit.
    assert.deepEqual(check(fixAll(convert).value), []);
  });

  test('verdict/decision: a safe_to_auto_apply that follows neither the recorded nor the derived verdict is its own finding', () => {
    // Recorded review, derived keep_markdown: both give false, so a recorded true is a second defect.
    const d = boundary('review');
    d.safe_to_auto_apply = true;
    const fs = check(d);
    assert.deepEqual(fs.map((f) => f.code), ['verdict/safe-to-auto-apply', 'verdict/decision']);
    assert.deepEqual(fs[1]!.fixes![0]!.edits, [{ path: ['verdict'], value: 'keep_markdown' }], 'the decision fix does not also set it');
    assert.deepEqual(check(fixAll(d).value), []);
    // Already what the corrected verdict gives: no finding of its own.
    const right = boundary('review');
    right.verdict = 'convert';
    right.safe_to_auto_apply = false;
    assert.deepEqual(check(right).map((f) => f.code), ['verdict/decision']);
  });

  test('verdict/decision: a fix across the refused boundary is offered, not applied unattended', () => {
    const d = base('refused');
    d.mode = 'lossless';
    const [f] = check(d);
    assert.equal(f?.code, 'verdict/decision');
    assert.equal(f.fixes?.[0]?.fixAll, false, 'the delimiter cannot be derived');
    const k = base('keep');
    k.verdict = 'review';
    assert.equal(check(k)[0]?.fixes?.[0]?.fixAll, true);
  });

  test('verdict/lossless-flag', () => assertRule('verdict/lossless-flag', [
    { name: 'lossless mode, lossless false', base: 'keep', mutate: set(P('flags', 'lossless'), false), target: { path: ['flags', 'lossless'] } },
    { name: 'lossy_applied, lossless true', base: 'lossy', mutate: set(P('flags', 'lossless'), true), target: { path: ['flags', 'lossless'] } },
  ]));

  test('verdict/target-reached', () => assertRule('verdict/target-reached', [
    { name: 'target_not_reached with null', base: 'lossy', mutate: set(P('flags', 'target_reached'), null), target: { path: ['flags', 'target_reached'] } },
    { name: 'target_not_reached with the flag missing', base: 'lossy', mutate: (d) => { delete d.flags.target_reached; }, target: { path: ['flags'], part: 'missing', property: 'target_reached' } },
    { name: 'false without a warning', base: 'reachable', mutate: set(P('flags', 'target_reached'), false), target: { path: ['flags', 'target_reached'] } },
  ]));

  test('verdict/unknown-warning-code', () => assertRule('verdict/unknown-warning-code', [
    { name: 'top level', base: 'keep', mutate: (d) => { d.warnings.push({ code: 'future_code', severity: 'info', message: 'new in 1.x' }); }, target: { path: ['warnings', 1, 'code'] }, severity: 'info' },
    { name: 'in a section', base: 'plan', mutate: (d) => { d.context_plan.sections[0].warnings.push({ code: 'future_code', severity: 'info', message: 'new' }); }, target: { path: sec(0, 'warnings', 1, 'code') }, severity: 'info' },
  ]));

  test('verdict/unknown-warning-code: an unknown warning-severity code still blocks safety (its recorded severity decides)', () => {
    const d = base('keep');
    d.warnings.push({ code: 'future_code', severity: 'warning', message: 'new' });
    assert.deepEqual(check(d).map((f) => `${f.severity} ${f.code}`), ['info verdict/unknown-warning-code']);
  });

  test('verdict/schema-version', () => assertRule('verdict/schema-version', [
    { name: '1.1 without a plan', base: 'convert', mutate: set(P('schema_version'), '1.1'), target: { path: [], part: 'missing', property: 'context_plan' } },
    { name: '1.0 with a plan', base: 'plan', mutate: set(P('schema_version'), '1.0'), target: { path: ['schema_version'] } },
  ]));

  test('plan/partition', () => assertRule('plan/partition', [
    { name: 'lines not contiguous', base: 'plan', mutate: (d) => { d.context_plan.sections[4].range.line_start += 1; }, target: { path: sec(4, 'range', 'line_start') } },
    { name: 'line_end before line_start', base: 'plan', mutate: (d) => { d.context_plan.sections[4].range.line_end = 37; d.context_plan.sections[4].range.line_start = 38; }, target: { path: sec(4, 'range', 'line_end') } },
    { name: 'first section not at 1', base: 'planConvert', mutate: set(sec(0, 'range', 'line_start'), 2), target: { path: sec(0, 'range', 'line_start') } },
  ]));

  test('plan/partition: char gaps, overlaps and a short cover', () => {
    const gap = base('plan');
    gap.context_plan.sections[3].range.char_end -= 1;
    assert.ok(check(gap).some((f) => f.code === 'plan/partition' && JSON.stringify(f.target.path) === JSON.stringify(sec(4, 'range', 'char_start'))));
    const overlap = base('plan');
    overlap.context_plan.sections[4].range.char_start -= 1;
    assert.ok(check(overlap).some((f) => f.code === 'plan/partition' && /an overlap/.test(f.message)));
    const short = base('planConvert');
    short.context_plan.sections[0].range.char_end -= 1;
    assert.ok(check(short).some((f) => f.code === 'plan/partition' && JSON.stringify(f.target.path) === JSON.stringify(sec(0, 'range', 'char_end'))));
  });

  test('plan/frontmatter-shape', () => assertRule('plan/frontmatter-shape', [
    { name: 'frontmatter converts', base: 'planFrontmatter', mutate: set(sec(0, 'action'), 'convert'), target: { path: sec(0, 'action') } },
    { name: 'frontmatter has a profile', base: 'planFrontmatter', mutate: set(sec(0, 'profile'), 'raw_prose'), target: { path: sec(0, 'profile') } },
    { name: 'a section without a profile', base: 'plan', mutate: set(sec(0, 'profile'), null), target: { path: sec(0, 'profile') } },
  ]));

  test('plan/action', () => assertRule('plan/action', [
    { name: 'keep_markdown section converts', base: 'plan', mutate: set(sec(0, 'action'), 'convert'), target: { path: sec(0, 'action') } },
    { name: 'convert section kept', base: 'plan', mutate: set(sec(4, 'action'), 'keep'), target: { path: sec(4, 'action') } },
  ]));

  test('plan/section-arithmetic', () => assertRule('plan/section-arithmetic', [
    { name: 'savings', base: 'plan', mutate: set(sec(4, 'measured_chars', 'savings'), 31), target: { path: sec(4, 'measured_chars', 'savings') } },
    { name: 'savings_pct', base: 'plan', mutate: set(sec(4, 'measured_chars', 'savings_pct'), 21.5), target: { path: sec(4, 'measured_chars', 'savings_pct') } },
  ]));

  test('plan/section-safe-to-auto-apply', () => assertRule('plan/section-safe-to-auto-apply', [
    { name: 'converting section recorded unsafe', base: 'plan', mutate: set(sec(4, 'safe_to_auto_apply'), false), target: { path: sec(4, 'safe_to_auto_apply') } },
    { name: 'section with warnings recorded safe', base: 'plan', mutate: set(sec(1, 'safe_to_auto_apply'), true), target: { path: sec(1, 'safe_to_auto_apply') } },
    { name: 'frontmatter recorded safe', base: 'planFrontmatter', mutate: set(sec(0, 'safe_to_auto_apply'), true), target: { path: sec(0, 'safe_to_auto_apply') } },
  ]));

  test('plan/net-arithmetic', () => assertRule('plan/net-arithmetic', [
    { name: 'net savings', base: 'plan', mutate: set(P('context_plan', 'net', 'savings'), 11), target: { path: ['context_plan', 'net', 'savings'] } },
    { name: 'net percent', base: 'plan', mutate: set(P('context_plan', 'net', 'savings_pct'), 0.5), target: { path: ['context_plan', 'net', 'savings_pct'] } },
  ]));

  test('plan/recommend-hybrid', () => assertRule('plan/recommend-hybrid', [
    { name: 'net 0.4% recommended', base: 'plan', mutate: set(P('context_plan', 'recommend_hybrid'), true), target: { path: ['context_plan', 'recommend_hybrid'] } },
    { name: 'net 20.9% not recommended', base: 'planConvert', mutate: set(P('context_plan', 'recommend_hybrid'), false), target: { path: ['context_plan', 'recommend_hybrid'] } },
  ]));

  test('plan/safe-to-auto-apply', () => assertRule('plan/safe-to-auto-apply', [
    { name: 'recorded unsafe', base: 'planConvert', mutate: set(P('context_plan', 'safe_to_auto_apply'), false), target: { path: ['context_plan', 'safe_to_auto_apply'] } },
    { name: 'reassembly not verified, as recorded', base: 'planConvert', mutate: set(P('context_plan', 'reassembly_verified'), false), target: { path: ['context_plan', 'safe_to_auto_apply'] } },
    { name: 'nothing recommended but safe', base: 'plan', mutate: set(P('context_plan', 'safe_to_auto_apply'), true), target: { path: ['context_plan', 'safe_to_auto_apply'] } },
  ]));

  test('plan/warning-range', () => assertRule('plan/warning-range', [
    { name: 'chars before the section', base: 'plan', mutate: set(sec(1, 'warnings', 0, 'range', 'char_start'), 10), target: { path: sec(1, 'warnings', 0, 'range') }, severity: 'warning' },
    { name: 'lines after the section', base: 'plan', mutate: (d) => { d.context_plan.sections[1].warnings[0].range.line_start = 12; d.context_plan.sections[1].warnings[0].range.line_end = 12; }, target: { path: sec(1, 'warnings', 0, 'range') }, severity: 'warning' },
  ]));

  test('unknown fields are tolerated everywhere', () => {
    const d = base('plan');
    d.extra = { any: 1 };
    d.measured_chars.extra = 'x';
    d.flags.future = true;
    d.context_plan.future = [];
    d.context_plan.sections[0].future = null;
    d.context_plan.sections[1].warnings[0].range.extra = 0;
    assert.deepEqual(check(d), []);
  });
});

describe('one defect, one finding: a plan section whose verdict alone is wrong', () => {
  const plans = readdirSync(corpusDir).filter((f) => f.endsWith('.plan.json')).sort();
  /** Every fix of every finding applied (value level), as a user taking each quick fix would. */
  const applyAll = (doc: Doc, fs: Finding[]): Doc => {
    let value = structuredClone(doc);
    for (const e of fs.flatMap((f) => f.fixes ?? []).flatMap((x) => x.edits)) value = applyEdit(value, e);
    return value;
  };
  /**
   * Two one-defect mutations of section `i` to verdict `v`: the verdict alone, and the verdict with the fields
   * a producer derives from it written consistently with it (action, safe_to_auto_apply), which is the same
   * defect — a wrong decision — as the producer would write it.
   */
  const mutations = (s: Doc, v: string): { name: string; apply(sec: Doc): void }[] => [
    { name: 'verdict only', apply: (sec) => void (sec.verdict = v) },
    {
      name: 'verdict with the fields that follow it',
      apply(sec) {
        sec.verdict = v;
        sec.action = sectionAction(v, true, true);
        sec.safe_to_auto_apply = safeToAutoApply({ verdict: v, mode: 'lossless', lossless: true, valid: true, savings: s.measured_chars.savings, warnings: s.warnings }).safe;
      },
    },
  ];

  test('every section of every producer plan, every other verdict: one verdict/decision finding, and its fix leaves none', () => {
    assert.ok(plans.length >= 5, 'the corpus has plans');
    let cases = 0;
    let withFollowers = 0;
    for (const f of plans) {
      const original: Doc = JSON.parse(readFileSync(path.join(corpusDir, f), 'utf8'));
      assert.deepEqual(check(original), [], `${f} is clean`);
      original.context_plan.sections.forEach((s: Doc, i: number) => {
        if (s.kind === 'frontmatter' || typeof s.verdict !== 'string') return;
        for (const v of VERDICTS) {
          if (v === s.verdict || v === 'refused') continue;
          for (const m of mutations(s, v)) {
            const doc = structuredClone(original);
            m.apply(doc.context_plan.sections[i]);
            const fs = check(doc);
            const what: string = `${f} section ${i} ${s.verdict} → ${v} (${m.name})`;
            assert.equal(fs.length, 1, `${what}: exactly one finding:\n${describeFindings(fs)}`);
            assert.equal(fs[0]!.code, 'verdict/decision', what);
            assert.deepEqual(fs[0]!.target, { path: sec(i, 'verdict') }, what);
            assert.equal(fs[0]!.fixes?.length, 1, `${what}: one quick fix`);
            if (fs[0]!.fixes![0]!.edits.length > 1) withFollowers++;
            const fixed = applyAll(doc, fs);
            assert.deepEqual(check(fixed), [], `${what}: the fix leaves no finding:\n${describeFindings(check(fixed))}`);
            assert.deepEqual(fixed, original, `${what}: the fix restores the producer's section`);
            cases++;
          }
        }
      });
    }
    assert.ok(cases > 500, `mutations checked: ${cases}`);
    assert.ok(withFollowers > 100, `fixes that also set action / safe_to_auto_apply: ${withFollowers}`);
  });

  test('through the text-level applier: the one fix of a section turned from convert to keep leaves no finding', () => {
    const text = readFileSync(path.join(corpusDir, `upstream__${BASES.planConvert}`), 'utf8');
    const doc = JSON.parse(text);
    Object.assign(doc.context_plan.sections[0], { verdict: 'keep_markdown', action: 'keep', safe_to_auto_apply: false });
    const mutated = JSON.stringify(doc, null, 2);
    const fs = check(doc);
    assert.deepEqual(fs.map((x) => x.code), ['verdict/decision']);
    assert.match(fs[0]!.fixes![0]!.title, /^Set verdict to "convert" — .+ \(and action to "convert", safe_to_auto_apply to true\)$/);
    assert.deepEqual(check(JSON.parse(applyFixes(mutated, fs[0]!.fixes!))), []);
  });

  test('a field that follows neither the recorded nor the derived verdict is a defect of its own', () => {
    // Section 0 of the mixed plan saves nothing: keep_markdown, and neither convert nor review makes it safe.
    const doc = base('plan');
    Object.assign(doc.context_plan.sections[0], { verdict: 'review', safe_to_auto_apply: true });
    const fs = check(doc);
    assert.deepEqual(fs.map((x) => [x.code, x.target.path]), [['verdict/decision', sec(0, 'verdict')], ['plan/section-safe-to-auto-apply', sec(0, 'safe_to_auto_apply')]]);
    assert.deepEqual(check(applyAll(doc, fs)), []);
    const act = base('plan');
    Object.assign(act.context_plan.sections[0], { verdict: 'review', action: 'convert' });
    assert.deepEqual(check(act).map((x) => x.code), ['verdict/decision', 'plan/action']);
  });
});

describe('the producer corpus', () => {
  test('zero error-severity findings on every producer verdict', () => {
    const files = readdirSync(corpusDir).filter((f) => f.endsWith('.json')).sort();
    assert.ok(files.length > 0, 'the corpus has verdicts');
    let plans = 0;
    for (const f of files) {
      const text = readFileSync(path.join(corpusDir, f), 'utf8');
      const value = JSON.parse(text);
      if (value.context_plan) plans++;
      const fs = verdictRules(value, { text });
      assert.deepEqual(errors(fs), [], `${f}:\n${describeFindings(fs)}`);
    }
    assert.ok(plans > 0, 'the corpus has plans');
  });
});

describe('fix-all', () => {
  const fixtures = existsSync(fixturesDir) ? readdirSync(fixturesDir).filter((f) => f.endsWith('.json')).sort() : [];
  test('there are defective fixtures', () => assert.ok(fixtures.length >= 3, `fixtures in ${fixturesDir}`));
  for (const f of fixtures) {
    test(`${f}: fix-all leaves no error, and a second fix-all changes nothing`, () => {
      const doc = JSON.parse(readFileSync(path.join(fixturesDir, f), 'utf8'));
      const before = check(doc);
      assert.ok(errors(before).length > 0, 'the fixture is defective');
      for (const e of errors(before)) assert.ok(e.fixes?.some((x) => x.fixAll), `${e.code} has a fixAll fix`);
      const once = fixAll(doc);
      assert.ok(once.edits > 0);
      assert.deepEqual(errors(check(once.value)), [], describeFindings(check(once.value)));
      const twice = fixAll(once.value);
      assert.equal(twice.edits, 0);
      assert.deepEqual(twice.value, once.value);
    });
  }

  test('the boundary fixture is fixed to keep_markdown, not safe', () => {
    const doc = JSON.parse(readFileSync(path.join(fixturesDir, 'boundary-4.96pct-says-convert.profile.json'), 'utf8'));
    const { value } = fixAll(doc);
    assert.equal(value.verdict, 'keep_markdown');
    assert.equal(value.safe_to_auto_apply, false);
    assert.equal(value.measured_chars.savings_pct, 5);
  });

  test('through the text-level applier (server/src/core/json/edits.ts)', () => {
    for (const f of fixtures) {
      const text = readFileSync(path.join(fixturesDir, f), 'utf8');
      const fixes = check(JSON.parse(text)).flatMap((x) => x.fixes ?? []).filter((x) => x.fixAll);
      const fixed = JSON.parse(applyFixes(text, fixes));
      assert.deepEqual(errors(check(fixed)), [], `${f} through applyFixes`);
      assert.deepEqual(fixed, fixAll(JSON.parse(text)).value, `${f}: text and value appliers agree`);
    }
  });
});

describe('hover explanations', () => {
  test('safe_to_auto_apply: recorded, derived and its inputs', () => {
    const md = explainVerdict(boundary('convert'), ['safe_to_auto_apply']);
    assert.ok(md);
    // Safety derives from the recorded verdict (a wrong verdict is verdict/decision's finding alone).
    assert.match(md, /recorded `true`, derived `true`/);
    assert.match(md, /\| verdict \(recorded\) \| `"convert"` \|/);
    assert.match(md, /\| mode \| `"lossless"` \|/);
  });

  test('verdict: the decision and why', () => {
    const md = explainVerdict(boundary('convert'), ['verdict']);
    assert.ok(md);
    assert.match(md, /recorded `"convert"`, derived `"keep_markdown"` ✗/);
    assert.match(md, /savings 4\.96% < 5%/);
    assert.match(md, /\| source \| `10000` \|/);
  });

  test('measured_chars.savings and savings_pct', () => {
    const d = base('convert');
    d.measured_chars.savings = 1;
    assert.match(explainVerdict(d, ['measured_chars', 'savings'])!, /recorded `1`, derived `6811`/);
    assert.match(explainVerdict(d, ['measured_chars', 'savings_pct'])!, /derived `21.1`/);
  });

  test('plan fields: recommend_hybrid, safe_to_auto_apply, net', () => {
    const d = base('plan');
    assert.match(explainVerdict(d, ['context_plan', 'recommend_hybrid'])!, /derived `false` ✓[\s\S]*converted sections \| `1`/);
    assert.match(explainVerdict(d, ['context_plan', 'safe_to_auto_apply'])!, /recommend_hybrid is false/);
    assert.match(explainVerdict(d, ['context_plan', 'net', 'savings'])!, /derived `10`/);
    assert.match(explainVerdict(d, ['context_plan', 'net'])!, /hybrid \| `2350`/);
  });

  test('section fields: action, safe_to_auto_apply, and the slice itself', () => {
    const d = base('plan');
    assert.match(explainVerdict(d, sec(4, 'action'))!, /recorded `"convert"`, derived `"convert"` ✓/);
    assert.match(explainVerdict(d, sec(4, 'safe_to_auto_apply'))!, /derived `true`/);
    for (const p of [sec(4), sec(4, 'heading'), sec(4, 'range', 'char_end')]) {
      const md = explainVerdict(d, p);
      assert.ok(md, JSON.stringify(p));
      assert.match(md, /\| heading \| `"Table"` \|/);
      assert.match(md, /\| lines \| `38`–`44` \|/);
      assert.match(md, /\| chars \| \[`2212`, `2360`\) \|/);
      assert.match(md, /\| action \| `"convert"` \|/);
    }
    const fm = base('planFrontmatter');
    assert.match(explainVerdict(fm, sec(0))!, /\| kind \| `"frontmatter"` \|/);
  });

  test('undefined for fields that are not derived', () => {
    const d = base('plan');
    for (const p of [P('profile', 'name'), P('mode'), P('warnings', 0), P('context_plan', 'reassembly_verified'), P('nope')]) {
      assert.equal(explainVerdict(d, p), undefined, JSON.stringify(p));
    }
    assert.equal(explainVerdict(null, ['verdict']), undefined);
  });
});

/** Every path into a JSON value. */
function allPaths(v: unknown, prefix: JsonPath = []): JsonPath[] {
  const out: JsonPath[] = [prefix];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...allPaths(x, [...prefix, i])));
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...allPaths(x, [...prefix, k]));
  return out;
}

describe('robustness', () => {
  test('rules and hovers never throw, whatever value sits anywhere', () => {
    const docs = [base('plan'), base('convert'), base('refused'), base('planFrontmatter')];
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.anything({ withNullPrototype: true, withBigInt: false }), fc.boolean(), (di, pi, junk, remove) => {
        const doc = structuredClone(docs[di % docs.length]);
        const paths = allPaths(doc);
        const p = paths[pi % paths.length]!;
        const mutated = applyEdit(doc, remove && p.length > 0 ? { path: p, remove: true } : { path: p, value: junk });
        const fs = verdictRules(mutated, { text: '' });
        assert.ok(Array.isArray(fs));
        for (const q of paths.slice(0, 25)) explainVerdict(mutated, q);
        explainVerdict(mutated, p);
      }),
      { numRuns: 250 },
    );
  });

  test('fix-all converges from any corruption of the derived fields of real verdicts', () => {
    const names = readdirSync(corpusDir).filter((f) => f.endsWith('.json') && (f.includes('.plan.') || f.includes('.profile.') || f.endsWith('.convert.json') || f.includes('budget'))).sort();
    const docs: Doc[] = names.map((f) => JSON.parse(readFileSync(path.join(corpusDir, f), 'utf8')));
    /** The derived fields of a document, each with a generator of wrong-but-well-typed values. */
    function derivedFields(d: Doc): [JsonPath, fc.Arbitrary<unknown>][] {
      const out: [JsonPath, fc.Arbitrary<unknown>][] = [
        [P('safe_to_auto_apply'), fc.boolean()],
        [P('measured_chars', 'savings'), fc.integer({ min: -50000, max: 50000 })],
        [P('measured_chars', 'savings_pct'), fc.double({ min: -500, max: 100, noNaN: true })],
      ];
      if (d.verdict !== 'refused') out.push([P('verdict'), fc.constantFrom('convert', 'keep_markdown', 'split_first', 'review')]);
      const plan = d.context_plan;
      if (plan) {
        out.push([P('context_plan', 'recommend_hybrid'), fc.boolean()], [P('context_plan', 'safe_to_auto_apply'), fc.boolean()]);
        out.push([P('context_plan', 'net', 'savings'), fc.integer({ min: -50000, max: 50000 })], [P('context_plan', 'net', 'savings_pct'), fc.double({ min: -500, max: 100, noNaN: true })]);
        plan.sections.forEach((s: Doc, i: number) => {
          out.push([sec(i, 'safe_to_auto_apply'), fc.boolean()]);
          if (s.kind === 'frontmatter') return;
          out.push([sec(i, 'action'), fc.constantFrom('convert', 'keep')], [sec(i, 'verdict'), fc.constantFrom('convert', 'keep_markdown', 'split_first', 'review', 'refused')]);
          out.push([sec(i, 'measured_chars', 'savings'), fc.integer({ min: -50000, max: 50000 })], [sec(i, 'measured_chars', 'savings_pct'), fc.double({ min: -500, max: 100, noNaN: true })]);
        });
      }
      return out;
    }
    const corruption = fc.nat({ max: docs.length - 1 }).chain((di) => {
      const fields = derivedFields(docs[di]);
      return fc.tuple(fc.constant(di), fc.uniqueArray(fc.nat({ max: fields.length - 1 }), { minLength: 1, maxLength: 8 }).chain((idx) =>
        fc.tuple(...idx.map((k) => fc.tuple(fc.constant(fields[k]![0]), fields[k]![1])))));
    });
    fc.assert(
      fc.property(corruption, ([di, edits]) => {
        let doc = structuredClone(docs[di]);
        for (const [p, v] of edits) doc = applyEdit(doc, { path: p, value: v });
        const once = fixAll(doc);
        assert.deepEqual(errors(check(once.value)), [], `${names[di]}:\n${describeFindings(check(once.value))}`);
        assert.equal(fixAll(once.value).edits, 0, 'a second fix-all changes nothing');
        // Fixing derived fields restores exactly what the producer wrote (they were consistent).
        const restored = structuredClone(once.value);
        const original = docs[di];
        for (const [p] of edits) {
          const pct = p[p.length - 1] === 'savings_pct';
          const want = p.reduce((o: Doc, k) => o[k], original);
          const got = p.reduce((o: Doc, k) => o[k], restored);
          if (pct) assert.ok(Math.abs(got - want) <= 0.05 + 1e-9, `${names[di]} ${JSON.stringify(p)}: ${got} vs ${want}`);
          else assert.deepEqual(got, want, `${names[di]} ${JSON.stringify(p)}`);
        }
      }),
      { numRuns: 200 },
    );
  });

  test('non-object documents yield no finding', () => {
    for (const v of [null, undefined, 1, 'x', [], [{}], true]) assert.deepEqual(verdictRules(v, { text: '' }), []);
  });
});

describe('our engine against our rules', () => {
  test('every verdict the engine emits over doc2toon-inputs raises no error finding', () => {
    const engine = { planDocument, profileDocument, convertDocument };
    const inputs = readdirSync(inputsDir).filter((f) => f.endsWith('.md')).sort();
    assert.ok(inputs.length > 0);
    let checked = 0;
    for (const f of inputs) {
      const text = readFileSync(path.join(inputsDir, f), 'utf8');
      const plan = engine.planDocument(text);
      const runs: [string, unknown][] = [['plan', plan.verdict]];
      for (const s of plan.sections ?? []) if (s.verdict) runs.push([`section ${s.slice?.charStart}`, s.verdict]);
      if (typeof engine.profileDocument === 'function') runs.push(['profile', engine.profileDocument(text)]);
      if (typeof engine.convertDocument === 'function') {
        runs.push(['convert', engine.convertDocument(text)]);
        runs.push(['convert record', engine.convertDocument(text, { mode: 'record' })]);
        runs.push(['convert budget refused', engine.convertDocument(text, { mode: 'budget', targetChars: 1 })]);
        runs.push(['convert budget lossy', engine.convertDocument(text, { mode: 'budget', targetChars: Math.ceil(text.length / 2), allowLossy: true })]);
      }
      for (const [what, verdict] of runs) {
        assert.ok(verdict && typeof verdict === 'object' && 'schema_version' in verdict, `${f} (${what}) is a verdict object`);
        const fs = verdictRules(verdict, { text: JSON.stringify(verdict) });
        assert.deepEqual(errors(fs), [], `${f} (${what}):\n${describeFindings(fs)}`);
        checked++;
      }
    }
    assert.ok(checked >= inputs.length * 2);
  });
});

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { reportRules, isIsoUtcTimestamp } from '../../server/src/core/agentJson/rules/report';
import type { Finding, RuleContext } from '../../server/src/core/types';
import { deterministicEntry, generativeEntry, makeReport, ONE_DEFECT_FILES, oneDefectBase, oneDefectReports, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';
import { checkDocument } from '../../server/src/core/agentJson/check';
import { applyTextEditsTo, fixToTextEdits } from '../../server/src/core/json/edits';

const run = (report: unknown, ctx: Partial<RuleContext> = {}): Finding[] => reportRules(report, { text: JSON.stringify(report), ...ctx });
const ofCode = (fs: Finding[], code: string) => fs.filter((f) => f.code === code);
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v));

const PLAN = '# Plan\n- [x] one\n- [x] two\n';
const archiveEntry = () =>
  deterministicEntry('docs/plan.md', { kind: 'move-to-archive', expected_sha256: sha(PLAN), anchor: { start_line: 1, end_line: 3 }, dest_path: 'docs/archive/plan.md' });
const base = () => makeReport([archiveEntry(), generativeEntry('docs/long.md')]);

describe('static report rules', () => {
  test('a valid report has no findings', () => {
    assert.deepEqual(run(base()), []);
  });

  test('never throws on values of the wrong type anywhere', () => {
    const odd: unknown[] = [null, 1, 'x', [], { entries: 5 }, { entries: [null, 1, { exact_edit: 'x', path: 3 }] }, { shortlist: [null, { path: 1 }], entries: [{ exact_edit: { kind: 'dedupe', anchor: 5, canonical_ref: [] } }] }, { scan: 1, promotion_candidates: {} }];
    for (const v of odd) assert.doesNotThrow(() => run(v));
  });

  test('report/entry-not-in-shortlist', () => {
    const r = base();
    (r.shortlist as unknown[]).splice(0, 1);
    const f = ofCode(run(r), 'report/entry-not-in-shortlist');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target.path, ['entries', 0, 'path']);
  });

  test('report/entry-not-in-shortlist: a directory aggregate covers the files under it; "./" is ignored', () => {
    const r = base();
    r.shortlist = ['docs/', { path: './docs/long.md', lifecycle: { rule_ref: 'r', lifetime: 'temporary' } }];
    assert.deepEqual(ofCode(run(r), 'report/entry-not-in-shortlist'), []);
    r.shortlist = ['doc/'];
    assert.equal(ofCode(run(r), 'report/entry-not-in-shortlist').length, 2);
  });

  test('report/exact-edit-biconditional: deterministic without exact_edit, generative with one', () => {
    const r = base();
    const entries = r.entries as Record<string, unknown>[];
    delete entries[0]!.exact_edit;
    entries[1]!.exact_edit = { kind: 'delete-range' };
    const f = ofCode(run(r), 'report/exact-edit-biconditional');
    assert.equal(f.length, 2);
    assert.deepEqual(f[0]!.target, { path: ['entries', 0], part: 'missing', property: 'exact_edit' });
    assert.deepEqual(f[1]!.target, { path: ['entries', 1, 'exact_edit'], part: 'key' });
  });

  test('report/safety-tier: a recorded tier that is not the derived one, with a fix', () => {
    const r = base();
    (r.entries as Record<string, unknown>[])[1]!.safety_tier = 'auto'; // generative
    const f = ofCode(run(r), 'report/safety-tier');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target.path, ['entries', 1, 'safety_tier']);
    assert.deepEqual(f[0]!.fixes![0]!.edits, [{ path: ['entries', 1, 'safety_tier'], value: 'confirm' }]);
    assert.equal(f[0]!.fixes![0]!.fixAll, true);
  });

  test('report/safety-tier: a lifecycle delete recorded auto without tracked+clean git gets the delete fix title', () => {
    const del = deterministicEntry('tmp/a.md', { kind: 'delete', expected_sha256: sha('x'), anchor: { whole_file: true }, lifecycle: { rule_ref: 'tmp', lifetime: 'temporary' } }, { safety_tier: 'auto' });
    const f = ofCode(run(makeReport([del])), 'report/safety-tier');
    assert.equal(f.length, 1);
    assert.equal(f[0]!.fixes![0]!.title, 'Set safety_tier to confirm — delete needs scanner-proven evidence and a tracked, clean file');
    del.git = { tracked: true, clean: true };
    assert.deepEqual(ofCode(run(makeReport([del])), 'report/safety-tier'), []);
  });

  test('report/kind-characterization', () => {
    const r = base();
    const e = (r.entries as Record<string, unknown>[])[0]!;
    e.is_destructive = true; // move-to-archive is non-destructive
    const f = ofCode(run(r), 'report/kind-characterization');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target.path, ['entries', 0, 'is_destructive']);
    const dr = deterministicEntry('docs/plan.md', { kind: 'delete-range', expected_sha256: sha(PLAN), anchor: { start_line: 1, end_line: 1 } }, { is_reversible: true });
    assert.deepEqual(ofCode(run(makeReport([dr])), 'report/kind-characterization')[0]!.target.path, ['entries', 0, 'is_reversible']);
  });

  test('report/category: a subtype of the other class', () => {
    const r = base();
    (r.entries as Record<string, unknown>[])[0]!.category = { class: 'stale', subtype: 'split' };
    const f = ofCode(run(r), 'report/category');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target.path, ['entries', 0, 'category', 'subtype']);
    assert.match(f[0]!.message, /bloat subtype/);
  });

  test('report/kind-fields: each kind requires its fields', () => {
    const r = base();
    const ee = (r.entries as Record<string, unknown>[])[0]!.exact_edit as Record<string, unknown>;
    delete ee.dest_path;
    let f = ofCode(run(r), 'report/kind-fields');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target, { path: ['entries', 0, 'exact_edit'], part: 'missing', property: 'dest_path' });
    const rt = deterministicEntry('docs/plan.md', { kind: 'replace-text', expected_sha256: sha(PLAN), anchor: { start_line: 1 }, match: 'a' });
    f = ofCode(run(makeReport([rt])), 'report/kind-fields');
    assert.deepEqual(f.map((x) => (x.target as { property?: string }).property).sort(), ['end_line', 'replacement']);
    const del = deterministicEntry('a.md', { kind: 'delete', expected_sha256: sha('x'), anchor: { start_line: 1, end_line: 1 }, lifecycle: { rule_ref: 'r', lifetime: 'temporary' } });
    assert.equal(ofCode(run(makeReport([del])), 'report/kind-fields').length, 1);
  });

  test('report/lifecycle-served: both, neither for delete-once-served, one for temporary', () => {
    const mk = (lifecycle: Record<string, unknown>) => makeReport([], { shortlist: [{ path: 'a.md', lifecycle }] });
    assert.deepEqual(ofCode(run(mk({ rule_ref: 'r', lifetime: 'delete-once-served', served_when_path: 'CHANGELOG.md' })), 'report/lifecycle-served'), []);
    assert.equal(ofCode(run(mk({ rule_ref: 'r', lifetime: 'delete-once-served', served_when_path: 'a', served_when: 'b' })), 'report/lifecycle-served').length, 1);
    assert.equal(ofCode(run(mk({ rule_ref: 'r', lifetime: 'delete-once-served' })), 'report/lifecycle-served').length, 1);
    const t = ofCode(run(mk({ rule_ref: 'r', lifetime: 'temporary', served_when: 'x' })), 'report/lifecycle-served');
    assert.deepEqual(t[0]!.target.path, ['shortlist', 0, 'lifecycle', 'served_when']);
  });

  test('report/extraction-target', () => {
    const etd = (extra: Record<string, unknown>) =>
      makeReport([deterministicEntry('a.md', { kind: 'extract-then-delete', expected_sha256: sha('x'), anchor: { whole_file: true }, lifecycle: { rule_ref: 'r', lifetime: 'temporary' }, ...extra })]);
    assert.deepEqual(ofCode(run(etd({ extraction_target: 'repo-durable', target_ref: 'docs/decisions.md' })), 'report/extraction-target'), []);
    assert.deepEqual(ofCode(run(etd({ extraction_target: 'cross-repo' })), 'report/extraction-target'), []);
    assert.equal((ofCode(run(etd({})), 'report/extraction-target')[0]!.target as { property: string }).property, 'extraction_target');
    assert.equal((ofCode(run(etd({ extraction_target: 'repo-durable' })), 'report/extraction-target')[0]!.target as { property: string }).property, 'target_ref');
  });

  test('report/promotion-candidate: only entries with a classifier-judged served_when; missing key gets a fix', () => {
    const judged = generativeEntry('docs/notes.md', { lifecycle: { rule_ref: 'r', lifetime: 'delete-once-served', served_when: 'shipped' } });
    const r = makeReport([judged], { promotion_candidates: [{ path: 'docs/notes.md', convention: 'decision-log', pitch: 'p' }] });
    assert.deepEqual(ofCode(run(r), 'report/promotion-candidate'), []);
    const bad = clone(r);
    (bad.promotion_candidates as Record<string, unknown>[])[0]!.path = 'docs/other.md';
    const f = ofCode(run(bad), 'report/promotion-candidate');
    assert.equal(f[0]!.severity, 'warning');
    assert.deepEqual(f[0]!.target.path, ['promotion_candidates', 0, 'path']);
    const none = clone(r);
    delete none.promotion_candidates;
    const m = ofCode(run(none), 'report/promotion-candidate');
    assert.equal(m.length, 1);
    assert.deepEqual(m[0]!.fixes![0]!.edits, [{ path: ['promotion_candidates'], value: [] }]);
  });

  test('report/generated-at', () => {
    for (const ok of ['2026-11-29T10:00:00Z', '2026-11-29T10:00:00.123Z', '2024-02-29T23:59:59+00:00']) assert.equal(isIsoUtcTimestamp(ok), true, ok);
    for (const bad of ['2026-11-29 10:00:00Z', '2026-11-29T10:00:00', '2026-11-29T10:00:00+02:00', '2026-02-30T10:00:00Z', '2026-13-01T00:00:00Z', 'yesterday']) assert.equal(isIsoUtcTimestamp(bad), false, bad);
    const r = base();
    r.generated_at = '2026-11-29T10:00:00+01:00';
    assert.deepEqual(ofCode(run(r), 'report/generated-at')[0]!.target.path, ['generated_at']);
  });

  test('report/unsafe-path: every path field', () => {
    const r = base();
    const e = (r.entries as Record<string, unknown>[])[0]!;
    (e.exact_edit as Record<string, unknown>).dest_path = '../outside.md';
    r.scan = { ...(r.scan as object), project_root: '/etc' };
    const f = ofCode(run(r), 'report/unsafe-path');
    assert.deepEqual(f.map((x) => x.target.path).sort(), [['entries', 0, 'exact_edit', 'dest_path'], ['scan', 'project_root']].sort());
  });

  test('report/anchor-out-of-range: start after end (static)', () => {
    const r = base();
    ((r.entries as Record<string, unknown>[])[0]!.exact_edit as Record<string, unknown>).anchor = { start_line: 5, end_line: 2 };
    assert.deepEqual(ofCode(run(r), 'report/anchor-out-of-range')[0]!.target.path, ['entries', 0, 'exact_edit', 'anchor', 'start_line']);
  });
});

describe('one defect, one error: a rule that restates the schema in its own terms replaces the schema error', () => {
  const diagnose = (report: unknown, opts: Parameters<typeof checkDocument>[1] = {}) => checkDocument(JSON.stringify(report, null, 2), { kind: 'report', ...opts });

  test('the valid base has no diagnostic, and each one-defect mutation exactly one, with the rule\'s code at the rule\'s target', () => {
    assert.deepEqual(diagnose(oneDefectBase()).diagnostics, []);
    for (const d of oneDefectReports()) {
      const ds = diagnose(d.report).diagnostics;
      assert.deepEqual(ds.map((x) => x.code), [d.code], `${d.name}: ${ds.map((x) => `${x.code} ${x.message}`).join(' | ')}`);
      assert.deepEqual(ds[0]!.path, d.target.path, d.name);
      // The schema alone does reject it: the rule's diagnostic replaces that error, it does not add to a valid document.
      const rules = ofCode(run(d.report), d.code);
      assert.deepEqual(rules.map((f) => f.target), [d.target], `${d.name}: the rule's own finding`);
    }
  });

  test('with the live checks on (a real workspace holding the targets): still exactly one', () => {
    const ws = tempWorkspace(ONE_DEFECT_FILES);
    try {
      const fsPath = ws.path('hygiene.report.json');
      assert.deepEqual(diagnose(oneDefectBase(), { fsPath, workspace: ws.reader() }).diagnostics, []);
      for (const d of oneDefectReports()) {
        assert.deepEqual(diagnose(d.report, { fsPath, workspace: ws.reader() }).diagnostics.map((x) => x.code), [d.code], d.name);
      }
    } finally {
      ws.cleanup();
    }
  });

  test('quick fixes where the fix is obvious: the class a subtype belongs to, repo-durable for a named target_ref; applying one leaves no diagnostic', () => {
    const withFix = oneDefectReports().filter((d) => /of the other|under class|without extraction_target/.test(d.name));
    assert.equal(withFix.length, 3);
    for (const d of withFix) {
      const text = JSON.stringify(d.report, null, 2);
      const [diag] = checkDocument(text, { kind: 'report' }).diagnostics;
      assert.equal(diag?.fixes?.length, 1, `${d.name}: one quick fix`);
      const fix = diag!.fixes![0]!;
      assert.equal(fix.fixAll, false, `${d.name}: which field is wrong is the author's call, never fixed unattended`);
      const fixed = applyTextEditsTo(text, fixToTextEdits(text, fix));
      assert.deepEqual(checkDocument(fixed, { kind: 'report' }).diagnostics, [], `${d.name}: ${fix.title}`);
    }
    const names = (re: RegExp) => oneDefectReports().filter((d) => re.test(d.name));
    assert.match(checkDocument(JSON.stringify(names(/class bloat/)[0]!.report), { kind: 'report' }).diagnostics[0]!.fixes![0]!.title, /^Set class to "stale" — "orphaned" is a stale subtype$/);
    // No guess where nothing says what the value should be: an unknown subtype, a missing replacement or target_ref.
    for (const d of names(/neither class|without replacement|without target_ref|without expected_sha256/)) {
      assert.equal(checkDocument(JSON.stringify(d.report), { kind: 'report' }).diagnostics[0]!.fixes, undefined, d.name);
    }
  });

  test('other schema errors at the same place still speak: a wrong type is the schema\'s, and two defects are two errors', () => {
    const r = oneDefectBase();
    const e = r.entries as Record<string, Record<string, unknown>>[];
    (e[0]!.exact_edit as Record<string, unknown>).replacement = 7; // present, wrong type: not a missing field
    assert.deepEqual(diagnose(r).diagnostics.map((x) => x.code), ['schema']);
    const two = oneDefectBase();
    const t = two.entries as Record<string, Record<string, unknown>>[];
    delete (t[0]!.exact_edit as Record<string, unknown>).replacement;
    delete (t[2]!.exact_edit as Record<string, unknown>).target_ref;
    assert.deepEqual(diagnose(two).diagnostics.map((x) => x.code), ['report/kind-fields', 'report/extraction-target']);
  });
});

describe('live report rules (real temp workspace)', () => {
  const spaces: TempWorkspace[] = [];
  after(() => spaces.forEach((s) => s.cleanup()));
  const setup = (files: Record<string, string>) => {
    const ws = tempWorkspace(files);
    spaces.push(ws);
    return ws;
  };
  const live = (ws: TempWorkspace, report: unknown, open?: (p: string) => string | undefined) =>
    run(report, { fsPath: ws.path('hygiene.report.json'), workspace: ws.reader(open) });

  test('a matching workspace gives no findings; no workspace means no live findings', () => {
    const ws = setup({ 'docs/plan.md': PLAN });
    assert.deepEqual(live(ws, base()), []);
    ws.write('docs/plan.md', PLAN + 'more\n');
    assert.deepEqual(run(base()), []);
  });

  test('report/stale-edit: file bytes changed; the open buffer wins over the file', () => {
    const ws = setup({ 'docs/plan.md': PLAN + 'changed\n' });
    const f = ofCode(live(ws, base()), 'report/stale-edit');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target.path, ['entries', 0, 'exact_edit', 'expected_sha256']);
    const openPlan = (p: string) => (p === ws.path('docs/plan.md') ? PLAN : undefined);
    assert.deepEqual(ofCode(live(ws, base(), openPlan), 'report/stale-edit'), []);
  });

  test('report/missing-target', () => {
    const ws = setup({});
    const f = ofCode(live(ws, base()), 'report/missing-target');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target.path, ['entries', 0, 'path']);
  });

  test('report/anchor-out-of-range: end_line beyond the file', () => {
    const ws = setup({ 'docs/plan.md': PLAN });
    const r = base();
    ((r.entries as Record<string, unknown>[])[0]!.exact_edit as Record<string, unknown>).anchor = { start_line: 1, end_line: 4 };
    const f = ofCode(live(ws, r), 'report/anchor-out-of-range');
    assert.deepEqual(f[0]!.target.path, ['entries', 0, 'exact_edit', 'anchor', 'end_line']);
  });

  test('report/dedupe-not-duplicate', () => {
    const canonical = '# Rules\nAlways run tests.\n';
    const dup = '# Notes\nAlways run tests.\nOther\n';
    const ws = setup({ 'AGENTS.md': canonical, 'docs/notes.md': dup });
    const mk = (line: number) =>
      makeReport([deterministicEntry('docs/notes.md', { kind: 'dedupe', expected_sha256: sha(dup), anchor: { start_line: line, end_line: line }, canonical_ref: { path: 'AGENTS.md', start_line: 2, end_line: 2 } })]);
    assert.deepEqual(live(ws, mk(2)), []);
    const f = ofCode(live(ws, mk(3)), 'report/dedupe-not-duplicate');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target.path, ['entries', 0, 'exact_edit', 'canonical_ref']);
  });

  test('report/unsafe-path (live): a symlink that leads out of the workspace', () => {
    const outside = setup({ 'secret.md': PLAN });
    const ws = setup({});
    symlinkSync(join(outside.root), ws.path('docs'));
    const r = base();
    ((r.entries as Record<string, unknown>[])[0]!.exact_edit as Record<string, unknown>).dest_path = 'docs/archive/plan.md';
    const f = ofCode(live(ws, r), 'report/unsafe-path');
    assert.ok(f.some((x) => x.target.path.join('.') === 'entries.0.path'));
    assert.match(f[0]!.message, /symlink/);
  });

  test('report/unsafe-path (live): project_root leaving the workspace', () => {
    const ws = setup({ 'docs/plan.md': PLAN });
    const r = base();
    r.scan = { ...(r.scan as object), project_root: '..' };
    const f = ofCode(live(ws, r), 'report/unsafe-path');
    assert.deepEqual(f[0]!.target.path, ['scan', 'project_root']);
  });
});

describe('robustness (property)', () => {
  test('rules, planning and lenses never throw on arbitrary JSON or on a report with random field types', async () => {
    const fc = (await import('fast-check')).default;
    const { planExactEdit } = await import('../../server/src/core/agentJson/report/exactEdit');
    const { reportLenses } = await import('../../server/src/core/agentJson/report/lenses');
    const ws = tempWorkspace({ 'docs/plan.md': PLAN });
    try {
      const reader = ws.reader();
      const fsPath = ws.path('hygiene.report.json');
      const anyVal = fc.jsonValue({ maxDepth: 2 });
      const field = (name: string) => fc.oneof(anyVal, fc.constant(get(archiveEntry().exact_edit, name)));
      const eeArb = fc.record(
        {
          kind: fc.oneof(fc.constantFrom('delete-range', 'move-to-archive', 'insert-frontmatter', 'replace-text', 'dedupe', 'delete', 'extract-then-delete'), anyVal),
          expected_sha256: fc.oneof(fc.constant(sha(PLAN)), anyVal),
          anchor: fc.oneof(fc.record({ start_line: fc.oneof(fc.integer({ min: -2, max: 6 }), anyVal), end_line: fc.oneof(fc.integer({ min: -2, max: 6 }), anyVal) }, { requiredKeys: [] }), fc.constant({ whole_file: true }), anyVal),
          dest_path: field('dest_path'),
          canonical_ref: fc.oneof(fc.record({ path: fc.oneof(fc.constant('docs/plan.md'), anyVal), start_line: anyVal, end_line: anyVal }, { requiredKeys: [] }), anyVal),
          lifecycle: fc.oneof(fc.record({ lifetime: anyVal, served_when: anyVal, served_when_path: anyVal, rule_ref: anyVal }, { requiredKeys: [] }), anyVal),
          extraction_target: fc.oneof(fc.constantFrom('repo-durable', 'cross-repo'), anyVal),
          target_ref: fc.oneof(fc.constant('docs/plan.md'), anyVal),
          key: anyVal,
          value: anyVal,
          match: anyVal,
          replacement: anyVal,
        },
        { requiredKeys: [] },
      );
      const entryArb = fc.record(
        {
          path: fc.oneof(fc.constant('docs/plan.md'), anyVal),
          op_type: fc.oneof(fc.constantFrom('deterministic', 'generative'), anyVal),
          is_destructive: anyVal,
          is_reversible: anyVal,
          safety_tier: fc.oneof(fc.constantFrom('auto', 'confirm'), anyVal),
          category: fc.oneof(fc.record({ class: anyVal, subtype: anyVal }), anyVal),
          exact_edit: fc.oneof(eeArb, anyVal),
          lifecycle: anyVal,
          git: anyVal,
        },
        { requiredKeys: [] },
      );
      const reportArb = fc.oneof(
        anyVal,
        fc.record(
          {
            generated_at: anyVal,
            scan: fc.oneof(fc.constant({ project_root: '.' }), anyVal),
            shortlist: fc.oneof(fc.array(fc.oneof(fc.constant('docs/plan.md'), anyVal)), anyVal),
            entries: fc.oneof(fc.array(entryArb, { maxLength: 3 }), anyVal),
            promotion_candidates: anyVal,
          },
          { requiredKeys: [] },
        ),
      );
      fc.assert(
        fc.property(reportArb, (report) => {
          run(report, { fsPath, workspace: reader });
          reportLenses(report, reader, true, fsPath);
          for (let i = 0; i < 3; i++) {
            const p = planExactEdit(report, i, reader, { tierAllowed: 'all', trusted: true, reportFsPath: fsPath });
            if (p.ok) assert.ok(Array.isArray(p.changes));
          }
        }),
        { numRuns: 400 },
      );
    } finally {
      ws.cleanup();
    }
  });
});

function get(o: unknown, k: string): unknown {
  return o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined;
}

describe('golden examples through the check facade', () => {
  test('examples/golden/valid-report.json has no report/* diagnostic, live checks included', async () => {
    const { readFileSync, existsSync } = await import('node:fs');
    const { resolve } = await import('node:path');
    const { checkDocument } = await import('../../server/src/core/agentJson/check');
    const { createNodeWorkspace } = await import('../../server/src/node/workspace');
    const repoRoot = resolve(import.meta.dirname, '../..');
    const fsPath = resolve(repoRoot, 'examples/golden/valid-report.json');
    assert.ok(existsSync(fsPath), 'the golden valid report exists');
    const result = checkDocument(readFileSync(fsPath, 'utf8'), { fsPath, workspace: createNodeWorkspace(repoRoot) });
    assert.deepEqual(result.diagnostics.map((d) => `${d.code}: ${d.message}`), []);
  });
});

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import fc from 'fast-check';
import { isInside, unsafePathReason } from '../../server/src/core/agentJson/report/paths';
import { planExactEdit } from '../../server/src/core/agentJson/report/exactEdit';
import { reportLenses, planApplyAllAuto } from '../../server/src/core/agentJson/report/lenses';
import { reportRules } from '../../server/src/core/agentJson/rules/report';
import { applyChangesNode } from '../../server/src/node/workspace';
import { deterministicEntry, makeReport, recordingReader, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

describe('unsafePathReason', () => {
  test('safe project-root-relative paths', () => {
    for (const p of ['docs/plan.md', 'tmp/', './a.md', 'a b/c.md', '~notes.md', 'x%zz.md']) assert.equal(unsafePathReason(p), undefined, p);
  });
  test('unsafe paths, each with a reason', () => {
    const corpus = ['', '/etc/passwd', '../x.md', 'a/../../x.md', 'a/../b.md', '..\\x.md', 'a\\b.md', 'C:/x.md', 'c:x.md', '%2e%2e/x.md', 'a%2Fb.md', 'a\u0000b.md', 'a\nb.md', 'file:///etc/passwd', '\\\\server\\share\\x', '.git/config', 'sub/.GIT/hooks/pre-commit'];
    for (const p of corpus) assert.ok(unsafePathReason(p), JSON.stringify(p));
    assert.equal(unsafePathReason('../x.md'), 'leaves the project root');
  });
  test('project_root may use ".." but nothing else unsafe', () => {
    assert.equal(unsafePathReason('..', { allowDotDot: true }), undefined);
    assert.ok(unsafePathReason('/abs', { allowDotDot: true }));
  });
});

/**
 * A sandbox holding a workspace (`ws`) and, beside it, files that must never be read or written:
 * sandbox/secret.md, reachable as "../secret.md" or through the symlinks ws/out → sandbox and
 * ws/out-file.md → sandbox/secret.md.
 */
const SECRET = 'secret\nline 2\nline 3\n';
const spaces: TempWorkspace[] = [];
after(() => spaces.forEach((s) => s.cleanup()));
function sandbox() {
  const outside = tempWorkspace({ 'secret.md': SECRET, 'archive/keep.md': 'k\n' });
  const ws = tempWorkspace({ 'doc.md': SECRET, 'docs/decisions.md': SECRET }, { parent: outside.root, git: true });
  symlinkSync(outside.root, ws.path('out'));
  symlinkSync(outside.path('secret.md'), ws.path('out-file.md'));
  spaces.push(outside);
  const outsideSnapshot = () => new Map([...outside.snapshot()].filter(([k]) => !k.startsWith(ws.root.slice(outside.root.length + 1) + '/')));
  return { ws, outside, outsideSnapshot };
}

const TRAVERSAL = [
  '/etc/passwd',
  '../secret.md',
  'docs/../../secret.md',
  '..\\secret.md',
  'C:\\secret.md',
  'C:/secret.md',
  '%2e%2e/secret.md',
  '..%2fsecret.md',
  'doc.md\u0000../../secret.md',
  'out/secret.md',
  'out-file.md',
  'out/archive/new.md',
  'out/',
  'file:///etc/passwd',
  '\\\\server\\share\\secret.md',
];

type Field = 'path' | 'dest_path' | 'canonical' | 'target_ref' | 'project_root';
function reportWith(field: Field, p: string) {
  const anchor = { start_line: 1, end_line: 2 };
  const entries = {
    path: deterministicEntry(p, { kind: 'delete-range', expected_sha256: sha(SECRET), anchor }),
    dest_path: deterministicEntry('doc.md', { kind: 'move-to-archive', expected_sha256: sha(SECRET), anchor, dest_path: p }),
    canonical: deterministicEntry('doc.md', { kind: 'dedupe', expected_sha256: sha(SECRET), anchor, canonical_ref: { path: p, start_line: 1, end_line: 2 } }),
    target_ref: deterministicEntry(
      'doc.md',
      { kind: 'extract-then-delete', expected_sha256: sha(SECRET), anchor: { whole_file: true }, lifecycle: { rule_ref: 'r', lifetime: 'temporary' }, extraction_target: 'repo-durable', target_ref: p },
      { git: { tracked: true, clean: true }, safety_tier: 'auto' },
    ),
    project_root: deterministicEntry('secret.md', { kind: 'delete-range', expected_sha256: sha(SECRET), anchor }),
  } as const;
  const r = makeReport([entries[field]]);
  if (field === 'project_root') r.scan = { ...(r.scan as object), project_root: p };
  return r;
}

function exerciseEverything(ws: TempWorkspace, report: unknown) {
  const { reader, asked } = recordingReader(ws.reader());
  const reportFsPath = ws.path('hygiene.report.json');
  reportRules(report, { text: '', fsPath: reportFsPath, workspace: reader });
  reportLenses(report, reader, true, reportFsPath);
  reportLenses(report, reader, false, reportFsPath);
  const batch = planApplyAllAuto(report, reader, reportFsPath);
  const plans = [
    planExactEdit(report, 0, reader, { tierAllowed: 'all', trusted: true, reportFsPath, confirmed: true }),
    planExactEdit(report, 0, reader, { tierAllowed: 'all', trusted: true, reportFsPath }),
  ];
  for (const p of plans) if (p.ok) applyChangesNode(p.changes, ws.root);
  if (batch.changes.length) applyChangesNode(batch.changes, ws.root);
  return { asked, plans };
}

describe('traversal corpus: nothing outside the workspace is read or written', () => {
  for (const field of ['path', 'dest_path', 'canonical', 'target_ref', 'project_root'] as Field[]) {
    test(`in ${field}`, () => {
      const { ws, outsideSnapshot } = sandbox();
      const before = outsideSnapshot();
      for (const p of TRAVERSAL) {
        const { asked, plans } = exerciseEverything(ws, reportWith(field, p));
        for (const a of asked) assert.ok(isInside(ws.root, a), `${field}=${JSON.stringify(p)} asked about ${a}`);
        for (const plan of plans) assert.equal(plan.ok, false, `${field}=${JSON.stringify(p)} planned an edit`);
        const rules = reportRules(reportWith(field, p), { text: '', fsPath: ws.path('hygiene.report.json'), workspace: ws.reader() });
        assert.ok(rules.some((f) => f.code === 'report/unsafe-path'), `${field}=${JSON.stringify(p)}: no unsafe-path finding`);
      }
      assert.deepEqual(outsideSnapshot(), before);
    });
  }

  test('property: random paths in any field never reach outside', () => {
    const { ws, outsideSnapshot } = sandbox();
    const before = outsideSnapshot();
    const segment = fc.constantFrom('..', '.', '', 'doc.md', 'docs', 'out', 'out-file.md', 'secret.md', '%2e%2e', 'C:', '\u0000', 'archive', '~', '\\..');
    const pathArb = fc.tuple(fc.boolean(), fc.array(segment, { minLength: 1, maxLength: 5 }), fc.constantFrom('/', '\\')).map(([abs, segs, sep]) => (abs ? sep : '') + segs.join(sep));
    fc.assert(
      fc.property(fc.constantFrom<Field>('path', 'dest_path', 'canonical', 'target_ref', 'project_root'), pathArb, (field, p) => {
        const { asked } = exerciseEverything(ws, reportWith(field, p));
        return asked.every((a) => isInside(ws.root, a));
      }),
      { numRuns: 300 },
    );
    assert.deepEqual(outsideSnapshot(), before);
  });
});

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { symlinkSync } from 'node:fs';
import { planExactEdit, type PlanOptions, type PlanResult } from '../../server/src/core/agentJson/report/exactEdit';
import { applyChangesNode } from '../../server/src/node/workspace';
import { deterministicEntry, generativeEntry, makeReport, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

const spaces: TempWorkspace[] = [];
after(() => spaces.forEach((s) => s.cleanup()));
function setup(files: Record<string, string>, git = false): TempWorkspace {
  const ws = tempWorkspace(files, { git });
  spaces.push(ws);
  return ws;
}

function plan(ws: TempWorkspace, report: unknown, opts: Partial<PlanOptions> = {}, open?: (p: string) => string | undefined): PlanResult {
  return planExactEdit(report, 0, ws.reader(open), { tierAllowed: 'all', trusted: true, reportFsPath: ws.path('hygiene.report.json'), ...opts });
}

/** Plans entry 0 and applies it with the Node writer; asserts it planned. */
function apply(ws: TempWorkspace, report: unknown, opts: Partial<PlanOptions> = {}): PlanResult {
  const p = plan(ws, report, opts);
  assert.ok(p.ok, p.ok ? '' : `expected a plan, got: ${p.reason}`);
  const w = applyChangesNode(p.changes, ws.root);
  assert.deepEqual(w, { ok: true });
  return p;
}

function assertRefused(ws: TempWorkspace, report: unknown, code: string, opts: Partial<PlanOptions> = {}): PlanResult {
  const before = ws.snapshot();
  const p = plan(ws, report, opts);
  assert.equal(p.ok, false);
  if (!p.ok) assert.equal(p.code, code, p.reason);
  assert.deepEqual(ws.snapshot(), before);
  return p;
}

const one = (entry: Record<string, unknown>) => makeReport([entry]);

describe('delete-range', () => {
  const text = 'a\nb\nc\nd\n';
  const report = (start: number, end: number, content = text) =>
    one(deterministicEntry('doc.md', { kind: 'delete-range', expected_sha256: sha(content), anchor: { start_line: start, end_line: end } }));
  test('removes the anchored lines (inclusive, 1-based)', () => {
    const ws = setup({ 'doc.md': text });
    const p = apply(ws, report(2, 3));
    assert.equal(ws.read('doc.md'), 'a\nd\n');
    assert.ok(p.ok && p.tier === 'confirm');
  });
  test('refused when the anchor lies beyond the file', () => {
    const ws = setup({ 'doc.md': text });
    assertRefused(ws, report(3, 9), 'mismatch');
  });
  test('confirm tier is not applied when only auto is allowed', () => {
    const ws = setup({ 'doc.md': text });
    const p = assertRefused(ws, report(1, 1), 'tier', { tierAllowed: 'auto' });
    assert.equal(!p.ok && p.needsConfirmation, true);
  });
});

describe('sha256 guard and trust', () => {
  const text = 'x\ny\n';
  const report = () => one(deterministicEntry('doc.md', { kind: 'replace-text', expected_sha256: sha(text), anchor: { start_line: 1, end_line: 1 }, match: 'x', replacement: 'z' }));
  test('a changed file is refused with "re-run the check"', () => {
    const ws = setup({ 'doc.md': text + 'edited\n' });
    const p = assertRefused(ws, report(), 'stale');
    assert.match(!p.ok ? p.reason : '', /changed since generated_at; re-run the check/);
  });
  test('the open buffer is what is hashed and edited', () => {
    const ws = setup({ 'doc.md': 'on disk\n' });
    const p = plan(ws, report(), {}, (path) => (path === ws.path('doc.md') ? text : undefined));
    assert.ok(p.ok);
    assert.equal(p.changes[0]!.type, 'edit');
  });
  test('untrusted: nothing is planned', () => {
    const ws = setup({ 'doc.md': text });
    assertRefused(ws, report(), 'untrusted', { trusted: false });
  });
  test('a generative entry has nothing to apply', () => {
    const ws = setup({ 'doc.md': text });
    assertRefused(ws, makeReport([generativeEntry('doc.md')]), 'not-deterministic');
  });
  test('an entry with an error finding (recorded auto for a destructive kind) is refused', () => {
    const ws = setup({ 'doc.md': text });
    const e = deterministicEntry('doc.md', { kind: 'delete-range', expected_sha256: sha(text), anchor: { start_line: 1, end_line: 1 } }, { safety_tier: 'auto' });
    assertRefused(ws, one(e), 'invalid-entry');
  });
  test('the Node writer re-checks the hash: a file changed after planning is not written', () => {
    const ws = setup({ 'doc.md': text });
    const p = plan(ws, report());
    assert.ok(p.ok);
    ws.write('doc.md', 'x\ny\nlate edit\n');
    const w = applyChangesNode(p.changes, ws.root);
    assert.equal(w.ok, false);
    assert.equal(ws.read('doc.md'), 'x\ny\nlate edit\n');
  });
});

describe('move-to-archive', () => {
  const text = 'keep\nold 1\nold 2\n';
  const report = (anchor: { start_line: number; end_line: number }, dest = 'archive/doc.md', content = text) =>
    one(deterministicEntry('doc.md', { kind: 'move-to-archive', expected_sha256: sha(content), anchor, dest_path: dest }));
  test('moves lines into a new destination (folders created)', () => {
    const ws = setup({ 'doc.md': text });
    const p = apply(ws, report({ start_line: 2, end_line: 3 }), { tierAllowed: 'auto' });
    assert.ok(p.ok && p.tier === 'auto');
    assert.equal(ws.read('doc.md'), 'keep\n');
    assert.equal(ws.read('archive/doc.md'), 'old 1\nold 2\n');
  });
  test('appends to an existing destination, adding a missing line break', () => {
    const ws = setup({ 'doc.md': text, 'archive/doc.md': 'earlier' });
    apply(ws, report({ start_line: 2, end_line: 2 }));
    assert.equal(ws.read('archive/doc.md'), 'earlier\nold 1\n');
    assert.equal(ws.read('doc.md'), 'keep\nold 2\n');
  });
  test('a whole-file anchor onto a missing destination renames the file; a trailing "/" means that folder', () => {
    const ws = setup({ 'doc.md': text });
    apply(ws, report({ start_line: 1, end_line: 3 }, 'archive/'));
    assert.equal(ws.exists('doc.md'), false);
    assert.equal(ws.read('archive/doc.md'), text);
  });
  test('refused when the destination escapes through a symlink', () => {
    const outside = setup({});
    const ws = setup({ 'doc.md': text });
    symlinkSync(outside.root, ws.path('archive'));
    assertRefused(ws, report({ start_line: 2, end_line: 3 }), 'unsafe-path');
    assert.deepEqual([...outside.snapshot().keys()], []);
  });
});

describe('insert-frontmatter', () => {
  const report = (content: string, key = 'hygiene', value: unknown = 'frozen') =>
    one(deterministicEntry('doc.md', { kind: 'insert-frontmatter', expected_sha256: sha(content), key, value }));
  test('adds a frontmatter at the top when there is none', () => {
    const ws = setup({ 'doc.md': '# Title\n' });
    apply(ws, report('# Title\n'));
    assert.equal(ws.read('doc.md'), '---\nhygiene: frozen\n---\n# Title\n');
  });
  test('adds the key into an existing frontmatter (CRLF kept)', () => {
    const t = '---\r\ntitle: x\r\n---\r\nbody\r\n';
    const ws = setup({ 'doc.md': t });
    apply(ws, report(t));
    assert.equal(ws.read('doc.md'), '---\r\ntitle: x\r\nhygiene: frozen\r\n---\r\nbody\r\n');
  });
  test('refused when the key already has another value', () => {
    const t = '---\nhygiene: live\n---\n';
    const ws = setup({ 'doc.md': t });
    assertRefused(ws, report(t), 'mismatch');
  });
  test('an already present identical key is reported, not re-added', () => {
    const t = '---\nhygiene: frozen\n---\n';
    const ws = setup({ 'doc.md': t });
    assertRefused(ws, report(t), 'already-applied');
  });
});

describe('replace-text', () => {
  const text = 'see old-link here\nold-link again\n';
  const report = (start: number, end: number, match = 'old-link') =>
    one(deterministicEntry('doc.md', { kind: 'replace-text', expected_sha256: sha(text), anchor: { start_line: start, end_line: end }, match, replacement: 'new-link' }));
  test('replaces the single occurrence within the anchor only', () => {
    const ws = setup({ 'doc.md': text });
    apply(ws, report(2, 2));
    assert.equal(ws.read('doc.md'), 'see old-link here\nnew-link again\n');
  });
  test('refused when match is not within the anchor', () => {
    const ws = setup({ 'doc.md': text });
    assertRefused(ws, report(1, 1, 'again'), 'mismatch');
  });
  test('refused when match occurs more than once in the anchor', () => {
    const ws = setup({ 'doc.md': text });
    assertRefused(ws, report(1, 2), 'mismatch');
  });
});

describe('dedupe', () => {
  const canonical = '# Rules\nAlways run tests.\nUse pnpm.\n';
  const notes = '# Notes\nAlways run tests.\nUse pnpm.\nLocal tip\n';
  const report = (cStart: number, cEnd: number) =>
    one(deterministicEntry('notes.md', { kind: 'dedupe', expected_sha256: sha(notes), anchor: { start_line: 2, end_line: 3 }, canonical_ref: { path: 'AGENTS.md', start_line: cStart, end_line: cEnd } }));
  test('removes a span byte-identical to its canonical_ref', () => {
    const ws = setup({ 'AGENTS.md': canonical, 'notes.md': notes });
    const p = apply(ws, report(2, 3), { tierAllowed: 'auto' });
    assert.ok(p.ok && p.tier === 'auto');
    assert.equal(ws.read('notes.md'), '# Notes\nLocal tip\n');
    assert.equal(ws.read('AGENTS.md'), canonical);
  });
  test('refused when the spans differ (it would destroy information)', () => {
    const ws = setup({ 'AGENTS.md': canonical, 'notes.md': notes });
    assertRefused(ws, report(1, 2), 'mismatch');
  });
  test('refused when the canonical file is gone', () => {
    const ws = setup({ 'notes.md': notes });
    assertRefused(ws, report(2, 3), 'missing-target');
  });
});

describe('delete (lifecycle, live git)', () => {
  const text = 'scratch\n';
  const report = (lifecycle: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    one(deterministicEntry('tmp/scratch.md', { kind: 'delete', expected_sha256: sha(text), anchor: { whole_file: true }, lifecycle }, extra));
  const temporary = { rule_ref: 'tmp', lifetime: 'temporary' };
  test('scanner-proven, tracked and clean: auto, deleted', () => {
    const ws = setup({ 'tmp/scratch.md': text }, true);
    const p = apply(ws, report(temporary, { safety_tier: 'auto', git: { tracked: true, clean: true } }), { tierAllowed: 'auto' });
    assert.ok(p.ok && p.tier === 'auto');
    assert.equal(ws.exists('tmp/scratch.md'), false);
  });
  test('untracked file: needs confirmation, never deleted unattended', () => {
    const ws = setup({ 'tmp/scratch.md': text });
    ws.commitAll();
    ws.write('tmp/new.md', text);
    const r = makeReport([deterministicEntry('tmp/new.md', { kind: 'delete', expected_sha256: sha(text), anchor: { whole_file: true }, lifecycle: temporary })]);
    const p = assertRefused(ws, r, 'git');
    assert.equal(!p.ok && p.needsConfirmation, true);
  });
  test('recorded auto but dirty now: confirm tier, skipped under --tier auto', () => {
    const ws = setup({ 'tmp/scratch.md': 'committed\n' }, true);
    ws.write('tmp/scratch.md', text); // dirty
    const p = assertRefused(ws, report(temporary, { safety_tier: 'auto', git: { tracked: true, clean: true } }), 'tier', { tierAllowed: 'auto' });
    assert.equal(!p.ok && p.tier, 'confirm');
  });
  test('classifier-judged evidence is confirm tier', () => {
    const ws = setup({ 'tmp/scratch.md': text }, true);
    assertRefused(ws, report({ rule_ref: 'r', lifetime: 'delete-once-served', served_when: 'shipped' }), 'tier', { tierAllowed: 'auto' });
  });
  test('a symlinked target is never deleted', () => {
    const ws = setup({ 'real.md': text }, true);
    symlinkSync(ws.path('real.md'), ws.path('link.md'));
    ws.commitAll();
    const r = makeReport([deterministicEntry('link.md', { kind: 'delete', expected_sha256: sha(text), anchor: { whole_file: true }, lifecycle: temporary })]);
    assertRefused(ws, r, 'unsafe-path');
  });
});

describe('extract-then-delete', () => {
  const text = 'Decision: use sqlite.\n';
  const report = (extra: Record<string, unknown>) =>
    one(
      deterministicEntry(
        'notes/decision.md',
        { kind: 'extract-then-delete', expected_sha256: sha(text), anchor: { whole_file: true }, lifecycle: { rule_ref: 'notes', lifetime: 'temporary' }, ...extra },
        { safety_tier: 'auto', git: { tracked: true, clean: true } },
      ),
    );
  test('deletes once the target document contains the content', () => {
    const ws = setup({ 'notes/decision.md': text, 'docs/decisions.md': '# Decisions\n\nDecision: use sqlite.\n' }, true);
    apply(ws, report({ extraction_target: 'repo-durable', target_ref: 'docs/decisions.md' }), { tierAllowed: 'auto' });
    assert.equal(ws.exists('notes/decision.md'), false);
  });
  test('refused while the target document does not exist (extraction not done)', () => {
    const ws = setup({ 'notes/decision.md': text }, true);
    assertRefused(ws, report({ extraction_target: 'repo-durable', target_ref: 'docs/decisions.md' }), 'extraction');
  });
  test('asks when the target exists without the content', () => {
    const ws = setup({ 'notes/decision.md': text, 'docs/decisions.md': '# Decisions\n' }, true);
    const p = assertRefused(ws, report({ extraction_target: 'repo-durable', target_ref: 'docs/decisions.md' }), 'extraction');
    assert.equal(!p.ok && p.needsConfirmation, true);
    assert.ok(plan(ws, report({ extraction_target: 'repo-durable', target_ref: 'docs/decisions.md' }), { confirmed: true }).ok);
  });
  test('cross-repo always asks', () => {
    const ws = setup({ 'notes/decision.md': text }, true);
    const p = assertRefused(ws, report({ extraction_target: 'cross-repo' }), 'extraction');
    assert.equal(!p.ok && p.needsConfirmation, true);
  });
});

describe('a BOM is kept and never edited', () => {
  const text = '\uFEFF---\ntitle: x\n---\nline\n';
  test('insert-frontmatter into a BOM file with frontmatter; delete-range of line 1 keeps the BOM', () => {
    const ws = setup({ 'doc.md': text });
    const p = apply(ws, one(deterministicEntry('doc.md', { kind: 'insert-frontmatter', expected_sha256: sha(text), key: 'hygiene', value: 'frozen' })));
    assert.ok(p.ok && p.changes[0]!.type === 'edit' && p.changes[0]!.diskBom === true);
    assert.equal(ws.read('doc.md'), '\uFEFF---\ntitle: x\nhygiene: frozen\n---\nline\n');
    const now = ws.read('doc.md');
    apply(ws, one(deterministicEntry('doc.md', { kind: 'delete-range', expected_sha256: sha(now), anchor: { start_line: 1, end_line: 4 } })));
    assert.equal(ws.read('doc.md'), '\uFEFFline\n');
  });
  test('a whole-file move of a BOM file keeps its bytes', () => {
    const ws = setup({ 'doc.md': text });
    apply(ws, one(deterministicEntry('doc.md', { kind: 'move-to-archive', expected_sha256: sha(text), anchor: { start_line: 1, end_line: 4 }, dest_path: 'archive/doc.md' })));
    assert.equal(ws.read('archive/doc.md'), text);
    assert.equal(ws.exists('doc.md'), false);
  });
});

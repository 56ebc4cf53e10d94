import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { run } from '../../server/src/cli/apply';
import type { CliIO } from '../../server/src/cli/io';
import { deterministicEntry, generativeEntry, makeReport, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

const spaces: TempWorkspace[] = [];
after(() => spaces.forEach((s) => s.cleanup()));

function capture(cwd: string): CliIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    cwd,
    stdout: (t: string) => void (io.out += t),
    stderr: (t: string) => void (io.err += t),
    readStdin: async () => '',
  };
  return io;
}

const DOC = 'keep\nold\n';
const DR = 'x\ny\n';
function fixture(extraEntries: Record<string, unknown>[] = [], files: Record<string, string> = {}) {
  const ws = tempWorkspace({ 'doc.md': DOC, 'dr.md': DR, ...files }, { git: true });
  spaces.push(ws);
  const report = makeReport([
    deterministicEntry('doc.md', { kind: 'move-to-archive', expected_sha256: sha(DOC), anchor: { start_line: 2, end_line: 2 }, dest_path: 'archive/doc.md' }),
    deterministicEntry('dr.md', { kind: 'delete-range', expected_sha256: sha(DR), anchor: { start_line: 1, end_line: 1 } }),
    generativeEntry('doc.md'),
    ...extraEntries,
  ]);
  ws.write('hygiene.report.json', JSON.stringify(report, null, 2));
  return ws;
}

describe('toonlens apply', () => {
  test('usage and I/O errors exit 2', async () => {
    const ws = fixture();
    ws.write('bad.report.json', '{ not json');
    for (const argv of [[], ['--tier', 'sometimes', 'hygiene.report.json'], ['nope.json'], ['bad.report.json'], ['a.json', 'b.json'], ['--bogus', 'x.json']]) {
      const io = capture(ws.root);
      assert.equal(await run(argv, io), 2, argv.join(' '));
      assert.notEqual(io.err, '');
    }
  });

  test('default tier auto: applies auto entries, skips confirm and generative ones, exit 0', async () => {
    const ws = fixture();
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json'], io), 0);
    const lines = io.out.trim().split('\n');
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /^entries\[0\] doc\.md: applied: /);
    assert.match(lines[1]!, /^entries\[1\] dr\.md: skipped: confirm tier/);
    assert.match(lines[2]!, /^entries\[2\] doc\.md: skipped: generative op/);
    assert.equal(ws.read('doc.md'), 'keep\n');
    assert.equal(ws.read('archive/doc.md'), 'old\n');
    assert.equal(ws.read('dr.md'), DR);
  });

  test('--tier confirm applies confirm-tier entries only', async () => {
    const ws = fixture();
    const io = capture(ws.root);
    assert.equal(await run(['--tier', 'confirm', 'hygiene.report.json'], io), 0);
    assert.equal(ws.read('dr.md'), 'y\n');
    assert.equal(ws.read('doc.md'), DOC);
  });

  test('--dry-run writes nothing', async () => {
    const ws = fixture();
    const before = ws.snapshot();
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json', '--dry-run', '--tier=all'], io), 0);
    assert.match(io.out, /would apply: Move line 2 of doc\.md/);
    assert.deepEqual(ws.snapshot(), before);
  });

  test('a stale entry is refused: exit 1, that file untouched; --format json', async () => {
    const ws = fixture();
    ws.write('dr.md', 'changed\n');
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json', '--tier', 'all', '--format', 'json'], io), 1);
    const out = JSON.parse(io.out);
    assert.equal(out.results[1].status, 'refused');
    assert.match(out.results[1].reason, /re-run the check/);
    assert.equal(out.applied, 1);
    assert.equal(ws.read('dr.md'), 'changed\n');
  });

  test('a delete of a dirty file is never done by the CLI, even with --tier all', async () => {
    const del = deterministicEntry('tmp/s.md', { kind: 'delete', expected_sha256: sha('dirty\n'), anchor: { whole_file: true }, lifecycle: { rule_ref: 'tmp', lifetime: 'temporary' } });
    const ws = fixture([del], { 'tmp/s.md': 'committed\n' });
    ws.write('tmp/s.md', 'dirty\n');
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json', '--tier', 'all'], io), 1);
    assert.match(io.out, /entries\[3\] tmp\/s\.md: refused: .*uncommitted changes/);
    assert.equal(ws.read('tmp/s.md'), 'dirty\n');
  });

  test('a report whose project_root leaves --root is refused entirely', async () => {
    const ws = fixture();
    const r = JSON.parse(ws.read('hygiene.report.json'));
    r.scan.project_root = '..';
    ws.write('hygiene.report.json', JSON.stringify(r));
    const before = ws.snapshot();
    const io = capture(ws.root);
    assert.equal(await run(['hygiene.report.json', '--tier', 'all'], io), 1);
    assert.deepEqual(ws.snapshot(), before);
  });

  test('a report in a sub-folder with project_root ".." works inside its git work tree (the default root)', async () => {
    const ws = fixture();
    const r = JSON.parse(ws.read('hygiene.report.json'));
    r.scan.project_root = '..';
    ws.write('reports/hygiene.report.json', JSON.stringify(r));
    ws.commitAll();
    const io = capture(ws.path('reports'));
    assert.equal(await run(['hygiene.report.json'], io), 0, io.out + io.err);
    assert.equal(ws.read('archive/doc.md'), 'old\n');
  });
});

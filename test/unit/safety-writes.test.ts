// Writes that a hostile repository cannot steer, driven through the built
// CLI (`node bin/toonlens.js apply` / `check --fix`) on real temp repositories with a .git, symlinks into
// it and out of the workspace, a nested repository, dangling symlinks, odd modes and hard links.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deterministicEntry, makeReport, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';
import { CLI, gitDirSnapshot, hostileRepo, leftoverTemps, mkfifo, moveReport, runCli } from '../fixtures/safety/helpers';
import { REPO_ROOT } from '../paths';
import { WriteRefused, replaceFile, writeHooks } from '../../server/src/node/safeWrite';
import { applyChangesNode } from '../../server/src/node/workspace';
import { planExactEdit } from '../../server/src/core/agentJson/report/exactEdit';

const cleanups: (() => void)[] = [];
after(() => cleanups.forEach((c) => c()));
function repo(files: Record<string, string> = {}) {
  const r = hostileRepo(files);
  cleanups.push(r.cleanup);
  return r;
}

describe('apply never writes into .git or outside the workspace', () => {
  const destinations: [string, RegExp][] = [
    ['docs/g/hooks/post-checkout', /inside \.git/],
    ['docs/g/info/attributes', /inside \.git/],
    ['docs/g/config', /inside \.git/],
    ['docs/G/hooks/post-checkout', /dangling|inside \.git/],
    ['docs/nested/hooks/post-checkout', /inside \.git/],
    ['out/planted.md', /outside the workspace/],
    ['docs/dangling/planted.md', /dangling symlink/],
    ['docs/dangling-file.md', /dangling symlink|symlink|exists/],
  ];
  for (const [dest, why] of destinations) {
    test(`move-to-archive to ${dest}: refused, exit 1, nothing written anywhere`, () => {
      const { ws, outside } = repo();
      const report = moveReport(ws, dest);
      const gitBefore = gitDirSnapshot(ws);
      const nestedBefore = gitDirSnapshot(ws, 'vendor/lib/.git');
      const outsideBefore = outside.snapshot();
      const r = runCli(['apply', report], ws.root);
      assert.equal(r.timedOut, false);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stdout, /refused: /);
      assert.match(r.stdout, why);
      assert.equal(ws.read('docs/a.md'), 'line one\nline two\n');
      assert.deepEqual(gitDirSnapshot(ws), gitBefore);
      assert.deepEqual(gitDirSnapshot(ws, 'vendor/lib/.git'), nestedBefore);
      assert.deepEqual(outside.snapshot(), outsideBefore);
      assert.equal(existsSync(join(outside.root, 'new-dir')), false);
      assert.equal(existsSync(join(outside.root, 'new-file.md')), false);
      // check reports the same path as report/unsafe-path (an error), so CI sees it before anyone applies.
      const c = runCli(['check', '--format', 'json', report], ws.root);
      const diags = (JSON.parse(c.stdout) as { diagnostics: { code: string; message: string }[] }[])[0]!.diagnostics;
      assert.ok(diags.some((d) => d.code === 'report/unsafe-path'), JSON.stringify(diags));
    });
  }

  test('a plain destination inside the workspace is still applied (exit 0)', () => {
    const { ws } = repo();
    const r = runCli(['apply', moveReport(ws, 'docs/archive/a.md')], ws.root);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.equal(ws.read('docs/archive/a.md'), 'line one\nline two\n');
    assert.equal(ws.exists('docs/a.md'), false);
  });

  test('edits and deletes through a symlinked folder into .git are refused (any spelling of the path)', () => {
    const { ws } = repo();
    const config = ws.read('.git/config');
    const entry = (path: string) =>
      deterministicEntry(path, { kind: 'replace-text', expected_sha256: sha(config), anchor: { start_line: 1, end_line: 1 }, match: '[core]', replacement: '[core]\n\tfsmonitor = touch /tmp/pwned' });
    ws.write('hygiene.report.json', JSON.stringify(makeReport([entry('docs/g/config'), entry('docs/nested/../../.git/config'), entry('.Git/config'), entry('.git./config'), entry('git~1/config')])));
    const r = runCli(['apply', '--tier', 'all', 'hygiene.report.json'], ws.root);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.equal(r.stdout.trim().split('\n').filter((l) => / refused: /.test(l)).length, 5, r.stdout);
    assert.equal(ws.read('.git/config'), config);
  });
});

describe('the writer re-checks right before each operation', () => {
  test('a folder swapped for a symlink between plan and write: nothing lands outside', () => {
    const { ws, outside } = repo();
    ws.write('docs/sub/b.md', 'one\ntwo\n');
    const report = makeReport([deterministicEntry('docs/sub/b.md', { kind: 'move-to-archive', expected_sha256: sha('one\ntwo\n'), anchor: { start_line: 2, end_line: 2 }, dest_path: 'docs/arch/b.md' })]);
    ws.write('hygiene.report.json', JSON.stringify(report));
    const plan = planExactEdit(report, 0, ws.reader(), { tierAllowed: 'all', trusted: true, reportFsPath: ws.path('hygiene.report.json') });
    assert.ok(plan.ok, !plan.ok ? plan.reason : '');
    // The attacker swaps docs/sub for a symlink to the outside folder holding an identical b.md.
    writeFileSync(join(outside.root, 'b.md'), 'one\ntwo\n');
    renameSync(ws.path('docs/sub'), ws.path('docs/sub-moved'));
    symlinkSync(outside.root, ws.path('docs/sub'));
    const before = outside.snapshot();
    const r = applyChangesNode(plan.changes, ws.root);
    assert.equal(r.ok, false);
    assert.deepEqual(outside.snapshot(), before);
    assert.equal(ws.exists('docs/arch/b.md'), false, 'the create was undone');
    assert.deepEqual(leftoverTemps(ws.root), []);
  });

  test('a folder swapped during the write (at the last check) is caught before the rename', () => {
    const { ws, outside } = repo();
    ws.write('docs/sub/c.md', 'x\n');
    writeFileSync(join(outside.root, 'c.md'), 'x\n');
    writeHooks.beforeOpenDir = (dir) => {
      if (dir.endsWith(`${'/'}sub`) && !existsSync(ws.path('docs/sub-moved'))) {
        renameSync(ws.path('docs/sub'), ws.path('docs/sub-moved'));
        symlinkSync(outside.root, ws.path('docs/sub'));
      }
    };
    try {
      assert.throws(() => replaceFile(ws.root, ws.path('docs/sub/c.md'), sha('x\n'), Buffer.from('pwned\n')), WriteRefused);
    } finally {
      writeHooks.beforeOpenDir = undefined;
    }
    assert.equal(readFileSync(join(outside.root, 'c.md'), 'utf8'), 'x\n');
    assert.deepEqual(leftoverTemps(outside.root), []);
    assert.deepEqual(leftoverTemps(ws.root), []);
  });

  test('hostile race: a process swapping a folder and a symlink while apply runs 40 times never gets a write outside', async () => {
    const { ws, outside } = repo();
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs=require('fs');const [d,o,end]=process.argv.slice(1);const t=Date.now();
         while(Date.now()-t<end){try{fs.renameSync(d,d+'-real');fs.symlinkSync(o,d);}catch{}try{fs.unlinkSync(d);fs.renameSync(d+'-real',d);}catch{}}`,
        ws.path('docs/sub'),
        outside.root,
        '60000',
      ],
      { stdio: 'ignore' },
    );
    let rounds = 0;
    try {
      for (let k = 0; k < 40; k++) {
        try {
          rmSync(ws.path('docs/sub-real'), { recursive: true, force: true });
        } catch {
          // the swapper may hold it
        }
        const body = `k${k}\n`;
        try {
          mkdirSync(ws.path('docs/sub'), { recursive: true });
          writeFileSync(ws.path('docs/sub/d.md'), body);
          writeFileSync(join(outside.root, 'd.md'), body);
        } catch {
          continue;
        }
        ws.write(
          'hygiene.report.json',
          JSON.stringify(makeReport([deterministicEntry('docs/sub/d.md', { kind: 'replace-text', expected_sha256: sha(body), anchor: { start_line: 1, end_line: 1 }, match: `k${k}`, replacement: 'PWNED' })])),
        );
        runCli(['apply', '--tier', 'all', 'hygiene.report.json'], ws.root, { timeoutMs: 20000 });
        rounds++;
        assert.equal(readFileSync(join(outside.root, 'd.md'), 'utf8'), body, `round ${k}: the outside file was written`);
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    assert.ok(rounds >= 10, `only ${rounds} rounds could be set up`);
    assert.deepEqual(leftoverTemps(outside.root), []);
  });
});

describe('check --fix and apply replace files safely', () => {
  const spaces: TempWorkspace[] = [];
  after(() => spaces.forEach((s) => s.cleanup()));
  // A verdict whose derived field is wrong: --fix rewrites it.
  const verdict = (): string => {
    const v = JSON.parse(readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'unsafe-auto-apply.verdict.json'), 'utf8')) as Record<string, unknown>;
    return JSON.stringify(v, null, 2);
  };
  function fixable(): { ws: TempWorkspace; file: string; text: string } {
    const ws = tempWorkspace({}, { git: true });
    spaces.push(ws);
    const text = verdict();
    ws.write('v.verdict.json', text);
    const r = runCli(['check', '--fix', 'v.verdict.json'], ws.root);
    const fixed = ws.read('v.verdict.json');
    ws.write('v.verdict.json', text);
    assert.notEqual(fixed, text, `the example must need a fix: ${r.stderr}`);
    return { ws, file: 'v.verdict.json', text };
  }

  test('keeps the mode (0600 stays 0600) and leaves no temp file', () => {
    const { ws, file } = fixable();
    chmodSync(ws.path(file), 0o600);
    const r = runCli(['check', '--fix', file], ws.root);
    assert.match(r.stderr, /fixed v\.verdict\.json/);
    assert.equal(statSync(ws.path(file)).mode & 0o777, 0o600);
    assert.deepEqual(leftoverTemps(ws.root), []);
  });

  test('refuses a read-only file (exit 2, unchanged)', () => {
    const { ws, file, text } = fixable();
    chmodSync(ws.path(file), 0o444);
    const r = runCli(['check', '--fix', file], ws.root);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /read-only/);
    assert.equal(ws.read(file), text);
  });

  test('writes through a symlinked file to its target (the link stays a link)', () => {
    const { ws, file, text } = fixable();
    mkdirSync(ws.path('real'));
    renameSync(ws.path(file), ws.path('real/v.verdict.json'));
    symlinkSync('real/v.verdict.json', ws.path(file));
    runCli(['check', '--fix', file], ws.root);
    assert.ok(statSync(ws.path(file)).isFile());
    assert.notEqual(ws.read('real/v.verdict.json'), text);
    assert.equal(ws.exists(file) && readFileSync(ws.path(file), 'utf8') === ws.read('real/v.verdict.json'), true);
    assert.ok(existsSync(ws.path(file)));
  });

  test('a symlinked file pointing outside the repository is not written', () => {
    const { ws, file, text } = fixable();
    const outside = tempWorkspace({ 'v.verdict.json': text });
    spaces.push(outside);
    rmSync(ws.path(file));
    symlinkSync(outside.path('v.verdict.json'), ws.path(file));
    const r = runCli(['check', '--fix', file], ws.root);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /outside the workspace/);
    assert.equal(outside.read('v.verdict.json'), text);
  });

  test('refuses a file with several hard links (documented decision), both names unchanged', () => {
    const { ws, file, text } = fixable();
    linkSync(ws.path(file), ws.path('other-name.json'));
    const r = runCli(['check', '--fix', file], ws.root);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /hard links/);
    assert.equal(ws.read(file), text);
    assert.equal(ws.read('other-name.json'), text);
  });

  test('a file inside .git is never fixed, even when named explicitly', () => {
    const { ws, text } = fixable();
    ws.write('.git/v.verdict.json', text);
    const r = runCli(['check', '--fix', '.git/v.verdict.json'], ws.root);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /\.git/);
    assert.equal(ws.read('.git/v.verdict.json'), text);
  });

  test('a concurrent edit right before the rename is refused and kept (in-process, at the last check)', () => {
    const ws = tempWorkspace({ 'f.md': 'original\n' });
    spaces.push(ws);
    writeHooks.beforeRename = () => writeFileSync(ws.path('f.md'), 'the user typed this\n');
    try {
      assert.throws(() => replaceFile(ws.root, ws.path('f.md'), sha('original\n'), Buffer.from('ours\n')), /changed during the write/);
    } finally {
      writeHooks.beforeRename = undefined;
    }
    assert.equal(ws.read('f.md'), 'the user typed this\n');
    assert.deepEqual(leftoverTemps(ws.root), []);
  });

  test('disk full (RLIMIT_FSIZE): nothing changed, no temp file left', () => {
    const ws = tempWorkspace({}, { git: true });
    spaces.push(ws);
    const big = 'x'.repeat(600 * 1024);
    const text = `${big}\nend\n`;
    ws.write('big.md', text);
    ws.write('hygiene.report.json', JSON.stringify(makeReport([deterministicEntry('big.md', { kind: 'replace-text', expected_sha256: sha(text), anchor: { start_line: 2, end_line: 2 }, match: 'end', replacement: 'END' })])));
    // node ignores SIGXFSZ, so a write past the limit fails with EFBIG exactly like a full disk.
    const r = spawnSyncShell(`ulimit -f 512; exec "${process.execPath}" "${CLI}" apply --tier all hygiene.report.json`, ws.root);
    assert.equal(r.code, 2, r.out);
    assert.match(r.out, /failed: nothing written/);
    assert.equal(ws.read('big.md'), text);
    assert.deepEqual(leftoverTemps(ws.root), []);
  });

  test('SIGINT/SIGTERM during apply: the file is old or new, never half, and no temp file is left', async () => {
    const ws = tempWorkspace({}, { git: true });
    spaces.push(ws);
    const files: string[] = [];
    const entries = [];
    for (let k = 0; k < 30; k++) {
      const text = `${'y'.repeat(200 * 1024)}\nend ${k}\n`;
      ws.write(`f${k}.md`, text);
      files.push(text);
      entries.push(deterministicEntry(`f${k}.md`, { kind: 'replace-text', expected_sha256: sha(text), anchor: { start_line: 2, end_line: 2 }, match: `end ${k}`, replacement: `END ${k}` }));
    }
    ws.write('hygiene.report.json', JSON.stringify(makeReport(entries)));
    for (const [sig, delay] of [['SIGINT', 150], ['SIGTERM', 250], ['SIGINT', 400]] as const) {
      const child = spawn(process.execPath, [CLI, 'apply', '--tier', 'all', 'hygiene.report.json'], { cwd: ws.root, stdio: 'ignore' });
      const exited = new Promise((res) => child.on('exit', res)); // listening first: a child that finished early still resolves
      await new Promise((res) => setTimeout(res, delay));
      child.kill(sig);
      await exited;
      assert.deepEqual(leftoverTemps(ws.root), [], `${sig} after ${delay} ms`);
      files.forEach((text, k) => {
        const now = ws.read(`f${k}.md`);
        assert.ok(now === text || now === text.replace(`end ${k}`, `END ${k}`), `f${k}.md is whole`);
      });
    }
  });
});

describe('--out files go through the same writer', () => {
  test('decode --out onto a FIFO or a read-only file is refused; onto a symlink writes its target, keeping the mode', () => {
    const ws = tempWorkspace({ 'a.toon': 'x: 1\n', 'ro.json': 'old\n', 'target.json': 'old\n' });
    cleanups.push(() => ws.cleanup());
    mkfifo(ws.path('pipe.json'));
    chmodSync(ws.path('ro.json'), 0o444);
    chmodSync(ws.path('target.json'), 0o640);
    symlinkSync('target.json', ws.path('link.json'));
    const fifo = runCli(['decode', 'a.toon', '--out', 'pipe.json'], ws.root, { timeoutMs: 20000 });
    assert.equal(fifo.code, 1);
    assert.match(fifo.stderr, /is a FIFO \(named pipe\), not a regular file/);
    assert.ok(statSync(ws.path('pipe.json')).isFIFO(), 'the FIFO is still a FIFO');
    const ro = runCli(['decode', 'a.toon', '--out', 'ro.json'], ws.root);
    assert.equal(ro.code, 1);
    assert.match(ro.stderr, /read-only/);
    assert.equal(ws.read('ro.json'), 'old\n');
    const link = runCli(['decode', 'a.toon', '--out', 'link.json'], ws.root);
    assert.equal(link.code, 0, link.stderr);
    assert.deepEqual(JSON.parse(ws.read('target.json')), { x: 1 });
    assert.equal(statSync(ws.path('target.json')).mode & 0o777, 0o640);
    assert.deepEqual(leftoverTemps(ws.root), []);
  });
});

describe('messages', () => {
  test('an uppercase or short expected_sha256 says "not a sha256"; a FIFO or a directory target says what it is', () => {
    const ws = tempWorkspace({ 'a.md': 'a\n' }, { git: true });
    cleanups.push(() => ws.cleanup());
    mkdirSync(ws.path('dir.md'));
    mkfifo(ws.path('pipe.md'));
    const e = (path: string, expected: string) => deterministicEntry(path, { kind: 'delete-range', expected_sha256: expected, anchor: { start_line: 1, end_line: 1 } });
    ws.write('hygiene.report.json', JSON.stringify(makeReport([e('a.md', sha('a\n').toUpperCase()), e('a.md', 'abc123'), e('pipe.md', sha('')), e('dir.md', sha(''))])));
    const r = runCli(['apply', '--tier', 'all', 'hygiene.report.json'], ws.root, { timeoutMs: 20000 });
    assert.equal(r.timedOut, false);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0]!, /not a sha256/);
    assert.match(lines[1]!, /not a sha256|skipped: .*changed since/);
    assert.match(lines[2]!, /FIFO/);
    assert.match(lines[3]!, /directory/);
  });

  test('apply on a verdict, null, an array or a non-report object: "not a docs-hygiene report", exit 2', () => {
    const ws = tempWorkspace({}, { git: true });
    cleanups.push(() => ws.cleanup());
    const docs: Record<string, string> = {
      'null.json': 'null',
      'array.json': '[]',
      'obj.json': '{"a":1}',
      'v.verdict.json': readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'settings-table.verdict.json'), 'utf8'),
    };
    for (const [name, text] of Object.entries(docs)) {
      ws.write(name, text);
      const r = runCli(['apply', name], ws.root);
      assert.equal(r.code, 2, name);
      assert.match(r.stderr, /is not a docs-hygiene report/, name);
      assert.equal(r.stderr.trim().split('\n').length, 1, name);
    }
  });
});

function spawnSyncShell(script: string, cwd: string): { code: number | null; out: string } {
  const r = spawnSync('bash', ['-c', script], { cwd, encoding: 'utf8', timeout: 60000 });
  return { code: r.status, out: (r.stdout ?? '') + (r.stderr ?? '') };
}

describe('the WorkspaceEdit re-check, on edits the planner would never make', () => {
  test('TextDocumentEdit on .git/config, CreateFile in .git/hooks, RenameFile into .git/info, through a symlinked folder, outside, onto a dangling symlink: refused', async () => {
    const { verifyWorkspaceEditTargets } = await import('../../server/src/features/json/reportEdits');
    const { ws, outside } = repo();
    const ctx = { workspaceRootOf: (uri: string) => (decodeURIComponent(new URL(uri).pathname).startsWith(ws.root) ? ws.root : undefined) } as never;
    const sha0 = sha(ws.read('.git/config'));
    const bad = [
      [{ type: 'edit', absPath: ws.path('.git/config'), edits: [], baseSha256: sha0 }],
      [{ type: 'edit', absPath: ws.path('docs/g/config'), edits: [], baseSha256: sha0 }],
      [{ type: 'create', absPath: ws.path('.git/hooks/post-checkout'), text: '#!/bin/sh\n' }],
      [{ type: 'create', absPath: ws.path('docs/g/hooks/post-checkout'), text: '#!/bin/sh\n' }],
      [{ type: 'create', absPath: ws.path('docs/nested/hooks/post-checkout'), text: '#!/bin/sh\n' }],
      [{ type: 'rename', from: ws.path('docs/a.md'), to: ws.path('docs/g/info/x'), baseSha256: sha('x') }],
      [{ type: 'rename', from: ws.path('docs/a.md'), to: ws.path('.git/info/x'), baseSha256: sha('x') }],
      [{ type: 'create', absPath: ws.path('docs/dangling/x.md'), text: 'x' }],
      [{ type: 'create', absPath: ws.path('docs/dangling-file.md'), text: 'x' }],
      [{ type: 'rename', from: ws.path('docs/a.md'), to: ws.path('docs/dangling-file.md'), baseSha256: sha('x') }],
      [{ type: 'create', absPath: ws.path('out/x.md'), text: 'x' }],
      [{ type: 'create', absPath: `${outside.root}/x.md`, text: 'x' }],
      [{ type: 'delete', absPath: ws.path('docs/g'), baseSha256: sha('x') }],
    ];
    for (const changes of bad) {
      const r = verifyWorkspaceEditTargets(ctx, changes as never);
      assert.equal(typeof r, 'string', JSON.stringify(changes));
    }
    const good = verifyWorkspaceEditTargets(ctx, [{ type: 'create', absPath: ws.path('docs/archive/new/x.md'), text: 'x' }] as never);
    assert.ok(good instanceof Map, String(good));
  });
});

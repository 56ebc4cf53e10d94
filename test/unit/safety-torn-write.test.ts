// `check --fix` against another program saving the same file in place (opened with O_TRUNC and written in chunks): whatever
// point of the replace the other save starts at, the file ends as one whole version (never a prefix of a save in
// progress), and a save that began in the last instant before the rename is the one kept. The writer is a child
// process driven step by step through FIFOs, so each try interleaves exactly as planned (no sleeps, no luck).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { leftoverTemps, mkfifo } from '../fixtures/safety/helpers';
import { REPO_ROOT } from '../paths';
import { WriteRefused, replaceFile, writeHooks } from '../../server/src/node/safeWrite';
import { sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';
import { main } from '../../server/src/cli/main';

const MB = 1024 * 1024;
const CHUNKS = 320; // 20 MB in 64 KB chunks

/** The writer child: `go(n)` opens the file with O_TRUNC and writes n chunks, `finish()` writes the rest and closes it. */
function startWriter(file: string, bytes: Buffer, dir: string) {
  const bytesFile = join(dir, 'writer-bytes');
  writeFileSync(bytesFile, bytes);
  const toWriter = join(dir, 'to-writer');
  const fromWriter = join(dir, 'from-writer');
  mkfifo(toWriter);
  mkfifo(fromWriter);
  const child = spawn(process.execPath, [join(REPO_ROOT, 'test', 'fixtures', 'safety', 'inPlaceWriter.mjs'), file, bytesFile, toWriter, fromWriter], { stdio: ['ignore', 'ignore', 'inherit'] });
  // Opened in the order the child opens them (each open waits for the other end).
  const out = openSync(toWriter, 'w');
  const inp = openSync(fromWriter, 'r');
  let pending = '';
  const buf = Buffer.alloc(256);
  const expect = (word: string) => {
    for (;;) {
      const nl = pending.indexOf('\n');
      if (nl >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        assert.equal(line, word);
        return;
      }
      const n = readSync(inp, buf, 0, buf.length, null);
      assert.ok(n > 0, `the writer ended before saying ${word}`);
      pending += buf.toString('utf8', 0, n);
    }
  };
  return {
    go(n: number) {
      writeSync(out, `go ${n}\n`);
      expect('paused');
    },
    finish() {
      writeSync(out, 'continue\n');
      expect('done');
    },
    stop() {
      writeSync(out, 'quit\n');
      closeSync(out);
      closeSync(inp);
      return new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    },
  };
}

describe('check --fix vs an editor saving in place', () => {
  const spaces: TempWorkspace[] = [];
  after(() => spaces.forEach((s) => s.cleanup()));

  test('a 20 MB verdict, 30 interleavings: never a torn file, and a save begun before the rename is kept', { skip: process.platform === 'win32' ? 'FIFOs and in-place O_TRUNC saves are POSIX' : false }, async () => {
    // A verdict whose derived field is wrong (--fix rewrites it), padded with whitespace to a size that takes many chunks: any prefix of it
    // is not the whole file, and the writer's version differs from both the planned and the fixed one.
    const example = JSON.stringify(JSON.parse(readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'unsafe-auto-apply.verdict.json'), 'utf8')), null, 2);
    const pad = 20 * MB - example.length;
    const planned = Buffer.from(example.replace('{', '{' + '\n'.repeat(pad)));
    const theirs = Buffer.from(example.replace('{', '{' + '\t'.repeat(pad)));
    assert.equal(theirs.length, CHUNKS * 64 * 1024);
    const ws = tempWorkspace({}, { git: true });
    spaces.push(ws);
    const file = ws.path('big.verdict.json');
    const writer = startWriter(file, theirs, ws.root);
    const fix = async () => {
      const err: string[] = [];
      const code = await main(['check', '--fix', 'big.verdict.json'], { stdout: () => undefined, stderr: (t) => void err.push(t), readStdin: async () => '', cwd: ws.root });
      return { code, stderr: err.join('') };
    };
    // What --fix calls to write (node/safeWrite.ts), with what it read and what it writes.
    const replace = () => {
      try {
        replaceFile(ws.root, file, sha(planned), fixed);
        return { code: 0, stderr: '' };
      } catch (e) {
        assert.ok(e instanceof WriteRefused, String(e));
        return { code: 2, stderr: e.message };
      }
    };
    let fixed: Buffer = planned;
    try {
      // Undisturbed, the fix is written: that is the other whole version the file may end as.
      writeFileSync(file, planned);
      const clean = await fix();
      assert.match(clean.stderr, /fixed big\.verdict\.json/, clean.stderr);
      fixed = readFileSync(file);
      assert.notDeepEqual(fixed, planned);

      /** One try: the other save starts at `point` and has written `k` of its chunks when the write goes on. */
      const attempt = async (point: 'before' | 'beforeRename' | 'beforeSwap' | 'afterSwap', k: number, run: () => { code: number; stderr: string } | Promise<{ code: number; stderr: string }>) => {
        writeFileSync(file, planned);
        let started = point === 'before';
        if (point === 'before') writer.go(k);
        else
          writeHooks[point] = () => {
            started = true;
            writer.go(k);
          };
        let r: { code: number; stderr: string };
        try {
          r = await run();
        } finally {
          writeHooks.beforeRename = writeHooks.beforeSwap = writeHooks.afterSwap = undefined;
        }
        const what = `${point}, ${k} chunks`;
        assert.ok(started, `${what}: the hook ran`);
        // Mid-save: the name holds the file being saved (its first k chunks so far) or the fix, nothing else.
        const now = readFileSync(file);
        assert.ok(now.equals(theirs.subarray(0, k * 64 * 1024)) || now.equals(fixed), `${what}: mid-save the file is the save in progress or the fix (${now.length} bytes)`);
        writer.finish();
        const final = readFileSync(file);
        assert.ok(final.equals(theirs), `${what}: the other save is whole in the file (${final.length} bytes, ${final.equals(fixed) ? 'the fix' : 'torn'}); ${r.stderr}`);
        if (point === 'beforeSwap') {
          assert.equal(r.code, 2, r.stderr);
          assert.match(r.stderr, /changed during the write; the other change was kept and this edit not applied/);
        }
        if (point === 'beforeRename') assert.match(r.stderr, /changed during the write; nothing written/);
        assert.deepEqual(leftoverTemps(ws.root), [], `${what}: no temp file or second name left`);
      };

      // Where the other save starts: before the file is read, before the last check, between the last check and
      // the rename, right after the rename; and how far it got when the write goes on.
      let tries = 0;
      for (const point of ['before', 'beforeRename', 'beforeSwap', 'afterSwap'] as const) {
        for (const k of [0, 1, 17, 100, 160, 250, CHUNKS - 1]) {
          await attempt(point, k, replace);
          tries++;
        }
      }
      // And through the whole command, where the torn file was seen.
      await attempt('beforeSwap', 40, fix);
      await attempt('afterSwap', 200, fix);
      tries += 2;
      assert.equal(tries, 30);
    } finally {
      assert.equal(await writer.stop(), 0);
    }
  });
});

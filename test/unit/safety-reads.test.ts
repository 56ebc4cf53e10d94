// every CLI command reads only regular files within the size limit. /dev/zero, a FIFO,
// symlinks to them, a directory and an over-limit (sparse) file each give one clear line and a non-zero
// exit at once, through the built CLI; a hang is a failure (the run is killed at the timeout).
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, ftruncateSync, symlinkSync } from 'node:fs';
import { tempWorkspace } from '../fixtures/report/helpers';
import { mkfifo, runCli } from '../fixtures/safety/helpers';
import { readRegularFile } from '../../server/src/node/files';

const ws = tempWorkspace({ 'ok.md': '# a\n\ntext\n' });
after(() => ws.cleanup());
mkfifo(ws.path('pipe.json'));
symlinkSync('pipe.json', ws.path('pipe-link.json'));
symlinkSync('/dev/zero', ws.path('zero-link.json'));
mkdirSync(ws.path('dir.json'));
const fd = openSync(ws.path('huge.json'), 'w');
ftruncateSync(fd, 70 * 1024 * 1024); // sparse: 70 MB long, no disk used
closeSync(fd);

const inputs: [string, RegExp][] = [
  ['/dev/zero', /is a character device, not a regular file/],
  ['pipe.json', /is a FIFO \(named pipe\), not a regular file/],
  ['pipe-link.json', /is a FIFO \(named pipe\), not a regular file/],
  ['zero-link.json', /is a character device, not a regular file/],
  ['dir.json', /is a directory/],
  ['huge.json', /over the 64 MB limit/],
];

/** Each command with where the input goes, and its documented exit status for an I/O error. */
const commands: [string, (f: string) => string[], number][] = [
  ['apply', (f) => ['apply', f], 2],
  ['schema-diff', (f) => ['schema-diff', f, 'ok.md'], 2],
  ['profile', (f) => ['profile', f], 1],
  ['convert', (f) => ['convert', f], 1],
  ['plan', (f) => ['plan', f], 1],
  ['validate', (f) => ['validate', f], 1],
  ['decode', (f) => ['decode', f], 1],
];

describe('CLI reads only regular files within the limit', () => {
  for (const [name, argv, exit] of commands) {
    test(`${name}: /dev/zero, FIFOs, symlinks to them, a directory, a 70 MB file`, () => {
      for (const [input, why] of inputs) {
        const r = runCli(argv(input), ws.root, { timeoutMs: 20000 });
        assert.equal(r.timedOut, false, `${name} ${input} hung`);
        assert.equal(r.code, exit, `${name} ${input}: ${r.stderr}`);
        const lines = r.stderr.trim().split('\n');
        assert.equal(lines.length, 1, `${name} ${input}: one line, got ${r.stderr}`);
        assert.match(lines[0]!, why, `${name} ${input}`);
      }
    });
  }

  test('check: named inputs → one line each, exit 2; a walk skips them silently', () => {
    for (const [input, why] of inputs) {
      if (input === 'huge.json') continue; // over check's own limit: its limits/too-large note, see below
      if (input === 'dir.json') continue; // check walks directories (by design)
      const r = runCli(['check', input], ws.root, { timeoutMs: 20000 });
      assert.equal(r.timedOut, false, `check ${input} hung`);
      assert.equal(r.code, 2, `check ${input}: ${r.stderr}`);
      assert.match(r.stderr.split('\n')[0]!, why);
    }
    const big = runCli(['check', 'huge.json'], ws.root, { timeoutMs: 20000 });
    assert.equal(big.timedOut, false);
    assert.match(big.stderr, /over the 50 MB limit/);
    const walk = runCli(['check', '.'], ws.root, { timeoutMs: 20000 });
    assert.equal(walk.timedOut, false, 'the walk hung on a FIFO');
    assert.equal(walk.code, 0, walk.stderr);
  });

  test('--stdin is bounded too: /dev/zero on stdin stops at the limit with one line', () => {
    const r = runCli(['profile', '--stdin'], ws.root, { timeoutMs: 60000, inputFile: '/dev/zero' });
    assert.equal(r.timedOut, false);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /standard input is over the 64 MB limit/);
  });

  test('readRegularFile never opens a FIFO for a blocking read and never reads past the limit', () => {
    const fifo = readRegularFile(ws.path('pipe.json'));
    assert.equal(fifo.ok, false);
    const small = readRegularFile(ws.path('huge.json'), 1024);
    assert.ok(!small.ok && small.code === 'too-large' && small.size === 70 * 1024 * 1024);
    const ok = readRegularFile(ws.path('ok.md'));
    assert.ok(ok.ok && ok.bytes.toString() === '# a\n\ntext\n');
  });
});

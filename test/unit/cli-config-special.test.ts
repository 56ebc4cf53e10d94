// `toonlens check --config F`: the config is read through the bounded reader, so a FIFO, /dev/zero, a directory
// or an oversized file ends the command with one line (exit 2) instead of hanging or growing without bound.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { MAX_CONFIG_BYTES } from '../../server/src/node/config';

async function check(args: string[], cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { cwd, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readStdin: async () => '' };
  let code: number;
  try {
    code = await run(args, io);
  } catch (e) {
    return { code: undefined, stdout: out.join(''), stderr: err.join(''), error: e as Error };
  }
  return { code, stdout: out.join(''), stderr: err.join(''), error: undefined };
}

describe('check --config on special and oversized files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-config-special-'));
  writeFileSync(join(dir, 'x.json'), '{}\n');
  execFileSync('mkfifo', [join(dir, 'fifo')]);
  writeFileSync(join(dir, 'big.json'), `{"rules": {}, "pad": "${'x'.repeat(MAX_CONFIG_BYTES)}"}`);

  for (const [name, path] of [['a FIFO', join(dir, 'fifo')], ['/dev/zero', '/dev/zero'], ['a directory', dir], ['an oversized file', join(dir, 'big.json')], ['a missing file', join(dir, 'nope.json')]] as const) {
    test(`${name} is one clear error, not a hang`, async () => {
      const r = await check(['--config', path, 'x.json'], dir);
      assert.equal(r.error, undefined);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.match(lines[0]!, /config file .+: cannot read: /);
    });
  }
});

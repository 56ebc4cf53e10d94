// The CLI's output end to end: large JSON is written in pieces (server/src/cli/jsonOut.ts) with the same bytes a
// single JSON.stringify gives, and a reader that leaves early (`toonlens plan --json big.md | head`) ends the process
// quietly with 141, as SIGPIPE ends a Unix tool — no stack trace. Other write errors are one line and status 2.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { EXIT_BROKEN_PIPE, onOutputError } from '../../server/src/cli/main';
import { planDocument } from '../../server/src/core/markdown/engine';
import { CLI } from '../fixtures/safety/helpers';

/** A markdown file whose `plan --json` is far larger than a pipe's buffer. */
async function bigMarkdown(t: { after(fn: () => void): void }): Promise<{ file: string; text: string }> {
  const { markdownDocument } = await import('../../bench/markdown-gen');
  const dir = mkdtempSync(path.join(tmpdir(), 'toonlens-cli-output-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const text = markdownDocument(5, 600, 200_000);
  const file = path.join(dir, 'big.md');
  writeFileSync(file, text);
  return { file, text };
}

test('plan --json through a pipe: the same bytes as JSON.stringify of the plan, exit 0', async (t) => {
  const { file, text } = await bigMarkdown(t);
  const r = spawnSync(process.execPath, [CLI, 'plan', '--json', file], { encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, JSON.stringify(planDocument(text).verdict, null, 2) + '\n');
  assert.ok(r.stdout.length > 1 << 18, `${r.stdout.length} characters: far more than a pipe holds`);
});

test('a reader that closes the pipe early ends the CLI quietly with 141', async (t) => {
  const { file } = await bigMarkdown(t);
  for (const args of [['plan', '--json', file], ['plan', file]]) {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    // Read the first piece, then leave, as `head -c 100` does.
    child.stdout.once('data', () => child.stdout.destroy());
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    assert.equal(stderr, '', `${args.join(' ')}: nothing on stderr`);
    // The JSON is far larger than a pipe holds, so its writes meet the closed pipe; the table may fit in one.
    if (args.includes('--json')) assert.equal(code, EXIT_BROKEN_PIPE);
    else assert.ok(code === EXIT_BROKEN_PIPE || code === 0, `${args.join(' ')}: exit ${code}`);
  }
});

test('a write error other than a closed pipe is one line on stderr and status 2', () => {
  const calls: (string | number)[] = [];
  const exit = (c: number) => void calls.push(c);
  const stderr = (s: string) => void calls.push(s);
  onOutputError(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }), exit, stderr);
  assert.deepEqual(calls, [EXIT_BROKEN_PIPE]);
  calls.length = 0;
  onOutputError(Object.assign(new Error('ENOSPC: no space left on device, write\n    at stack'), { code: 'ENOSPC' }), exit, stderr);
  assert.deepEqual(calls, ['toonlens: cannot write its output: ENOSPC: no space left on device, write\n', 2]);
  // The real thing: a full device.
  const r = spawnSync('bash', ['-c', `exec "${process.execPath}" "${CLI}" --help > /dev/full`], { encoding: 'utf8' });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, 'toonlens: cannot write its output: ENOSPC: no space left on device, write\n');
});

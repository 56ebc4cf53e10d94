// Under `--stdio` the server's stdout is the JSON-RPC channel, and a worker thread writes to the process's stdout
// unless told otherwise: whatever runs in the JSON worker (ajv's logger, a library's warning) must print to
// stderr, never stdout. A child process starts the built worker (dist/jsonWorker.js) in a worker thread, prints
// from that thread, and its stdout must stay empty.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';

test('what the JSON worker thread prints goes to stderr, not onto the stdio channel', () => {
  const worker = join(REPO_ROOT, 'dist', 'jsonWorker.js');
  const inThread = `require(${JSON.stringify(worker)});
console.log('console.log line');
console.info('console.info line');
process.stdout.write('stdout.write line\\n');`;
  // The main thread reads the worker's stderr and ends once all three lines came there; printed to stdout
  // instead, they would never arrive and the child would time out.
  const main = `const { Worker } = require('node:worker_threads');
const w = new Worker(${JSON.stringify(inThread)}, { eval: true, stderr: true });
let got = '';
w.stderr.setEncoding('utf8');
w.stderr.on('data', (d) => {
  got += d;
  if (['console.log line', 'console.info line', 'stdout.write line'].every((l) => got.includes(l))) {
    process.stderr.write(got);
    w.terminate();
  }
});`;
  const r = spawnSync(process.execPath, ['-e', main], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout, '');
  for (const line of ['console.log line', 'console.info line', 'stdout.write line']) assert.match(r.stderr, new RegExp(line));
});

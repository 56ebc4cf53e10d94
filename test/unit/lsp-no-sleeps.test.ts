// The LSP tests never sleep to see that nothing (more) arrives: that races the 200 ms debounce on a loaded
// machine. They await the server's idle signal (`LspHarness.waitIdle()`) or a round trip (`roundTrip()`).
// This keeps a sleep from coming back: no `sleep(`, and no `setTimeout(resolve, ms)` promise, in test/lsp.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';

test('test/lsp has no sleeps: waits are on a signal from the server', () => {
  const dir = join(REPO_ROOT, 'test', 'lsp');
  const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
  assert.ok(files.includes('harness.ts') && files.length > 10, 'found the LSP tests');
  const offenders: string[] = [];
  for (const f of files) {
    readFileSync(join(dir, f), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (/^\s*(\/\/|\*)/.test(line)) return; // comments may talk about sleeping
        // `sleep(` as a call, or the sleep idiom `new Promise((r) => setTimeout(r, ms))` (a timeout racing a promise is fine).
        if (/\bsleep\s*\(/.test(line) || /setTimeout\(\s*(r|res|resolve)\s*,/.test(line)) offenders.push(`${f}:${i + 1}: ${line.trim()}`);
      });
  }
  assert.deepEqual(offenders, [], 'use lsp.waitIdle() (nothing more is published) or lsp.roundTrip() (the server has handled what was sent)');
});

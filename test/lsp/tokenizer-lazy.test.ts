// The language server loads the BPE ranks only for a document it counts tokens in: the built server runs under a
// small wrapper that lists, when the process exits, the encoding bundles (dist/tokenizer-<encoding>.js) its
// require cache holds. Agent JSON and a .toon file count nothing; a markdown document does (its plan), which
// shows the observation sees a load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspHarness, REPO_ROOT, SERVER_PATH } from './harness';
import { VALID_VERDICT_PATH, reportText } from './fixtures';

/** A server start through a wrapper that reports the tokenizer modules loaded; runs `work`, shuts down, returns them. */
async function tokenizerModulesLoaded(t: { after(fn: () => void): void }, work: (h: LspHarness) => Promise<void>): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-lazy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const wrapper = join(dir, 'server-probe.js');
  writeFileSync(
    wrapper,
    `process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((k) => /tokenizer-|bpeRanks|gpt-tokenizer/.test(k)).map((k) => k.split(/[\\\\/]/).pop());
  process.stderr.write('\\nLOADED ' + JSON.stringify(loaded) + '\\n');
});
require(${JSON.stringify(SERVER_PATH)});
`,
  );
  const h = await LspHarness.start({ serverPath: wrapper });
  try {
    await work(h);
    await h.waitIdle();
  } finally {
    await h.shutdown(30_000);
  }
  const line = /^LOADED (.*)$/m.exec(h.stderr);
  assert.ok(line, `the probe reported no module list: ${h.stderr}`);
  return JSON.parse(line[1]!) as string[];
}

test('agent JSON and a .toon file load no BPE ranks in the server', async (t) => {
  const loaded = await tokenizerModulesLoaded(t, async (h) => {
    const verdict = h.open('plan.verdict.json', readFileSync(VALID_VERDICT_PATH, 'utf8'), 'json');
    const report = h.open('docs.report.json', reportText(), 'json');
    const toon = h.open('orders.toon', readFileSync(join(REPO_ROOT, 'examples', 'toon', 'orders.toon'), 'utf8'), 'toon');
    await h.waitForDiagnostics(verdict);
    await h.waitForDiagnostics(report);
    await h.waitForDiagnostics(toon);
  });
  assert.deepEqual(loaded, []);
});

test('a markdown document loads the encoding its plan counts with', async (t) => {
  const loaded = await tokenizerModulesLoaded(t, async (h) => {
    const md = h.open('AGENTS.md', '# Agents\n\n| key | value |\n| --- | --- |\n| a | 1 |\n| b | 2 |\n', 'markdown');
    await h.waitForDiagnostics(md);
  });
  assert.deepEqual(loaded, ['tokenizer-o200k_base.js']);
});

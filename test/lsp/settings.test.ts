// Settings: pulled with workspace/configuration (VS Code) or pushed (clients without that capability).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { LspHarness } from './harness';
import { recipeOutputText, verdictText } from './fixtures';

const nonEmpty = (ds: Diagnostic[]) => ds.length > 0;
const codes = (ds: Diagnostic[]) => ds.map((d) => d.code);
const msg = (d: Diagnostic) => (typeof d.message === 'string' ? d.message : d.message.value);

describe('settings', () => {
  test('maxFileSizeMB: an over-size document gets one info diagnostic and nothing else; raising the limit checks it', async () => {
    // 0.01 MB stands in for the 50 MB default: the ~2.5 KB verdict is "over the limit".
    const lsp = await LspHarness.start({ settings: { maxFileSizeMB: 0.001 } });
    try {
      const uri = lsp.open('big.verdict.json', verdictText((d) => (d.mode = 'fast')));
      const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
      assert.deepEqual(codes(ds), ['limits/too-large']);
      assert.equal(ds[0]!.severity, 3);
      assert.match(msg(ds[0]!), /toonlens\.maxFileSizeMB/);
      assert.deepEqual(ds[0]!.range, { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } });
      assert.ok(lsp.configurationRequests.length > 0, 'settings were pulled');

      await lsp.setSettings({ maxFileSizeMB: 50 });
      const after = await lsp.waitForDiagnostics(uri, (d) => d.length > 0 && d[0]!.code !== 'limits/too-large');
      assert.deepEqual(codes(after), ['schema']);
    } finally {
      await lsp.shutdown();
    }
  });

  test('documentKinds: a glob assigns a kind to a file no convention names', async () => {
    const lsp = await LspHarness.start({ settings: { documentKinds: { 'agent-out/**/*.json': 'verdict' } } });
    try {
      // Broken JSON only gets json-syntax when the file is a ToonLens document.
      const uri = lsp.open('agent-out/run1/result.json', '{ "verdict": ');
      const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
      assert.deepEqual(codes(ds), ['json-syntax']);
      const elsewhere = lsp.open('other/result.json', '{ "verdict": ');
      assert.deepEqual(await lsp.waitForDiagnostics(elsewhere), []);
    } finally {
      await lsp.shutdown();
    }
  });

  test('invalid setting values fall back to the defaults', async () => {
    const lsp = await LspHarness.start({ settings: { maxFileSizeMB: 'huge', documentKinds: { '*.json': 'nonsense' }, codeLens: 3 } });
    try {
      const uri = lsp.open('x.verdict.json', verdictText((d) => (d.mode = 'fast')));
      assert.deepEqual(codes(await lsp.waitForDiagnostics(uri, nonEmpty)), ['schema']);
      const plain = lsp.open('plain.json', '{ "a": ');
      assert.deepEqual(await lsp.waitForDiagnostics(plain), []);
    } finally {
      await lsp.shutdown();
    }
  });

  test('a client without workspace/configuration (Neovim-like): initializationOptions and pushed settings', async () => {
    const lsp = await LspHarness.start({
      configurationCapability: false,
      initializationOptions: { settings: { maxFileSizeMB: 0.0001 } },
    });
    try {
      const uri = lsp.open('payload.recipe-output.json', recipeOutputText((d) => (d.poll_after_seconds = 'soon')));
      assert.deepEqual(codes(await lsp.waitForDiagnostics(uri, nonEmpty)), ['limits/too-large']);
      assert.equal(lsp.configurationRequests.length, 0, 'the server never asked');

      await lsp.setSettings({ maxFileSizeMB: 10 }); // pushed as { toonlens: { … } }
      const ds = await lsp.waitForDiagnostics(uri, (d) => d.length > 0 && d[0]!.code !== 'limits/too-large');
      assert.ok(ds.every((d) => d.code === 'schema'));
    } finally {
      await lsp.shutdown();
    }
  });

  test('a client that never answers workspace/configuration does not block diagnostics forever', async () => {
    const lsp = await LspHarness.start();
    // Replace the configuration handler with one that never answers.
    lsp.connection.onRequest('workspace/configuration', () => new Promise(() => undefined));
    try {
      const uri = lsp.open('slow.verdict.json', verdictText((d) => (d.mode = 'fast')));
      const ds = await lsp.waitForDiagnostics(uri, nonEmpty, 8000);
      assert.deepEqual(codes(ds), ['schema']);
    } finally {
      await lsp.shutdown();
    }
  });
});

// The server never crashes or hangs on a document: failures stay with their document and are logged.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Diagnostic } from 'vscode-languageserver-protocol/node';
import { LspHarness } from './harness';
import { verdictText } from './fixtures';

const MARKER = '__TOONLENS_FAULT__';
const nonEmpty = (ds: Diagnostic[]) => ds.length > 0;
const codes = (ds: Diagnostic[]) => ds.map((d) => d.code);

describe('robustness', () => {
  let lsp: LspHarness;
  before(async () => {
    lsp = await LspHarness.start({ env: { TOONLENS_FAULT_INJECTION: MARKER } });
  });
  after(async () => {
    assert.ok(lsp.alive, `the server is still running; stderr:\n${lsp.stderr}`);
    const code = await lsp.shutdown();
    assert.equal(code, 0, 'clean exit after shutdown + exit');
  });

  test('a feature that throws on a document is isolated: logged, other features still answer', async () => {
    const text = verdictText((d) => (d.mode = MARKER));
    const uri = lsp.open('fault.verdict.json', text);
    // The JSON diagnostics of the same document are still published.
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty);
    assert.deepEqual(codes(ds), ['schema']);
    const logged = await lsp.waitForLog(/fault-injection: diagnostics failed for .*fault\.verdict\.json/);
    assert.equal(logged.type, 1, 'logged as an error');

    // Hover, code actions and code lenses: the failing provider is skipped, the request still succeeds.
    const at = { line: 1, character: 4 };
    const hover = await lsp.hover(uri, at);
    assert.ok(hover === null || typeof hover === 'object');
    assert.ok(Array.isArray(await lsp.codeActions(uri, ds[0]!.range)));
    assert.deepEqual(await lsp.codeLenses(uri), []);
    await lsp.waitForLog(/fault-injection: hover failed/);
    await lsp.waitForLog(/fault-injection: code actions failed/);

    // Other documents are unaffected.
    const other = lsp.open('fine.verdict.json', verdictText((d) => (d.mode = 'fast')));
    assert.deepEqual(codes(await lsp.waitForDiagnostics(other, nonEmpty)), ['schema']);
    assert.ok(lsp.alive);
  });

  const pathological: [string, () => string][] = [
    ['empty', () => ''],
    ['whitespace only', () => '   \n\t\n'],
    ['null', () => 'null'],
    ['a top-level string', () => '"just a string"'],
    ['an array', () => '[1, 2, 3]'],
    ['a huge number', () => '{"schema_version": "1.0", "measured_chars": 1e999}'],
    ['100,000-deep nesting', () => '{"schema_version": "1.0", "x": ' + '['.repeat(100_000) + ']'.repeat(100_000) + '}'],
    ['100,000-deep unterminated nesting', () => '{"x": ' + '{"a":'.repeat(100_000)],
    ['a lone surrogate and a BOM', () => '\uFEFF{"schema_version": "1.0", "verdict": "\uD800"}'],
    ['an unterminated 2 MB string', () => '{"schema_version": "' + 'x'.repeat(2_000_000)],
    ['binary-looking text', () => '\u0000\u0001\u0002{"a":\u0000}'],
    ['a verdict with every field the wrong type', () => JSON.stringify({ schema_version: 1, verdict: [], safe_to_auto_apply: 'yes', measured_chars: 'many', flags: null, warnings: {}, mode: 7, delimiter: 0 })],
    ['CRLF line breaks', () => verdictText((d) => (d.mode = 'fast')).replace(/\n/g, '\r\n')],
  ];
  for (const [name, make] of pathological) {
    test(`survives ${name}`, async () => {
      const uri = lsp.open(`patho/${name.replace(/\W+/g, '-')}.verdict.json`, make());
      const ds = await lsp.waitForDiagnostics(uri, () => true, 15_000);
      for (const d of ds) {
        assert.equal(d.source, 'toonlens');
        assert.ok(d.range.start.line >= 0 && d.range.end.line >= d.range.start.line);
      }
      // Requests on it still answer.
      await lsp.hover(uri, { line: 0, character: 3 });
      await lsp.codeActions(uri, { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } }, { only: ['source.fixAll'] });
      lsp.close(uri);
      assert.ok(lsp.alive);
    });
  }

  test('a 60 MB document over the default 50 MB limit gets one info diagnostic, and edits to it stay cheap', async () => {
    const big = verdictText().replace('"schema_version": "1.0",', `"schema_version": "1.0",\n  "padding": "${'x'.repeat(60 * 1024 * 1024)}",`);
    const uri = lsp.open('huge.verdict.json', big);
    const ds = await lsp.waitForDiagnostics(uri, nonEmpty, 30_000);
    assert.deepEqual(codes(ds), ['limits/too-large']);
    const v = lsp.change(uri, [{ range: { start: { line: 0, character: 1 }, end: { line: 0, character: 1 } }, text: ' ' }]);
    const again = await lsp.waitForDiagnostics(uri, (_, version) => version === v, 30_000);
    assert.deepEqual(codes(again), ['limits/too-large']);
    lsp.close(uri);
    await lsp.waitForDiagnostics(uri, (d) => d.length === 0);
  });

  test('protocol misuse from the client does not crash the server', async () => {
    // A change and a close for a document that was never opened.
    lsp.change('file:///never/opened.verdict.json', '{}');
    lsp.close('file:///never/opened2.verdict.json');
    // An incremental change with a range past the end of the document.
    const uri = lsp.open('misuse.verdict.json', verdictText());
    await lsp.waitForDiagnostics(uri);
    lsp.change(uri, [{ range: { start: { line: 9999, character: 0 }, end: { line: 10000, character: 5 } }, text: 'x' }]);
    // Requests with positions outside the document and unknown commands.
    await lsp.hover(uri, { line: -1 as unknown as number, character: 999 }).catch(() => undefined);
    await assert.rejects(lsp.executeCommand('toonlens.noSuchCommand'), /no command/);
    const after = lsp.open('after-misuse.verdict.json', verdictText((d) => (d.mode = 'fast')));
    assert.deepEqual(codes(await lsp.waitForDiagnostics(after, nonEmpty)), ['schema']);
    assert.ok(lsp.alive);
  });
});

// Limits and isolation over real LSP (bundled server; run `npm run build` first):
// typing cancels stale work, toonlens.maxFileSizeMB is honoured for JSON and markdown, the server exits
// when the client vanishes mid-request, and 200 documents opened at once are all diagnosed.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { CancellationTokenSource, CodeLensRequest, type CodeLens } from 'vscode-languageserver-protocol/node';
import { LspHarness } from './harness';
import { verdictText } from './fixtures';
import { reportJson } from '../../bench/json-gen';
import { markdownDocument } from '../../bench/markdown-gen';

const REQUEST_CANCELLED = -32800;

describe('limits: typing', () => {
  test('diagnostics: a burst of edits publishes only the last version (no backlog of stale checks)', async () => {
    const lsp = await LspHarness.start();
    try {
      // A ~0.5 MB report: every check costs real time, so a queue of stale checks would show.
      const text = reportJson(7, 600);
      const uri = lsp.open('typing.report.json', text);
      await lsp.waitForDiagnostics(uri, (_, v) => v === 1, 30_000);
      const before = lsp.published.get(uri)!.length;

      // Type 30 characters into the first entry's `op`, each once the server has handled the previous one
      // (a round trip takes milliseconds: faster than the debounce, as typing is).
      const at = text.indexOf('"op": "') + '"op": "'.length;
      const line = text.slice(0, at).split('\n').length - 1;
      const character = at - (text.lastIndexOf('\n', at - 1) + 1);
      let last = 1;
      for (let i = 0; i < 30; i++) {
        const pos = { line, character: character + i };
        last = lsp.change(uri, [{ range: { start: pos, end: pos }, text: 'x' }]);
        await lsp.roundTrip();
      }
      await lsp.waitForDiagnostics(uri, (_, v) => v === last, 30_000);
      await lsp.waitIdle(); // anything still queued has run and published now
      const after = lsp.published.get(uri)!.slice(before).map((p) => p.version);
      assert.deepEqual(after, [last], `published versions after the burst: ${after.join(', ')}`);
      assert.equal(lsp.text(uri)!.slice(at, at + 30), 'x'.repeat(30));
    } finally {
      await lsp.shutdown();
    }
  });

  test('code lenses while typing: each keystroke cancels the previous request; every request settles, the last answers for the last version', async (t) => {
    const lsp = await LspHarness.start();
    try {
      const text = markdownDocument(11, 150, 100_000);
      const uri = lsp.open('typing.md', text, 'markdown');
      await lsp.waitForDiagnostics(uri, (_, v) => v === 1, 30_000);
      const body = text.indexOf('\n\n', text.indexOf('\n## ')) + 2;
      const line = text.slice(0, body).split('\n').length - 1;

      // Like an editor: after every keystroke, cancel the previous lens request and send a new one.
      const requests: { version: number; result: Promise<CodeLens[] | null | 'cancelled'> }[] = [];
      let source: CancellationTokenSource | undefined;
      for (let i = 0; i < 20; i++) {
        source?.cancel();
        const version = lsp.change(uri, [{ range: { start: { line, character: i }, end: { line, character: i } }, text: 'y' }]);
        source = new CancellationTokenSource();
        const result = lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } }, source.token).then(
          (r) => r,
          (err: { code?: number }) => {
            if (err?.code === REQUEST_CANCELLED) return 'cancelled' as const;
            throw err;
          },
        );
        requests.push({ version, result });
        await lsp.roundTrip(); // the server has received this keystroke and started its lens request
      }
      const settled = await Promise.all(requests.map((r) => r.result));
      const final = settled[settled.length - 1];
      assert.ok(Array.isArray(final) && final.length > 0, `the last request answered ${JSON.stringify(final)?.slice(0, 200)}`);
      const lastVersion = requests[requests.length - 1]!.version;
      for (const lens of final) {
        const arg = lens.command?.arguments?.[0] as { version?: number } | undefined;
        if (arg?.version !== undefined) assert.equal(arg.version, lastVersion, 'a lens of the last answer carries a stale version');
      }
      const stale = settled.slice(0, -1);
      const answered = stale.filter((r) => Array.isArray(r) && r.length > 0).length;
      // How many stale requests were still computed depends on timing (a warm 100 KB plan takes a few ms,
      // less than the gap before its cancellation arrives): reported, not asserted.
      t.diagnostic(`stale lens requests: ${stale.filter((r) => r === 'cancelled').length} cancelled, ${stale.filter((r) => r === null || (Array.isArray(r) && r.length === 0)).length} dropped, ${answered} answered before their cancellation arrived`);
    } finally {
      await lsp.shutdown();
    }
  });
});

describe('limits: toonlens.maxFileSizeMB', () => {
  // 0.01 MB = 10,485 characters.
  const settings = { maxFileSizeMB: 0.01 };
  const bigVerdict = verdictText((d) => {
    d.mode = 'not-a-mode'; // would be a schema error if it were checked
    d.padding = 'p'.repeat(20_000);
  });
  const bigMarkdown = markdownDocument(5, 40, 20_000) + '\n```toon\nx: "unterminated\n```\n';

  test('JSON over the limit: one info diagnostic, no hover, no lenses, no code actions', async () => {
    const lsp = await LspHarness.start({ settings });
    try {
      assert.ok(bigVerdict.length > 0.01 * 1024 * 1024);
      const uri = lsp.openFile('big.verdict.json', bigVerdict);
      const ds = await lsp.waitForDiagnostics(uri, (d) => d.length > 0, 15_000);
      assert.deepEqual(ds.map((d) => [d.code, d.severity]), [['limits/too-large', 3]]);
      assert.match(String(ds[0]!.message), /maxFileSizeMB/);
      assert.equal(await lsp.hover(uri, { line: 2, character: 5 }), null);
      assert.deepEqual((await lsp.codeLenses(uri)) ?? [], []);
      const actions = (await lsp.codeActions(uri, { start: { line: 0, character: 0 }, end: { line: 3, character: 0 } })) ?? [];
      assert.deepEqual(actions.filter((a) => 'kind' in a && a.kind !== undefined && a.kind !== 'source'), []);
      // Under the limit, the same document is checked.
      await lsp.setSettings({ maxFileSizeMB: 1 });
      const checked = await lsp.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'schema'), 15_000);
      assert.ok(!checked.some((d) => d.code === 'limits/too-large'));
    } finally {
      await lsp.shutdown();
    }
  });

  test('a report over the limit gets no apply lenses', async () => {
    const lsp = await LspHarness.start({ settings });
    try {
      const text = reportJson(3, 40);
      assert.ok(text.length > 0.01 * 1024 * 1024);
      const uri = lsp.openFile('big.report.json', text);
      const ds = await lsp.waitForDiagnostics(uri, (d) => d.length > 0, 15_000);
      assert.deepEqual(ds.map((d) => d.code), ['limits/too-large']);
      assert.deepEqual((await lsp.codeLenses(uri)) ?? [], []);
      assert.equal(await lsp.hover(uri, { line: 1, character: 5 }), null);
    } finally {
      await lsp.shutdown();
    }
  });

  test('markdown over the limit: one info diagnostic, no lenses, no hover', async () => {
    const lsp = await LspHarness.start({ settings });
    try {
      assert.ok(bigMarkdown.length > 0.01 * 1024 * 1024);
      const uri = lsp.openFile('big.md', bigMarkdown, 'markdown');
      const ds = await lsp.waitForDiagnostics(uri, (d) => d.length > 0, 15_000);
      assert.deepEqual(ds.map((d) => [d.code, d.severity]), [['limits/too-large', 3]]);
      assert.deepEqual((await lsp.codeLenses(uri)) ?? [], []);
      assert.equal(await lsp.hover(uri, { line: 3, character: 1 }), null);
      // Under the limit, the same document gets lenses and its broken TOON fence is reported.
      await lsp.setSettings({ maxFileSizeMB: 1 });
      const checked = await lsp.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'toon/fence-decode'), 15_000);
      assert.ok(!checked.some((d) => d.code === 'limits/too-large'));
      assert.ok(((await lsp.codeLenses(uri)) ?? []).length > 1);
    } finally {
      await lsp.shutdown();
    }
  });
});

describe('limits: isolation', () => {
  test('the client vanishing mid-request: the server exits by itself within a few seconds', async () => {
    const lsp = await LspHarness.start();
    try {
      // A cold 1 MB markdown plan takes seconds: the lens request is still being computed when the pipes close.
      const text = markdownDocument(21, 1_500, 1_000_000);
      const uri = lsp.open('vanish.md', text, 'markdown');
      const inFlight = lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } }).catch(() => 'rejected');
      await lsp.roundTrip(); // the lens request has been dispatched (a cold 1 MB plan then takes seconds)
      assert.ok(lsp.alive, 'the server is running when the client goes away');
      lsp.connection.dispose();
      lsp.process.stdin!.destroy();
      lsp.process.stdout!.destroy();
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 20_000).unref());
      const code = await Promise.race([lsp.exited, timeout]);
      if (code === 'timeout') lsp.kill();
      assert.notEqual(code, 'timeout', 'the server was still running 20 s after its client vanished');
      assert.equal(lsp.process.signalCode, null, 'exited on its own, not by a signal');
      assert.ok(code === 0 || code === 1, `exit code ${code}`);
      assert.doesNotMatch(lsp.stderr, /EPIPE|Uncaught|FATAL|out of memory/i, lsp.stderr);
      void inFlight;
    } finally {
      if (lsp.alive) lsp.kill();
      rmSync(lsp.workspaceDir, { recursive: true, force: true });
    }
  });

  test('200 documents opened at once are every one diagnosed', async () => {
    const lsp = await LspHarness.start();
    try {
      const docs: { uri: string; expect: string | undefined }[] = [];
      for (let i = 0; i < 200; i++) {
        if (i % 4 === 0) docs.push({ uri: lsp.open(`many/v${i}.verdict.json`, verdictText((d) => (d.mode = `bad-${i}`))), expect: 'schema' });
        else if (i % 4 === 1) docs.push({ uri: lsp.open(`many/r${i}.report.json`, reportJson(i, 3).replace('"2026-11-29T10:00:00Z"', '"yesterday"')), expect: 'report/generated-at' });
        else if (i % 4 === 2) docs.push({ uri: lsp.open(`many/m${i}.md`, markdownDocument(i, 6, 2_000) + '\n```toon\nx: "broken\n```\n', 'markdown'), expect: 'toon/fence-decode' });
        else docs.push({ uri: lsp.open(`many/t${i}.json`, '{ "broken": '), expect: undefined }); // not a ToonLens document
      }
      const all = await lsp.waitFor(
        () => (docs.every((d) => d.expect === undefined || lsp.published.has(d.uri)) ? true : undefined),
        120_000,
        () => `diagnostics for all documents; missing: ${docs.filter((d) => d.expect && !lsp.published.has(d.uri)).length}`,
      );
      assert.equal(all, true);
      for (const d of docs) {
        if (d.expect === undefined) continue;
        const codes = lsp.latestDiagnostics(d.uri)!.map((x) => x.code);
        assert.ok(codes.includes(d.expect), `${d.uri}: expected ${d.expect}, got ${codes.join(', ')}`);
      }
      // Untouched by the rest: a document opened afterwards is diagnosed too.
      const late = lsp.open('late.verdict.json', verdictText((d) => (d.mode = 'late')));
      assert.deepEqual((await lsp.waitForDiagnostics(late, (ds) => ds.length > 0, 30_000)).map((d) => d.code), ['schema']);
      assert.ok(lsp.alive);
    } finally {
      await lsp.shutdown(30_000);
    }
  });
});

// The large-JSON worker is cancellable and reports progress. A report over the worker threshold is checked on
// the worker thread; a new version of it or its close stops the running job (the worker is terminated and a
// fresh one takes the next job), `$/cancelRequest` of a lens request waiting on the job answers
// RequestCancelled, and a job running past a second shows window/workDoneProgress (create, begin, end) when
// the client supports it — never when it does not. Observed through the test-only counters
// (TOONLENS_TEST_COUNTERS) and the harness's record of $/progress; no timings are asserted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { CancellationTokenSource, CodeLensRequest } from 'vscode-languageserver-protocol/node';
import { LspHarness } from './harness';
import { copySampleWorkspace, repeatedSampleReport } from '../fixtures/report/helpers';
import type { WorkerCounters } from '../../server/src/node/jsonWorkerClient';

const COUNTERS = 'toonlens.test.jsonWorkerCounters';
const REQUEST_CANCELLED = -32800;

/** A report big enough that its check on the worker runs well past a second on any machine (40 MB, under the 50 MB size limit: the sample's entries repeated). */
const BIG_BYTES = 40 * 1024 * 1024;

async function withServer(opts: { progress: boolean }, body: (h: LspHarness, dir: string, text: string) => Promise<void>): Promise<void> {
  const dir = copySampleWorkspace('toonlens-worker-');
  const h = await LspHarness.start({
    workspaceDir: dir,
    env: { TOONLENS_TEST_COUNTERS: '1' },
    ...(opts.progress ? {} : { capabilities: { window: { workDoneProgress: false } } }),
  });
  try {
    await body(h, dir, repeatedSampleReport(dir, BIG_BYTES));
  } finally {
    h.kill();
    await h.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const counters = async (h: LspHarness) => (await h.executeCommand(COUNTERS)) as WorkerCounters;

/** The server's log line for a job of `name` that has run past a second / was cancelled (its Output channel). */
const longLog = (name: string) => new RegExp(`JSON worker: checking ${name.replace(/\./g, '\\.')} has run for over 1 s`);
const cancelledLog = (name: string) => new RegExp(`JSON worker: cancelled checking ${name.replace(/\./g, '\\.')}`);

/** The first $/progress begin whose title matches, with its token. */
function progressBegin(h: LspHarness, title: RegExp, timeoutMs = 120_000) {
  return h.waitFor(() => h.progress.find((p) => p.value.kind === 'begin' && title.test(p.value.title ?? '')), timeoutMs, () => `a $/progress begin matching ${title}; got ${JSON.stringify(h.progress)}`);
}

function progressEnd(h: LspHarness, token: string | number, timeoutMs = 30_000) {
  return h.waitFor(() => h.progress.find((p) => p.token === token && p.value.kind === 'end'), timeoutMs, () => `the end of progress ${token}`);
}

describe('JSON worker: cancellation and $/progress', () => {
  test('a job past a second shows progress; a new version cancels it mid-check and the new version is checked', async () => {
    await withServer({ progress: true }, async (h, _dir, text) => {
      const uri = h.open('big.report.json', text, 'json');
      const begin = await progressBegin(h, /checking big\.report\.json/);
      assert.ok(h.progressTokens.includes(begin.token), 'window/workDoneProgress/create came first');
      const during = await counters(h);
      assert.equal(during.started, 1);
      assert.equal(during.long, 1);
      assert.equal(during.completed, 0, 'the first check is still running');

      // A new version (one more space at the end): the running job is stopped.
      const v2 = h.change(uri, [{ range: { start: { line: 0, character: text.length }, end: { line: 0, character: text.length } }, text: ' ' }]);
      await progressEnd(h, begin.token);
      await h.waitForLog(cancelledLog('big.report.json'), 30_000);
      const after = await counters(h);
      assert.equal(after.cancelled, 1);
      assert.equal(after.completed, 0, 'the old version never answered');
      // The new version gets its own check on a fresh worker, and its diagnostics.
      await h.waitForDiagnostics(uri, (_d, v) => v === v2, 240_000);
      const done = await counters(h);
      assert.equal(done.started, 2);
      assert.equal(done.completed, 1);
      assert.equal(done.workers, 2, 'the terminated worker was replaced');
      assert.ok(h.alive);
    });
  });

  test('$/cancelRequest of a lens request waiting on the job answers RequestCancelled; the server goes on answering', async () => {
    await withServer({ progress: true }, async (h, _dir, text) => {
      const uri = h.open('big.report.json', text, 'json');
      await progressBegin(h, /checking big\.report\.json/);
      const cts = new CancellationTokenSource();
      const pending = h.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } }, cts.token);
      cts.cancel();
      const code = await pending.then(
        () => undefined,
        (err: { code?: number }) => err.code,
      );
      assert.equal(code, REQUEST_CANCELLED);
      // Another document is answered while the job runs on.
      const small = h.open('small.md', '# Small\n\n- key: value\n- other: thing\n- third: item\n');
      assert.ok(await h.hover(small, { line: 0, character: 3 }));
      const c = await counters(h);
      assert.equal(c.cancelled, 0, 'cancelling one request does not cancel the check the diagnostics still wait on');
    });
  });

  test('closing the document cancels its job; a client without workDoneProgress gets no progress', async () => {
    await withServer({ progress: false }, async (h, _dir, text) => {
      const uri = h.open('big.report.json', text, 'json');
      await h.waitForLog(longLog('big.report.json'), 120_000);
      assert.equal((await counters(h)).long, 1);
      h.close(uri);
      await h.waitForLog(cancelledLog('big.report.json'), 30_000);
      const c = await counters(h);
      assert.equal(c.cancelled, 1);
      assert.equal(c.completed, 0);
      assert.equal(h.progressTokens.length, 0, 'no window/workDoneProgress/create');
      assert.equal(h.progress.length, 0, 'no $/progress');
      // The worker comes back for the next large document.
      const again = h.open('again.report.json', text.slice(0, -1) + ' }', 'json');
      await h.waitForDiagnostics(again, () => true, 240_000);
      const d = await counters(h);
      assert.equal(d.completed, 1);
      assert.equal(d.workers, 2);
    });
  });
});

describe('a large .toon file is decoded on the worker', () => {
  test('a hover asked right after it opens is answered before its decode is published; the decode runs on the worker and equals the in-thread one', async () => {
    // About 2 MB of TOON (a strict decode of seconds' order on a slow machine), broken on its last line.
    const rows = Array.from({ length: 60_000 }, (_, i) => `  ${i},item ${i},${i % 2 === 0}`).join('\n');
    const text = `items[60000]{id,name,ok}:\n${rows}\nbroken: "unterminated\n`;
    const h = await LspHarness.start({ env: { TOONLENS_TEST_COUNTERS: '1' } });
    try {
      const small = h.open('small.md', '# Small\n\n- key: value\n', 'markdown');
      await h.hover(small, { line: 0, character: 3 });
      const uri = h.open('big.toon', text, 'toon');
      const hover = await h.hover(small, { line: 0, character: 3 });
      assert.ok(hover, 'the hover is answered');
      assert.equal(h.latestDiagnostics(uri), undefined, 'the hover came back before the file was decoded');
      const published = await h.waitForDiagnostics(uri, (d) => d.length > 0, 60_000);
      const { toonFileDiagnostics } = await import('../../server/src/core/toon/fences');
      const expected = toonFileDiagnostics(text);
      assert.deepEqual(published.map((d) => [d.code, d.message]), expected.map((d) => [d.code, d.message]));
      assert.equal(published[0]!.range.start.line, 60_001, 'on the broken line');
      assert.ok((await counters(h)).completed >= 1, 'the worker decoded it');
    } finally {
      await h.shutdown();
    }
  });
});

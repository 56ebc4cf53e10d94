/**
 * Against the built server over stdio: heavy markdown analysis is time-sliced
 * (another document's hover and lenses are answered while a 40 MB document is being measured, and
 * `$/progress` reports the long run), huge section and fence counts never overflow the stack, a
 * `$/cancelRequest` answers RequestCancelled, and the lifecycle error codes are the protocol's.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  CancellationTokenSource,
  CodeLensRequest,
  createProtocolConnection,
  ExitNotification,
  HoverRequest,
  InitializeRequest,
  InitializedNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import { LspHarness, SERVER_PATH, REPO_ROOT } from './harness';

const SERVER_NOT_INITIALIZED = -32002;
const INVALID_REQUEST = -32600;
const REQUEST_CANCELLED = -32800;
const CONTENT_MODIFIED = -32801;

/** A markdown document of `sections` distinct sections of about 290 characters each. */
function bigMarkdown(sections: number): string {
  const parts: string[] = ['# Big agent context', '', 'Generated for the responsiveness test.', ''];
  for (let i = 0; i < sections; i++) {
    parts.push(
      `## Section ${i}`,
      '',
      `- must run the checks before pushing change ${i}`,
      `- owner: team ${i % 17}`,
      `- review: the reviewer of change ${i} reads the diff first`,
      '',
      `The section ${i} explains what the agent does here and why it matters to the people who read its output later on.`,
      '',
    );
  }
  return parts.join('\n');
}

const SMALL = '# Small\n\n- key: value\n- other: thing\n- third: item\n';

/** The code of a request's rejection (a ResponseError), or undefined when it resolved. */
async function errorCode(p: Promise<unknown>): Promise<number | undefined> {
  try {
    await p;
    return undefined;
  } catch (err) {
    return (err as { code?: number }).code;
  }
}

/** The first `$/progress` begin the server sent (the harness records every progress notification). */
function progressBegun(lsp: LspHarness, ms: number): Promise<{ title?: string }> {
  return lsp.waitFor(() => lsp.progress.find((p) => p.value.kind === 'begin')?.value, ms, () => 'a $/progress begin');
}

describe('time-sliced markdown analysis', () => {
  test('while a 40 MB document is being measured, a hover on a small document is answered, then its lenses', async () => {
    const lsp = await LspHarness.start({ settings: { codeLens: { sections: 'all' } } });
    try {
      const text = bigMarkdown(160_000);
      assert.ok(text.length > 40_000_000, `${text.length} chars`);
      const big = lsp.open('big.md', text);
      // Its lenses are requested (and wait); the progress shows the measurement running past a second.
      const bigLenses = lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: big } });
      bigLenses.catch(() => undefined);
      const begin = await progressBegun(lsp, 120_000);
      assert.match(begin.title ?? '', /big\.md/);

      const small = lsp.open('small.md', SMALL);
      const t0 = performance.now();
      const hover = await lsp.hover(small, { line: 0, character: 3 }); // 10 s bound (the harness's)
      const hoverMs = performance.now() - t0;
      assert.ok(hover, 'the small document has a verdict hover');
      assert.ok(hoverMs < 10_000, `hover answered in ${hoverMs.toFixed(0)} ms`);
      const lenses = await lsp.codeLenses(small);
      assert.ok(lenses && lenses.length >= 2, 'the small document gets its plan and section lenses');
      assert.ok(!lsp.progress.some((p) => p.value.kind === 'end'), 'both were answered while the 40 MB analysis was still running');
      assert.ok(lsp.alive);
      // An edit supersedes the big document's run: the waiting request learns that its content changed.
      lsp.change(big, text + '\nmore\n');
      assert.equal(await errorCode(bigLenses), CONTENT_MODIFIED);
    } finally {
      lsp.kill();
      await lsp.exited;
    }
  });

  test('$/cancelRequest on a lens request of a document being measured answers RequestCancelled', async () => {
    const lsp = await LspHarness.start({ settings: { codeLens: { sections: 'all' } } });
    try {
      const uri = lsp.open('big.md', bigMarkdown(40_000));
      await progressBegun(lsp, 120_000);
      const cts = new CancellationTokenSource();
      const pending = lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } }, cts.token);
      cts.cancel();
      assert.equal(await errorCode(pending), REQUEST_CANCELLED);
      // The server goes on: a small document is still answered.
      const small = lsp.open('small.md', SMALL);
      assert.ok((await lsp.codeLenses(small))?.length);
    } finally {
      lsp.kill();
      await lsp.exited;
    }
  });

  test('200k headings get lenses and 150k toon fences get diagnostics: no stack overflow', async () => {
    const lsp = await LspHarness.start({ settings: { codeLens: { sections: 'all' } } });
    try {
      // Repeated sections measure once (the cache is by slice text), so the counts, not the analysis, are what is tested.
      // (A body of 20 characters or more: smaller sections get no lens.)
      const headings = lsp.open('headings.md', '# h\n\n- key: value\n- other: thing\n'.repeat(200_000));
      const lenses = await lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: headings } });
      assert.equal(lenses?.length, 200_000 + 1, 'one lens per section and the plan lens');
      const fences = lsp.open('fences.md', '## f\n\n```toon\na: "unterminated\n```\n\n'.repeat(150_000));
      const ds = await lsp.waitForDiagnostics(fences, (d) => d.length > 0, 120_000);
      // All 150,000 are found; the editor is shown the first 1,000 and one diagnostic counting the rest.
      assert.equal(ds.filter((d) => d.code === 'toon/fence-decode').length, 1000);
      assert.equal(ds[0]!.code, 'limits/too-many-diagnostics');
      assert.match(String(ds[0]!.message), /^149,000 more diagnostics are not shown/);
      assert.equal(ds[1000]!.range.start.line, 999 * 6 + 3, 'each fence is reported on its own content line');
      assert.ok(lsp.alive, lsp.stderr);
    } finally {
      // (The lifecycle has its own tests; this server may still be busy with the 150,000 fences.)
      lsp.kill();
      await lsp.exited;
    }
  });
});

/** A bare client over the built server, for the lifecycle before `initialize`. */
function rawServer(): { connection: ProtocolConnection; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [SERVER_PATH, '--stdio'], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
  connection.onError(() => undefined);
  connection.listen();
  return { connection, exited };
}

const INIT = { processId: process.pid, rootUri: null, capabilities: {} };
const HOVER = { textDocument: { uri: 'file:///x.md' }, position: { line: 0, character: 0 } };

describe('LSP lifecycle', () => {
  test('before initialize: ServerNotInitialized; after shutdown: InvalidRequest; exit exits 0', async () => {
    const { connection, exited } = rawServer();
    try {
      assert.equal(await errorCode(connection.sendRequest(HoverRequest.type, HOVER)), SERVER_NOT_INITIALIZED);
      const init = await connection.sendRequest(InitializeRequest.type, INIT);
      assert.ok(init.capabilities.hoverProvider);
      await connection.sendNotification(InitializedNotification.type, {});
      assert.equal(await connection.sendRequest(HoverRequest.type, HOVER), null, 'initialized: an unknown document has no hover');
      assert.equal(await errorCode(connection.sendRequest(InitializeRequest.type, INIT)), INVALID_REQUEST, 'a second initialize');
      await connection.sendRequest(ShutdownRequest.type);
      assert.equal(await errorCode(connection.sendRequest(HoverRequest.type, HOVER)), INVALID_REQUEST);
      await connection.sendNotification(ExitNotification.type);
      assert.equal(await exited, 0);
    } finally {
      connection.dispose();
    }
  });

  test('exit without shutdown exits 1', async () => {
    const { connection, exited } = rawServer();
    try {
      await connection.sendRequest(InitializeRequest.type, INIT);
      await connection.sendNotification(ExitNotification.type);
      assert.equal(await exited, 1);
    } finally {
      connection.dispose();
    }
  });
});

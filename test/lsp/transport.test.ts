// The VS Code client and other editors start the server with --stdio (the harness); --node-ipc still works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  createProtocolConnection,
  ExitNotification,
  InitializeRequest,
  InitializedNotification,
  IPCMessageReader,
  IPCMessageWriter,
  ShutdownRequest,
} from 'vscode-languageserver-protocol/node';
import { LspHarness, REPO_ROOT, SERVER_PATH } from './harness';
import type { MemoryMark } from '../../server/src/testing/memoryTrace';
import { MEMORY_TRACE_COMMAND } from '../../server/src/testing/hooks';
import { RELEASE_MIN_BYTES } from '../../server/src/node/stdioTransport';

test('--node-ipc: initialize, shutdown, exit 0', async () => {
  const child = fork(SERVER_PATH, ['--node-ipc'], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const connection = createProtocolConnection(new IPCMessageReader(child), new IPCMessageWriter(child));
  connection.listen();
  try {
    const result = await connection.sendRequest(InitializeRequest.type, { processId: process.pid, rootUri: null, capabilities: {}, workspaceFolders: null });
    assert.equal(result.serverInfo?.name, 'toonlens');
    await connection.sendNotification(InitializedNotification.type, {});
    await connection.sendRequest(ShutdownRequest.type);
    await connection.sendNotification(ExitNotification.type);
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5000).unref());
    assert.equal(await Promise.race([exited, timeout]), 0);
  } finally {
    connection.dispose();
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('--stdio: the server exits when the client goes away without shutdown', async () => {
  const lsp = await LspHarness.start();
  const uri = lsp.open('x.verdict.json', '{}');
  await lsp.waitForDiagnostics(uri);
  lsp.connection.dispose();
  lsp.process.stdin!.end();
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 5000).unref());
  const code = await Promise.race([lsp.exited, timeout]);
  if (code === 'timeout') lsp.kill();
  rmSync(lsp.workspaceDir, { recursive: true, force: true });
  assert.notEqual(code, 'timeout', 'the server did not exit');
});

test('commands: advertised for generic clients, left to the VS Code client when it registers them itself', async () => {
  const generic = await LspHarness.start();
  const vscodeLike = await LspHarness.start({ initializationOptions: { clientRegistersCommands: true, trusted: true } });
  try {
    const advertised = generic.initializeResult!.capabilities.executeCommandProvider?.commands ?? [];
    assert.ok(advertised.includes('toonlens.convertSection'), JSON.stringify(advertised));
    const left = vscodeLike.initializeResult!.capabilities.executeCommandProvider?.commands ?? [];
    for (const c of ['toonlens.convertSection', 'toonlens.revertSection', 'toonlens.convertAll', 'toonlens.applyEdit', 'toonlens.applyAllAuto', 'toonlens.showVerdict']) {
      assert.ok(!left.includes(c), `${c} must not be advertised: vscode-languageclient would register it a second time`);
    }
  } finally {
    await generic.shutdown();
    await vscodeLike.shutdown();
  }
});

test('--stdio: malformed frames get a log line each and the server goes on answering (our reader, node/stdioTransport.ts)', async () => {
  const lsp = await LspHarness.start();
  try {
    const stdin = lsp.process.stdin!;
    stdin.write('Content-Length: nope\r\n\r\n');
    stdin.write('Content-Length: 11\r\n\r\n{"jsonrpc":');
    stdin.write('Content-Length: 2\r\nContent-Type: application/vscode-jsonrpc; charset=x-klingon\r\n\r\n{}');
    await lsp.waitForLog(/transport: a message header without a valid Content-Length \("nope"\)/);
    await lsp.waitForLog(/transport: a message of 11 bytes is not valid JSON/);
    await lsp.waitForLog(/transport: a message of 2 bytes skipped: its charset "x-klingon" is not supported/);
    // A document whose text has an em dash, an astral character and a Latin-1 one before a finding on the same
    // line: its column (UTF-16 code units) is right only if the escaped one-byte decode gave the exact text.
    const sample = readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'settings-table.verdict.json'), 'utf8');
    const text = sample.replace('"title": "Build settings",', '"title": "Build — settings 😀 é", "source_type": "bogus",').replace('    "source_type": "markdown",\n', '');
    const uri = lsp.open('after.verdict.json', text);
    const diagnostics = await lsp.waitForDiagnostics(uri, (d) => d.length > 0);
    const line = text.split('\n').findIndex((l) => l.includes('"bogus"'));
    const column = text.split('\n')[line]!.indexOf('"bogus"');
    const finding = diagnostics.find((d) => d.range.start.line === line);
    assert.ok(finding, JSON.stringify(diagnostics));
    assert.equal(finding.range.start.character, column, JSON.stringify(finding));
  } finally {
    await lsp.shutdown();
  }
});

test('--stdio: a didOpen over 8 MB is read from the pipe, its body and message string freed before the check (memory trace), and checked exactly like a small one', async () => {
  const lsp = await LspHarness.start();
  try {
    const sample = readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'settings-table.verdict.json'), 'utf8');
    // An em dash makes the text two bytes per character (the case of a real plan); trailing spaces make it large.
    const small = sample.replace('"title": "Build settings",', '"title": "Build — settings", "source_type": "bogus",').replace('    "source_type": "markdown",\n', '');
    const large = `${small}\n${' '.repeat(RELEASE_MIN_BYTES)}\n`;
    const a = lsp.open('small.verdict.json', small);
    const expected = await lsp.waitForDiagnostics(a, (d) => d.length > 0);
    await lsp.executeCommand(MEMORY_TRACE_COMMAND); // forget the marks so far
    const b = lsp.open('large.verdict.json', large);
    const got = await lsp.waitForDiagnostics(b, (d) => d.length > 0, 60_000);
    assert.deepEqual(got.map((d) => [d.code, d.range, d.message]), expected.map((d) => [d.code, d.range, d.message]));
    const trace = (await lsp.executeCommand(MEMORY_TRACE_COMMAND)) as MemoryMark[];
    const labels = trace.map((m) => m.label.replace(/ \(.*\)$/, '').replace(/of a [0-9.]+ MB body/, 'of a large body'));
    const order = ['reader: header of a large body', 'reader: body received', 'reader: body decoded', 'reader: message parsed', 'reader: collected', 'reader: message delivered', 'json: check start', 'json: check done', 'json: diagnostics mapped'];
    assert.deepEqual(labels.filter((l) => order.includes(l)), order, JSON.stringify(labels));
    const at = (label: string) => trace[labels.indexOf(label)]!;
    const bodyMB = Buffer.byteLength(large) / 1e6;
    // At the decode the body (array buffer) and the message string (external) are both there; at the check neither.
    assert.ok(at('reader: body decoded').arrayBuffers > bodyMB, JSON.stringify(at('reader: body decoded')));
    assert.ok(at('json: check start').arrayBuffers < bodyMB / 4, JSON.stringify(at('json: check start')));
    assert.ok(at('json: check start').external < bodyMB / 4, JSON.stringify(at('json: check start')));
  } finally {
    await lsp.shutdown();
  }
});

test('--stdio: protocol edges — an endless Content-Length, an id nested 100,000 deep, a throwing $/cancelRequest, a mistyped command argument — each answered or dropped, and the server goes on answering', async () => {
  const lsp = await LspHarness.start();
  try {
    const stdin = lsp.process.stdin!;
    const raw = (body: string) => `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const openOf = (name: string) => raw(JSON.stringify({ jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: lsp.uri(name), languageId: 'json', version: 1, text: '{"schema_version": "verdict.v1"}' } } }));
    // A header announcing more bytes than will ever come, then a document in the same write: it is still read.
    stdin.write('Content-Length: 99999999999999\r\n\r\n{"jsonrpc":"2.0"' + openOf('a.verdict.json'));
    await lsp.waitForDiagnostics(lsp.uri('a.verdict.json'), (d) => d.length > 0);
    await lsp.waitForLog(/a message header inside \d+ bytes being skipped; reading resumes there/);
    // An id no client could match, then a document in the same write.
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    stdin.write(raw(`{"jsonrpc":"2.0","id":${deep},"method":"textDocument/hover","params":{}}`) + openOf('b.verdict.json'));
    await lsp.waitForDiagnostics(lsp.uri('b.verdict.json'), (d) => d.length > 0);
    await lsp.waitForLog(/has an id that is neither a string nor a number; skipped/);
    // A notification whose handler throws, then a document in the same write.
    stdin.write(raw('{"jsonrpc":"2.0","method":"$/cancelRequest","params":null}') + openOf('c.verdict.json'));
    await lsp.waitForDiagnostics(lsp.uri('c.verdict.json'), (d) => d.length > 0);
    // A command argument of the wrong type: a clear InvalidParams answer, not a TypeError from the handler.
    await assert.rejects(lsp.executeCommand('toonlens.applyAllAuto', [{ uri: 5 }]), (err: { code?: number; message?: string }) => {
      assert.equal(err.code, -32602, String(err.message));
      assert.match(String(err.message), /toonlens\.applyAllAuto: argument 1: "uri" must be a string, not number/);
      return true;
    });
    assert.deepEqual(await lsp.executeCommand('toonlens.test.ping'), { pong: true });
  } finally {
    await lsp.shutdown();
  }
});

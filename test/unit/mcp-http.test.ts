/**
 * `toonlens mcp --http` (Streamable HTTP on 127.0.0.1), driven by the MCP SDK's own client: initialize, tools/list,
 * tools deep-equal to the CLI's --json, sessions, and requests from another Host or Origin refused.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import * as http from 'node:http';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';
import { cli, startHttp, type McpSession } from '../mcp/client';
import { tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

let ws: TempWorkspace;
let mcp: McpSession & { url: URL };

before(async () => {
  ws = tempWorkspace();
  cpSync(join(REPO_ROOT, 'examples'), join(ws.root, 'examples'), { recursive: true });
  mcp = await startHttp({ cwd: ws.root });
});
after(async () => {
  await mcp?.close();
  ws?.cleanup();
});

/** A raw POST to the endpoint with these headers: status and body. */
function post(url: URL, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let b = '';
      res.on('data', (c: Buffer) => (b += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: b }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

const INIT = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

describe('toonlens mcp --http', () => {
  test('listens on 127.0.0.1 only, at /mcp', () => {
    assert.equal(mcp.url.hostname, '127.0.0.1');
    assert.equal(mcp.url.pathname, '/mcp');
  });

  test('initialize and tools/list over HTTP', async () => {
    assert.equal(mcp.client.getServerVersion()?.name, 'toonlens');
    const { tools } = await mcp.client.listTools();
    assert.equal(tools.length, 11);
    assert.ok(tools.every((t) => t.outputSchema));
  });

  test('tools answer as the CLI --json does', async () => {
    const rel = 'examples/agent-json/unknown-verdict.verdict.json';
    assert.deepEqual((await mcp.ok('check', { path: rel })).files, cli(['check', '--format', 'json', rel], ws.root).json);
    const md = 'examples/markdown/AGENTS.md';
    assert.deepEqual(await mcp.ok('plan', { path: md }), cli(['plan', md, '--json'], ws.root).json);
    assert.equal((await mcp.fails('profile', { path: '/etc/passwd' })).code, 'bad_request');
    await assert.rejects(mcp.call('nope'), /Unknown tool: nope/);
    assert.ok(await mcp.ok('validate_toon', { path: 'examples/toon/orders.toon' }));
  });

  test('another Host or Origin is refused (DNS rebinding); an unknown session is 404; a request before initialize is 400', async () => {
    const forged = await post(mcp.url, { host: `evil.example:${mcp.url.port}` }, INIT);
    assert.equal(forged.status, 403);
    assert.match(forged.body, /Host header/);
    const origin = await post(mcp.url, { origin: 'https://evil.example' }, INIT);
    assert.equal(origin.status, 403);
    const session = await post(mcp.url, { 'mcp-session-id': 'no-such-session' }, { jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.equal(session.status, 404);
    const early = await post(mcp.url, {}, { jsonrpc: '2.0', id: 3, method: 'tools/list' });
    assert.equal(early.status, 400);
    const elsewhere = await post(new URL('/other', mcp.url), {}, INIT);
    assert.equal(elsewhere.status, 404);
    // The server still serves its session.
    assert.equal((await mcp.client.listTools()).tools.length, 11);
  });

  test('roots the client declares are asked for over the session, and bound its paths', async () => {
    const b = tempWorkspace({ 'b.md': '# B\n\n- one\n- two\n' });
    const withRoots = await startHttp({ cwd: ws.root, roots: [b.root] });
    try {
      assert.deepEqual(await withRoots.ok('profile', { path: 'b.md' }), cli(['profile', 'b.md', '--json'], b.root).json);
      assert.match((await withRoots.fails('profile', { path: join(ws.root, 'examples/markdown/AGENTS.md') })).message, /outside the server's roots/);
    } finally {
      await withRoots.close();
      b.cleanup();
    }
  });

  test('a second client gets its own session', async () => {
    const second = await startHttpClientOnly(mcp.url);
    try {
      assert.equal((await second.listTools()).tools.length, 11);
    } finally {
      await second.close();
    }
    assert.equal((await mcp.client.listTools()).tools.length, 11);
  });
});

async function startHttpClientOnly(url: URL) {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const client = new Client({ name: 'second', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(url));
  return client;
}

/**
 * The MCP server over Streamable HTTP on 127.0.0.1 only, at `/mcp`, one session (and one server, with its own
 * roots) per client. Requests whose Host or Origin is not this loopback address are refused (DNS rebinding).
 */
import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpServer, MAX_TEXT_BYTES, type McpServerOptions } from './server';
import { errorMessage } from '../core/errors';

export const MCP_PATH = '/mcp';

/** JSON-escaped text can be larger than the text; a body may carry one text at the limit and its envelope. */
const MAX_BODY_BYTES = 2 * MAX_TEXT_BYTES + 64 * 1024;

/** How long an idle client connection stays open. */
const KEEP_ALIVE_MS = 10 * 60 * 1000;

function reject(res: http.ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

/** Whether a Host or Origin header names this server's loopback address. */
function loopback(value: string, port: number, withScheme: boolean): boolean {
  const hosts = [`127.0.0.1:${port}`, `localhost:${port}`];
  return (withScheme ? hosts.map((h) => `http://${h}`) : hosts).includes(value.toLowerCase());
}

/** Starts listening on 127.0.0.1:`port` (0: any free port); resolves with the server and the port it got. */
export async function serveHttp(port: number, options: McpServerOptions): Promise<{ server: http.Server; port: number; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  let bound = port;
  const httpServer = http.createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) reject(res, 500, `internal error: ${errorMessage(err)}`);
      else res.end();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (!loopback(req.headers.host ?? '', bound, false)) return reject(res, 403, 'forbidden: the Host header must be this loopback address');
    const origin = req.headers.origin;
    if (origin !== undefined && !loopback(origin, bound, true)) return reject(res, 403, 'forbidden: requests from other origins are refused');
    if (url.pathname !== MCP_PATH) return reject(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const t = sessions.get(sid);
      if (!t) return reject(res, 404, 'session not found: initialize a new session');
      return t.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reject(res, 400, 'bad request: no session (send initialize first, without an mcp-session-id header)');
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    const server = createMcpServer(options);
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res);
    // A first request that was not a valid initialize opened no session: nothing stays behind for it.
    if (!transport.sessionId) await server.close();
  }

  // Clients keep their connection between calls, and may send on it just as the server drops an idle one (the
  // request then fails as "fetch failed"): idle connections are kept far longer than any pause between calls.
  httpServer.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, rejectListen) => {
    httpServer.once('error', rejectListen);
    httpServer.listen(port, '127.0.0.1', () => resolve());
  });
  bound = (httpServer.address() as AddressInfo).port;
  return {
    server: httpServer,
    port: bound,
    async close() {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      await new Promise<void>((r) => httpServer.close(() => r()));
    },
  };
}

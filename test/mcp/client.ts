/**
 * Drives the BUILT `toonlens mcp` (node bin/toonlens.js, so run `npm run build` first) through the MCP SDK's own
 * client, over a real stdio pipe or Streamable HTTP, and runs the same CLI for the `--json` the tools must equal.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT } from '../paths';

export const BIN = join(REPO_ROOT, 'bin', 'toonlens.js');

export function assertBuilt(): void {
  if (!existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run `npm run build` first');
}

/** `toonlens <args>` in `cwd`: its exit status and parsed stdout (stdout text when it is not JSON). */
export function cli(args: string[], cwd: string, input?: string): { status: number | null; json: unknown; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  let json: unknown;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { status: r.status, json, stdout: r.stdout, stderr: r.stderr };
}

export interface McpSession {
  client: Client;
  /** A tools/call: the result (errors included as results; a JSON-RPC error rejects). */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  /** A tools/call that must succeed: its structuredContent. */
  ok(name: string, args?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** A tools/call that must fail: its error envelope. */
  fails(name: string, args?: Record<string, unknown>): Promise<{ code: string; message: string }>;
  stderr(): string;
  close(): Promise<void>;
}

function session(client: Client, stderr: () => string, close: () => Promise<void>): McpSession {
  const call = async (name: string, args: Record<string, unknown> = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  return {
    client,
    call,
    async ok(name, args) {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} failed: ${JSON.stringify(r.content)}`);
      return r.structuredContent as Record<string, unknown>;
    },
    async fails(name, args) {
      const r = await call(name, args);
      if (!r.isError) throw new Error(`${name} succeeded: ${JSON.stringify(r.structuredContent).slice(0, 300)}`);
      const first = r.content[0];
      if (first?.type !== 'text') throw new Error('an error result without text');
      return (JSON.parse(first.text) as { error: { code: string; message: string } }).error;
    },
    stderr,
    close,
  };
}

export interface StartOptions {
  args?: string[];
  cwd: string;
  /** Roots the client declares (absolute folders); undefined: the client has no roots capability. */
  roots?: string[];
}

function newClient(roots?: string[]): Client {
  const client = new Client({ name: 'toonlens-test', version: '1.0.0' }, { capabilities: roots ? { roots: { listChanged: true } } : {} });
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: roots.map((r) => ({ uri: `file://${r}`, name: r })) }));
  return client;
}

/** `toonlens mcp [args]` over stdio. */
export async function startStdio(opts: StartOptions): Promise<McpSession> {
  assertBuilt();
  const transport = new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp', ...(opts.args ?? [])], cwd: opts.cwd, stderr: 'pipe' });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => (err += c.toString()));
  const client = newClient(opts.roots);
  await client.connect(transport);
  return session(client, () => err, () => client.close());
}

/** `toonlens mcp --http 0 [args]`: waits for the port it prints, then connects over Streamable HTTP. */
export async function startHttp(opts: StartOptions): Promise<McpSession & { url: URL; child: ChildProcess }> {
  assertBuilt();
  const child = spawn(process.execPath, [BIN, 'mcp', '--http', '0', ...(opts.args ?? [])], { cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  const url = await new Promise<URL>((resolve, reject) => {
    child.stderr!.on('data', (c: Buffer) => {
      err += c.toString();
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) resolve(new URL(m[1]!));
    });
    child.once('exit', (code) => reject(new Error(`toonlens mcp --http exited (${code}): ${err}`)));
  });
  const client = newClient(opts.roots);
  await client.connect(new StreamableHTTPClientTransport(url));
  const s = session(client, () => err, async () => {
    await client.close();
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  });
  return { ...s, url, child };
}

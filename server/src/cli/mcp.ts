/**
 * `toonlens mcp [--http PORT] [--allow-writes] [--root DIR]`: the Model Context Protocol server (mcp/), on stdio
 * by default, on Streamable HTTP at http://127.0.0.1:PORT/mcp with --http. Runs until its input ends (stdio) or
 * it is stopped (HTTP). Nothing but protocol messages goes to stdout.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { defineCommand, flag, stringValue, usageError, type OptionDefs } from './args';

export const MCP_HELP = `Usage: toonlens mcp [--http PORT] [--allow-writes] [--root DIR]

Runs ToonLens as a Model Context Protocol server: tools check, fix, profile, convert, plan,
convert_section, validate_toon, decode_toon, schema_diff and apply_report; the JSON Schemas and the
code catalogue as resources; the prompt review-agent-file. See docs/mcp.md.

Options:
  --http PORT      serve Streamable HTTP on http://127.0.0.1:PORT/mcp (loopback only; 0 picks a free
                   port, printed on stderr) instead of stdio
  --allow-writes   let apply_report write when a call also says confirm: true (default: dry runs only)
  --root DIR       the folder paths are resolved in when the client declares no roots (default: the
                   current directory)
  -h, --help       show this help

Examples:
  toonlens mcp --root ~/project
  toonlens mcp --root ~/project --allow-writes
  toonlens mcp --http 3939

Exit status: 0 when the client closes the connection, 2 on an error (bad_request, io).
`;

const OPTIONS: OptionDefs = {
  http: { type: 'string' },
  'allow-writes': { type: 'boolean' },
  root: { type: 'string' },
};

export const run = defineCommand({ name: 'mcp', options: OPTIONS, help: MCP_HELP, errorExit: 2 }, async (p, io) => {
  if (p.positionals.length) throw usageError(`mcp takes no arguments, got '${p.positionals[0]}'`);
  const httpPort = stringValue(p, 'http');
  if (httpPort !== undefined && (!/^\d{1,5}$/.test(httpPort) || Number(httpPort) > 65535)) throw usageError(`--http must be a port number (0–65535), not '${httpPort}'`);
  const rootArg = stringValue(p, 'root');
  const root = nodePath.resolve(io.cwd, rootArg ?? '.');
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw usageError(`--root ${root} is not a directory`);
  const options = { roots: [root], allowWrites: flag(p, 'allow-writes') };

  if (httpPort !== undefined) {
    const { serveHttp, MCP_PATH } = await import('../mcp/http');
    const served = await serveHttp(Number(httpPort), options);
    io.stderr(`toonlens mcp: listening on http://127.0.0.1:${served.port}${MCP_PATH}${options.allowWrites ? ' (writes allowed with confirm)' : ''}\n`);
    await new Promise<void>((resolve) => {
      const stop = () => void served.close().then(resolve);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
    return 0;
  }
  const { createMcpServer, MAX_TEXT_BYTES } = await import('../mcp/server');
  const { LineTransport } = await import('../mcp/stdio');
  const server = createMcpServer(options);
  // A message may carry one text at the limit, JSON-escaped, and its envelope.
  const transport = new LineTransport(process.stdin, process.stdout, 2 * MAX_TEXT_BYTES + 64 * 1024);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  io.stderr(`toonlens mcp: serving on stdio (root ${root}${options.allowWrites ? '; writes allowed with confirm' : ''})\n`);
  await closed;
  await server.close();
  return 0;
});

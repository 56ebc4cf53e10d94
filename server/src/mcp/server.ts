/**
 * The ToonLens MCP server: one SDK `Server` with the tools (mcp/tools.ts), resources and the prompt
 * (mcp/resources.ts), on whatever transport the caller connects (stdio or Streamable HTTP, cli/mcp.ts).
 *
 * Every call either answers or fails alone: arguments are checked against the tool's own input schema, text over
 * the size limit is refused before any work, and a failure is one error result (`isError`, the CLI's error
 * envelope as its text), never a dropped connection.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  RootsListChangedNotificationSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { CliError, asCliError } from '../cli/args';
import { VERSION } from '../version';
import { resolveAliases } from './aliases';
import { listResources, readResource, REVIEW_PROMPT, reviewPromptMessages } from './resources';
import { Roots } from './roots';
import { TOOLS, type Args } from './tools';

/** The largest string argument a call may carry (a document's text), in UTF-8 bytes. */
export const MAX_TEXT_BYTES = 16 * 1024 * 1024;

/** How long the server waits for the client's `roots/list` answer before using its own roots. */
const ROOTS_TIMEOUT_MS = 10_000;

export interface McpServerOptions {
  /** The server's own roots (absolute): used when the client declares none. */
  roots: readonly string[];
  /** Whether apply_report may write (with a per-call confirm). */
  allowWrites: boolean;
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validators = new Map<string, ValidateFunction>([...TOOLS.values()].map((t) => [t.name, ajv.compile(t.inputSchema)]));

/** The first schema error of the arguments, in a sentence. */
function argumentProblem(v: ValidateFunction): string {
  const e = v.errors?.[0];
  if (!e) return 'the arguments do not match the input schema';
  const at = e.instancePath ? `argument ${e.instancePath.slice(1).replace(/\//g, '.')}` : 'the arguments';
  if (e.keyword === 'additionalProperties') return `${at} has an unknown property '${(e.params as { additionalProperty: string }).additionalProperty}'`;
  if (e.keyword === 'enum') return `${at} must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((x) => JSON.stringify(x)).join(', ')}`;
  return `${at} ${e.message ?? 'is invalid'}`;
}

/**
 * A JSON-RPC error for the SDK to send: an Error with a `code` (the SDK's McpError would put "MCP error <code>:" in
 * the message, which the client's McpError then prefixes a second time).
 */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function errorResult(err: CliError): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: { code: err.code, message: err.message } }) }] };
}

/** A string argument over {@link MAX_TEXT_BYTES}, named, or undefined. */
function oversize(args: Args): string | undefined {
  for (const [k, v] of Object.entries(args)) {
    // Byte length is at most 3 × the UTF-16 length: only a long string needs the exact count.
    if (typeof v === 'string' && v.length * 3 > MAX_TEXT_BYTES && Buffer.byteLength(v, 'utf8') > MAX_TEXT_BYTES) {
      return `${k} is ${(Buffer.byteLength(v, 'utf8') / 1048576).toFixed(1)} MB, over the ${MAX_TEXT_BYTES / 1048576} MB limit`;
    }
  }
  return undefined;
}

/** Runs one tool call to its result; every failure is an error result. */
export async function callTool(name: string, rawArgs: unknown, ctx: { roots: Roots; allowWrites: boolean }): Promise<CallToolResult> {
  try {
    if (rawArgs !== undefined && (rawArgs === null || typeof rawArgs !== 'object' || Array.isArray(rawArgs))) throw new CliError('bad_request', 'arguments must be an object');
    const tooBig = oversize((rawArgs ?? {}) as Args);
    if (tooBig) throw new CliError('bad_request', tooBig);
    const { name: toolName, args } = resolveAliases(name, (rawArgs ?? {}) as Args);
    const tool = TOOLS.get(toolName);
    if (!tool) throw new RpcError(ErrorCode.InvalidParams, `Unknown tool: ${name} (tools: ${[...TOOLS.keys()].join(', ')})`);
    const validate = validators.get(tool.name)!;
    if (!validate(args)) throw new CliError('bad_request', `${tool.name}: ${argumentProblem(validate)}`);
    const structured = await tool.run(args, ctx);
    // The text block is for clients that read only text: compact, since a model pays for every indent.
    return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  } catch (e) {
    if (e instanceof RpcError) throw e;
    return errorResult(asCliError(e));
  }
}

/** A new MCP server (one per connection: each client has its own roots). */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: 'toonlens', title: 'ToonLens', version: VERSION },
    {
      capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} },
      instructions:
        'ToonLens checks agent JSON (verdicts, docs-hygiene reports, critique reports, recipe-build payloads) and measures what markdown agent files would save as TOON. Call `check` on JSON before emitting it; `plan` or `profile` before loading a large markdown file. Nothing is written unless apply_report is called with confirm: true on a server started with --allow-writes.',
    },
  );
  const roots = new Roots(options.roots, async () => {
    if (!server.getClientCapabilities()?.roots) return undefined;
    return (await server.listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS })).roots;
  });
  const ctx = { roots, allowWrites: options.allowWrites };

  server.setNotificationHandler(RootsListChangedNotificationSchema, async () => roots.invalidate());
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [...TOOLS.values()].map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: t.inputSchema as { type: 'object' }, outputSchema: t.outputSchema as { type: 'object' }, annotations: { title: t.title, ...t.annotations } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => callTool(req.params.name, req.params.arguments, ctx));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: listResources() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const r = readResource(req.params.uri);
    // -32002: the spec's "resource not found".
    if (!r) throw new RpcError(-32002, `Resource not found: ${req.params.uri}`);
    return { contents: [r] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: [REVIEW_PROMPT] }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    if (req.params.name !== REVIEW_PROMPT.name) throw new RpcError(ErrorCode.InvalidParams, `Unknown prompt: ${req.params.name} (prompts: ${REVIEW_PROMPT.name})`);
    const path = req.params.arguments?.path;
    if (typeof path !== 'string' || path === '') throw new RpcError(ErrorCode.InvalidParams, `${REVIEW_PROMPT.name} needs the argument path`);
    return { description: REVIEW_PROMPT.description, messages: reviewPromptMessages(path) };
  });
  return server;
}

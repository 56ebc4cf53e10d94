/**
 * The MCP stdio transport: newline-delimited JSON-RPC on stdin/stdout. Unlike the SDK's, a line that is too long,
 * not JSON or not JSON-RPC costs only itself: it is answered with a JSON-RPC error (id null, as the spec says when
 * the id cannot be read) and the server goes on reading. When stdin ends the transport closes once every request
 * already read has been answered.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { errorMessage } from '../core/errors';

type Id = string | number;

export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes of the current line are being dropped (it went over the limit). */
  private discarding = false;
  private ended = false;
  private closed = false;
  /** Requests read and not answered yet. */
  private readonly pending = new Set<Id>();

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
    /** The longest line read, in bytes. */
    private readonly maxLineBytes: number,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', (e: Error) => this.onerror?.(e));
  }

  private readonly onData = (chunk: Buffer | string): void => {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (;;) {
      const nl = buf.indexOf(0x0a);
      const part = nl === -1 ? buf : buf.subarray(0, nl);
      if (!this.discarding) {
        if (this.size + part.length > this.maxLineBytes) {
          this.discarding = true;
          this.chunks = [];
          this.size = 0;
        } else if (part.length) {
          this.chunks.push(part);
          this.size += part.length;
        }
      }
      if (nl === -1) return;
      this.endLine();
      buf = buf.subarray(nl + 1);
    }
  };

  private endLine(): void {
    if (this.discarding) {
      this.discarding = false;
      this.reject(-32600, `Invalid Request: the message is over the ${Math.round(this.maxLineBytes / 1048576)} MB limit; it was not read`);
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString('utf8').replace(/\r$/, '');
    this.chunks = [];
    this.size = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      this.reject(-32700, `Parse error: ${errorMessage(e)}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id = (value as { id?: unknown } | null)?.id;
      this.reject(-32600, 'Invalid Request: not a JSON-RPC 2.0 message', typeof id === 'string' || typeof id === 'number' ? id : null);
      return;
    }
    const message = parsed.data;
    if ('method' in message && 'id' in message) this.pending.add(message.id);
    this.onmessage?.(message);
  }

  private reject(code: number, message: string, id: Id | null = null): void {
    this.write({ jsonrpc: '2.0', id, error: { code, message } });
  }

  private readonly onEnd = (): void => {
    this.ended = true;
    if (this.pending.size === 0) void this.close();
  };

  private write(message: unknown): void {
    if (!this.closed) this.output.write(JSON.stringify(message) + '\n');
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.write(message);
    if (('result' in message || 'error' in message) && 'id' in message && message.id !== undefined) {
      this.pending.delete(message.id);
      if (this.ended && this.pending.size === 0) void this.close();
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.onclose?.();
  }
}

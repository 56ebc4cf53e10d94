/**
 * The server's own JSON-RPC reader for `--stdio` (still vscode-languageserver's connection on top).
 *
 * Why: vscode-jsonrpc's stream reader keeps every chunk, joins them into one body buffer, decodes the whole
 * body with `Buffer.toString('utf8')` and `JSON.parse`s that. For a body with a single character above
 * U+00FF (the em dash of a plan's title) V8 stores the decoded message in two bytes per character, and
 * decoding UTF-8 into a two-byte string is the slow half of the work.
 * This reader copies each chunk into one body buffer the moment it arrives (the chunks die at once),
 * and decodes the body as *ASCII JSON*: every run of non-ASCII bytes is replaced in place by `\uXXXX`
 * escapes of the characters it decodes to, so the message string is one byte per character (half the
 * memory) and is made by a plain copy (`latin1`), and `JSON.parse` yields exactly the same values.
 * Bodies that would grow by more than an eighth (mostly non-ASCII text) are decoded as before.
 * Figures: docs/performance.md (2026-12-01, transport).
 *
 * Framing (LSP base protocol): header lines `Name: value` ended by an empty line; `Content-Length`
 * (required) in bytes, `Content-Type` optional with a `charset` parameter (utf-8 / utf8 by default; another
 * charset the runtime's TextDecoder knows is decoded with it). Chunks may split a message anywhere or hold
 * many. Malformed input never throws out of the reader: a header block without a usable Content-Length, an
 * unknown charset, a body that is not JSON, a header longer than the header limit, a body larger than the longest
 * string V8 can hold — each gets one log line, the bytes are skipped, and reading goes on with the next
 * header (a header preceded by garbage is found by its `Content-Length:`).
 * A skip never trusts the length it was given: a `Content-Length: <digits>` line met inside the skipped bytes
 * ends the skip and is read as the next header (valid JSON never holds that line, a raw line break inside a
 * string being invalid), so a header announcing more bytes than will ever come cannot stall the server.
 * A message handler that throws loses that message only, never the bytes after it.
 */
import { constants as bufferConstants, isAscii } from 'node:buffer';
import { fstatSync } from 'node:fs';
import { Socket, type ConnectOpts, type SocketConstructorOpts } from 'node:net';
import { formatWithOptions } from 'node:util';
import { MessageChannel } from 'node:worker_threads';
import { AbstractMessageReader, type DataCallback, type Disposable, type Message, StreamMessageWriter } from 'vscode-languageserver/node';
import { collectGarbage, fullGcStats } from './fullGc';
import { memoryMark } from '../testing/memoryTrace';
import { errorMessage } from '../core/errors';

const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');
const LENGTH_MARKER = Buffer.from('Content-Length:', 'latin1');
/** Bytes kept from the end of a skipped stretch, so a header split across two chunks is still found. */
const SKIP_TAIL_BYTES = 64;
const MAX_HEADER_BYTES = 64 * 1024;
/** The reusable buffer reads from a pipe land in (when they do not go straight into a body). */
const READ_BUFFER_BYTES = 64 * 1024;
const BACKSLASH = 0x5c;
/**
 * Bodies from this size on are released before their message is parsed, and the message string is collected
 * right after (see {@link StdioMessageReader}): for a large message the two are twice its size in garbage, more than an idle
 * server's whole heap, and the collection is small beside receiving and checking such a document.
 */
export const RELEASE_MIN_BYTES = 8 * 1024 * 1024;

/** Messages from this size on are traced (test-only memory trace, node/memoryTrace.ts). */
const TRACE_BYTES = 1 << 20;

export interface ReaderLimits {
  /** Longest header block accepted (bytes). */
  maxHeaderBytes?: number;
  /** Largest body accepted (bytes); larger ones are skipped with a log line. */
  maxBodyBytes?: number;
}

/**
 * The byte runs of `buf[0, n)` that are not ASCII, as [start, end) pairs. Whole blocks are passed over with
 * the native `isAscii`, halved down to 256 bytes around non-ASCII bytes, so a body with a few hundred
 * non-ASCII characters costs a few thousand native calls, not a JavaScript loop over every byte. Undefined
 * (and the scan stopped early) once the runs hold more than `budget` bytes.
 */
export function nonAsciiRuns(buf: Uint8Array, n: number, budget = Infinity): number[] | undefined {
  const runs: number[] = [];
  let inRuns = 0;
  let scanned = 0; // bytes before this are already classified (a run can cross a block boundary)
  const visit = (from: number, to: number): void => {
    if (to <= scanned || inRuns > budget || isAscii(buf.subarray(from, to))) return;
    if (to - from > 256) {
      const mid = (from + to) >>> 1;
      visit(from, mid);
      visit(mid, to);
      return;
    }
    for (let i = Math.max(from, scanned); i < to && inRuns <= budget; i++) {
      if (buf[i]! < 0x80) continue;
      let j = i + 1;
      const stop = Math.min(n, i + (budget - inRuns) + 1); // a run longer than what is left of the budget ends the scan
      while (j < stop && buf[j]! >= 0x80) j++;
      runs.push(i, j);
      inRuns += j - i;
      if (inRuns > budget) return;
      i = j;
      scanned = j;
    }
    scanned = Math.max(scanned, to);
  };
  for (let at = 0; at < n && inRuns <= budget; at += 65536) visit(at, Math.min(n, at + 65536));
  return inRuns <= budget ? runs : undefined;
}

const HEX = '0123456789abcdef';

/**
 * The JSON text of the UTF-8 body `buf[0, n)` as a string. `buf` may be longer than `n` (spare capacity):
 * when every non-ASCII run's `\uXXXX` form fits there, the runs are expanded in place (back to front) and the
 * result is a one-byte string; otherwise (or when a non-ASCII byte follows an escaping backslash, which no
 * valid JSON has, so the parse must fail exactly as before) the body is decoded as UTF-8. `buf` is
 * overwritten either way. Non-ASCII bytes are only valid inside JSON strings, where `\uXXXX` means the same
 * character; outside strings both forms are syntax errors. Invalid UTF-8 decodes to U+FFFD as
 * `toString('utf8')` does: an ASCII byte never continues a sequence, so decoding each run alone is the same.
 */
export function jsonTextOf(buf: Buffer, n: number): string {
  // Each non-ASCII byte grows by at least one byte when escaped (3 bytes → `\uXXXX`), so runs holding more
  // bytes than the spare capacity cannot fit: stop scanning and decode as UTF-8 (text that is mostly non-ASCII).
  const spare = buf.length - n;
  const runs = nonAsciiRuns(buf, n, spare);
  if (runs === undefined) return buf.toString('utf8', 0, n);
  if (runs.length === 0) return buf.toString('latin1', 0, n);
  const decoded: string[] = [];
  let extra = 0;
  let prevEnd = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const start = runs[r]!;
    const end = runs[r + 1]!;
    let slashes = 0;
    for (let k = start - 1; k >= prevEnd && buf[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 1) return buf.toString('utf8', 0, n);
    const s = buf.toString('utf8', start, end);
    decoded.push(s);
    extra += s.length * 6 - (end - start);
    if (extra > spare) return buf.toString('utf8', 0, n);
    prevEnd = end;
  }
  // Back to front: every byte moves right by the growth of the runs before it.
  let shift = extra;
  let tailEnd = n;
  for (let r = runs.length - 2; r >= 0; r -= 2) {
    const start = runs[r]!;
    const end = runs[r + 1]!;
    buf.copyWithin(end + shift, end, tailEnd);
    const s = decoded[r >> 1]!;
    shift -= s.length * 6 - (end - start);
    let w = start + shift;
    for (let k = 0; k < s.length; k++) {
      const c = s.charCodeAt(k);
      buf[w++] = BACKSLASH;
      buf[w++] = 0x75; // u
      buf[w++] = HEX.charCodeAt(c >>> 12);
      buf[w++] = HEX.charCodeAt((c >>> 8) & 15);
      buf[w++] = HEX.charCodeAt((c >>> 4) & 15);
      buf[w++] = HEX.charCodeAt(c & 15);
    }
    tailEnd = start;
  }
  return buf.toString('latin1', 0, n + extra);
}

type Decode = (buf: Buffer, n: number) => string;
const utf8Decode: Decode = jsonTextOf;

/** `Name: value`, the name an RFC 7230 token. */
function isHeaderLine(line: string): boolean {
  const colon = line.indexOf(':');
  if (colon <= 0) return false;
  for (let i = 0; i < colon; i++) {
    const c = line.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f || c === 0x28 || c === 0x29 || c === 0x2c || c === 0x2f || c === 0x3b || c === 0x3d || c === 0x22) return false;
  }
  return true;
}

/** The fields of a header block (names lower-cased), or undefined when a line is not `Name: value`. */
function headerFields(block: string): Map<string, string> | undefined {
  const fields = new Map<string, string>();
  for (const line of block.split('\r\n')) {
    if (!isHeaderLine(line)) return undefined;
    const colon = line.indexOf(':');
    fields.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  return fields;
}

/** The `charset` parameter of a Content-Type value (utf-8 when there is none). */
function charsetOf(contentType: string | undefined): string {
  for (const param of (contentType ?? '').split(';').slice(1)) {
    const eq = param.indexOf('=');
    if (eq > 0 && param.slice(0, eq).trim().toLowerCase() === 'charset') return param.slice(eq + 1).trim().replace(/^"|"$/g, '');
  }
  return 'utf-8';
}

function decoderFor(charset: string): Decode | undefined {
  const c = charset.toLowerCase();
  if (c === 'utf-8' || c === 'utf8') return utf8Decode;
  try {
    const decoder = new TextDecoder(c);
    return (buf, n) => decoder.decode(buf.subarray(0, n));
  } catch {
    return undefined;
  }
}

/** A JSON-RPC message reader over a Node readable stream (see the module comment). */
export class StdioMessageReader extends AbstractMessageReader {
  private callback: DataCallback | undefined;
  /** Header bytes received so far (state "header"). */
  private header: Buffer | undefined;
  /** The body being received (state "body"): capacity ≥ bodyLength. */
  private body: Buffer | undefined;
  private bodyLength = 0;
  private bodyAt = 0;
  private decode: Decode = utf8Decode;
  /** Bytes still to skip of a body that is not decoded (too large, unknown charset). */
  private skip = 0;
  /** The last bytes skipped (at most {@link SKIP_TAIL_BYTES}), searched with the next chunk for a header. */
  private skipTail: Buffer | undefined;
  private readonly maxHeaderBytes: number;
  private readonly maxBodyBytes: number;

  /** The reusable buffer of reads from a pipe (allocated on the first such read). */
  private scratch: Buffer | undefined;
  /** The part of the body handed to the pending read from a pipe, when it reads straight into the body. */
  private direct: Buffer | undefined;
  /** A large message's string while its body's memory is being released ({@link release}). */
  private held: { text: string; length: number } | undefined;
  /** Reading is paused meanwhile; bytes that arrived are kept here, in order. */
  private paused = false;
  private queued: Buffer[] = [];
  /** What {@link listen} reads from (paused with the reader). */
  private source: { pause(): unknown; resume(): unknown } | undefined;

  /**
   * `input`: a readable stream (its `data` events are fed to {@link onData}), or a file descriptor that is a
   * pipe or a socket, read with {@link readBuffer} / {@link onRead} (see {@link stdioStreams}).
   */
  constructor(
    private readonly input: NodeJS.ReadableStream | { pipeFd: number },
    private readonly log: (line: string) => void,
    limits: ReaderLimits = {},
  ) {
    super();
    this.maxHeaderBytes = limits.maxHeaderBytes ?? MAX_HEADER_BYTES;
    this.maxBodyBytes = limits.maxBodyBytes ?? bufferConstants.MAX_STRING_LENGTH;
  }

  listen(callback: DataCallback): Disposable {
    this.callback = callback;
    const readable = 'pipeFd' in this.input ? this.pipeSocket(this.input.pipeFd) : this.input;
    this.source = readable;
    const onData = (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
    const onError = (error: Error) => this.fireError(error);
    let closed = false;
    const onClose = () => {
      if (closed) return;
      closed = true;
      this.fireClose();
    };
    if (readable === this.input) readable.on('data', onData);
    readable.on('error', onError);
    readable.on('close', onClose);
    readable.on('end', onClose);
    return {
      dispose: () => {
        readable.off('data', onData);
        readable.off('error', onError);
        readable.off('close', onClose);
        readable.off('end', onClose);
      },
    };
  }

  /**
   * A socket reading the pipe `fd` with `onread`: every read lands in a buffer the reader chose, so reading
   * allocates nothing per chunk (a `data` event's chunk is a new buffer, garbage until a collection).
   */
  private pipeSocket(fd: number): Socket {
    const opts: SocketConstructorOpts & ConnectOpts = {
      fd,
      readable: true,
      writable: false,
      onread: { buffer: () => this.readBuffer(), callback: (n, buf) => (this.onRead(n, buf), true) },
    };
    return new Socket(opts);
  }

  /**
   * Where the next read from a pipe lands: straight into the body being received while at least
   * {@link READ_BUFFER_BYTES} of it are missing (exactly what is missing, so a read never takes bytes of the
   * next message: the body is not copied at all), else the one reusable buffer (headers, small bodies, skips).
   */
  readBuffer(): Buffer {
    if (this.body && this.bodyLength - this.bodyAt >= READ_BUFFER_BYTES) {
      this.direct = this.body.subarray(this.bodyAt, this.bodyLength);
      return this.direct;
    }
    this.direct = undefined;
    return (this.scratch ??= Buffer.allocUnsafe(READ_BUFFER_BYTES));
  }

  private finishDirectBody(): void {
    try {
      if (this.body && this.bodyAt === this.bodyLength) this.finishBody();
    } catch (err) {
      this.log(`transport: ${errorMessage(err)}; a message dropped`);
      this.reset();
    }
  }

  /** `n` bytes were read into `buf`, the buffer {@link readBuffer} gave last. Never throws. */
  onRead(n: number, buf: Uint8Array): void {
    if (this.direct && buf === this.direct) {
      this.direct = undefined;
      this.bodyAt += n;
      // After this read returns: until then the socket holds the part of the body it read into.
      if (this.bodyAt === this.bodyLength) queueMicrotask(() => this.finishDirectBody());
      return;
    }
    this.onData(buf === this.scratch ? this.scratch.subarray(0, n) : Buffer.from(buf.buffer, buf.byteOffset, n));
  }

  /** Feeds bytes to the reader (what a `data` event does). Never throws. */
  onData(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.paused) {
        this.queued.push(Buffer.from(chunk.subarray(at))); // a copy: the chunk may be the reusable read buffer
        return;
      }
      try {
        at = this.step(chunk, at);
      } catch (err) {
        // Not reached by any input we know of; still, a reader bug must not take the server down.
        this.log(`transport: ${errorMessage(err)}; ${chunk.length - at} bytes dropped`);
        this.reset();
        return;
      }
    }
  }

  private reset(): void {
    this.header = undefined;
    this.body = undefined;
    this.direct = undefined;
    this.skip = 0;
    this.skipTail = undefined;
  }

  /** Consumes bytes of `chunk` from `at`; returns where the next step starts. */
  private step(chunk: Buffer, at: number): number {
    if (this.skip > 0) {
      const n = Math.min(this.skip, chunk.length - at);
      const resumed = this.headerInSkip(chunk, at, at + n);
      if (resumed !== undefined) return resumed;
      this.skip -= n;
      if (this.skip === 0) this.skipTail = undefined;
      else {
        const kept = this.skipTail && n < SKIP_TAIL_BYTES ? Buffer.concat([this.skipTail, chunk.subarray(at, at + n)]) : chunk.subarray(at, at + n);
        this.skipTail = Buffer.from(kept.subarray(Math.max(0, kept.length - SKIP_TAIL_BYTES)));
      }
      return at + n;
    }
    if (this.body) {
      const n = Math.min(this.bodyLength - this.bodyAt, chunk.length - at);
      chunk.copy(this.body, this.bodyAt, at, at + n);
      this.bodyAt += n;
      if (this.bodyAt === this.bodyLength) this.finishBody();
      return at + n;
    }
    return this.readHeader(chunk, at);
  }

  /**
   * Where reading resumes when a `Content-Length: <digits>` line starts inside the stretch `chunk[from, to)`
   * being skipped (or in the kept tail of the stretch before it): the skip ends there with a log line, and the
   * header is read from that point. Undefined when there is none.
   */
  private headerInSkip(chunk: Buffer, from: number, to: number): number | undefined {
    const tail = this.skipTail;
    if (tail) {
      const joined = Buffer.concat([tail, chunk.subarray(from, Math.min(chunk.length, from + SKIP_TAIL_BYTES))]);
      for (let i = joined.indexOf(LENGTH_MARKER); i >= 0 && i < tail.length; i = joined.indexOf(LENGTH_MARKER, i + 1)) {
        if (lengthLineAt(joined, i) !== true) continue;
        this.endSkip();
        this.header = Buffer.from(tail.subarray(i));
        return from;
      }
    }
    for (let i = chunk.indexOf(LENGTH_MARKER, from); i >= 0 && i < to; i = chunk.indexOf(LENGTH_MARKER, i + 1)) {
      if (lengthLineAt(chunk, i) !== true) continue;
      this.endSkip();
      return i;
    }
    return undefined;
  }

  private endSkip(): void {
    this.log(`transport: a message header inside ${this.skip} bytes being skipped; reading resumes there`);
    this.skip = 0;
    this.skipTail = undefined;
  }

  private readHeader(chunk: Buffer, at: number): number {
    const prev = this.header;
    const take = Math.min(chunk.length - at, this.maxHeaderBytes + 4);
    const joined = prev ? Buffer.concat([prev, chunk.subarray(at, at + take)]) : chunk.subarray(at, at + take);
    const end = joined.indexOf(CRLFCRLF, prev ? Math.max(0, prev.length - 3) : 0);
    if (end < 0) {
      if (joined.length > this.maxHeaderBytes) {
        this.log(`transport: no end of a message header within ${this.maxHeaderBytes} bytes; ${joined.length} bytes skipped`);
        this.header = undefined;
        return at + take;
      }
      this.header = Buffer.from(joined); // a copy: the chunk's memory is not kept
      return at + take;
    }
    this.header = undefined;
    const consumed = end + 4 - (prev?.length ?? 0);
    this.startMessage(joined.toString('latin1', 0, end));
    return at + consumed;
  }

  /** Parses a header block and sets up the body (or the skip) it announces. */
  private startMessage(block: string): void {
    let fields = headerFields(block);
    if (!fields?.has('content-length')) {
      // Garbage before a header (a resync after malformed input): start at the last Content-Length.
      const cl = block.toLowerCase().lastIndexOf('content-length:');
      const rest = cl > 0 ? headerFields(block.slice(cl)) : undefined;
      if (rest) {
        this.log(`transport: ${cl} bytes before a message header skipped`);
        fields = rest;
      }
    }
    if (!fields) {
      this.log(`transport: malformed message header ${JSON.stringify(block.slice(0, 80))}${block.length > 80 ? '…' : ''}; ${block.length + 4} bytes skipped`);
      return;
    }
    const lengthText = fields.get('content-length');
    if (lengthText === undefined || !/^[0-9]{1,15}$/.test(lengthText)) {
      this.log(`transport: a message header without a valid Content-Length (${lengthText === undefined ? 'none' : JSON.stringify(lengthText.slice(0, 40))}); the header is skipped`);
      return;
    }
    const length = Number(lengthText);
    const charset = charsetOf(fields.get('content-type'));
    const decode = decoderFor(charset);
    const encoding = fields.get('content-encoding');
    let refused: string | undefined;
    if (!decode) refused = `its charset ${JSON.stringify(charset)} is not supported`;
    else if (encoding !== undefined && encoding.toLowerCase() !== 'identity') refused = `its Content-Encoding ${JSON.stringify(encoding)} is not supported`;
    else if (length > this.maxBodyBytes) refused = `it is larger than the ${this.maxBodyBytes} bytes a string can hold`;
    if (refused || !decode) {
      this.log(`transport: a message of ${length} bytes skipped: ${refused}`);
      this.skip = length;
      return;
    }
    this.decode = decode;
    this.bodyLength = length;
    this.bodyAt = 0;
    // Spare capacity for the in-place escapes; pages never written are never resident.
    this.body = Buffer.allocUnsafe(decode === utf8Decode ? length + (length >>> 3) : length);
    if (length >= TRACE_BYTES) memoryMark(`reader: header of a ${(length / 1e6).toFixed(1)} MB body`);
    if (length === 0) this.finishBody();
  }

  /**
   * A complete body: decoded, then parsed and delivered. A large one ({@link RELEASE_MIN_BYTES}) is parsed
   * only once its buffer's memory is gone, and the message string is collected before it is delivered.
   */
  private finishBody(): void {
    const length = this.bodyLength;
    const traced = length >= TRACE_BYTES;
    if (traced) memoryMark('reader: body received');
    const body = this.body!;
    this.body = undefined;
    const text = this.decode(body, length);
    if (traced) memoryMark('reader: body decoded');
    if (length >= RELEASE_MIN_BYTES) {
      this.held = { text, length };
      if (this.release(body)) return;
      this.held = undefined;
    }
    const message = this.parse(text, length);
    if (message) this.deliver(message);
    if (traced) memoryMark('reader: message delivered');
  }

  /** Hands a message to the connection; a handler that throws costs that message, not the bytes after it. */
  private deliver(message: Message): void {
    try {
      this.callback?.(message);
    } catch (err) {
      this.log(`transport: handling a message failed (${errorMessage(err).slice(0, 200)}); the message is dropped`);
    }
  }

  /**
   * Frees a body buffer now instead of at a collection: its memory is transferred to a message port that is
   * closed at once (a decoded body is unreferenced, but a garbage collection is what frees it, and reading
   * allocates too little to cause one, so the body would stay resident through the parse and the check).
   * Reading pauses until the port's close, which is when the memory is freed; then {@link afterRelease}.
   */
  private release(body: Buffer): boolean {
    let channel: MessageChannel;
    try {
      channel = new MessageChannel();
      channel.port1.postMessage(null, [body.buffer as ArrayBuffer]);
    } catch {
      return false; // not transferable: left to the collector
    }
    this.pause();
    channel.port2.once('close', () => this.afterRelease());
    channel.port2.close();
    return true;
  }

  /**
   * The released body is gone: parse the held message string, collect it (one full collection: it is an
   * external string, which only a full collection frees), deliver, read on. The string lives only in
   * {@link takeHeld}'s frame, so nothing on the stack holds it during the collection.
   */
  private afterRelease(): void {
    try {
      const message = this.takeHeld();
      if (message) memoryMark('reader: message parsed');
      collectGarbage();
      if (message) {
        memoryMark(`reader: collected (${fullGcStats.collections} collections, ${fullGcStats.ms.toFixed(1)} ms in all)`);
        this.deliver(message);
        memoryMark('reader: message delivered');
      }
    } catch (err) {
      this.log(`transport: ${errorMessage(err)}; a message dropped`);
    }
    this.resume();
  }

  private takeHeld(): Message | undefined {
    const held = this.held;
    this.held = undefined;
    return held && this.parse(held.text, held.length);
  }

  /** The message of a decoded body, or undefined (with a log line) when it is not a JSON-RPC object. */
  private parse(text: string, length: number): Message | undefined {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch (err) {
      this.log(`transport: a message of ${length} bytes is not valid JSON (${errorMessage(err).slice(0, 200)}); skipped`);
      return undefined;
    }
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      this.log(`transport: a message of ${length} bytes is not a JSON-RPC object; skipped`);
      return undefined;
    }
    // JSON-RPC ids are strings, numbers or null; any other id (a nested array, an object) has no answer a client
    // could match, and echoing it back would serialise whatever depth it has.
    const id = (message as { id?: unknown }).id;
    if (id !== undefined && id !== null && typeof id !== 'string' && typeof id !== 'number') {
      this.log(`transport: a message of ${length} bytes has an id that is neither a string nor a number; skipped`);
      return undefined;
    }
    const method = (message as { method?: unknown }).method;
    if (method !== undefined && typeof method !== 'string') {
      this.log(`transport: a message of ${length} bytes has a method that is not a string; skipped`);
      return undefined;
    }
    return message;
  }

  /** Stops reading (bytes already read wait in {@link queued}) until {@link resume}. */
  private pause(): void {
    this.paused = true;
    this.source?.pause();
  }

  private resume(): void {
    this.paused = false;
    const pending = this.queued;
    this.queued = [];
    for (let i = 0; i < pending.length; i++) {
      if (this.paused) {
        this.queued.push(...pending.slice(i));
        return;
      }
      this.onData(pending[i]!);
    }
    if (!this.paused) this.source?.resume();
  }
}

/**
 * Whether `buf[i]` starts a `Content-Length:` line with a decimal length and its line break: true, false, or
 * undefined when `buf` ends before that can be told.
 */
function lengthLineAt(buf: Buffer, i: number): boolean | undefined {
  let j = i + LENGTH_MARKER.length;
  while (j < buf.length && buf[j] === 0x20) j++;
  const digits = j;
  while (j < buf.length && j - digits <= 15 && buf[j]! >= 0x30 && buf[j]! <= 0x39) j++;
  if (j + 1 >= buf.length) return undefined;
  return j > digits && j - digits <= 15 && buf[j] === 0x0d && buf[j + 1] === 0x0a;
}

/** Whether `fd` is a pipe or a socket (what an editor's `spawn` gives a server's stdin), not a file or a TTY. */
export function isPipe(fd: number): boolean {
  try {
    const st = fstatSync(fd);
    return st.isFIFO() || st.isSocket();
  } catch {
    return false;
  }
}

/**
 * Reader and writer for `--stdio`: our reader on stdin, vscode-jsonrpc's writer on stdout. Stdin is read
 * straight into the reader's buffers when it is a pipe or a socket; otherwise (a file, a TTY) through
 * `process.stdin`.
 */
export function stdioStreams(log: (line: string) => void): { reader: StdioMessageReader; writer: StreamMessageWriter } {
  return { reader: new StdioMessageReader(isPipe(0) ? { pipeFd: 0 } : process.stdin, log), writer: new StreamMessageWriter(process.stdout) };
}

/**
 * What vscode-languageserver does for its own `--stdio` and a given reader does not: `console.*` goes to the
 * client's log instead of stdout (which carries the protocol).
 */
export function routeConsole(remote: { log(m: string): void; info(m: string): void; warn(m: string): void; error(m: string): void }): void {
  const text = (args: unknown[]) => formatWithOptions({ colors: false }, ...args);
  console.log = (...a: unknown[]) => remote.log(text(a));
  console.debug = (...a: unknown[]) => remote.log(text(a));
  console.info = (...a: unknown[]) => remote.info(text(a));
  console.warn = (...a: unknown[]) => remote.warn(text(a));
  console.error = (...a: unknown[]) => remote.error(text(a));
}

// The server's --stdio reader (server/src/node/stdioTransport.ts): framing, decoding, malformed input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAscii } from 'node:buffer';
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants as fsConstants, createReadStream, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { fullGcStats } from '../../server/src/node/fullGc';
import { isPipe, jsonTextOf, nonAsciiRuns, RELEASE_MIN_BYTES, StdioMessageReader, type ReaderLimits } from '../../server/src/node/stdioTransport';

/** A reader fed by hand; collects the messages it delivers and the lines it logs. */
function reader(limits?: ReaderLimits) {
  const messages: unknown[] = [];
  const logs: string[] = [];
  const stream = new PassThrough();
  const r = new StdioMessageReader(stream, (l) => logs.push(l), limits);
  r.listen((m) => messages.push(m));
  return { r, messages, logs, feed: (bytes: Buffer) => r.onData(bytes) };
}

function frame(body: Buffer, headers: string[] = []): Buffer {
  return Buffer.concat([Buffer.from([`Content-Length: ${body.length}`, ...headers, '', ''].join('\r\n'), 'latin1'), body]);
}
const json = (v: unknown) => Buffer.from(JSON.stringify(v), 'utf8');
/** What JSON.parse gives for a value (fast-check's records have a null prototype). */
const plain = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

/** Splits `bytes` at the given cut points (any values; sorted and clamped). */
function split(bytes: Buffer, cuts: number[]): Buffer[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of [...at, bytes.length]) {
    if (c > prev) out.push(bytes.subarray(prev, c));
    prev = c;
  }
  return out;
}

// Strings with the characters that matter: ASCII, Latin-1, the em dash, CJK, astral (surrogate pairs), escapes.
const char = fc.oneof(
  fc.constantFrom('a', '"', '\\', '\n', '\t', '\u0000', '/', 'é', 'ÿ', '—', '→', '中', '😀', '\u2028', '\ufffd'),
  fc.string({ maxLength: 3 }),
);
const text = fc.array(char, { maxLength: 60 }).map((a) => a.join(''));
const value = fc.letrec((tie) => ({
  v: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.boolean(), fc.constant(null), fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(text, tie('v'), { maxKeys: 4 })),
})).v;
const message = fc.record({ jsonrpc: fc.constant('2.0'), method: text, params: value });
const headerStyle = fc.constantFrom<string[]>([], ['Content-Type: application/vscode-jsonrpc; charset=utf-8'], ['content-type: application/vscode-jsonrpc;charset="UTF8"'], ['X-Other: 1']);

test('property: any split of any message sequence decodes to the same messages, in order', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(message, headerStyle), { minLength: 1, maxLength: 6 }), fc.array(fc.nat(), { maxLength: 12 }), (msgs, cuts) => {
      const bytes = Buffer.concat(msgs.map(([m, h]) => frame(json(m), h)));
      const { messages, logs, feed } = reader();
      for (const chunk of split(bytes, cuts)) feed(Buffer.from(chunk));
      assert.deepEqual(logs, []);
      assert.deepEqual(messages, msgs.map(([m]) => plain(m)));
    }),
    { numRuns: 300 },
  );
});

test('property: one byte at a time, and one chunk holding everything, give the same messages', () => {
  fc.assert(
    fc.property(fc.array(message, { minLength: 1, maxLength: 4 }), (msgs) => {
      const bytes = Buffer.concat(msgs.map((m) => frame(json(m))));
      const a = reader();
      for (let i = 0; i < bytes.length; i++) a.feed(bytes.subarray(i, i + 1));
      const b = reader();
      b.feed(bytes);
      assert.deepEqual(a.messages, msgs.map(plain));
      assert.deepEqual(b.messages, msgs.map(plain));
    }),
    { numRuns: 100 },
  );
});

test('property: jsonTextOf parses exactly as toString("utf8") does, on arbitrary bytes (invalid UTF-8, stray backslashes, non-ASCII outside strings)', () => {
  const piece = fc.oneof(
    fc.constant(json('x')),
    fc.constantFrom(Buffer.from('"'), Buffer.from('\\'), Buffer.from('\\\\'), Buffer.from('{"a":'), Buffer.from('}'), Buffer.from('['), Buffer.from(']'), Buffer.from(','), Buffer.from('—'), Buffer.from('😀'), Buffer.from([0xe2, 0x80]), Buffer.from([0xff]), Buffer.from([0xc3]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf0, 0x9f]), Buffer.from('é')),
    fc.uint8Array({ maxLength: 6 }).map((u) => Buffer.from(u)),
    text.map((t) => json(t)),
    value.map((v) => json(v)),
  );
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), fc.nat({ max: 64 }), (pieces, spare) => {
      const bytes = Buffer.concat(pieces);
      const expected = (() => {
        try {
          return { ok: JSON.parse(bytes.toString('utf8')) as unknown };
        } catch {
          return 'throws';
        }
      })();
      const buf = Buffer.alloc(bytes.length + spare);
      bytes.copy(buf);
      const got = (() => {
        try {
          return { ok: JSON.parse(jsonTextOf(buf, bytes.length)) as unknown };
        } catch {
          return 'throws';
        }
      })();
      assert.deepEqual(got, expected);
    }),
    { numRuns: 2000 },
  );
});

test('jsonTextOf: one-byte string for a body with a few non-ASCII characters, UTF-8 decoding when the escapes would not fit', () => {
  const body = json({ text: 'a — b → c 😀 d é' });
  const roomy = Buffer.alloc(body.length + 64);
  body.copy(roomy);
  const s = jsonTextOf(roomy, body.length);
  assert.ok(isAscii(Buffer.from(s, 'latin1')), 'escaped to ASCII');
  assert.deepEqual(JSON.parse(s), { text: 'a — b → c 😀 d é' });
  const tight = Buffer.from(body);
  const t = jsonTextOf(tight, body.length);
  assert.equal(t, body.toString('utf8'), 'no room: decoded as UTF-8');
});

test('nonAsciiRuns finds every run, across 64 KB block boundaries too', () => {
  const b = Buffer.alloc(200_000, 0x61);
  const at = [0, 252, 256, 65_534, 131_071, 199_998];
  for (const i of at) Buffer.from('—').copy(b, i);
  const runs = nonAsciiRuns(b, b.length);
  assert.equal(nonAsciiRuns(b, b.length, 16), undefined, 'more than the budget (17 bytes in runs): given up');
  assert.deepEqual(nonAsciiRuns(b, b.length, 17), runs);
  const expected: number[] = [];
  for (const i of at) expected.push(i, Math.min(b.length, i + 3));
  // 199_998 + 3 is past the end: the em dash is cut and the run ends at the end of the buffer
  assert.deepEqual(runs, expected);
});

test('a large message split into pipe-sized chunks', () => {
  const big = { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 'file:///x', languageId: 'json', version: 1, text: `{"title":"A — B"}\n${'x'.repeat(3_000_000)}é` } } };
  const bytes = frame(json(big));
  const { messages, logs, feed } = reader();
  for (let i = 0; i < bytes.length; i += 65_536) feed(bytes.subarray(i, i + 65_536));
  assert.deepEqual(logs, []);
  assert.equal(messages.length, 1);
  assert.deepEqual(messages[0], big);
});

test('Content-Type charset: another charset TextDecoder knows is decoded with it; an unknown one is skipped with a log line', () => {
  const m = { jsonrpc: '2.0', method: 'a', params: { t: 'é—' } };
  const utf16 = Buffer.from(JSON.stringify(m), 'utf16le');
  const next = { jsonrpc: '2.0', method: 'next' };
  const { messages, logs, feed } = reader();
  feed(Buffer.concat([frame(utf16, ['Content-Type: application/vscode-jsonrpc; charset=utf-16le']), frame(json(m), ['Content-Type: application/json; charset=x-klingon']), frame(json(next))]));
  assert.deepEqual(messages, [m, next]);
  assert.equal(logs.length, 1);
  assert.match(logs[0]!, /charset "x-klingon" is not supported/);
});

test('malformed input: a clear log line each, the bytes skipped, the next message delivered, nothing thrown', () => {
  const ok = { jsonrpc: '2.0', method: 'ok' };
  const cases: { name: string; bytes: Buffer; log: RegExp }[] = [
    { name: 'no Content-Length', bytes: Buffer.from('Content-Type: application/json\r\n\r\n'), log: /without a valid Content-Length \(none\)/ },
    { name: 'a non-numeric Content-Length', bytes: Buffer.from('Content-Length: 12abc\r\n\r\n'), log: /without a valid Content-Length \("12abc"\)/ },
    { name: 'a negative Content-Length', bytes: Buffer.from('Content-Length: -5\r\n\r\n'), log: /without a valid Content-Length/ },
    { name: 'a header line without a colon', bytes: Buffer.from('Content-Length 5\r\n\r\n'), log: /malformed message header/ },
    { name: 'a body that is not JSON', bytes: frame(Buffer.from('{"jsonrpc":')), log: /11 bytes is not valid JSON/ },
    { name: 'a body that is JSON but not an object', bytes: frame(Buffer.from('[1,2]')), log: /not a JSON-RPC object/ },
    { name: 'an empty body', bytes: frame(Buffer.alloc(0)), log: /0 bytes is not valid JSON/ },
    { name: 'a backslash before a non-ASCII character', bytes: frame(Buffer.from('{"a":"\\—"}')), log: /is not valid JSON/ },
    { name: 'garbage before a header', bytes: Buffer.concat([Buffer.from('garbage!'), frame(json({ jsonrpc: '2.0', method: 'after-garbage' }))]), log: /8 bytes before a message header skipped/ },
    { name: 'a Content-Encoding', bytes: frame(Buffer.from('xx'), ['Content-Encoding: gzip']), log: /Content-Encoding "gzip" is not supported/ },
  ];
  for (const c of cases) {
    const { messages, logs, feed } = reader();
    feed(Buffer.concat([c.bytes, frame(json(ok))]));
    assert.equal(logs.length, 1, `${c.name}: ${JSON.stringify(logs)}`);
    assert.match(logs[0]!, c.log, c.name);
    const expected = c.name === 'garbage before a header' ? [{ jsonrpc: '2.0', method: 'after-garbage' }, ok] : [ok];
    assert.deepEqual(messages, expected, c.name);
  }
});

test('limits: a header that never ends and a body over the limit are skipped with a log line', () => {
  const ok = { jsonrpc: '2.0', method: 'ok' };
  const a = reader({ maxHeaderBytes: 100 });
  a.feed(Buffer.from('X'.repeat(300)));
  a.feed(frame(json(ok)));
  assert.match(a.logs[0]!, /no end of a message header within 100 bytes/);
  assert.deepEqual(a.messages, [ok]);

  const b = reader({ maxBodyBytes: 10 });
  const bigBody = json({ jsonrpc: '2.0', method: 'too-big' });
  const bytes = Buffer.concat([frame(bigBody), frame(Buffer.from('{}'))]);
  for (let i = 0; i < bytes.length; i += 7) b.feed(bytes.subarray(i, i + 7));
  assert.equal(b.logs.length, 1);
  assert.match(b.logs[0]!, new RegExp(`a message of ${bigBody.length} bytes skipped: it is larger than the 10 bytes`));
  assert.deepEqual(b.messages, [{}]);
});

test('property: random garbage never throws, and a valid message after a blank-line separator is still read', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), fc.array(fc.nat(), { maxLength: 5 }), (junk, cuts) => {
      const ok = { jsonrpc: '2.0', method: 'ok' };
      const { messages, feed } = reader({ maxHeaderBytes: 1000, maxBodyBytes: 1000 });
      // A junk Content-Length may swallow what follows; the blank line and a long pad bound the damage.
      const bytes = Buffer.concat([Buffer.from(junk), Buffer.from('\r\n\r\n'), Buffer.alloc(1100, 0x20), Buffer.from('\r\n\r\n'), frame(json(ok))]);
      for (const chunk of split(bytes, cuts)) feed(Buffer.from(chunk));
      assert.deepEqual(messages.at(-1), ok);
    }),
    { numRuns: 300 },
  );
});

test('close: fired once when the stream ends and closes', async () => {
  const stream = new PassThrough();
  const r = new StdioMessageReader(stream, () => undefined);
  let closes = 0;
  r.onClose(() => closes++);
  r.listen(() => undefined);
  stream.end();
  stream.resume();
  await new Promise((resolve) => stream.once('close', resolve));
  assert.equal(closes, 1);
});

// --- The pipe read path (reads straight into the body) and the release of large bodies -------------------------

/**
 * Feeds `bytes` the way a pipe socket does (`onread`): each read lands in the buffer the reader asks for, at
 * most `sizes[i]` bytes, and the microtasks run before the next read, as after a real read callback.
 */
async function readLikeAPipe(r: StdioMessageReader, bytes: Buffer, sizes: number[]): Promise<void> {
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const buf = r.readBuffer();
    const n = Math.min(buf.length, bytes.length - at, Math.max(1, sizes.length ? sizes[i % sizes.length]! : buf.length));
    bytes.copy(buf, 0, at, at + n);
    at += n;
    r.onRead(n, buf);
    await null;
  }
}

test('property: the pipe read path (straight into the body) delivers what onData delivers, whatever the read sizes', async () => {
  // Bodies over 64 KB are read straight into the body buffer; smaller ones and headers go through the reusable buffer.
  const big = fc.tuple(fc.nat({ max: 300_000 }), text).map(([n, t]) => ({ jsonrpc: '2.0', method: 'big', params: { t, pad: `${t}x—`.repeat(Math.ceil(n / 4)) } }));
  await fc.assert(
    fc.asyncProperty(fc.array(fc.oneof(message, big), { minLength: 1, maxLength: 5 }), fc.array(fc.integer({ min: 1, max: 200_000 }), { maxLength: 8 }), async (msgs, sizes) => {
      const bytes = Buffer.concat(msgs.map((m) => frame(json(m))));
      const { r, messages, logs } = reader();
      await readLikeAPipe(r, bytes, sizes);
      assert.deepEqual(logs, []);
      assert.deepEqual(messages, msgs.map(plain));
    }),
    { numRuns: 60 },
  );
});

test('a body over RELEASE_MIN_BYTES: released before its parse, the message string collected, the bytes after it delivered after it, in order', async () => {
  const large = { jsonrpc: '2.0', method: 'textDocument/didOpen', params: { textDocument: { uri: 'file:///big.json', text: `{"title": "A — B"}\n${'y'.repeat(RELEASE_MIN_BYTES)}` } } };
  const after = [1, 2, 3].map((i) => ({ jsonrpc: '2.0', method: `after-${i}` }));
  const bytes = Buffer.concat([frame(json(large)), ...after.map((m) => frame(json(m))), frame(json(large)), frame(json(after[0]!))]);
  const viaPipe = reader();
  const viaData = reader();
  const collections = fullGcStats.collections;
  const pipeDone = readLikeAPipe(viaPipe.r, bytes, [65_536, 1000, 3_000_000]);
  // onData with everything at once: the large message parks the rest until its body is released.
  viaData.feed(bytes);
  assert.deepEqual(viaData.messages, [], 'delivered only after the release');
  await pipeDone;
  const expected = [large, ...after, large, after[0]!];
  for (const v of [viaPipe, viaData]) {
    for (let i = 0; i < 200 && v.messages.length < expected.length; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(v.messages.length, expected.length);
    assert.deepEqual(v.messages.map((m) => (m as { method: string }).method), expected.map((m) => m.method));
    assert.deepEqual(v.messages[0], large);
    assert.deepEqual(v.logs, []);
  }
  assert.equal(fullGcStats.collections, collections + 4, 'one collection after each large parse (two large messages, two readers)');
});

test('a real named pipe (FIFO) read through a socket with onread, and a file on stdin read as a stream: the same messages', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-fifo-'));
  try {
    const msgs = [
      { jsonrpc: '2.0', method: 'first', params: { t: 'é — 😀' } },
      { jsonrpc: '2.0', method: 'large', params: { t: `— ${'z'.repeat(RELEASE_MIN_BYTES + 10)}` } },
      ...Array.from({ length: 50 }, (_, i) => ({ jsonrpc: '2.0', method: `m${i}`, params: { pad: 'p'.repeat(i * 997) } })),
      { jsonrpc: '2.0', method: 'medium', params: { t: 'x—'.repeat(200_000) } },
    ];
    const file = join(dir, 'frames');
    writeFileSync(file, Buffer.concat(msgs.map((m) => frame(json(m)))));

    // FIFO: a writer process copies the file into it; the reader gets the fd, as the server gets fd 0 from an editor.
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const fd = openSync(fifo, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
    assert.equal(isPipe(fd), true);
    const writer = spawn('sh', ['-c', 'cat "$1" > "$2"', 'sh', file, fifo], { stdio: 'ignore' });
    const got: unknown[] = [];
    const r = new StdioMessageReader({ pipeFd: fd }, (l) => assert.fail(l));
    const closed = new Promise<void>((resolve) => r.onClose(() => resolve()));
    r.listen((m) => got.push(m));
    await closed;
    writer.kill();
    assert.deepEqual(got, msgs);

    // A file: not a pipe, read as a stream (process.stdin is an fs.ReadStream then).
    const fileFd = openSync(file, 'r');
    assert.equal(isPipe(fileFd), false);
    closeSync(fileFd);
    const fromFile: unknown[] = [];
    const s = new StdioMessageReader(createReadStream(file), (l) => assert.fail(l));
    const fileClosed = new Promise<void>((resolve) => s.onClose(() => resolve()));
    s.listen((m) => fromFile.push(m));
    await fileClosed;
    for (let i = 0; i < 200 && fromFile.length < msgs.length; i++) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(fromFile, msgs);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a Content-Length no stream will ever fill ends at the next header: the message after it is delivered, however the bytes are split', () => {
  const ok = { jsonrpc: '2.0', id: 1, method: 'ok' };
  const bytes = Buffer.concat([Buffer.from('Content-Length: 99999999999999\r\n\r\n{"jsonrpc":"2.0","method":"x"}'), frame(json(ok)), frame(json({ jsonrpc: '2.0', method: 'after' }))]);
  for (const step of [bytes.length, 1, 7, 64]) {
    const { messages, logs, feed } = reader();
    for (let i = 0; i < bytes.length; i += step) feed(Buffer.from(bytes.subarray(i, i + step)));
    assert.deepEqual(messages, [ok, { jsonrpc: '2.0', method: 'after' }], `chunks of ${step}`);
    assert.ok(logs.some((l) => /a message of 99999999999999 bytes skipped/.test(l)), logs.join('\n'));
    assert.ok(logs.some((l) => /a message header inside \d+ bytes being skipped; reading resumes there/.test(l)), logs.join('\n'));
  }
  // A skipped body that merely mentions the header in a JSON string (no raw line break after it) is skipped whole.
  const mention = json({ jsonrpc: '2.0', method: 'm', params: { text: 'Content-Length: 12\r\n\r\n' } });
  const b = reader({ maxBodyBytes: 60 });
  b.feed(Buffer.concat([frame(mention), frame(json(ok))]));
  assert.deepEqual(b.messages, [ok]);
  assert.equal(b.logs.length, 1, b.logs.join('\n'));
});

test('a message handler that throws loses that message only: the rest of the chunk is still delivered', () => {
  const logs: string[] = [];
  const got: unknown[] = [];
  const r = new StdioMessageReader(new PassThrough(), (l) => logs.push(l));
  r.listen((m) => {
    if ((m as { method?: string }).method === '$/cancelRequest') throw new TypeError("Cannot read properties of null (reading 'id')");
    got.push(m);
  });
  const next = { jsonrpc: '2.0', id: 2, method: 'next' };
  r.onData(Buffer.concat([frame(json({ jsonrpc: '2.0', method: '$/cancelRequest', params: null })), frame(json(next))]));
  assert.deepEqual(got, [next]);
  assert.match(logs.join('\n'), /handling a message failed \(Cannot read properties of null/);
});

test('ids and methods of the wrong type (an id nested 100,000 deep, a numeric method) are dropped with a log line; the next message is read', () => {
  const { messages, logs, feed } = reader();
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  const ok = { jsonrpc: '2.0', id: 'a', method: 'ok' };
  feed(Buffer.concat([
    frame(Buffer.from(`{"jsonrpc":"2.0","id":${deep},"method":"textDocument/hover","params":{}}`)),
    frame(json({ jsonrpc: '2.0', id: 3, method: 7 })),
    frame(json(ok)),
  ]));
  assert.deepEqual(messages, [ok]);
  assert.match(logs[0]!, /has an id that is neither a string nor a number; skipped/);
  assert.match(logs[1]!, /has a method that is not a string; skipped/);
});

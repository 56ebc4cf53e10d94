// The server's --stdio reader (server/src/node/stdioTransport.ts): framing, decoding, malformed input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isAscii } from 'node:buffer';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { jsonTextOf, nonAsciiRuns, StdioMessageReader, type ReaderLimits } from '../../server/src/node/stdioTransport';

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

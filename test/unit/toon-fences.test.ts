import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decode, ToonDecodeError } from '@toon-format/toon';
import {
  FENCE_DECODE_CODE,
  findToonFences,
  isToonInfo,
  toonDecodeFailure,
  toonFenceDiagnostics,
  toonFileDiagnostics,
} from '../../server/src/core/toon/fences';

/** The decoder's own verdict on `text`: its message without the "Line N: " prefix, and its line. */
function decoderError(text: string): { message: string; line: number | undefined } {
  try {
    decode(text, { strict: true });
  } catch (e) {
    assert.ok(e instanceof ToonDecodeError, `unexpected ${String(e)}`);
    return { message: e.message.replace(/^Line \d+: /, ''), line: e.line };
  }
  assert.fail(`decoder accepted ${JSON.stringify(text)}`);
}

/** The text of a range, and the 0-based line it starts on (lines end at \n, \r\n, \r). */
function at(text: string, range: { start: number; end: number }): { text: string; line: number } {
  return { text: text.slice(range.start, range.end), line: text.slice(0, range.start).split(/\r\n|\r|\n/).length - 1 };
}

const BAD = 'items[2]{id,name}:\n  1,Ada\n  2';

describe('findToonFences', () => {
  test('offsets, content and line of a fence', () => {
    const md = '# T\n\nText.\n\n```toon\na: 1\nb: 2\n```\n\n```json\n{}\n```\n';
    const fences = findToonFences(md);
    assert.equal(fences.length, 1);
    const f = fences[0]!;
    assert.equal(f.openLine, 4);
    assert.equal(md.slice(f.infoStart, f.infoStart + 4), 'toon');
    assert.equal(md.slice(f.contentStart, f.contentEnd), 'a: 1\nb: 2\n');
    assert.equal(f.content, 'a: 1\nb: 2\n');
    assert.equal(f.closed, true);
  });

  test('~~~toon, attributes, case, and info strings that are not toon', () => {
    const md = '~~~ toon\nx: 1\n~~~\n\n```TOON {.x}\ny: 2\n```\n\n```toonish\nz\n```\n\n```json toon\nw\n```\n';
    const fences = findToonFences(md);
    assert.deepEqual(fences.map((f) => f.content), ['x: 1\n', 'y: 2\n']);
    assert.equal(md.slice(fences[0]!.infoStart, fences[0]!.infoStart + 4), 'toon');
    assert.equal(isToonInfo(' toon '), true);
    assert.equal(isToonInfo('toon:example'), true);
    assert.equal(isToonInfo('toonish'), false);
    assert.equal(isToonInfo(''), false);
  });

  test('CRLF: offsets into the text as given, content normalized', () => {
    const md = 'Intro\r\n\r\n```toon\r\na: 1\r\nb: 2\r\n```\r\n';
    const [f] = findToonFences(md);
    assert.ok(f);
    assert.equal(f.openLine, 2);
    assert.equal(md.slice(f.contentStart, f.contentEnd), 'a: 1\r\nb: 2\r\n');
    assert.equal(f.content, 'a: 1\nb: 2\n');
  });

  test('a BOM does not hide a fence on the first line', () => {
    const md = '\uFEFF```toon\na: 1\n```\n';
    const [f] = findToonFences(md);
    assert.ok(f);
    assert.equal(f.openLine, 0);
    assert.equal(md.slice(f.infoStart, f.infoStart + 4), 'toon');
    assert.equal(md.slice(f.contentStart, f.contentEnd), 'a: 1\n');
  });

  test('an unterminated fence runs to the end of the document (CommonMark)', () => {
    const md = 'Intro\n\n```toon\na: 1\n\nb: 2';
    const [f] = findToonFences(md);
    assert.ok(f);
    assert.equal(f.closed, false);
    assert.equal(f.contentEnd, md.length);
    assert.equal(f.content, 'a: 1\n\nb: 2');
    const withNewline = findToonFences(md + '\n')[0]!;
    assert.equal(withNewline.closed, false);
    assert.equal(withNewline.contentEnd, md.length + 1);
  });

  test('a closing fence must be at least as long as the opening one', () => {
    const md = '````toon\na: 1\n```\nb: 2\n````\nafter\n';
    const [f] = findToonFences(md);
    assert.equal(f!.content, 'a: 1\n```\nb: 2\n');
    assert.equal(f!.closed, true);
  });

  test('fences inside a list item and a block quote', () => {
    const md = '- item\n\n  ```toon\n  a:\n    b: 1\n  ```\n\n> ```toon\n> c: 2\n> ```\n';
    const fences = findToonFences(md);
    assert.deepEqual(fences.map((f) => [f.openLine, f.content]), [[2, 'a:\n  b: 1\n'], [7, 'c: 2\n']]);
  });

  test('empty fence, and no fences at all', () => {
    const [f] = findToonFences('```toon\n```\n');
    assert.equal(f!.content, '');
    assert.equal(f!.contentStart, f!.contentEnd);
    assert.equal(f!.closed, true);
    assert.deepEqual(findToonFences('just text\n'), []);
    assert.deepEqual(findToonFences(''), []);
  });
});

describe('toonFenceDiagnostics', () => {
  test('valid fences produce nothing', () => {
    const md = '```toon\nitems[2]{id,name}:\n  1,Ada\n  2,Bob\n```\n\n```toon\n```\n';
    assert.deepEqual(toonFenceDiagnostics(md), []);
  });

  test('a failing fence: toon/fence-decode, error, the decoder message, the whole failing line', () => {
    const md = '# Data\n\nSome prose.\n\n```toon\n' + BAD + '\n```\n\nMore.\n';
    const diags = toonFenceDiagnostics(md);
    assert.equal(diags.length, 1);
    const d = diags[0]!;
    const expected = decoderError(BAD);
    assert.equal(expected.line, 3);
    assert.equal(d.code, FENCE_DECODE_CODE);
    assert.equal(d.code, 'toon/fence-decode');
    assert.equal(d.severity, 'error');
    assert.equal(d.message, expected.message);
    // Fence opens on line 4; decoder line 3 of the content is document line 7.
    assert.deepEqual(at(md, d.range), { text: '  2', line: 7 });
  });

  test('only the failing fence of several is reported; other languages are ignored', () => {
    const md = '```toon\na: 1\n```\n\n```json\n{ not json\n```\n\n```toon\nname: Ada\nname: Bob\n```\n';
    const diags = toonFenceDiagnostics(md);
    assert.equal(diags.length, 1);
    assert.match(diags[0]!.message, /Duplicate sibling key "name"/);
    assert.deepEqual(at(md, diags[0]!.range), { text: 'name: Bob', line: 10 });
  });

  test('CRLF: the range is the line without its line break', () => {
    const md = 'Intro\r\n\r\n```toon\r\n' + BAD.replace(/\n/g, '\r\n') + '\r\n```\r\n';
    const [d] = toonFenceDiagnostics(md);
    assert.ok(d);
    assert.deepEqual(at(md, d.range), { text: '  2', line: 5 });
    assert.equal(d.message, decoderError(BAD).message);
  });

  test('an unterminated fence is decoded to the end of the document', () => {
    const md = 'Intro\n\n```toon\ntags[3]: a,b\n\nmore: text';
    const [d] = toonFenceDiagnostics(md);
    assert.ok(d);
    assert.deepEqual(at(md, d.range), { text: 'tags[3]: a,b', line: 3 });
    assert.match(d.message, /Expected 3 inline-form values, but got 2/);
  });

  test('invalid escape in a fence inside a block quote points at the quoted line', () => {
    const md = 'x\n\n> ```toon\n> a: 1\n> b: "\\x"\n> ```\n';
    const [d] = toonFenceDiagnostics(md);
    assert.ok(d);
    assert.deepEqual(at(md, d.range), { text: '> b: "\\x"', line: 4 });
    assert.match(d.message, /Invalid escape sequence/);
  });

  test('a fence inside a list item keeps its relative indentation', () => {
    const ok = '- item\n\n  ```toon\n  a:\n    b: 1\n  ```\n';
    assert.deepEqual(toonFenceDiagnostics(ok), []);
    const bad = '- item\n\n  ```toon\n  a:\n     b: 1\n  ```\n';
    const [d] = toonFenceDiagnostics(bad);
    assert.ok(d);
    assert.deepEqual(at(bad, d.range), { text: '     b: 1', line: 4 });
  });

  test('BOM before a fence on the first line', () => {
    const md = '\uFEFF```toon\n"unterminated\n```\n';
    const [d] = toonFenceDiagnostics(md);
    assert.ok(d);
    assert.deepEqual(at(md, d.range), { text: '"unterminated', line: 1 });
  });

  test('never throws', () => {
    for (const md of ['', '```toon', '```toon\n', '\uFEFF', '```toon\n\uD800\n```', '```toon\n' + '  '.repeat(5000) + 'x\n```', '~~~toon\n\0\n~~~']) {
      assert.doesNotThrow(() => toonFenceDiagnostics(md));
      assert.doesNotThrow(() => findToonFences(md));
    }
  });
});

describe('toonFileDiagnostics (.toon files)', () => {
  test('a valid file produces nothing', () => {
    assert.deepEqual(toonFileDiagnostics('user:\n  id: 1\n  tags[2]: a,b\n'), []);
    assert.deepEqual(toonFileDiagnostics(''), []);
  });

  test('an invalid file: one diagnostic on the decoder line', () => {
    const text = 'a: 1\nitems[2]:\n  - x\n  - y\n  - z\n';
    const diags = toonFileDiagnostics(text);
    assert.equal(diags.length, 1);
    const expected = decoderError(text);
    assert.equal(diags[0]!.code, 'toon/fence-decode');
    assert.equal(diags[0]!.severity, 'error');
    assert.equal(diags[0]!.message, expected.message);
    assert.deepEqual(at(text, diags[0]!.range), { text: '  - z', line: expected.line! - 1 });
  });

  test('CRLF and BOM', () => {
    const crlf = 'a:\r\n   b: 1\r\n';
    const [d1] = toonFileDiagnostics(crlf);
    assert.deepEqual(at(crlf, d1!.range), { text: '   b: 1', line: 1 });
    const bom = '\uFEFFname: Ada\nname: Bob';
    const [d2] = toonFileDiagnostics(bom);
    assert.deepEqual(at(bom, d2!.range), { text: 'name: Bob', line: 1 });
    assert.deepEqual(toonFileDiagnostics('\uFEFFa: 1\r\n'), []);
  });

  test('toonDecodeFailure reports the decoder verdict', () => {
    assert.equal(toonDecodeFailure('a: 1'), undefined);
    assert.deepEqual(toonDecodeFailure('a: "\\x"'), decoderError('a: "\\x"'));
  });

  test('the example files decode', () => {
    const root = new URL('../../examples/toon/', import.meta.url);
    assert.deepEqual(toonFileDiagnostics(readFileSync(new URL('orders.toon', root), 'utf8')), []);
    const md = readFileSync(new URL('README.md', root), 'utf8');
    assert.ok(findToonFences(md).length >= 2);
    assert.deepEqual(toonFenceDiagnostics(md), []);
  });
});

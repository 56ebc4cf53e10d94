// The one LineIndex (core/lineIndex.ts) that the LSP ranges, the section slicer, the slice parser and the ```toon
// fence finder share: its lines are exactly those of a split on \r\n, \n and lone \r, in both of its counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineIndex } from '../../server/src/core/lineIndex';
import { anchorLineCount, anchorLineText, lineRangeOffsets } from '../../server/src/core/agentJson/report/text';

const lineText = fc.array(fc.constantFrom('a', 'b', ' ', '\t', '#', '\uFEFF', 'é', '😀', '\n', '\r', '\r\n'), { maxLength: 40 }).map((a) => a.join(''));

test('lines, starts and content ends equal a split on \\r\\n, \\n and \\r (generated text)', () => {
  fc.assert(
    fc.property(lineText, (text) => {
      const idx = new LineIndex(text);
      const parts = text.split(/\r\n|\n|\r/);
      assert.equal(idx.lineCount, parts.length);
      // A trailing line break opens no span; the empty text has none.
      assert.equal(idx.spanCount, text === '' ? 0 : /[\r\n]$/.test(text) ? parts.length - 1 : parts.length);
      let at = 0;
      for (let n = 0; n < parts.length; n++) {
        assert.equal(idx.lineStart(n), at, `start of line ${n}`);
        assert.equal(idx.contentEnd(n), at + parts[n]!.length, `content end of line ${n}`);
        assert.equal(idx.lineText(n), parts[n]);
        at += parts[n]!.length;
        at += text.startsWith('\r\n', at) ? 2 : at < text.length ? 1 : 0;
        assert.equal(idx.lineEnd(n), at, `end of line ${n}`);
        assert.deepEqual(idx.positionAt(idx.lineStart(n)), { line: n, character: 0 });
        assert.equal(idx.offsetAt({ line: n, character: 1e9 }), idx.contentEnd(n), 'clamped before the line break');
      }
      assert.equal(idx.lineStart(parts.length), text.length, 'past the last line: the end of the text');
      assert.equal(idx.contentEnd(parts.length + 3), text.length);
      assert.equal(idx.lineText(parts.length), '');
    }),
    { numRuns: 500 },
  );
});

test('positionAt and offsetAt round-trip on every offset that is not inside a \\r\\n pair', () => {
  fc.assert(
    fc.property(lineText, (text) => {
      const idx = new LineIndex(text);
      for (let o = 0; o <= text.length; o++) {
        if (text[o - 1] === '\r' && text[o] === '\n') continue;
        assert.equal(idx.offsetAt(idx.positionAt(o)), o);
      }
    }),
    { numRuns: 300 },
  );
});

test("a report's line anchors: line 1 starts after a BOM, a final terminator opens no line (generated text)", () => {
  fc.assert(
    fc.property(fc.boolean(), lineText, fc.nat({ max: 12 }), fc.nat({ max: 12 }), (withBom, generated, a, b) => {
      const text = (withBom ? '\uFEFF' : '') + generated;
      const lines = new LineIndex(text);
      const bom = text.startsWith('\uFEFF');
      const body = text.slice(bom ? 1 : 0);
      // Reference: the body's lines after the BOM, split on \r\n, \n and \r, without the empty one after a final break.
      const parts = body === '' ? [] : body.split(/\r\n|\n|\r/);
      if (/[\r\n]$/.test(body)) parts.pop();
      assert.equal(anchorLineCount(lines), parts.length);
      const starts: number[] = [];
      let at = bom ? 1 : 0;
      for (const p of parts) {
        starts.push(at);
        at += p.length;
        at += text.startsWith('\r\n', at) ? 2 : at < text.length ? 1 : 0;
      }
      parts.forEach((p, k) => assert.equal(anchorLineText(lines, k), p));
      const [from, to] = [Math.min(a, b), Math.max(a, b)];
      const r = lineRangeOffsets(lines, from, to);
      if (from < 1 || to > parts.length) assert.equal(r, undefined);
      else {
        const next = to < parts.length ? starts[to]! : text.length;
        assert.deepEqual(r, { start: starts[from - 1]!, contentEnd: starts[to - 1]! + parts[to - 1]!.length, next });
      }
    }),
    { numRuns: 1000 },
  );
  assert.equal(anchorLineCount(new LineIndex('\uFEFF')), 0, 'a text that is only a BOM has no lines');
});

// The one LineIndex (core/lineIndex.ts) that the LSP ranges, the section slicer, the slice parser and the ```toon
// fence finder share: its lines are exactly those of a split on \r\n, \n and lone \r, in both of its counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineIndex } from '../../server/src/core/lineIndex';

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

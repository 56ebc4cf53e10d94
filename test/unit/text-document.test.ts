// The server's document (features/textDocument.ts) answers as vscode-languageserver-textdocument's does: the
// same text after any sequence of incremental and full changes, and on that text the same positions, offsets
// and line count as the package's document made fresh from it (the package's incremental line table is the
// one its own tests vouch for; a fresh one is the plain truth). Holding an equal text built differently
// changes nothing anyone can read.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TextDocument, type TextDocumentContentChangeEvent } from 'vscode-languageserver-textdocument';
import { ServerTextDocument, serverTextDocuments } from '../../server/src/lsp/textDocument';

const piece = fc.constantFrom('a', 'bc', ' ', '#', 'é', '—', '😀', '\n', '\r', '\r\n', '\n\n');
const text = fc.array(piece, { maxLength: 30 }).map((a) => a.join(''));

/** Every offset, and positions on and around every line (past its end, a line past the last, negatives). */
function sameAnswers(ours: ServerTextDocument, truth: TextDocument): void {
  const t = truth.getText();
  assert.equal(ours.getText(), t);
  assert.equal(ours.lineCount, truth.lineCount, 'line count');
  for (let o = -1; o <= t.length + 1; o++) assert.deepEqual(ours.positionAt(o), truth.positionAt(o), `positionAt(${o})`);
  for (let line = -1; line <= truth.lineCount; line++) {
    for (const character of [-1, 0, 1, 2, 3, 1e9]) {
      const p = { line, character };
      assert.equal(ours.offsetAt(p), truth.offsetAt(p), `offsetAt(${line}:${character})`);
    }
  }
  for (let line = -1; line <= truth.lineCount; line++) {
    assert.deepEqual(ours.getLineRange(line), truth.getLineRange(line), `getLineRange(${line})`);
    assert.equal(ours.getEOLCharacters(line), truth.getEOLCharacters(line), `getEOLCharacters(${line})`);
  }
  const r = { start: truth.positionAt(1), end: truth.positionAt(t.length - 1) };
  assert.equal(ours.getText(r), truth.getText(r));
}

/** A change within the document as it is: a range (given either way round) and the text put there, or a whole new text. */
function change(doc: TextDocument, a: number, b: number, inserted: string, full: boolean, reversed: boolean): TextDocumentContentChangeEvent {
  if (full) return { text: inserted };
  const n = doc.getText().length;
  const [lo, hi] = [Math.min(a % (n + 1), b % (n + 1)), Math.max(a % (n + 1), b % (n + 1))];
  const range = { start: doc.positionAt(lo), end: doc.positionAt(hi) };
  return { range: reversed ? { start: range.end, end: range.start } : range, text: inserted };
}

test('after random changes: the same text, positions, offsets and line count as the package', () => {
  const edit = fc.record({ a: fc.nat(60), b: fc.nat(60), text, full: fc.nat(4).map((n) => n === 0), reversed: fc.boolean(), batch: fc.boolean() });
  fc.assert(
    fc.property(text, fc.array(edit, { maxLength: 8 }), (initial, edits) => {
      const ours = serverTextDocuments.create('file:///a.md', 'markdown', 1, initial);
      const theirs = TextDocument.create('file:///a.md', 'markdown', 1, initial);
      assert.equal(ours.lineCount, theirs.lineCount, "the line table exists before the first change, as it does once anything was asked");
      let version = 1;
      for (const e of edits) {
        const c = change(theirs, e.a, e.b, e.text, e.full, e.reversed);
        // Two changes in one notification, the second in the text the first left.
        const changes = e.batch ? [c, change(TextDocument.update(TextDocument.create('x', 'x', 0, theirs.getText()), [c], 1), e.b, e.a, 'x', false, false)] : [c];
        serverTextDocuments.update(ours, changes, ++version);
        TextDocument.update(theirs, changes, version);
        assert.equal(ours.version, version);
        assert.equal(ours.getText(), theirs.getText());
      }
      sameAnswers(ours, TextDocument.create('file:///a.md', 'markdown', version, theirs.getText()));
    }),
    { numRuns: 400 },
  );
});

test('changes with positions past the last line, past a line end or negative clamp as offsetAt does, and the line table stays true', () => {
  const pos = fc.record({ line: fc.integer({ min: -2, max: 12 }), character: fc.integer({ min: -3, max: 40 }) });
  fc.assert(
    fc.property(text, fc.array(fc.record({ start: pos, end: pos, text }), { maxLength: 6 }), (initial, edits) => {
      const ours = serverTextDocuments.create('file:///a.md', 'markdown', 1, initial);
      let expected = initial;
      let version = 1;
      for (const e of edits) {
        // The truth: the range's offsets as a document made fresh from the current text clamps them (start before end).
        const fresh = TextDocument.create('file:///a.md', 'markdown', version, expected);
        const [a, b] = [fresh.offsetAt(e.start), fresh.offsetAt(e.end)];
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        expected = expected.slice(0, lo) + e.text + expected.slice(hi);
        // Given either way round (offsetAt is monotonic in the position, so the document's ordering agrees).
        serverTextDocuments.update(ours, [{ range: { start: e.start, end: e.end }, text: e.text }], ++version);
        assert.equal(ours.getText(), expected);
      }
      sameAnswers(ours, TextDocument.create('file:///a.md', 'markdown', version, expected));
    }),
    { numRuns: 400 },
  );
});

test('holdAs: an equal text built from pieces reads the same; a different length is refused', () => {
  fc.assert(
    fc.property(fc.array(text, { maxLength: 6 }), (pieces) => {
      const whole = pieces.join('');
      const doc = new ServerTextDocument('file:///a.md', 'markdown', 3, whole);
      let rope = '';
      for (const p of pieces) rope += p;
      assert.equal(doc.holdAs(rope), true);
      sameAnswers(doc, TextDocument.create('file:///a.md', 'markdown', 3, whole));
      assert.equal(doc.holdAs(whole + 'x'), false);
      assert.equal(doc.getText(), whole);
      // Edits after holding apply to the held text.
      doc.update([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'Z' }], 4);
      assert.equal(doc.getText(), 'Z' + whole);
    }),
    { numRuns: 300 },
  );
});

test('an unknown change event is an error, as in the package', () => {
  const doc = serverTextDocuments.create('file:///a.md', 'markdown', 1, 'x');
  assert.throws(() => doc.update([{ rangeLength: 1 } as unknown as TextDocumentContentChangeEvent], 2), /Unknown change event/);
  assert.throws(() => serverTextDocuments.update(TextDocument.create('file:///a.md', 'markdown', 1, 'x'), [], 2), /not a document of this server/);
});

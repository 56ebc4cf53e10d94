// The pure helpers of the feature layer: settings normalization, capability merging, minimal edits, code action kinds.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { DEFAULT_SETTINGS, normalizeSettings } from '../../server/src/lsp/settings';
import { mergeCapabilities } from '../../server/src/lsp/capabilities';
import { minimalReplaceEdit } from '../../server/src/lsp/positions';
import { fixAllText } from '../../server/src/features/json/codeActions';
import { wantsKind } from '../../server/src/lsp/codeActions';
import { isJsonDocument } from '../../server/src/features/json/documents';
import { fsPathOf } from '../../server/src/lsp/workspaceFolders';
import { applyTextEdits } from './harness';

describe('normalizeSettings', () => {
  test('defaults for nothing, nested and dotted keys accepted', () => {
    assert.deepEqual(normalizeSettings(undefined), DEFAULT_SETTINGS);
    const s = normalizeSettings({ maxFileSizeMB: 5, codeLens: { enabled: false }, 'codeLens.minSavingsPct': 12, trace: { server: 'verbose' } });
    assert.equal(s.maxFileSizeMB, 5);
    assert.equal(s.codeLens.enabled, false);
    assert.equal(s.codeLens.minSavingsPct, 12);
    assert.equal(s.trace.server, 'verbose');
  });
  test('wrong types and unknown kinds fall back', () => {
    const s = normalizeSettings({ maxFileSizeMB: -1, documentKinds: { 'a/*.json': 'verdict', 'b/*.json': 'nope', c: 3 }, codeLens: 'yes' });
    assert.equal(s.maxFileSizeMB, 50);
    assert.deepEqual(s.documentKinds, { 'a/*.json': 'verdict' });
    assert.deepEqual(s.codeLens, { enabled: true, minSavingsPct: 0, sections: 'convert' });
    assert.deepEqual(normalizeSettings([1, 2]), DEFAULT_SETTINGS);
  });
});

describe('mergeCapabilities', () => {
  test('an object beats true, arrays are united, later scalars win', () => {
    const merged = mergeCapabilities(
      { codeActionProvider: true, hoverProvider: true, executeCommandProvider: { commands: ['a'] } },
      { codeActionProvider: { codeActionKinds: ['quickfix'] } },
      { codeActionProvider: { codeActionKinds: ['quickfix', 'source.fixAll.toonlens'] }, executeCommandProvider: { commands: ['b'] } },
    );
    assert.deepEqual(merged, {
      codeActionProvider: { codeActionKinds: ['quickfix', 'source.fixAll.toonlens'] },
      hoverProvider: true,
      executeCommandProvider: { commands: ['a', 'b'] },
    });
  });
});

describe('minimalReplaceEdit', () => {
  const doc = (text: string) => TextDocument.create('file:///x.json', 'json', 1, text);
  const roundTrip = (a: string, b: string) => {
    const e = minimalReplaceEdit(doc(a), b);
    assert.equal(e ? applyTextEdits(a, [e]) : a, b);
    return e;
  };
  test('undefined when nothing changes; otherwise only the differing span', () => {
    assert.equal(minimalReplaceEdit(doc('{"a": 1}'), '{"a": 1}'), undefined);
    const e = roundTrip('{\n  "a": 1,\n  "b": 2\n}', '{\n  "a": 1,\n  "b": 3\n}')!;
    assert.deepEqual(e.range, { start: { line: 2, character: 7 }, end: { line: 2, character: 8 } });
    assert.equal(e.newText, '3');
  });
  test('never splits a surrogate pair or a CRLF', () => {
    const e = roundTrip('{"a": "😀"}', '{"a": "😃"}')!;
    assert.equal(e.newText, '😃');
    roundTrip('a\r\nb', 'a\nb');
    roundTrip('a\nb', 'a\r\nb');
    roundTrip('', 'x');
    roundTrip('x', '');
  });
});

describe('code action kinds', () => {
  test('wantsKind follows the hierarchy of kinds', () => {
    assert.equal(wantsKind(undefined, 'quickfix'), true);
    assert.equal(wantsKind(undefined, 'source.fixAll.toonlens'), false);
    assert.equal(wantsKind(['source.fixAll'], 'source.fixAll.toonlens'), true);
    assert.equal(wantsKind(['source'], 'source.fixAll.toonlens'), true);
    assert.equal(wantsKind(['source.fixAll.eslint'], 'source.fixAll.toonlens'), false);
    assert.equal(wantsKind(['quickfix'], 'source.fixAll.toonlens'), false);
    assert.equal(wantsKind(['refactor'], 'quickfix'), false);
  });
  test('fixAllText stops when no fix-all fix is left, and after a bounded number of rounds', () => {
    let calls = 0;
    const never = fixAllText('{"a": 1}', () => {
      calls++;
      return [{ code: 'schema', severity: 'error', message: 'm', range: { start: 0, end: 0 }, fixes: [{ title: 't', fixAll: true, edits: [{ path: ['a'], value: calls }] }] }];
    });
    assert.ok(calls <= 4, `bounded: ${calls}`);
    assert.equal(JSON.parse(never).a, calls);
    assert.equal(fixAllText('{"a": 1}', () => []), '{"a": 1}');
  });
});

describe('documents', () => {
  test('JSON by language id or .json path', () => {
    assert.equal(isJsonDocument(TextDocument.create('untitled:1', 'json', 1, '')), true);
    assert.equal(isJsonDocument(TextDocument.create('file:///a/b.JSON', 'plaintext', 1, '')), true);
    assert.equal(isJsonDocument(TextDocument.create('file:///a/b.md', 'markdown', 1, '')), false);
  });
  test('fsPathOf only for file URIs', () => {
    assert.equal(fsPathOf('file:///tmp/a%20b.json'), '/tmp/a b.json');
    assert.equal(fsPathOf('untitled:Untitled-1'), undefined);
  });
});

import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { planExactEdit } from '../../server/src/core/agentJson/report/exactEdit';
import { applyChangesNode } from '../../server/src/node/workspace';
import { deterministicEntry, makeReport, sha, tempWorkspace } from '../fixtures/report/helpers';

const ws = tempWorkspace({});
after(() => ws.cleanup());

const lineArb = fc.string({ minLength: 0, maxLength: 12 }).map((s) => s.replace(/[\r\n]/g, ''));
const fileArb = fc.tuple(fc.array(lineArb, { minLength: 1, maxLength: 8 }), fc.boolean()).map(([lines, finalBreak]) => lines.join('\n') + (finalBreak ? '\n' : ''));
const kindArb = fc.constantFrom('delete-range', 'move-to-archive', 'insert-frontmatter', 'replace-text');
/** A change to the file's bytes that really changes them. */
const mutationArb = fc.tuple(fc.constantFrom('insert', 'delete', 'flip'), fc.nat(), fc.integer({ min: 1, max: 255 }));

function mutate(bytes: Buffer, [op, at, b]: [string, number, number]): Buffer {
  const i = bytes.length === 0 ? 0 : at % bytes.length;
  if (op === 'insert' || bytes.length === 0) return Buffer.concat([bytes.subarray(0, i), Buffer.from([b]), bytes.subarray(i)]);
  if (op === 'delete') return Buffer.concat([bytes.subarray(0, i), bytes.subarray(i + 1)]);
  const out = Buffer.from(bytes);
  out[i] = out[i]! ^ b;
  return out;
}

function entryFor(kind: string, text: string, s: number, e: number) {
  const first = text.split('\n')[s - 1] ?? '';
  const base = { kind, expected_sha256: sha(text) };
  const ee =
    kind === 'insert-frontmatter'
      ? { ...base, key: 'hygiene', value: 'frozen' }
      : kind === 'replace-text'
        ? { ...base, anchor: { start_line: s, end_line: e }, match: first.slice(0, 3) || 'x', replacement: 'R' }
        : kind === 'move-to-archive'
          ? { ...base, anchor: { start_line: s, end_line: e }, dest_path: 'archive/doc.md' }
          : { ...base, anchor: { start_line: s, end_line: e } };
  return makeReport([deterministicEntry('doc.md', ee)]);
}

function reset(text: string | Buffer) {
  rmSync(ws.path('archive'), { recursive: true, force: true });
  ws.write('doc.md', text);
}

describe('the sha256 guard (property)', () => {
  test('after any change to the target bytes, planning refuses and nothing is written', () => {
    fc.assert(
      fc.property(fileArb, kindArb, fc.nat(), fc.nat(), mutationArb, (text, kind, a, b, mutation) => {
        const lines = text.split('\n').length;
        const s = 1 + (a % lines);
        const e = s + (b % (lines - s + 1));
        const changed = mutate(Buffer.from(text, 'utf8'), mutation);
        fc.pre(!changed.equals(Buffer.from(text, 'utf8')));
        reset(changed);
        const before = ws.snapshot();
        const plan = planExactEdit(entryFor(kind, text, s, e), 0, ws.reader(), { tierAllowed: 'all', trusted: true, reportFsPath: ws.path('r.report.json'), confirmed: true });
        assert.equal(plan.ok, false);
        assert.equal(!plan.ok && plan.code, 'stale');
        assert.deepEqual(ws.snapshot(), before);
      }),
      { numRuns: 150 },
    );
  });

  test('a change between planning and writing: the writer writes nothing', () => {
    fc.assert(
      fc.property(fileArb, kindArb, fc.nat(), fc.nat(), mutationArb, (text, kind, a, b, mutation) => {
        const lines = text.split('\n').length;
        const s = 1 + (a % lines);
        const e = s + (b % (lines - s + 1));
        reset(text);
        const plan = planExactEdit(entryFor(kind, text, s, e), 0, ws.reader(), { tierAllowed: 'all', trusted: true, reportFsPath: ws.path('r.report.json'), confirmed: true });
        fc.pre(plan.ok);
        const changed = mutate(Buffer.from(text, 'utf8'), mutation);
        fc.pre(!changed.equals(Buffer.from(text, 'utf8')));
        ws.write('doc.md', changed);
        const before = ws.snapshot();
        if (plan.ok) assert.equal(applyChangesNode(plan.changes, ws.root).ok, false);
        assert.deepEqual(ws.snapshot(), before);
      }),
      { numRuns: 150 },
    );
  });
});

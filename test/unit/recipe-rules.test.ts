import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { recipeInputRules, recipeOutputRules, recipeOutputBranch, recipeCompletions } from '../../server/src/core/agentJson/rules/recipe';
import type { Finding, JsonEdit } from '../../server/src/core/types';
import { SPECS } from '../paths';

const repoRoot = path.resolve(__dirname, '..', '..');
const specs = SPECS;
const fixtures = path.join(repoRoot, 'test', 'fixtures', 'recipe');
const readJson = (p: string): any => JSON.parse(readFileSync(p, 'utf8'));
const upstreamInput = readJson(path.join(specs, 'update_recipe_build.input.schema.json'));
// The newest observed output contract (change 2 "new" is change 1 "previous"; change 1 "new" came last).
const upstreamOutput = readJson(path.join(specs, 'review_recipe_build.output.change1.new.schema.json'));

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv);
const validateInput = ajv.compile(upstreamInput);
const validateOutput = ajv.compile(upstreamOutput);

type Doc = Record<string, any>;
const load = (name: string): any => readJson(path.join(fixtures, name));

function assertValidCall(args: unknown, label: string): void {
  assert.ok(validateInput(args), `${label} must be valid update_recipe_build arguments: ${ajv.errorsText(validateInput.errors)}`);
}
function assertValidDoc(doc: unknown, label: string): void {
  for (const call of Array.isArray(doc) ? doc : [doc]) assertValidCall(call, label);
}

const run = (doc: unknown, text = JSON.stringify(doc, null, 2)): Finding[] => recipeInputRules(doc, { text });
const codes = (doc: unknown): string[] => run(doc).map((f) => f.code);
const withCode = (doc: unknown, code: string): Finding[] => run(doc).filter((f) => f.code === code);

function applyEdits<T>(doc: T, edits: JsonEdit[]): T {
  const copy: any = structuredClone(doc);
  for (const e of edits) {
    let cur = copy;
    for (const seg of e.path.slice(0, -1)) cur = cur[seg];
    cur[e.path[e.path.length - 1]!] = e.value;
  }
  return copy;
}

const REVISION = 'a'.repeat(64);
const call = (key: string, ops: unknown[]): Doc => ({ build_ref: 'build_1', revision: REVISION, idempotency_key: key, ops });
const sha = (s: string) => createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

/** The request envelope as the tool description means it, written out by hand. */
const ENVELOPE_HEAD = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_recipe_build","arguments":';
const ENVELOPE_TAIL = '}}';
/** Bytes of each character once JSON-escaped and UTF-8 encoded, counted by hand. */
const MIXED = [
  ['é', 2],
  ['"', 2], // \"
  ['\\', 2], // \\
  ['\n', 2], // \n
  ['\u0001', 6], // \u0001
  ['😀', 4],
  ['€', 3],
] as const;
const MIXED_TEXT = MIXED.map(([c]) => c).join('');
const MIXED_BYTES = MIXED.reduce((n, [, b]) => n + b, 0);

/** A call whose complete request is exactly `target` bytes, its op built around a string field `text`. */
function callOfSize(target: number, makeOps: (text: string) => unknown[]): Doc {
  const empty = call('size-probe', makeOps(''));
  const base = Buffer.byteLength(ENVELOPE_HEAD + JSON.stringify(empty) + ENVELOPE_TAIL, 'utf8');
  const filler = target - base - MIXED_BYTES;
  assert.ok(filler > 0);
  return call('size-probe', makeOps(MIXED_TEXT + 'x'.repeat(filler)));
}

describe('recipe fixtures', () => {
  test('input fixtures are valid arguments and raise nothing', () => {
    for (const name of ['chunked.recipe-input.json', 'batch.recipe-input.json']) {
      const doc = load(name);
      assertValidDoc(doc, name);
      assert.deepEqual(run(doc), [], name);
    }
  });
  test('output fixtures are valid results; the branch named is the one the schema accepts', () => {
    const names = readdirSync(fixtures).filter((n) => n.endsWith('.recipe-output.json'));
    assert.equal(names.length, 5);
    const seen = new Set<number>();
    for (const name of names) {
      const doc = load(name);
      assert.ok(validateOutput(doc), `${name}: ${ajv.errorsText(validateOutput.errors)}`);
      const accepting = upstreamOutput.oneOf.map((b: unknown, i: number) => (ajv.validate(b as object, doc) ? i : -1)).filter((i: number) => i >= 0);
      assert.equal(accepting.length, 1, name);
      const branch = recipeOutputBranch(doc);
      assert.equal(branch?.index, accepting[0], name);
      seen.add(accepting[0]);
      assert.deepEqual(recipeOutputRules(doc, { text: '' }), []);
    }
    assert.equal(seen.size, 5, 'one fixture per branch');
  });
});

describe('recipe/payload-size', () => {
  const specOps = (text: string) => [{ op: 'replace_spec', spec: { body: text } }];
  test('a request of exactly 32 KiB (escaped, UTF-8, with envelope) warns; one byte less does not', () => {
    const at = callOfSize(32768, specOps);
    assertValidCall(at, 'payload at limit');
    const f = withCode(at, 'recipe/payload-size');
    assert.equal(f.length, 1);
    assert.equal(f[0]!.severity, 'warning');
    assert.deepEqual(f[0]!.target, { path: ['ops'], part: 'key' });
    assert.match(f[0]!.message, /32768 bytes/);
    const below = callOfSize(32767, specOps);
    assert.deepEqual(withCode(below, 'recipe/payload-size'), []);
  });
  test('measured on the serialized arguments, not the document text', () => {
    const below = callOfSize(32767, specOps);
    const padded = JSON.stringify(below, null, 40); // far more than 32 KiB of whitespace
    assert.ok(Buffer.byteLength(padded) > 32768);
    assert.deepEqual(
      recipeInputRules(below, { text: padded }).filter((f) => f.code === 'recipe/payload-size'),
      [],
    );
  });
  test("a top-level $schema (ToonLens's editor annotation, never sent) is not measured", () => {
    const below = callOfSize(32767, specOps);
    const annotated = { $schema: 'https://toonlens.dev/schemas/recipe-input.v1.json' + '#'.repeat(100), ...below };
    assert.deepEqual(withCode(annotated, 'recipe/payload-size'), []);
  });
  test('each call of a batch is measured alone', () => {
    const big = callOfSize(40000, specOps);
    const f = withCode([call('small', [{ op: 'restore' }]), big], 'recipe/payload-size');
    assert.equal(f.length, 1);
    assert.deepEqual(f[0]!.target.path, [1, 'ops']);
  });
});

describe('recipe/append-size', () => {
  const appendOps = (text: string) => [{ op: 'append_chunk', chunk_id: 'spec', seq: 0, text }];
  test('an append request of exactly 12 KiB warns; one byte less does not', () => {
    const at = callOfSize(12288, appendOps);
    assertValidCall(at, 'append at limit');
    const f = withCode(at, 'recipe/append-size');
    assert.equal(f.length, 1);
    assert.equal(f[0]!.severity, 'warning');
    assert.deepEqual(f[0]!.target.path, ['ops', 0, 'text']);
    assert.deepEqual(withCode(callOfSize(12287, appendOps), 'recipe/append-size'), []);
  });
  test('a 12 KiB request without an append_chunk is not an append request', () => {
    const doc = callOfSize(12288, (text) => [{ op: 'replace_spec', spec: { body: text } }]);
    assert.deepEqual(withCode(doc, 'recipe/append-size'), []);
  });
});

describe('recipe/chunk-seq', () => {
  const append = (chunk_id: string, seq: number, text = 't') => ({ op: 'append_chunk', chunk_id, seq, text });
  test('a gap after begin_chunk', () => {
    const doc = call('k', [{ op: 'begin_chunk', chunk_id: 'a' }, append('a', 0), append('a', 2)]);
    assertValidCall(doc, 'gap');
    const f = withCode(doc, 'recipe/chunk-seq');
    assert.equal(f.length, 1);
    assert.equal(f[0]!.severity, 'error');
    assert.deepEqual(f[0]!.target.path, ['ops', 2, 'seq']);
    assert.match(f[0]!.message, /expected 1/);
  });
  test('a chunk begun in the document starts at 0', () => {
    const f = withCode(call('k', [{ op: 'begin_chunk', chunk_id: 'a' }, append('a', 1)]), 'recipe/chunk-seq');
    assert.equal(f.length, 1);
    assert.match(f[0]!.message, /expected 0/);
  });
  test('a repeat', () => {
    const f = withCode(call('k', [append('a', 0), append('a', 1), append('a', 1)]), 'recipe/chunk-seq');
    assert.deepEqual(f.map((x) => x.target.path), [['ops', 2, 'seq']]);
  });
  test('a chunk begun in an earlier call runs on from its first seq', () => {
    assert.deepEqual(codes(call('k', [append('a', 5), append('a', 6)])), []);
    assert.equal(withCode(call('k', [append('a', 5), append('a', 7)]), 'recipe/chunk-seq').length, 1);
  });
  test('chunk_ids are independent, and a new begin_chunk restarts at 0', () => {
    const doc = call('k', [
      { op: 'begin_chunk', chunk_id: 'a' },
      { op: 'begin_chunk', chunk_id: 'b' },
      append('a', 0),
      append('b', 0),
      append('a', 1),
      { op: 'begin_chunk', chunk_id: 'a' },
      append('a', 0),
    ]);
    assertValidCall(doc, 'interleaved');
    assert.deepEqual(withCode(doc, 'recipe/chunk-seq'), []);
  });
  test('across the calls of a batch; a replayed call (same idempotency_key) does not count twice', () => {
    const first = call('k1', [{ op: 'begin_chunk', chunk_id: 'a' }, append('a', 0)]);
    const second = call('k2', [append('a', 1)]);
    assert.deepEqual(withCode([first, second, second], 'recipe/chunk-seq'), []);
    const f = withCode([first, call('k2', [append('a', 2)])], 'recipe/chunk-seq');
    assert.deepEqual(f.map((x) => x.target.path), [[1, 'ops', 0, 'seq']]);
  });
});

describe('recipe/chunk-sha', () => {
  test('a wrong digest is reported with the right one, offered as a fix never applied unattended', () => {
    const doc = load('chunked.recipe-input.json');
    doc.ops[3].sha256 = sha('something else');
    assertValidCall(doc, 'wrong sha');
    const f = withCode(doc, 'recipe/chunk-sha');
    assert.equal(f.length, 1);
    assert.equal(f[0]!.severity, 'error');
    assert.deepEqual(f[0]!.target.path, ['ops', 3, 'sha256']);
    const expected = sha(doc.ops[1].text + doc.ops[2].text);
    assert.match(f[0]!.message, new RegExp(expected));
    const fix = f[0]!.fixes![0]!;
    assert.equal(fix.fixAll, false);
    assert.deepEqual(run(applyEdits(doc, fix.edits)), []);
  });
  test('assembled in seq order from the UTF-8 text of every append (the fixture holds non-ASCII)', () => {
    const doc = load('chunked.recipe-input.json');
    assert.equal(doc.ops[3].sha256, sha('part one, part "two" — é\n'));
    assert.deepEqual(withCode(doc, 'recipe/chunk-sha'), []);
    // The same texts joined in the other order give another digest: the rule must notice.
    doc.ops[3].sha256 = sha(doc.ops[2].text + doc.ops[1].text);
    assert.equal(withCode(doc, 'recipe/chunk-sha').length, 1);
  });
  test('across a batch', () => {
    const doc = load('batch.recipe-input.json');
    doc[1].ops[1].sha256 = sha('part one, ');
    const f = withCode(doc, 'recipe/chunk-sha');
    assert.deepEqual(f.map((x) => x.target.path), [[1, 'ops', 1, 'sha256']]);
  });
  test('not judged when some appends are in another document', () => {
    const doc = call('k', [
      { op: 'append_chunk', chunk_id: 'a', seq: 3, text: 'tail' },
      { op: 'commit_chunk', chunk_id: 'a', sha256: sha('tail'.repeat(2)), target: 'replace_spec' },
    ]);
    assertValidCall(doc, 'continuation');
    assert.deepEqual(codes(doc), []);
  });
  test('not judged when the seqs are broken (chunk-seq says why)', () => {
    const doc = call('k', [
      { op: 'begin_chunk', chunk_id: 'a' },
      { op: 'append_chunk', chunk_id: 'a', seq: 0, text: 'x' },
      { op: 'append_chunk', chunk_id: 'a', seq: 2, text: 'y' },
      { op: 'commit_chunk', chunk_id: 'a', sha256: sha('nope'), target: 'replace_spec' },
    ]);
    assert.deepEqual(codes(doc), ['recipe/chunk-seq']);
  });
});

describe('recipe rules never throw', () => {
  test('on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        assert.ok(Array.isArray(recipeInputRules(v, { text: '' })));
        assert.ok(Array.isArray(recipeOutputRules(v, { text: '' })));
        const b = recipeOutputBranch(v);
        assert.ok(b === undefined || (Number.isInteger(b.index) && typeof b.name === 'string'));
        assert.ok(Array.isArray(recipeCompletions(v, ['ops', 0])));
      }),
      { numRuns: 300 },
    );
  });
  test('on chunk ops with any field replaced by any JSON value', () => {
    const base = load('chunked.recipe-input.json');
    const fields: (string | number)[][] = [];
    base.ops.forEach((op: Doc, i: number) => Object.keys(op).forEach((k) => fields.push(['ops', i, k])));
    fields.push(['ops'], ['idempotency_key'], ['ops', 1]);
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.jsonValue(), fc.boolean(), (p, v, batch) => {
        const doc = applyEdits(base, [{ path: p, value: v }]);
        assert.ok(Array.isArray(recipeInputRules(batch ? [doc, doc] : doc, { text: '' })));
      }),
      { numRuns: 300 },
    );
  });
});

describe('recipe completions', () => {
  const upstreamOps: string[] = upstreamInput.properties.ops.items.oneOf.map((b: Doc) => b.properties.op.const);
  test('op values: every op of the schema', () => {
    const items = recipeCompletions({ ops: [{}] }, ['ops', 0, 'op']);
    assert.deepEqual(
      items.map((i) => i.label).sort(),
      [...upstreamOps].sort(),
    );
    for (const i of items) assert.equal(JSON.parse(i.insertText!), i.label);
  });
  test('for a chosen op: its required fields not yet present', () => {
    for (const branch of upstreamInput.properties.ops.items.oneOf as Doc[]) {
      const op = branch.properties.op.const;
      const items = recipeCompletions({ ops: [{ op }] }, ['ops', 0]);
      assert.deepEqual(
        items.map((i) => i.label),
        branch.required.filter((r: string) => r !== 'op'),
        op,
      );
      for (const i of items) assert.ok(JSON.parse(`{${i.insertText}}`), i.insertText);
    }
    const partial = recipeCompletions({ ops: [{ op: 'append_chunk', chunk_id: 'a' }] }, ['ops', 0]);
    assert.deepEqual(partial.map((i) => i.label), ['seq', 'text']);
  });
  test('in a batch document, and before an op is chosen', () => {
    const items = recipeCompletions([{ ops: [] }, { ops: [{ op: 'commit_chunk' }] }], [1, 'ops', 0]);
    assert.deepEqual(items.map((i) => i.label), ['chunk_id', 'sha256', 'target']);
    assert.deepEqual(recipeCompletions({ ops: [{}] }, ['ops', 0]).map((i) => i.label), ['op']);
  });
  test('derived from the schema it is given: a new op is offered with its required fields', () => {
    const schema = structuredClone(upstreamInput);
    schema.properties.ops.items.oneOf.push({
      type: 'object',
      required: ['op', 'label', 'weight'],
      properties: { op: { const: 'tag_build' }, label: { type: 'string' }, weight: { type: 'integer' } },
      additionalProperties: false,
    });
    assert.ok(recipeCompletions({ ops: [{}] }, ['ops', 0, 'op'], schema).some((i) => i.label === 'tag_build'));
    const fields = recipeCompletions({ ops: [{ op: 'tag_build' }] }, ['ops', 0], schema);
    assert.deepEqual(fields.map((i) => [i.label, i.insertText]), [['label', '"label": ""'], ['weight', '"weight": 0']]);
  });
  test('op skeletons in the ops array: JSON objects with the op and its required fields', () => {
    const items = recipeCompletions({ ops: [] }, ['ops']);
    assert.equal(items.length, upstreamOps.length);
    for (const i of items) {
      const op = JSON.parse(i.insertText!);
      assert.equal(op.op, i.label);
      const branch = upstreamInput.properties.ops.items.oneOf.find((b: Doc) => b.properties.op.const === i.label);
      assert.deepEqual(Object.keys(op), branch.required);
    }
  });
});

describe('recipeOutputBranch', () => {
  test('names are distinct and say what tells the branches apart', () => {
    const names = ['quoted-capability', 'quoted', 'queued', 'supervised', 'error'].map((n) => recipeOutputBranch(load(`${n}.recipe-output.json`))!.name);
    assert.equal(new Set(names).size, 5);
    assert.deepEqual(names, ['quoted (with budget_capability)', 'quoted (without budget_capability)', 'queued', 'supervised_required', 'error']);
  });
  test('broken documents go to the branch their discriminators point at', () => {
    assert.equal(recipeOutputBranch({ outcome: 'queued' })?.index, 2);
    assert.equal(recipeOutputBranch({ outcome: 'quoted', budget_capability: 'cap' })?.index, 0);
    assert.equal(recipeOutputBranch({ outcome: 'quoted', kind: 'review' })?.index, 1);
    assert.equal(recipeOutputBranch({ outcome: 'supervised_required', state: 'queued' })?.index, 3);
    assert.equal(recipeOutputBranch({ error: 'not_a_code' })?.index, 4);
    const queuedWithJunk = { ...load('queued.recipe-output.json'), poll_after_seconds: 'soon' };
    assert.equal(validateOutput(queuedWithJunk), false);
    assert.equal(recipeOutputBranch(queuedWithJunk)?.index, 2);
  });
  test('nothing to go on: undefined', () => {
    assert.equal(recipeOutputBranch({}), undefined);
    assert.equal(recipeOutputBranch({ unrelated: 1 }), undefined);
    assert.equal(recipeOutputBranch([]), undefined);
    assert.equal(recipeOutputBranch('quoted'), undefined);
  });
});

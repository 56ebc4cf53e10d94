/**
 * Our schemas (schemas/*.json) against the upstream contracts, and the schema diagnostics:
 * same accept/reject decisions on real and mutated samples, precise ranges, one error per failing oneOf.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import AjvDraft07 from 'ajv';
import addFormats from 'ajv-formats';
import { checkDocument } from '../../server/src/core/agentJson/check';
import { isValidAgainstSchema, validateAgainstSchema } from '../../server/src/core/json/schema';
import type { CoreDiagnostic, DocumentKind } from '../../server/src/core/types';
import { SPECS, CORPUS_DIR } from '../paths';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const specs = SPECS;
const corpusDir = CORPUS_DIR;
const examples = join(repoRoot, 'examples');

const readJson = (p: string): unknown => JSON.parse(readFileSync(p, 'utf8'));
const clone = <T>(v: T): T => structuredClone(v);

function upstreamValidator(file: string, draft2020: boolean): (v: unknown) => boolean {
  const ajv = draft2020 ? new Ajv2020({ strict: false, allErrors: true }) : new AjvDraft07({ strict: false, allErrors: true });
  addFormats(ajv as never);
  const validate = ajv.compile(readJson(join(specs, file)) as object);
  return (v) => validate(v) === true;
}

const corpusVerdicts = readdirSync(corpusDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ name: f, value: readJson(join(corpusDir, f)) as Record<string, any> }));

/** Mutations that any faithful copy of a closed contract must reject. */
type Mutation = [string, (v: any) => void];

function agreement(kind: DocumentKind, upstream: (v: unknown) => boolean, samples: { name: string; value: unknown }[], mutations: Mutation[]) {
  let validSeen = 0;
  let invalidSeen = 0;
  for (const s of samples) {
    const expected = upstream(s.value);
    assert.equal(isValidAgainstSchema(kind, s.value), expected, `${s.name}: ours and upstream disagree`);
    if (expected) validSeen++;
    for (const [label, mutate] of mutations) {
      const m = clone(s.value);
      try {
        mutate(m);
      } catch {
        continue; // the mutation does not apply to this sample's shape
      }
      const up = upstream(m);
      assert.equal(isValidAgainstSchema(kind, m), up, `${s.name} / ${label}: ours and upstream disagree`);
      if (!up) invalidSeen++;
    }
  }
  return { validSeen, invalidSeen };
}

describe('our schemas accept and reject what the upstream ones do', () => {
  test('verdict.v1: every corpus verdict, and mutated copies', () => {
    assert.ok(corpusVerdicts.length >= 100, 'the corpus is there');
    const mutations: Mutation[] = [
      ['drop verdict', (v) => delete v.verdict],
      ['verdict outside enum', (v) => (v.verdict = 'maybe')],
      ['schema_version 2.0', (v) => (v.schema_version = '2.0')],
      ['savings as string', (v) => (v.measured_chars.savings = '12')],
      ['negative source', (v) => (v.measured_chars.source = -1)],
      ['delimiter ;', (v) => (v.delimiter = ';')],
      ['warning severity error', (v) => v.warnings.push({ code: 'x', severity: 'error', message: 'm' })],
      ['flags without valid', (v) => delete v.flags.valid],
      ['section kind chapter', (v) => (v.context_plan.sections[0].kind = 'chapter')],
      ['section measured_chars string', (v) => (v.context_plan.sections[0].measured_chars = 'none')],
      ['unknown top-level field (allowed)', (v) => (v.extra_field = true)],
    ];
    const r = agreement('verdict', upstreamValidator('verdict.v1.schema.json', true), corpusVerdicts, mutations);
    assert.equal(r.validSeen, corpusVerdicts.length, 'every corpus verdict is valid');
    assert.ok(r.invalidSeen > corpusVerdicts.length * 5, `mutations were rejected (${r.invalidSeen})`);
  });

  test('critique-report: the examples, and mutated copies', () => {
    const dir = join(examples, 'agent-json');
    const samples = readdirSync(dir)
      .filter((f) => f.endsWith('.critique.json'))
      .map((f) => ({ name: f, value: readJson(join(dir, f)) }));
    assert.ok(samples.length >= 2);
    const r = agreement('critique', upstreamValidator('critique-report.schema.json', false), samples, [
      ['drop sessionId', (v) => delete v.sessionId],
      ['fidelity cowork', (v) => (v.fidelity = 'cowork')],
      ['extra top-level', (v) => (v.extra = 1)],
      ['item classification', (v) => (v.items[0].classification = 'plausible')],
      ['infraFailure without phase', (v) => (v.infraFailure = 'killed')],
      ['infraFailure with phase', (v) => Object.assign(v, { infraFailure: 'killed', infraFailurePhase: 'task turn', items: [] })],
      ['costUsd without complete', (v) => delete v.costUsd.complete],
    ]);
    assert.ok(r.validSeen >= 2 && r.invalidSeen >= 8);
  });

  test('recipe-input: the examples, and mutated copies', () => {
    const dir = join(examples, 'agent-json');
    const samples = readdirSync(dir)
      .filter((f) => f.endsWith('.recipe-input.json'))
      .map((f) => ({ name: f, value: readJson(join(dir, f)) }));
    const r = agreement('recipe-input', upstreamValidator('update_recipe_build.input.schema.json', false), samples, [
      ['bad revision', (v) => (v.revision = 'XYZ')],
      ['unknown op', (v) => v.ops.push({ op: 'teleport' })],
      ['restore op', (v) => v.ops.push({ op: 'restore' })],
      ['set_budget', (v) => v.ops.push({ op: 'set_budget', budget_capability: 'cap' })],
      ['negative seq', (v) => v.ops.push({ op: 'append_chunk', chunk_id: 'c', seq: -1, text: 't' })],
      ['commit target', (v) => v.ops.push({ op: 'commit_chunk', chunk_id: 'c', sha256: 'a'.repeat(64), target: 'upsert_node' })],
      ['extra top-level', (v) => (v.extra = 1)],
    ]);
    assert.ok(r.validSeen >= 1 && r.invalidSeen >= 6);
  });

  test('recipe-output: ours is the newest observed upstream version (change1.new)', () => {
    const dir = join(examples, 'agent-json');
    const samples = readdirSync(dir)
      .filter((f) => f.endsWith('.recipe-output.json'))
      .map((f) => ({ name: f, value: readJson(join(dir, f)) }));
    samples.push({ name: 'error branch', value: { error: 'invalid_cursor', hint: 'restart the listing' } });
    samples.push({ name: 'error outside enum', value: { error: 'melted' } });
    const r = agreement('recipe-output', upstreamValidator('review_recipe_build.output.change1.new.schema.json', false), samples, [
      ['outcome bogus', (v) => (v.outcome = 'bogus')],
      ['poll 0', (v) => (v.poll_after_seconds = 0)],
      ['extra property', (v) => (v.extra = 1)],
    ]);
    assert.ok(r.validSeen >= 2 && r.invalidSeen >= 3);
    // invalid_cursor arrived with the newest version: the previous one rejects it, ours accepts it.
    const older = upstreamValidator('review_recipe_build.output.change2.previous.schema.json', false);
    assert.equal(older({ error: 'invalid_cursor' }), false);
    assert.equal(isValidAgainstSchema('recipe-output', { error: 'invalid_cursor' }), true);
  });

  test('every schema of ours is valid against its meta-schema (the core compiles them with validateSchema: false)', () => {
    for (const f of readdirSync(join(repoRoot, 'schemas')).filter((n) => n.endsWith('.json'))) {
      const schema = readJson(join(repoRoot, 'schemas', f)) as Record<string, unknown>;
      const draft2020 = String(schema.$schema ?? '').includes('2020-12');
      const ajv = draft2020 ? new Ajv2020({ strict: false }) : new AjvDraft07({ strict: false });
      addFormats(ajv as never);
      assert.equal(ajv.validateSchema(schema), true, `${f}: ${JSON.stringify(ajv.errors)}`);
    }
  });

  test('our descriptions are our own words, not the upstream text', () => {
    for (const [ours, theirs] of [
      ['verdict.v1.json', 'verdict.v1.schema.json'],
      ['critique-report.v1.json', 'critique-report.schema.json'],
      ['recipe-input.v1.json', 'update_recipe_build.input.schema.json'],
      ['recipe-output.v1.json', 'review_recipe_build.output.change1.new.schema.json'],
    ] as const) {
      const upstream = new Set<string>();
      collectDescriptions(readJson(join(specs, theirs)), upstream);
      const mine = new Set<string>();
      collectDescriptions(readJson(join(repoRoot, 'schemas', ours)), mine);
      assert.ok(mine.size > 10, `${ours} has descriptions`);
      for (const d of mine) assert.ok(!upstream.has(d), `${ours} copies an upstream description: ${d.slice(0, 60)}`);
    }
  });
});

function collectDescriptions(node: unknown, into: Set<string>): void {
  if (Array.isArray(node)) node.forEach((n) => collectDescriptions(n, into));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'description' && typeof v === 'string') into.add(v);
      else collectDescriptions(v, into);
    }
  }
}

/** Offset range of the `nth` occurrence of `needle` in `text`. */
function rangeOf(text: string, needle: string, nth = 0): { start: number; end: number } {
  let i = -1;
  for (let k = 0; k <= nth; k++) {
    i = text.indexOf(needle, i + 1);
    assert.ok(i >= 0, `fixture contains ${needle}`);
  }
  return { start: i, end: i + needle.length };
}

const schemaOnly = (ds: CoreDiagnostic[]) => ds.filter((d) => d.code === 'schema');

describe('schema diagnostics', () => {
  const verdictText = readFileSync(join(examples, 'agent-json', 'settings-table.verdict.json'), 'utf8');

  test('a valid document has none', () => {
    assert.deepEqual(checkDocument(verdictText, { fsPath: '/x/settings-table.verdict.json' }).diagnostics, []);
  });

  test('every corpus verdict: no schema, syntax or error diagnostic', () => {
    for (const { name } of corpusVerdicts) {
      const r = checkDocument(readFileSync(join(corpusDir, name), 'utf8'), { fsPath: join(corpusDir, name) });
      assert.equal(r.kind, 'verdict', name);
      assert.deepEqual(
        r.diagnostics.filter((d) => d.code === 'schema' || d.code === 'json-syntax' || d.code === 'internal'),
        [],
        name,
      );
    }
  });

  test('a wrong value is underlined at the value, naming the keyword and the allowed values', () => {
    const text = verdictText.replace('"mode": "lossless"', '"mode": "careful"');
    const ds = schemaOnly(checkDocument(text, { fsPath: '/x/a.verdict.json' }).diagnostics);
    assert.equal(ds.length, 1);
    assert.deepEqual(ds[0]!.range, rangeOf(text, '"careful"'));
    assert.match(ds[0]!.message, /enum/);
    assert.match(ds[0]!.message, /"lossless", "record", "budget"/);
    assert.deepEqual(ds[0]!.path, ['mode']);
  });

  test('an unexpected property is underlined at its key', () => {
    const text = readFileSync(join(examples, 'agent-json', 'unexpected-field.critique.json'), 'utf8');
    const ds = schemaOnly(checkDocument(text, { fsPath: '/x/unexpected-field.critique.json' }).diagnostics);
    assert.equal(ds.length, 1);
    assert.deepEqual(ds[0]!.range, rangeOf(text, '"currency"'));
    assert.match(ds[0]!.message, /additionalProperties/);
  });

  test('a missing property points at the opening brace of its object', () => {
    const text = verdictText.replace(/"valid": true,\s*/, '');
    const ds = schemaOnly(checkDocument(text, { fsPath: '/x/a.verdict.json' }).diagnostics);
    assert.equal(ds.length, 1);
    const flagsBrace = text.indexOf('{', text.indexOf('"flags"'));
    assert.deepEqual(ds[0]!.range, { start: flagsBrace, end: flagsBrace + 1 });
    assert.match(ds[0]!.message, /"valid" \(required\)/);
  });

  test('a failing oneOf is reported once, through the branch its discriminator names', () => {
    const text = readFileSync(join(examples, 'agent-json', 'missing-node.recipe-input.json'), 'utf8');
    const ds = schemaOnly(checkDocument(text, { fsPath: '/x/missing-node.recipe-input.json' }).diagnostics);
    assert.equal(ds.length, 1, JSON.stringify(ds));
    assert.match(ds[0]!.message, /Missing property "node"/);
    const brace = text.indexOf('{', text.indexOf('"ops"'));
    assert.deepEqual(ds[0]!.range, { start: brace, end: brace + 1 });
  });

  test('three broken ops: one error each (wrong value, unknown op, unexpected key)', () => {
    const text = readFileSync(join(repoRoot, 'test', 'fixtures', 'json', 'deep-oneof.recipe-input.json'), 'utf8');
    const ds = schemaOnly(checkDocument(text, { fsPath: '/x/deep-oneof.recipe-input.json' }).diagnostics);
    assert.equal(ds.length, 3, ds.map((d) => d.message).join('\n'));
    const seq = text.indexOf('"seq": -1') + '"seq": '.length;
    assert.deepEqual(ds[0]!.range, { start: seq, end: seq + 2 });
    assert.match(ds[0]!.message, /minimum/);
    assert.deepEqual(ds[1]!.range, rangeOf(text, '"teleport"'));
    assert.match(ds[1]!.message, /"replace_spec"/);
    assert.deepEqual(ds[2]!.range, rangeOf(text, '"force"'));
    assert.match(ds[2]!.message, /Unexpected property "force"/);
  });

  test('report exact_edit: the kind picks the branch; its missing field is the one error', () => {
    const report = readJson(join(examples, 'golden', 'valid-report.json')) as any;
    delete report.entries[0].exact_edit.dest_path;
    const findings = validateAgainstSchema('report', report);
    assert.equal(findings.length, 1, JSON.stringify(findings));
    assert.deepEqual(findings[0]!.target, { path: ['entries', 0, 'exact_edit'], part: 'missing', property: 'dest_path' });
  });

  test('report lifecycle: delete-once-served needs exactly one served field', () => {
    const report = readJson(join(examples, 'golden', 'valid-report.json')) as any;
    report.shortlist.push({ path: 'tmp/', lifecycle: { rule_ref: 'r', lifetime: 'delete-once-served', served_when: 'a', served_when_path: 'b' } });
    const both = validateAgainstSchema('report', report);
    assert.equal(both.length, 1);
    assert.match(both[0]!.message, /exactly one of: served_when_path, served_when/);
    report.shortlist[2].lifecycle = { rule_ref: 'r', lifetime: 'temporary', served_when: 'a' };
    const temporary = validateAgainstSchema('report', report);
    assert.equal(temporary.length, 1);
    assert.deepEqual(temporary[0]!.target, { path: ['shortlist', 2, 'lifecycle', 'served_when'], part: 'key' });
  });

  test('the golden reports: valid accepted, invalid rejected', () => {
    assert.deepEqual(validateAgainstSchema('report', readJson(join(examples, 'golden', 'valid-report.json'))), []);
    assert.ok(validateAgainstSchema('report', readJson(join(examples, 'golden', 'invalid-report.json'))).length >= 3);
  });

  test('a top-level $schema names the kind and is not an unexpected property', () => {
    const critique = readJson(join(examples, 'agent-json', 'config-loader.critique.json')) as any;
    const text = JSON.stringify({ $schema: 'https://toonlens.dev/schemas/critique-report.v1.json', ...critique }, null, 2);
    const r = checkDocument(text, { fsPath: '/x/anything.json' });
    assert.equal(r.kind, 'critique');
    assert.deepEqual(schemaOnly(r.diagnostics), []);
  });
});

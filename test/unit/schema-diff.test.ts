import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { diffSchemas, schemaDriftFindings, schemaRoleFromFileName, type SchemaChange, type SchemaRole } from '../../server/src/core/agentJson/schemaDiff';
import { main } from '../../server/src/cli/main';
import type { CliIO } from '../../server/src/cli/io';
import { SPECS } from '../paths';

const specs = SPECS;
const specFile = (name: string) => path.join(specs, name);
const readJson = (p: string): any => JSON.parse(readFileSync(p, 'utf8'));

/** A difference a plain structural diff shows: objects by key, arrays of scalars as sets, other arrays by index. */
interface Difference {
  pointer: string;
  before: unknown;
  after: unknown;
}
const esc = (k: string | number) => String(k).replace(/~/g, '~0').replace(/\//g, '~1');
const isPlain = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const same = (a: unknown, b: unknown) => isDeepStrictEqual(a, b);

function structuralDiff(a: unknown, b: unknown, ptr = ''): Difference[] {
  if (same(a, b)) return [];
  if (isPlain(a) && isPlain(b)) {
    const out: Difference[] = [];
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      out.push(...structuralDiff(k in a ? a[k] : undefined, k in b ? b[k] : undefined, `${ptr}/${esc(k)}`));
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const scalar = (v: unknown) => v === null || typeof v !== 'object';
    if (a.every(scalar) && b.every(scalar)) {
      // As sets: an element present on one side only (its index on that side); a reorder is no difference.
      const out: Difference[] = [];
      b.forEach((v, j) => {
        if (!a.some((x) => same(x, v))) out.push({ pointer: `${ptr}/${j}`, before: undefined, after: v });
      });
      a.forEach((v, i) => {
        if (!b.some((x) => same(x, v))) out.push({ pointer: `${ptr}/${i}`, before: v, after: undefined });
      });
      return out;
    }
    if (a.length === b.length) return a.flatMap((x, i) => structuralDiff(x, b[i], `${ptr}/${i}`));
    // Different lengths: keep the longest common subsequence of equal elements; the rest were inserted or deleted.
    const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
    for (let i = a.length - 1; i >= 0; i--)
      for (let j = b.length - 1; j >= 0; j--) lcs[i]![j] = same(a[i], b[j]) ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    const out: Difference[] = [];
    let i = 0;
    let j = 0;
    while (i < a.length || j < b.length) {
      if (i < a.length && j < b.length && same(a[i], b[j])) {
        i++;
        j++;
      } else if (j < b.length && (i === a.length || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
        out.push({ pointer: `${ptr}/${j}`, before: undefined, after: b[j] });
        j++;
      } else {
        out.push({ pointer: `${ptr}/${i}`, before: a[i], after: undefined });
        i++;
      }
    }
    return out;
  }
  return [{ pointer: ptr, before: a, after: b }];
}

/** A change accounts for a difference when it names the same place with the same values, or an enclosing place. */
function covers(c: SchemaChange, d: Difference): boolean {
  if (c.pointer === d.pointer) return same(c.before, d.before) && same(c.after, d.after);
  return d.pointer.startsWith(c.pointer + '/');
}

function assertExactCoverage(changes: SchemaChange[], diffs: Difference[]): void {
  assert.ok(diffs.length > 0);
  for (const d of diffs) {
    const by = changes.filter((c) => covers(c, d));
    assert.equal(by.length, 1, `difference ${JSON.stringify(d)} must be reported exactly once, got ${JSON.stringify(by)}`);
  }
  for (const c of changes) assert.ok(diffs.some((d) => covers(c, d)), `change ${JSON.stringify(c)} matches no structural difference`);
  assert.equal(changes.length, diffs.length);
}

const OBSERVED = ['change1', 'change2'] as const;
const pair = (change: string) => ({
  before: readJson(specFile(`review_recipe_build.output.${change}.previous.schema.json`)),
  after: readJson(specFile(`review_recipe_build.output.${change}.new.schema.json`)),
});

describe('schema-diff on the observed review_recipe_build output changes', () => {
  for (const change of OBSERVED) {
    test(`${change}: every structural difference is reported once, nothing else`, () => {
      const { before, after } = pair(change);
      assertExactCoverage(diffSchemas(before, after, 'output'), structuralDiff(before, after));
    });
  }

  test('change1 (additionalProperties dropped from four branches, forbidden properties added): classified for an output schema', () => {
    const { before, after } = pair('change1');
    const changes = diffSchemas(before, after, 'output');
    for (const c of changes) {
      if (c.pointer.endsWith('/additionalProperties')) {
        // results may now carry undeclared properties a closed consumer of the old schema rejects
        assert.equal(c.kind, 'additional-properties-loosened');
        assert.equal(c.before, false);
        assert.equal(c.after, undefined);
        assert.equal(c.classification, 'breaking');
      } else {
        // a property declared impossible (not: {}) only narrows what results may carry
        assert.equal(c.kind, 'property-forbidden');
        assert.deepEqual(c.after, { not: {} });
        assert.equal(c.classification, 'additive');
      }
    }
    assert.equal(changes.filter((c) => c.kind === 'additional-properties-loosened').length, structuralDiff(before, after).filter((d) => d.pointer.endsWith('/additionalProperties')).length);
  });

  test('change2 (two error codes added): breaking for output, additive for input', () => {
    const { before, after } = pair('change2');
    const out = diffSchemas(before, after, 'output');
    const added = structuralDiff(before, after).map((d) => d.after);
    assert.deepEqual(out.map((c) => c.after).sort(), [...added].sort());
    for (const c of out) {
      assert.equal(c.kind, 'enum-value-added');
      assert.equal(c.classification, 'breaking');
    }
    for (const c of diffSchemas(before, after, 'input')) assert.equal(c.classification, 'additive');
  });

  test('the same changes read backwards swap their direction', () => {
    const { before, after } = pair('change2');
    const back = diffSchemas(after, before, 'output');
    assert.ok(back.length > 0 && back.every((c) => c.kind === 'enum-value-removed' && c.classification === 'additive'));
    assert.ok(diffSchemas(after, before, 'input').every((c) => c.classification === 'breaking'));
  });

  test('a schema diffed against itself (or a copy) reports nothing', () => {
    const files = [
      'critique-report.schema.json',
      'update_recipe_build.input.schema.json',
      ...OBSERVED.flatMap((c) => [`review_recipe_build.output.${c}.previous.schema.json`, `review_recipe_build.output.${c}.new.schema.json`]),
    ];
    for (const f of files) {
      const s = readJson(specFile(f));
      for (const role of ['input', 'output', 'both'] as SchemaRole[]) {
        assert.deepEqual(diffSchemas(s, s, role), [], f);
        assert.deepEqual(diffSchemas(s, structuredClone(s), role), [], f);
      }
    }
  });
});

describe('schema-diff: each kind of change, for each role', () => {
  const base = {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: {
      id: { type: 'string', pattern: '^[a-z]+$', maxLength: 10 },
      mode: { enum: ['a', 'b'] },
      v: { const: 1 },
      n: { type: 'integer', minimum: 0 },
    },
    oneOf: [{ required: ['id'] }, { required: ['mode'] }],
  };
  type Row = { name: string; edit: (s: any) => void; kind: SchemaChange['kind']; pointer: string; input: 'breaking' | 'additive'; output: 'breaking' | 'additive' };
  const rows: Row[] = [
    { name: 'property removed', edit: (s) => delete s.properties.n, kind: 'property-removed', pointer: '/properties/n', input: 'breaking', output: 'breaking' },
    { name: 'optional property added', edit: (s) => (s.properties.extra = { type: 'string' }), kind: 'property-added', pointer: '/properties/extra', input: 'additive', output: 'additive' },
    { name: 'type changed', edit: (s) => (s.properties.id.type = 'number'), kind: 'type-changed', pointer: '/properties/id/type', input: 'breaking', output: 'breaking' },
    { name: 'type widened', edit: (s) => (s.properties.n.type = 'number'), kind: 'type-changed', pointer: '/properties/n/type', input: 'additive', output: 'breaking' },
    { name: 'enum value added', edit: (s) => s.properties.mode.enum.push('c'), kind: 'enum-value-added', pointer: '/properties/mode/enum/2', input: 'additive', output: 'breaking' },
    { name: 'enum value removed', edit: (s) => s.properties.mode.enum.pop(), kind: 'enum-value-removed', pointer: '/properties/mode/enum/1', input: 'breaking', output: 'additive' },
    { name: 'required field added', edit: (s) => s.required.push('mode'), kind: 'required-added', pointer: '/required/1', input: 'breaking', output: 'additive' },
    { name: 'required field dropped', edit: (s) => (s.required = []), kind: 'required-removed', pointer: '/required/0', input: 'additive', output: 'breaking' },
    { name: 'additionalProperties loosened', edit: (s) => delete s.additionalProperties, kind: 'additional-properties-loosened', pointer: '/additionalProperties', input: 'additive', output: 'breaking' },
    { name: 'not: {} property added', edit: (s) => (s.properties.legacy = { not: {} }), kind: 'property-forbidden', pointer: '/properties/legacy', input: 'breaking', output: 'additive' },
    { name: 'pattern changed', edit: (s) => (s.properties.id.pattern = '^[a-z0-9]+$'), kind: 'constraint-changed', pointer: '/properties/id/pattern', input: 'breaking', output: 'breaking' },
    { name: 'maxLength lowered', edit: (s) => (s.properties.id.maxLength = 5), kind: 'constraint-tightened', pointer: '/properties/id/maxLength', input: 'breaking', output: 'additive' },
    { name: 'maxLength raised', edit: (s) => (s.properties.id.maxLength = 50), kind: 'constraint-loosened', pointer: '/properties/id/maxLength', input: 'additive', output: 'breaking' },
    { name: 'minimum raised', edit: (s) => (s.properties.n.minimum = 1), kind: 'constraint-tightened', pointer: '/properties/n/minimum', input: 'breaking', output: 'additive' },
    { name: 'minLength added', edit: (s) => (s.properties.id.minLength = 1), kind: 'constraint-tightened', pointer: '/properties/id/minLength', input: 'breaking', output: 'additive' },
    { name: 'const changed', edit: (s) => (s.properties.v.const = 2), kind: 'const-changed', pointer: '/properties/v/const', input: 'breaking', output: 'breaking' },
    { name: 'oneOf branch added', edit: (s) => s.oneOf.push({ required: ['v'] }), kind: 'branch-added', pointer: '/oneOf/2', input: 'additive', output: 'breaking' },
    { name: 'oneOf branch removed', edit: (s) => s.oneOf.shift(), kind: 'branch-removed', pointer: '/oneOf/0', input: 'breaking', output: 'additive' },
    { name: 'description changed', edit: (s) => (s.description = 'now documented'), kind: 'annotation-changed', pointer: '/description', input: 'additive', output: 'additive' },
  ];
  for (const row of rows) {
    test(row.name, () => {
      const after = structuredClone(base);
      row.edit(after);
      for (const role of ['input', 'output'] as const) {
        const changes = diffSchemas(base, after, role);
        assert.equal(changes.length, 1, `${role}: ${JSON.stringify(changes)}`);
        assert.equal(changes[0]!.kind, row.kind);
        assert.equal(changes[0]!.pointer, row.pointer);
        assert.equal(changes[0]!.pointer, structuralDiff(base, after)[0]!.pointer);
        assert.equal(changes[0]!.classification, row[role], role);
        assert.ok(changes[0]!.message.length > 0);
      }
      assertExactCoverage(diffSchemas(base, after, 'output'), structuralDiff(base, after));
    });
  }
  test('type narrowed', () => {
    const before = { type: ['string', 'null'] };
    const changes = diffSchemas(before, { type: 'string' }, 'input');
    assert.equal(changes[0]!.classification, 'breaking');
    assert.equal(diffSchemas(before, { type: 'string' }, 'output')[0]!.classification, 'additive');
  });
  test('a oneOf branch inserted in the middle is one added branch, not a cascade of edits', () => {
    const before = { oneOf: [{ properties: { k: { const: 'a' } } }, { properties: { k: { const: 'c' } } }] };
    const after = { oneOf: [{ properties: { k: { const: 'a' } } }, { properties: { k: { const: 'b' } } }, { properties: { k: { const: 'c' } } }] };
    const changes = diffSchemas(before, after, 'output');
    assert.deepEqual(changes.map((c) => [c.kind, c.pointer]), [['branch-added', '/oneOf/1']]);
  });
  test('unknown role (both): breaking when it breaks either side', () => {
    const after = structuredClone(base);
    after.properties.mode.enum.push('c');
    assert.equal(diffSchemas(base, after, 'both')[0]!.classification, 'breaking');
  });
  test('never throws, and a value diffed with itself is empty', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (a, b) => {
        assert.ok(Array.isArray(diffSchemas(a, b, 'output')));
        assert.deepEqual(diffSchemas(a, structuredClone(a), 'input'), []);
        assert.ok(Array.isArray(schemaDriftFindings(a, b, 'input')));
      }),
      { numRuns: 300 },
    );
  });
});

describe('schemaDriftFindings', () => {
  test('paths into the NEW schema; warning for breaking, info for additive', () => {
    const { before, after } = pair('change1');
    const findings = schemaDriftFindings(before, after, 'output');
    assert.equal(findings.length, diffSchemas(before, after, 'output').length);
    for (const f of findings) {
      if (f.code === 'schema-drift/breaking') {
        assert.equal(f.severity, 'warning');
        // the removed keyword: the branch object that lost it, naming it
        assert.equal(f.target.part, 'missing');
        assert.equal(f.target.part === 'missing' && f.target.property, 'additionalProperties');
        assert.equal(f.target.path.length, 2);
        assert.equal(f.target.path[0], 'oneOf');
        assert.equal(typeof f.target.path[1], 'number');
      } else {
        assert.equal(f.code, 'schema-drift/additive');
        assert.equal(f.severity, 'info');
        let cur: any = after;
        for (const seg of f.target.path) cur = cur[seg];
        assert.deepEqual(cur, { not: {} });
      }
    }
  });
  test('an added enum value points at the value', () => {
    const { before, after } = pair('change2');
    for (const f of schemaDriftFindings(before, after, 'output')) {
      let cur: any = after;
      for (const seg of f.target.path) cur = cur[seg];
      assert.ok(cur === 'invalid_cursor' || cur === 'handoff_disclosure_incomplete', JSON.stringify(f.target));
    }
  });
});

describe('toonlens schema-diff (CLI)', () => {
  function capture(): CliIO & { out: string; err: string } {
    const io = {
      out: '',
      err: '',
      stdout(t: string) {
        io.out += t;
      },
      stderr(t: string) {
        io.err += t;
      },
      readStdin: async () => '',
      cwd: specs,
    };
    return io;
  }
  const prev = (c: string) => `review_recipe_build.output.${c}.previous.schema.json`;
  const next = (c: string) => `review_recipe_build.output.${c}.new.schema.json`;

  test('breaking changes: exit 1, one text line per change', async () => {
    const io = capture();
    assert.equal(await main(['schema-diff', prev('change2'), next('change2'), '--role', 'output'], io), 1);
    const lines = io.out.trim().split('\n');
    const expected = diffSchemas(readJson(specFile(prev('change2'))), readJson(specFile(next('change2'))), 'output');
    assert.equal(lines.length, expected.length);
    for (const [i, line] of lines.entries()) {
      assert.match(line, /^(breaking|additive) \/\S* .+$/);
      assert.ok(line.startsWith(`${expected[i]!.classification} ${expected[i]!.pointer} `));
    }
  });
  test('schemaRoleFromFileName', () => {
    assert.equal(schemaRoleFromFileName('/x/update_recipe_build.input.schema.json'), 'input');
    assert.equal(schemaRoleFromFileName('C:\\s\\review_recipe_build.output.change1.new.schema.json'), 'output');
    assert.equal(schemaRoleFromFileName('critique-report.schema.json'), undefined);
    assert.equal(schemaRoleFromFileName('input-to-output.json'), undefined);
  });
  test('the role is read from the file name when --role is absent', async () => {
    const io = capture();
    assert.equal(await main(['schema-diff', prev('change2'), next('change2')], io), 1);
    assert.match(io.out, /^breaking /);
  });
  test('a name that says no role: breaking when it breaks either role', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toonlens-schema-diff-'));
    writeFileSync(path.join(dir, 'a.json'), JSON.stringify({ enum: ['x'] }));
    writeFileSync(path.join(dir, 'b.json'), JSON.stringify({ enum: ['x', 'y'] }));
    const io = capture();
    assert.equal(await main(['schema-diff', path.join(dir, 'a.json'), path.join(dir, 'b.json')], io), 1);
    assert.equal(io.out, 'breaking /enum/1 enum value "y" added — breaks as an output schema: results may now carry what old consumers reject\n');
  });
  test('additive only: exit 0', async () => {
    const io = capture();
    assert.equal(await main(['schema-diff', prev('change2'), next('change2'), '--role', 'input'], io), 0);
    assert.match(io.out, /^additive /);
  });
  test('no changes: exit 0 and no output', async () => {
    const io = capture();
    assert.equal(await main(['schema-diff', next('change1'), next('change1')], io), 0);
    assert.equal(io.out, '');
  });
  test('--format json: the change records', async () => {
    const io = capture();
    assert.equal(await main(['schema-diff', '--format', 'json', prev('change1'), next('change1'), '--role=output'], io), 1);
    const rows = JSON.parse(io.out);
    assert.equal(rows.length, structuralDiff(readJson(specFile(prev('change1'))), readJson(specFile(next('change1')))).length);
    for (const r of rows) {
      assert.deepEqual(Object.keys(r).sort(), ['after', 'before', 'classification', 'kind', 'message', 'pointer']);
      assert.ok(r.classification === 'breaking' || r.classification === 'additive');
    }
  });
  test('usage and I/O errors: exit 2', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toonlens-schema-diff-'));
    const broken = path.join(dir, 'broken.json');
    writeFileSync(broken, '{ "type": ');
    const cases: string[][] = [
      [],
      [prev('change1')],
      [prev('change1'), next('change1'), 'third.json'],
      [prev('change1'), 'does-not-exist.json'],
      [prev('change1'), broken],
      [prev('change1'), next('change1'), '--role', 'sideways'],
      [prev('change1'), next('change1'), '--format', 'yaml'],
      [prev('change1'), next('change1'), '--role'],
      [prev('change1'), next('change1'), '--bogus'],
    ];
    for (const args of cases) {
      const io = capture();
      assert.equal(await main(['schema-diff', ...args], io), 2, args.join(' '));
      assert.ok(io.err.length > 0);
      assert.equal(io.out, '');
    }
  });
  test('--help: exit 0', async () => {
    const io = capture();
    assert.equal(await main(['schema-diff', '--help'], io), 0);
    assert.match(io.out, /Usage: toonlens schema-diff/);
  });
});

/**
 * The fast accept/reject validator (first error only, ASCII regular expressions, code-unit lengths,
 * oneOf dispatched on its discriminating `const`) against the full validator that explains errors:
 * both must accept exactly the same documents (property tests over real samples and their mutations).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import {
  SCHEMAS,
  fastSchemaValidator,
  isValidAgainstFullSchema,
  lengthsAreCodeUnitSafe,
  patternsAreAscii,
  validateAgainstSchema,
  withDiscriminators,
} from '../../server/src/core/json/schema';
import type { DocumentKind } from '../../server/src/core/types';
import { CORPUS_DIR } from '../paths';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const readJson = (p: string): unknown => JSON.parse(readFileSync(p, 'utf8'));

/** Real samples of each kind: the examples, the golden reports, the doc2toon corpus when present. */
function samples(): { kind: DocumentKind; value: unknown }[] {
  const out: { kind: DocumentKind; value: unknown }[] = [];
  const agent = join(repoRoot, 'examples', 'agent-json');
  for (const f of readdirSync(agent)) {
    const m = /\.(verdict|report|critique|recipe-input|recipe-output)\.json$/.exec(f);
    if (m) out.push({ kind: m[1] as DocumentKind, value: readJson(join(agent, f)) });
  }
  for (const f of ['valid-report.json', 'invalid-report.json']) out.push({ kind: 'report', value: readJson(join(repoRoot, 'examples', 'golden', f)) });
  const corpus = CORPUS_DIR;
  if (existsSync(corpus)) for (const f of readdirSync(corpus).filter((x) => x.endsWith('.json')).slice(0, 20)) out.push({ kind: 'verdict', value: readJson(join(corpus, f)) });
  return out;
}

/** Every path in a value (arrays: at most a few items each). */
function paths(v: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  out.push(at);
  if (Array.isArray(v)) v.slice(0, 4).forEach((x, i) => paths(x, [...at, i], out));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) paths(x, [...at, k], out);
  return out;
}

const REPLACEMENTS: unknown[] = [
  null, 0, -1, 1.5, 3, '', 'x', '😀', 'é', 'a'.repeat(64), 'A'.repeat(64), 'g'.repeat(64), '0'.repeat(63), true, [], {}, { kind: 'dedupe' },
  'delete', 'extract-then-delete', 'dedupe', 'replace-text', 'insert-frontmatter', 'move-to-archive', 'delete-range', 'nope',
  'repo-durable', 'cross-repo', 'temporary', 'delete-once-served', '1.0', '1.1', '2.0', '1.x', 'convert', 'refused', '2026-11-29T10:00:00Z',
  { whole_file: true }, { start_line: 1, end_line: 2 }, { path: 'a.md', start_line: 1, end_line: 1 },
];

/** A mutation: replace the value at one path, delete a property, or add an unexpected one. */
function mutate(value: unknown, choice: number, how: number, replacement: unknown): unknown {
  const doc = structuredClone(value);
  const all = paths(doc).filter((p) => p.length > 0);
  if (all.length === 0) return replacement;
  const p = all[choice % all.length]!;
  let parent: any = doc;
  for (const s of p.slice(0, -1)) parent = parent[s];
  const last = p[p.length - 1]!;
  if (how === 0 && !Array.isArray(parent)) delete parent[last];
  else if (how === 1 && parent[last] !== null && typeof parent[last] === 'object' && !Array.isArray(parent[last])) parent[last].unexpected = replacement;
  else parent[last] = replacement;
  return doc;
}

describe('fast schema validator', () => {
  const all = samples();

  test('accepts exactly what the full validator accepts: the samples', () => {
    assert.ok(all.length >= 10);
    for (const { kind, value } of all) assert.equal(fastSchemaValidator(kind)(value) === true, isValidAgainstFullSchema(kind, value), kind);
  });

  test('accepts exactly what the full validator accepts: mutated samples', () => {
    let rejected = 0;
    let accepted = 0;
    fc.assert(
      fc.property(fc.nat(all.length - 1), fc.nat(), fc.nat(2), fc.constantFrom(...REPLACEMENTS), fc.nat(2), (s, choice, how, replacement, times) => {
        const { kind } = all[s]!;
        let value = all[s]!.value;
        for (let t = 0; t <= times; t++) value = mutate(value, choice * (t + 1) + t, how, replacement);
        const full = isValidAgainstFullSchema(kind, value);
        assert.equal(fastSchemaValidator(kind)(value) === true, full, `${kind}: ${JSON.stringify(value).slice(0, 300)}`);
        // The findings only come from the full validator; a valid document has none.
        if (full) assert.deepEqual(validateAgainstSchema(kind, value), []);
        if (full) accepted++;
        else rejected++;
      }),
      { numRuns: 1500, seed: 20261130 },
    );
    assert.ok(accepted > 50 && rejected > 50, `both outcomes exercised (${accepted} accepted, ${rejected} rejected)`);
  });

  test('discriminators only where the branches name their const (exact_edit by kind)', () => {
    const found: string[] = [];
    const walk = (n: unknown, at: string) => {
      if (Array.isArray(n)) n.forEach((x, i) => walk(x, `${at}/${i}`));
      else if (n !== null && typeof n === 'object') {
        const o = n as Record<string, unknown>;
        if (o.discriminator) found.push(`${at} ${JSON.stringify(o.discriminator)}`);
        for (const [k, v] of Object.entries(o)) walk(v, `${at}/${k}`);
      }
    };
    walk(withDiscriminators(SCHEMAS.report), '');
    assert.deepEqual(found, ['/$defs/exact_edit {"propertyName":"kind"}']);
    // The schemas themselves are never changed.
    assert.equal(JSON.stringify(SCHEMAS.report).includes('discriminator'), false);
  });

  test('the u flag and code-point lengths are dropped only where they cannot matter', () => {
    assert.equal(patternsAreAscii(SCHEMAS.report), true);
    assert.equal(patternsAreAscii(SCHEMAS.verdict), true);
    assert.equal(lengthsAreCodeUnitSafe(SCHEMAS.report), true);
    for (const p of ['a.b', '[^/]+', '\\S+', '\\p{L}', 'é', '\\u{1F600}', '\\\\.']) assert.equal(patternsAreAscii({ pattern: p }), false, p);
    for (const p of ['^[0-9a-f]{64}$', '^1\\.[0-9]+$', '^[\\x20-\\x7e]+$']) assert.equal(patternsAreAscii({ pattern: p }), true, p);
    assert.equal(lengthsAreCodeUnitSafe({ minLength: 2 }), false);
    assert.equal(lengthsAreCodeUnitSafe({ maxLength: 10 }), false);
    assert.equal(lengthsAreCodeUnitSafe({ properties: { a: { minLength: 1 } } }), true);
  });
});

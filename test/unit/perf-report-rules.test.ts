/**
 * The static report rules run in one pass over the entries: each rule's findings keep their order, and a
 * rule that throws on some odd value drops all of its findings and nothing else, as when each rule walked
 * the report alone. Property tests over mutated reports; no timings here.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { staticReportFindings } from '../../server/src/core/agentJson/rules/report';
import type { Finding } from '../../server/src/core/types';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const golden = (name: string) => JSON.parse(readFileSync(`${repoRoot}/examples/golden/${name}`, 'utf8')) as Record<string, any>;

const codes = (fs: Finding[]) => fs.map((f) => f.code);

/** A copy of `report` where reading `key` of entry `i` throws. */
function throwingAt(report: Record<string, any>, i: number, key: string): Record<string, any> {
  const r = structuredClone(report);
  Object.defineProperty(r.entries[i], key, { enumerable: true, get: () => { throw new Error(`odd ${key}`); } });
  return r;
}

describe('static report rules in one pass', () => {
  const reports = [golden('valid-report.json'), golden('invalid-report.json')];

  test('a rule that throws drops all of its findings and only those', () => {
    const cases: [string, string[]][] = [
      ['category', ['report/category']],
      ['path', ['report/entry-not-in-shortlist', 'report/unsafe-path']],
      ['safety_tier', ['report/safety-tier']],
    ];
    for (const report of reports) {
      for (const [key, dropped] of cases) {
        for (const i of [0, report.entries.length - 1]) {
          const without = structuredClone(report);
          delete without.entries[i][key];
          const expected = staticReportFindings(without).filter((f) => !dropped.includes(f.code));
          const got = staticReportFindings(throwingAt(report, i, key));
          assert.deepEqual(got, expected, `${key} throwing on entry ${i}`);
        }
      }
    }
  });

  test('findings are grouped by rule, in the table order, whatever the entries hold', () => {
    const order = [
      'report/entry-not-in-shortlist', 'report/exact-edit-biconditional', 'report/safety-tier', 'report/kind-characterization',
      'report/category', 'report/kind-fields', 'report/lifecycle-served', 'report/extraction-target', 'report/promotion-candidate',
      'report/generated-at', 'report/unsafe-path', 'report/anchor-out-of-range',
    ];
    const values = fc.constantFrom<unknown>(null, '', '../x.md', '/abs', 'a/.git/x', 'tmp/', 'ok.md', 0, -1, 3, true, 'auto', 'confirm', 'deterministic', 'generative', 'delete', 'dedupe', 'replace-text', 'temporary', 'delete-once-served', { start_line: 5, end_line: 2 }, { whole_file: false }, { lifetime: 'temporary', served_when: 'x' }, { class: 'stale', subtype: 'split' });
    const keys = fc.constantFrom('path', 'op_type', 'safety_tier', 'is_destructive', 'is_reversible', 'category', 'lifecycle', 'exact_edit');
    const editKeys = fc.constantFrom('kind', 'anchor', 'dest_path', 'canonical_ref', 'lifecycle', 'match', 'key', 'target_ref', 'extraction_target', 'expected_sha256');
    fc.assert(
      fc.property(fc.nat(1), fc.array(fc.tuple(fc.nat(), fc.boolean(), keys, editKeys, values), { maxLength: 8 }), (which, edits) => {
        const report = structuredClone(reports[which]!);
        for (const [n, inEdit, key, editKey, value] of edits) {
          const entry = report.entries[n % report.entries.length];
          if (inEdit && entry.exact_edit && typeof entry.exact_edit === 'object') entry.exact_edit[editKey] = value;
          else entry[key] = value;
        }
        const got = codes(staticReportFindings(report));
        const ranks = got.map((c) => order.indexOf(c));
        assert.ok(ranks.every((r) => r >= 0), got.join(', '));
        assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b), got.join(', '));
        // Within a rule, entries come in order (paths name them).
        for (let k = 1; k < got.length; k++) {
          const a = staticReportFindings(report)[k - 1]!;
          const b = staticReportFindings(report)[k]!;
          if (a.code !== b.code || a.target.path[0] !== 'entries' || b.target.path[0] !== 'entries') continue;
          if (a.code === 'report/unsafe-path' || a.code === 'report/lifecycle-served') continue; // lifecycles first, then paths
          assert.ok(Number(a.target.path[1]) <= Number(b.target.path[1]), `${a.code}: entries in order`);
        }
      }),
      { numRuns: 400, seed: 20261130 },
    );
  });
});

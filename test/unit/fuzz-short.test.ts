// A short, seeded run of every fuzz property (test/fuzz/properties.ts) for CI: 300 cases in all.
// The full run is `npm run fuzz` (100,000 cases).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { runFuzz, summaryLine } from '../fuzz/fuzz';
import { disposeReportSandbox, properties } from '../fuzz/properties';

after(() => disposeReportSandbox());

const CASES = 300;
const SEED = 424242;

test(`fuzz: ${CASES} seeded cases over every property, none fails`, () => {
  const results = runFuzz({ cases: CASES, seed: SEED });
  const names = properties().map((p) => p.name);
  assert.deepEqual(results.map((r) => r.name), names, 'every property ran');
  for (const r of results) assert.ok(r.passed + r.failed > 0, `${r.name} ran no case`);
  const failures = results.filter((r) => r.failed > 0);
  assert.equal(failures.length, 0, failures.map(summaryLine).join('\n'));
  assert.equal(results.reduce((n, r) => n + r.passed, 0), CASES);
});

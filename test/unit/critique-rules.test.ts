import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import fc from 'fast-check';
import { critiqueRules } from '../../server/src/core/agentJson/rules/critique';
import { explainCritique } from '../../server/src/core/agentJson/rules/critiqueExplain';
import type { Finding, JsonEdit } from '../../server/src/core/types';
import { SPECS } from '../paths';

const repoRoot = path.resolve(__dirname, '..', '..');
const fixtures = path.join(repoRoot, 'test', 'fixtures', 'critique');
const upstreamSchema = JSON.parse(readFileSync(path.join(SPECS, 'critique-report.schema.json'), 'utf8'));
const ajv = new Ajv({ allErrors: true, strict: false });
const validateUpstream = ajv.compile(upstreamSchema);

type Doc = Record<string, any>;
const load = (name: string): Doc => JSON.parse(readFileSync(path.join(fixtures, name), 'utf8'));
const evaluated = () => load('evaluated.critique-report.json');
const infraFailure = () => load('infra-failure.critique-report.json');

function assertSchemaValid(doc: unknown, label: string): void {
  const ok = validateUpstream(doc);
  assert.ok(ok, `${label} must be valid against the upstream schema: ${ajv.errorsText(validateUpstream.errors)}`);
}

const run = (doc: unknown): Finding[] => critiqueRules(doc, { text: JSON.stringify(doc) });
const withCode = (doc: unknown, code: string): Finding[] => run(doc).filter((f) => f.code === code);

function applyEdits(doc: Doc, edits: JsonEdit[]): Doc {
  const copy = structuredClone(doc);
  for (const e of edits) {
    let cur: any = copy;
    for (const seg of e.path.slice(0, -1)) cur = cur[seg];
    const last = e.path[e.path.length - 1]!;
    if (e.remove) delete cur[last];
    else cur[last] = e.value;
  }
  return copy;
}

describe('critique fixtures', () => {
  test('both bases are valid against the upstream schema and raise no error or warning', () => {
    for (const [label, doc] of [['evaluated', evaluated()], ['infra-failure', infraFailure()]] as const) {
      assertSchemaValid(doc, label);
      const loud = run(doc).filter((f) => f.severity === 'error' || f.severity === 'warning');
      assert.deepEqual(loud, [], `${label}: ${JSON.stringify(loud)}`);
    }
  });
  test('the evaluated base raises nothing at all', () => {
    assert.deepEqual(run(evaluated()), []);
  });
});

/** One row per rule: a minimal defect that stays schema-valid (these rules add what the schema cannot say). */
const DEFECTS: { code: string; severity: Finding['severity']; make: () => Doc; path: (string | number)[] }[] = [
  {
    code: 'critique/cost-total',
    severity: 'error',
    make: () => {
      const d = evaluated();
      d.costUsd.totalUsd = 0.7;
      return d;
    },
    path: ['costUsd', 'totalUsd'],
  },
  {
    code: 'critique/cost-incomplete',
    severity: 'info',
    make: () => {
      const d = evaluated();
      d.costUsd.complete = false;
      return d;
    },
    path: ['costUsd', 'totalUsd'],
  },
  {
    code: 'critique/canary',
    severity: 'warning',
    make: () => {
      const d = evaluated();
      d.evaluatorIntegrity.pass2Canary = false;
      return d;
    },
    path: ['evaluatorIntegrity', 'pass2Canary'],
  },
  {
    code: 'critique/self-report',
    severity: 'error',
    make: () => {
      const d = evaluated();
      d.selfReportStatus = 'unavailable';
      return d;
    },
    path: ['items', 1, 'source'],
  },
  {
    code: 'critique/fidelity-mismatch',
    severity: 'warning',
    make: () => {
      const d = evaluated();
      d.gradedEffectiveFidelity = 'hostloop';
      return d;
    },
    path: ['gradedEffectiveFidelity'],
  },
  {
    code: 'critique/fingerprint-format',
    severity: 'error',
    make: () => {
      const d = evaluated();
      d.items[0].findingFingerprint = '3FA9C0D1E2B47A58';
      return d;
    },
    path: ['items', 0, 'findingFingerprint'],
  },
  {
    code: 'critique/citation-unresolved',
    severity: 'info',
    make: () => {
      const d = evaluated();
      d.items[1].citationResolved = false;
      return d;
    },
    path: ['items', 1, 'citationResolved'],
  },
  {
    code: 'critique/skill-not-invoked',
    severity: 'warning',
    make: () => {
      const d = evaluated();
      d.skillInvocationObserved = false;
      return d;
    },
    path: ['skillInvocationObserved'],
  },
  {
    code: 'critique/outcome',
    severity: 'error',
    make: () => {
      const d = evaluated();
      delete d.evaluatorModel;
      return d;
    },
    path: [],
  },
];

describe('critique rules: one defect each', () => {
  for (const row of DEFECTS) {
    test(`${row.code}: the base is clean, the defect is reported once where it is`, () => {
      assert.equal(withCode(evaluated(), row.code).length, 0);
      const doc = row.make();
      assertSchemaValid(doc, `${row.code} defect`);
      const found = run(doc);
      const mine = found.filter((f) => f.code === row.code);
      assert.equal(mine.length, 1, JSON.stringify(found));
      assert.equal(mine[0]!.severity, row.severity);
      assert.deepEqual(mine[0]!.target.path, row.path);
      assert.ok(mine[0]!.message.length > 0 && mine[0]!.message.length < 200);
      // The defect raises only its own rule.
      assert.deepEqual(
        found.filter((f) => f.code !== row.code).map((f) => f.code),
        [],
      );
    });
  }
});

describe('critique/outcome', () => {
  test('no outcome field at all: reported as missing at the root', () => {
    const d = evaluated();
    delete d.evaluatorModel;
    assertSchemaValid(d, 'no outcome');
    const f = withCode(d, 'critique/outcome');
    assert.equal(f.length, 1);
    assert.equal(f[0]!.target.part, 'missing');
    assert.deepEqual(f[0]!.target.path, []);
  });
  test('three outcome fields: each extra one is reported on its key', () => {
    const d = evaluated();
    d.infraFailure = 'killed';
    d.infraFailurePhase = 'task turn';
    d.evaluatorError = 'threw';
    d.items = [];
    const f = withCode(d, 'critique/outcome');
    assert.deepEqual(
      f.map((x) => x.target.path[0]).sort(),
      ['evaluatorError', 'evaluatorModel'].sort(),
    );
    assert.ok(f.every((x) => x.target.part === 'key'));
  });
  test('items not [] on a failure branch', () => {
    for (const failure of ['infraFailure', 'evaluatorError'] as const) {
      const d = infraFailure();
      delete d.infraFailure;
      delete d.infraFailurePhase;
      d[failure] = 'went wrong';
      if (failure === 'infraFailure') d.infraFailurePhase = 'reflection turn';
      assert.equal(withCode(d, 'critique/outcome').length, 0, `${failure} with items [] is fine`);
      d.items = [evaluated().items[0]];
      assertSchemaValid(d, `${failure} with items`);
      const f = withCode(d, 'critique/outcome');
      assert.equal(f.length, 1);
      assert.deepEqual(f[0]!.target.path, ['items']);
      assert.match(f[0]!.message, new RegExp(failure));
    }
  });
});

describe('critique/cost-total', () => {
  test('the quick fix sets the sum of the parts present and clears the finding', () => {
    const d = evaluated();
    delete d.costUsd.evaluatorPass2Usd;
    d.costUsd.totalUsd = 1;
    const [f] = withCode(d, 'critique/cost-total');
    assert.ok(f?.fixes && f.fixes.length === 1);
    const fix = f.fixes[0]!;
    assert.equal(fix.fixAll, true);
    const expected = d.costUsd.taskTurnUsd + d.costUsd.reflectionTurnUsd + d.costUsd.evaluatorPass1Usd;
    assert.match(fix.title, /^Set totalUsd to [0-9.]+ — the sum of taskTurnUsd \+ reflectionTurnUsd \+ evaluatorPass1Usd$/);
    const fixed = applyEdits(d, fix.edits);
    assert.ok(Math.abs(fixed.costUsd.totalUsd - expected) <= 1e-9);
    assert.deepEqual(withCode(fixed, 'critique/cost-total'), []);
  });
  test('within ±1e-9 is equal, beyond is not', () => {
    const d = evaluated();
    const sum = 0.1 + 0.2 + 0.3 + 0.05;
    d.costUsd.totalUsd = sum + 0.9e-9;
    assert.equal(withCode(d, 'critique/cost-total').length, 0);
    d.costUsd.totalUsd = sum + 1.1e-9;
    assert.equal(withCode(d, 'critique/cost-total').length, 1);
    d.costUsd.totalUsd = sum - 1.1e-9;
    assert.equal(withCode(d, 'critique/cost-total').length, 1);
  });
  test('not checked when complete is false (the total undercounts by design)', () => {
    const d = evaluated();
    d.costUsd.complete = false;
    d.costUsd.totalUsd = 99;
    assert.equal(withCode(d, 'critique/cost-total').length, 0);
    assert.equal(withCode(d, 'critique/cost-incomplete').length, 1);
  });
  test('a part of the wrong type leaves the sum to the schema pass', () => {
    const d = evaluated();
    d.costUsd.taskTurnUsd = '0.1';
    d.costUsd.totalUsd = 5;
    assert.equal(withCode(d, 'critique/cost-total').length, 0);
  });
});

describe('critique/canary and friends', () => {
  test('both canaries false: two findings', () => {
    const d = evaluated();
    d.evaluatorIntegrity = { pass1Canary: false, pass2Canary: false };
    assert.deepEqual(
      withCode(d, 'critique/canary').map((f) => f.target.path),
      [['evaluatorIntegrity', 'pass1Canary'], ['evaluatorIntegrity', 'pass2Canary']],
    );
  });
  test('fingerprints: 16 lowercase hex only', () => {
    for (const [fp, bad] of [['0123456789abcdef', false], ['0123456789abcde', true], ['0123456789abcdef0', true], ['0123456789abcdeg', true], ['0123456789ABCDEF', true]] as const) {
      const d = evaluated();
      d.items[0].findingFingerprint = fp;
      assert.equal(withCode(d, 'critique/fingerprint-format').length, bad ? 1 : 0, fp);
    }
  });
});

describe('critique rules never throw', () => {
  test('on any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        assert.ok(Array.isArray(critiqueRules(v, { text: '' })));
      }),
      { numRuns: 300 },
    );
  });
  test('on the base with any field replaced by any JSON value', () => {
    const keys: (string | number)[][] = [];
    const walk = (v: unknown, p: (string | number)[]) => {
      keys.push(p);
      if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...p, i]));
      else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...p, k]);
    };
    walk(evaluated(), []);
    fc.assert(
      fc.property(fc.constantFrom(...keys.filter((k) => k.length > 0)), fc.jsonValue(), (p, v) => {
        const d = applyEdits(evaluated(), [{ path: p, value: v }]);
        assert.ok(Array.isArray(critiqueRules(d, { text: '' })));
        for (const hp of [['costUsd', 'totalUsd'], ['evaluatorIntegrity'], ['items', 0, 'classification'], ['items', 0, 'citationResolved']]) {
          const h = explainCritique(d, hp);
          assert.ok(h === undefined || typeof h === 'string');
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('critique hovers', () => {
  test('totalUsd: every part, the sum, and whether it can be trusted', () => {
    const d = evaluated();
    const h = explainCritique(d, ['costUsd', 'totalUsd']);
    assert.ok(h);
    for (const part of ['taskTurnUsd', 'reflectionTurnUsd', 'evaluatorPass1Usd', 'evaluatorPass2Usd']) assert.match(h, new RegExp(part));
    assert.match(h, /0\.65/);
    assert.match(h, /can be trusted/);
    d.costUsd.complete = false;
    assert.match(explainCritique(d, ['costUsd', 'totalUsd'])!, /undercounts/);
    d.costUsd.complete = true;
    d.costUsd.totalUsd = 2;
    assert.match(explainCritique(d, ['costUsd', 'totalUsd'])!, /does not add up/);
  });
  test('absent parts are shown as absent', () => {
    const d = infraFailure();
    const h = explainCritique(d, ['costUsd', 'totalUsd'])!;
    assert.match(h, /reflectionTurnUsd \| — \(absent\)/);
  });
  test('classification and citationResolved of an item', () => {
    const d = evaluated();
    assert.match(explainCritique(d, ['items', 0, 'classification'])!, /grounded-and-actionable/);
    assert.match(explainCritique(d, ['items', 1, 'classification'])!, /already handles/);
    assert.match(explainCritique(d, ['items', 0, 'citationResolved'])!, /verbatim/);
    d.items[0].citationResolved = false;
    assert.match(explainCritique(d, ['items', 0, 'citationResolved'])!, /do not act/);
    assert.match(explainCritique(d, ['items', 0, 'classification'])!, /DROPPED/);
  });
  test('evaluatorIntegrity', () => {
    const d = evaluated();
    d.evaluatorIntegrity.pass1Canary = false;
    const h = explainCritique(d, ['evaluatorIntegrity'])!;
    assert.match(h, /pass 1: canary \*\*failed\*\*/);
    assert.match(h, /pass 2: canary honoured/);
    assert.equal(explainCritique(d, ['evaluatorIntegrity', 'pass1Canary']), h);
  });
  test('elsewhere: undefined (the schema description answers)', () => {
    assert.equal(explainCritique(evaluated(), ['prompt']), undefined);
    assert.equal(explainCritique(evaluated(), ['items', 0, 'idea']), undefined);
    assert.equal(explainCritique(null, ['costUsd', 'totalUsd']), undefined);
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deriveSafetyTier, isScannerProven } from '../../server/src/core/agentJson/report/safetyTier';

describe('deriveSafetyTier — non-lifecycle ops', () => {
  test('deterministic, non-destructive, reversible derives to auto', () => {
    assert.equal(deriveSafetyTier('deterministic', false, true, undefined, undefined), 'auto');
  });
  test('generative, destructive or irreversible derive to confirm', () => {
    assert.equal(deriveSafetyTier('generative', false, true, undefined, undefined), 'confirm');
    assert.equal(deriveSafetyTier('deterministic', true, true, undefined, undefined), 'confirm');
    assert.equal(deriveSafetyTier('deterministic', false, false, undefined, undefined), 'confirm');
  });
  test('mistyped inputs prove nothing', () => {
    assert.equal(deriveSafetyTier('deterministic', 'false', true, undefined, undefined), 'confirm');
    assert.equal(deriveSafetyTier('deterministic', false, 1, undefined, undefined), 'confirm');
    assert.equal(deriveSafetyTier(undefined, false, true, null, null), 'confirm');
  });
});

describe('deriveSafetyTier — lifecycle ops', () => {
  const clean = { tracked: true, clean: true };
  test('scanner-proven evidence on a tracked, clean file derives to auto, whatever the flags', () => {
    assert.equal(deriveSafetyTier('deterministic', true, false, { lifetime: 'delete-once-served', served_when_path: 'CHANGELOG.md' }, clean), 'auto');
    assert.equal(deriveSafetyTier('deterministic', true, true, { lifetime: 'temporary' }, clean), 'auto');
  });
  test('classifier-judged evidence derives to confirm even when tracked and clean', () => {
    assert.equal(deriveSafetyTier('deterministic', true, true, { lifetime: 'delete-once-served', served_when: 'the feature shipped' }, clean), 'confirm');
    assert.equal(deriveSafetyTier('deterministic', true, true, { served_when_path: 'a', served_when: 'b' }, clean), 'confirm');
  });
  test('dirty, untracked or unknown git state derives to confirm', () => {
    const l = { lifetime: 'temporary' };
    assert.equal(deriveSafetyTier('deterministic', true, true, l, { tracked: true, clean: false }), 'confirm');
    assert.equal(deriveSafetyTier('deterministic', true, true, l, { tracked: false, clean: true }), 'confirm');
    assert.equal(deriveSafetyTier('deterministic', true, true, l, undefined), 'confirm');
  });
  test('an empty lifecycle (missing object) proves nothing', () => {
    assert.equal(deriveSafetyTier('deterministic', false, true, {}, clean), 'confirm');
    assert.equal(isScannerProven({ lifetime: 'keep' }), false);
    assert.equal(isScannerProven({ served_when_path: '' }), false);
  });
});

describe('deriveSafetyTier — invariant #7 over all inputs', () => {
  const anyValue = fc.oneof(fc.boolean(), fc.constant(undefined), fc.constant(null), fc.string(), fc.integer());
  const lifecycle = fc.option(
    fc.record({ lifetime: fc.oneof(fc.constantFrom('keep', 'temporary', 'delete-once-served'), anyValue), served_when_path: anyValue, served_when: anyValue }, { requiredKeys: [] }),
    { nil: undefined },
  );
  const git = fc.option(fc.record({ tracked: fc.boolean(), clean: fc.boolean() }), { nil: undefined });
  test('never auto for generative, non-lifecycle destructive/irreversible, or unproven lifecycle ops', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('deterministic', 'generative'), anyValue), anyValue, anyValue, lifecycle, git, (opType, d, r, l, g) => {
        const tier = deriveSafetyTier(opType, d, r, l, g);
        if (tier === 'confirm') return true;
        if (opType !== 'deterministic') return false;
        if (l === undefined) return d === false && r === true;
        return isScannerProven(l) && g?.tracked === true && g.clean === true;
      }),
      { numRuns: 2000 },
    );
  });
});

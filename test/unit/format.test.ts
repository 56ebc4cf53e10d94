// One number format for people: thousands separators and one-decimal percentages, in every face that prints text.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { formatInt, formatPercent } from '../../server/src/core/format';
import { charsChange, fmtSavingsPct, savesOrCosts } from '../../server/src/features/markdown/plans';
import { REPO_ROOT } from '../paths';

test('integers get thousands separators, percentages one decimal', () => {
  assert.equal(formatInt(2341), '2,341');
  assert.equal(formatInt(1234567), '1,234,567');
  assert.equal(formatInt(-2341), '-2,341');
  assert.equal(formatInt(0), '0');
  assert.equal(formatPercent(12.7), '12.7%');
  assert.equal(formatPercent(12), '12.0%');
  assert.equal(formatPercent(12, { signed: true }), '+12.0%');
  assert.equal(formatPercent(-2), '-2.0%');
  assert.equal(formatPercent(0, { signed: true }), '0.0%');
  assert.equal(charsChange({ source: 12345, toon: 10000, savings_pct: 19 }), '12,345 → 10,000 chars (19.0% fewer)');
  assert.equal(savesOrCosts(2341, 'token'), 'saves 2,341 tokens');
  assert.equal(fmtSavingsPct(-2), '-2.0%');
});

test('the editor, the CLI text and the context diagnostics format numbers through the one helper', () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) walk(p);
      else if (n.endsWith('.ts')) files.push(p);
    }
  };
  for (const d of ['features', 'cli', 'core/context', 'lsp']) walk(join(REPO_ROOT, 'server', 'src', d));
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    assert.doesNotMatch(text, /toLocaleString\(|toFixed\(1\)\}%/, `${f} formats numbers itself`);
  }
});

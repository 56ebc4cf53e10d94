// A critique report over LSP: the cost rule with its quick fix, and hovers on totalUsd and evaluatorIntegrity.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CodeAction, MarkupContent } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, applyTextEdits } from './harness';

const VALID = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'critique', 'evaluated.critique-report.json'), 'utf8');

test('critique: cost-total diagnosed, fixed by its quick fix, and explained by hovers', async () => {
  const h = await LspHarness.start();
  try {
    const text = VALID.replace('"totalUsd": 0.65', '"totalUsd": 0.7');
    const uri = h.open('critique-report.json', text, 'json');
    const ds = await h.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'critique/cost-total'), 15000);
    const d = ds.find((x) => x.code === 'critique/cost-total')!;
    assert.equal(d.severity, 1);
    assert.match(text.split('\n')[d.range.start.line]!, /"totalUsd": 0\.7/);

    const hover = await h.hover(uri, d.range.start);
    const md = (hover?.contents as MarkupContent | undefined)?.value ?? '';
    assert.match(md, /0\.65/, `the hover shows the sum of the parts: ${md}`);

    const integrityLine = text.split('\n').findIndex((l) => l.includes('"evaluatorIntegrity"'));
    const integrity = await h.hover(uri, { line: integrityLine, character: text.split('\n')[integrityLine]!.indexOf('evaluatorIntegrity') + 2 });
    assert.match((integrity?.contents as MarkupContent | undefined)?.value ?? '', /canary/i);

    const actions = ((await h.codeActions(uri, d.range, { only: ['quickfix'], diagnostics: [d] })) ?? []) as CodeAction[];
    const fix = actions.find((a) => /totalUsd/.test(a.title));
    assert.ok(fix?.edit, `a totalUsd quick fix: ${actions.map((a) => a.title).join(' | ')}`);
    const fixed = applyTextEdits(text, LspHarness.editsFor(fix.edit, uri));
    h.change(uri, fixed);
    await h.waitForDiagnostics(uri, (x) => !x.some((y) => y.code === 'critique/cost-total'), 15000);
  } finally {
    await h.shutdown();
  }
});

// The codes catalogue (server/src/core/codes.ts) is the one source: docs/diagnostics.md is generated from it,
// every rule table takes its code and default severity from it, and every code of a rule kind has a rule.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODES, DIAGNOSTIC_CODES, REPOSITORY_URL, codeAnchor, codeDocumentationUrl, defaultSeverity, isDiagnosticCode, type CodeScope, type DiagnosticCode } from '../../server/src/core/codes';
import { VERDICT_RULES } from '../../server/src/core/agentJson/rules/verdict';
import { CRITIQUE_RULES } from '../../server/src/core/agentJson/rules/critique';
import { RECIPE_INPUT_RULES } from '../../server/src/core/agentJson/rules/recipe';
import { STATIC_REPORT_RULES } from '../../server/src/core/agentJson/rules/report';
import { BEGIN, END, renderCodeTables, withGeneratedTables } from '../../scripts/codes-doc';
import { REPO_ROOT } from '../paths';

const TABLES: [CodeScope, readonly { code: DiagnosticCode; severity: string }[]][] = [
  ['verdict', VERDICT_RULES],
  ['critique', CRITIQUE_RULES],
  ['recipe-input', RECIPE_INPUT_RULES],
  ['report', STATIC_REPORT_RULES],
];

describe('codes catalogue', () => {
  test('docs/diagnostics.md carries exactly the generated tables (npm run docs:codes)', () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'diagnostics.md'), 'utf8');
    assert.ok(doc.includes(BEGIN) && doc.includes(END), 'the generated region is marked');
    assert.equal(withGeneratedTables(doc), doc, 'docs/diagnostics.md is out of date: run npm run docs:codes');
    for (const code of DIAGNOSTIC_CODES) assert.ok(renderCodeTables().includes(`| <a id="${codeAnchor(code)}"></a>\`${code}\` | ${CODES[code].severity} |`), code);
  });

  test('every rule row takes its code and severity from the catalogue, for a kind the code belongs to', () => {
    for (const [kind, rules] of TABLES) {
      assert.ok(rules.length > 0, kind);
      for (const r of rules) {
        assert.ok(isDiagnosticCode(r.code), r.code);
        assert.equal(r.severity, CODES[r.code].severity, `${r.code} severity`);
        assert.ok((CODES[r.code].scopes as readonly CodeScope[]).includes(kind), `${r.code} is a ${kind} code`);
      }
    }
  });

  test('every rule code of a kind with a rule table has a rule row (report live checks aside)', () => {
    const live: DiagnosticCode[] = ['report/stale-edit', 'report/missing-target', 'report/dedupe-not-duplicate'];
    for (const [prefix, rules] of [['verdict/', VERDICT_RULES], ['plan/', VERDICT_RULES], ['critique/', CRITIQUE_RULES], ['recipe/', RECIPE_INPUT_RULES], ['report/', STATIC_REPORT_RULES]] as const) {
      const rows = new Set<string>(rules.map((r) => r.code));
      for (const code of DIAGNOSTIC_CODES.filter((c) => c.startsWith(prefix) && !live.includes(c))) assert.ok(rows.has(code), `a rule for ${code}`);
    }
  });

  test('default severities by code; unknown strings have none', () => {
    assert.equal(defaultSeverity('report/stale-edit'), 'warning');
    assert.equal(defaultSeverity('critique/citation-unresolved'), 'info');
    assert.equal(defaultSeverity('schema'), 'error');
    assert.equal(defaultSeverity('no/such-code'), undefined);
    assert.equal(defaultSeverity('toString'), undefined);
    for (const code of DIAGNOSTIC_CODES) {
      assert.match(code, /^[a-z]+(-[a-z]+)*(\/[a-z]+(-[a-z]+)*)?$/, `${code} is a stable lowercase code`);
      assert.ok(CODES[code].description.length > 10 && !CODES[code].description.includes('\n'), `${code} has a one-line description`);
    }
  });

  test('every code links its own row of docs/diagnostics.md on the repository package.json names', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { repository: { url: string } };
    assert.equal(REPOSITORY_URL, pkg.repository.url.replace(/\.git$/, ''));
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'diagnostics.md'), 'utf8');
    const anchors = new Set<string>();
    for (const code of DIAGNOSTIC_CODES) {
      const url = codeDocumentationUrl(code)!;
      assert.equal(url, `${REPOSITORY_URL}/blob/main/docs/diagnostics.md#${codeAnchor(code)}`);
      assert.ok(doc.includes(`<a id="${codeAnchor(code)}"></a>\`${code}\``), `${code}'s row carries its anchor`);
      assert.ok(!anchors.has(codeAnchor(code)), `${code}'s anchor is its own`);
      anchors.add(codeAnchor(code));
    }
    assert.equal(codeAnchor('toon/duplicate-rule'), 'toon-duplicate-rule');
    assert.equal(codeDocumentationUrl('no/such-code'), undefined);
    assert.equal(codeDocumentationUrl('toString'), undefined);
  });
});

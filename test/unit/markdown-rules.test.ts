/**
 * The markdown rule scenarios (test/fixtures/markdown-rules/*.md, markdownlint's style): each line that should
 * carry a finding says `<!-- expect: CODE -->`; the runner strips the markers (keeping every line where it is),
 * checks the text through the core function `toonlens check` and the editor run, and requires the findings'
 * (line, code) pairs to be exactly the expected ones. Also: the engine's lists are the rules' rows.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { markdownDiagnostics } from '../../server/src/core/markdown/diagnostics';
import { EngineCache } from '../../server/src/core/markdown/engine';
import { LineIndex } from '../../server/src/core/lineIndex';
import { CODES, isDiagnosticCode } from '../../server/src/core/codes';
import { MARKDOWN_RULES, SPLIT_CODES, WARNING_ORDER, WARNING_SEVERITY } from '../../server/src/core/markdown/rules';
import { FIXTURES } from '../paths';

const DIR = join(FIXTURES, 'markdown-rules');
const EXPECT = /[ \t]*<!-- expect: ([^>]*?) -->/g;
const SCENARIO = /<!-- scenario: ([^>]*?) -->/;

interface Scenario {
  name: string;
  text: string;
  path: string;
  options: Record<string, string>;
  expected: string[];
}

function scenario(name: string): Scenario {
  const marked = readFileSync(join(DIR, name), 'utf8');
  const expected: string[] = [];
  const lines = marked.split('\n').map((line, i) =>
    line.replace(EXPECT, (_, codes: string) => {
      for (const c of codes.split(',')) expected.push(`${i + 1}:${c.trim()}`);
      return '';
    }),
  );
  const options: Record<string, string> = {};
  const m = SCENARIO.exec(marked);
  if (m) for (const kv of m[1]!.split(',')) options[kv.split('=')[0]!.trim()] = (kv.split('=')[1] ?? '').trim();
  return { name, text: lines.join('\n'), path: options.path ?? 'AGENTS.md', options, expected: expected.sort() };
}

function findings(s: Scenario): string[] {
  const index = new LineIndex(s.text);
  const ds = markdownDiagnostics(s.text, new EngineCache().plan(s.text, {}), { path: s.path, tokenNotes: s.options.tokenNotes === 'on' });
  return ds.map((d) => `${index.positionAt(d.range.start).line + 1}:${d.code}`).sort();
}

const SCENARIOS = readdirSync(DIR).filter((f) => f.endsWith('.md') && f !== 'README.md').sort();

describe('markdown rule scenarios', () => {
  test('there are scenarios, and every marker names a catalogue code', () => {
    assert.ok(SCENARIOS.length >= 5);
    for (const f of SCENARIOS) for (const e of scenario(f).expected) assert.ok(isDiagnosticCode(e.slice(e.indexOf(':') + 1)), `${f}: ${e}`);
  });
  for (const f of SCENARIOS) {
    test(f, () => {
      const s = scenario(f);
      assert.deepEqual(findings(s), s.expected);
    });
  }
  test('every markdown diagnostic code of a rule has a scenario that expects it', () => {
    const expected = new Set(SCENARIOS.flatMap((f) => scenario(f).expected.map((e) => e.slice(e.indexOf(':') + 1))));
    for (const r of MARKDOWN_RULES) if (r.diagnostic) assert.ok(expected.has(r.diagnostic.code), r.diagnostic.code);
  });
});

describe('markdown rules are rows', () => {
  test('the engine registries are read off the rows', () => {
    assert.deepEqual(Object.keys(WARNING_SEVERITY), MARKDOWN_RULES.map((r) => r.warning));
    assert.deepEqual([...WARNING_ORDER], MARKDOWN_RULES.map((r) => r.warning));
    assert.deepEqual([...SPLIT_CODES], ['long_section', 'split_candidate']);
  });
  test('every rule with a diagnostic names a markdown catalogue code, once', () => {
    const codes = MARKDOWN_RULES.flatMap((r) => (r.diagnostic ? [r.diagnostic.code] : []));
    assert.equal(new Set(codes).size, codes.length);
    for (const c of codes) assert.equal(CODES[c].group, 'markdown', c);
  });
});

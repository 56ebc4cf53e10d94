/**
 * Against the built server over stdio: no document starves the others. A hover on another document answers
 * within 2 s while each pathological markdown shape is being planned; a document's diagnostics are capped at
 * 1,000 (plus one that counts the rest); and with 10,000 documents opened at once, a hover answers while
 * nearly all of their diagnostics are still to come (an ordering, not a time).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DiagnosticSeverity, type Diagnostic } from 'vscode-languageserver-protocol/node';
import { LspHarness, busy } from './harness';
import { verdictText } from './fixtures';
import { PING_COMMAND } from '../../server/src/testing/hooks';
import { capDiagnostics, MAX_DIAGNOSTICS_PER_DOCUMENT, TOO_MANY_DIAGNOSTICS_CODE } from '../../server/src/lsp/diagnostics';

const times = (s: string, chars: number) => s.repeat(Math.max(1, Math.round(chars / s.length)));

/** The shapes of the freeze report, about `n` characters each (test/unit/linear-plan.test.ts has the same). */
const SHAPES: [string, (n: number) => string][] = [
  ['one word of letters', (n) => '# Notes\n\n' + 'a'.repeat(n) + '\n'],
  ['a run of spaces', (n) => '# Notes\n\nx' + ' '.repeat(n) + 'y\n'],
  ['backslashes', (n) => '# Notes\n\n' + '\\'.repeat(n) + '\n'],
  ['= in a table cell', (n) => '# Table\n\n| a | b |\n| --- | --- |\n| ' + '='.repeat(n) + ' | x |\n'],
  ['a long sentence', (n) => '# Rules\n\nThe agent must ' + times('check the file before it writes and ', n) + 'stop.\n'],
  ['a long sentence without spaces (CJK)', (n) => '# 规则\n\n' + times('代理必须在写入之前检查文件', n) + '。\n'],
  ['a heading with spaces', (n) => '# a' + ' '.repeat(n) + 'b\n\ntext\n'],
  ['a CRLF fence', (n) => '# Code\r\n\r\n```\r\n' + times('code line\r\n', n / 2) + '\r\n'.repeat(n / 4) + '```\r\n'],
  ['an unclosed <!--', (n) => '# Notes\n\n<!--' + times('hidden text\n', n / 2) + '-'.repeat(n / 2) + '\n'],
  ['nested brackets', (n) => '# Links\n\n' + '['.repeat(n / 2) + 'a' + ']'.repeat(n / 2) + '\n'],
  ['many headings on a line', (n) => '# ' + times('# a ', n / 2) + '#'.repeat(n / 2) + '\n'],
  ['nested > markers', (n) => '# Quote\n\n' + '> '.repeat(n / 2) + 'x\n'],
  ['nested list markers', (n) => '# List\n\n' + times('- ', n / 2) + 'x\n'],
];

const SMALL = '# Small\n\n- key: value\n- other: thing\n- third: item\n';

describe('one document cannot starve the others', () => {
  test('while each pathological document is planned, a hover on another document answers within 2 s', async () => {
    const lsp = await LspHarness.start();
    try {
      // The tokenizer's ranks are loaded before the first measurement (that is a one-time cost, not starvation).
      await lsp.hover(lsp.open('warm.md', SMALL), { line: 0, character: 3 });
      let i = 0;
      for (const [name, make] of SHAPES) {
        const heavy = lsp.open(`heavy-${i}.md`, make(150_000));
        const other = lsp.open(`other-${i}.md`, SMALL.replace('Small', `Small ${i}`));
        i++;
        const t0 = performance.now();
        const hover = await lsp.hover(other, { line: 0, character: 3 });
        const ms = performance.now() - t0;
        assert.ok(hover, `${name}: the other document has its hover`);
        // Two seconds on a machine with a core to spare; stretched by the load, as every harness timeout is (a
        // starved server misses it by tens of seconds, which no load factor covers).
        assert.ok(ms < busy(2000), `${name}: the hover on another document took ${ms.toFixed(0)} ms`);
        // The heavy document is measured to its end too.
        await lsp.waitForDiagnostics(heavy, () => true, busy(60_000));
        lsp.close(heavy);
        lsp.close(other);
      }
      assert.ok(lsp.alive, lsp.stderr);
    } finally {
      lsp.kill();
      await lsp.exited;
    }
  });

  test('10,000 documents opened at once: a hover answers before their diagnostics are all published', async () => {
    const lsp = await LspHarness.start();
    try {
      const target = lsp.open('target.md', SMALL);
      await lsp.hover(target, { line: 0, character: 3 });
      const text = verdictText((d) => {
        d.verdict = 'maybe';
      });
      const N = 10_000;
      for (let k = 0; k < N; k++) lsp.open(`d${k}.verdict.json`, text);
      // Answered after every open was read (messages are handled in order).
      await lsp.executeCommand(PING_COMMAND, [], 120_000);
      await lsp.hover(target, { line: 0, character: 3 });
      const published = [...lsp.published.keys()].filter((u) => u.endsWith('.verdict.json')).length;
      assert.ok(published < N / 2, `the hover waited for ${published} of ${N} documents' diagnostics`);
      // They do all come.
      await lsp.waitForDiagnostics(lsp.uri(`d${N - 1}.verdict.json`), (d) => d.length > 0, 300_000);
    } finally {
      lsp.kill();
      await lsp.exited;
    }
  });
});

describe('at most 1,000 diagnostics per document', () => {
  const at = (line: number, severity: DiagnosticSeverity, code = 'x'): Diagnostic => ({ range: { start: { line, character: 0 }, end: { line, character: 1 } }, severity, code, message: code });

  test('capDiagnostics keeps the most severe in their order, and counts the rest in one information on line 1', () => {
    const few = [at(0, DiagnosticSeverity.Warning)];
    assert.equal(capDiagnostics(few), few, 'under the cap: untouched');
    const many: Diagnostic[] = [];
    for (let k = 0; k < 1500; k++) many.push(at(k, DiagnosticSeverity.Warning, 'w'));
    many.push(at(1500, DiagnosticSeverity.Error, 'e'));
    for (let k = 0; k < 300; k++) many.push(at(1501 + k, DiagnosticSeverity.Information, 'i'));
    const kept = capDiagnostics(many);
    assert.equal(kept.length, MAX_DIAGNOSTICS_PER_DOCUMENT + 1);
    assert.equal(kept[0]!.code, TOO_MANY_DIAGNOSTICS_CODE);
    assert.equal(kept[0]!.severity, DiagnosticSeverity.Information);
    assert.deepEqual(kept[0]!.range.start, { line: 0, character: 0 });
    assert.match(String(kept[0]!.message), /^801 more diagnostics are not shown/);
    const rest = kept.slice(1);
    assert.equal(rest.filter((d) => d.code === 'e').length, 1, 'the error is kept');
    assert.equal(rest.filter((d) => d.code === 'w').length, 999, 'then the first warnings');
    assert.equal(rest.filter((d) => d.code === 'i').length, 0);
    assert.deepEqual(
      rest.map((d) => d.range.start.line),
      rest.map((d) => d.range.start.line).sort((a, b) => a - b),
      'in the order they came',
    );
    assert.match(String(capDiagnostics(many.slice(0, 1001))[0]!.message), /^1 more diagnostic is not shown/);
  });

  test('a markdown document with 3,000 duplicate rules publishes 1,000 of them and one count', async () => {
    const lsp = await LspHarness.start();
    try {
      const text = '# Rules\n\n' + '- Always run the tests before pushing.\n'.repeat(3000) + '\n## Data\n\n```toon\na: "unterminated\n```\n';
      // An agent file: duplicate-rule is advice for files agents load.
      const uri = lsp.open('AGENTS.md', text);
      const ds = await lsp.waitForDiagnostics(uri, (d) => d.length > 0, 60_000);
      assert.equal(ds.length, MAX_DIAGNOSTICS_PER_DOCUMENT + 1);
      assert.equal(ds[0]!.code, TOO_MANY_DIAGNOSTICS_CODE);
      assert.match(String(ds[0]!.message), /^[\d,]+ more diagnostics are not shown: at most 1,000 per document/);
      assert.ok(ds.some((d) => d.code === 'toon/fence-decode'), 'the error at the end is among those shown');
      assert.equal(ds.filter((d) => d.code === 'toon/duplicate-rule').length, MAX_DIAGNOSTICS_PER_DOCUMENT - 1);
    } finally {
      lsp.kill();
      await lsp.exited;
    }
  });
});

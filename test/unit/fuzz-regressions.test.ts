// Problems the fuzzers and benchmarks found in other modules, each pinned by a minimal test that fails
// until the module is fixed (see docs/performance.md and the fuzzing report). Names say where the bug is.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDocument } from '../../server/src/core/agentJson/check';
import { EngineCache } from '../../server/src/core/markdown/engine';
import { toonFenceDiagnostics } from '../../server/src/core/toon/fences';

test('REGRESSION core/json/parse: a json-syntax diagnostic at the end of a truncated document stays inside the text', () => {
  // Any truncated agent output: `{`, `{"a":`, `[1,` … Found by test/fuzz (json/* properties).
  // locateSyntaxProblem gives length max(error.length, 1) also at offset === text.length.
  for (const text of ['{', '{"a":', '[1,', '{"schema_version": "1.0"']) {
    const r = checkDocument(text, { kind: 'verdict' });
    assert.equal(r.diagnostics.length, 1);
    const d = r.diagnostics[0]!;
    assert.equal(d.code, 'json-syntax');
    assert.ok(d.range.start <= d.range.end && d.range.end <= text.length, `${JSON.stringify(text)} (length ${text.length}): range ${JSON.stringify(d.range)} ends past the text`);
  }
});

// A single 100,000-line section (a generated table or list pasted into an agent file), found with
// `test/fuzz/fuzz.ts --huge`: the engine must measure it, tile the source and emit a schema-valid verdict.
// Its time is a figure, not an assertion (docs/performance.md): markdown-it alone parses such a section in
// 1.4–2.1 s here, and the engine stays within 2× of that.
for (const [name, line] of [['list', '- item one two'], ['table', '| a1 | b |'], ['prose', 'Some words here'], ['key: value lines', 'key: value']] as const) {
  test(`REGRESSION core/markdown/engine: a 100,000-line ${name} section yields a valid plan that tiles the source`, () => {
    const body = Array.from({ length: 100_000 }, () => line).join('\n');
    const text = `# T\n\n## Big\n\n${line.startsWith('|') ? '| h | i |\n|---|---|\n' : ''}${body}\n`;
    const plan = new EngineCache().plan(text);
    toonFenceDiagnostics(text);
    assert.equal(plan.sections[0]!.slice.charStart, 0);
    for (let i = 1; i < plan.sections.length; i++) assert.equal(plan.sections[i]!.slice.charStart, plan.sections[i - 1]!.slice.charEnd);
    assert.equal(plan.sections[plan.sections.length - 1]!.slice.charEnd, text.length);
    const diags = checkDocument(JSON.stringify(plan.verdict), { kind: 'verdict' }).diagnostics.filter((d) => d.severity === 'error');
    assert.deepEqual(diags, [], 'the plan validates and passes our own verdict rules');
  });
}

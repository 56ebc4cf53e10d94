/** `toonlens check` end to end on real files: formats, ranges, exit codes, directory walking, --fix. */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { run, type FileReport } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { LineIndex } from '../../server/src/core/lineIndex';
import { CORPUS_DIR } from '../paths';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let dir: string;

function capture(cwd: string): CliIO & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, cwd, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readStdin: async () => '' };
}

async function check(args: string[]) {
  const io = capture(dir);
  const code = await run(args, io);
  return { code, stdout: io.out.join(''), stderr: io.err.join('') };
}

/** 0-based LSP position of the `nth` occurrence of `needle` in a file. */
function positionOf(file: string, needle: string, delta = 0) {
  const text = readFileSync(join(dir, file), 'utf8');
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `${file} contains ${needle}`);
  return new LineIndex(text).positionAt(at + delta);
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'toonlens-check-'));
  cpSync(join(repoRoot, 'examples'), join(dir, 'examples'), { recursive: true });
  mkdirSync(join(dir, 'examples', 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(dir, 'examples', 'node_modules', 'dep', 'broken.verdict.json'), '{ not json');
  writeFileSync(join(dir, 'examples', 'package.json'), '{"name": "unrelated"}');
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('toonlens check --format json', () => {
  test('one-defect documents: exactly the expected code at the expected range', async () => {
    const cases: [string, string, string, number][] = [
      ['examples/agent-json/unknown-subtype.report.json', 'report/category', '"shrink"', 0], // the rule's own terms, not a bare enum error
      ['examples/agent-json/unexpected-field.critique.json', 'schema', '"currency"', 0],
      ['examples/agent-json/bad-poll.recipe-output.json', 'schema', '"poll_after_seconds": 0', '"poll_after_seconds": '.length],
      ['examples/agent-json/future-major.verdict.json', 'unsupported-version', '"2.0"', 0],
      ['examples/agent-json/unknown-verdict.verdict.json', 'schema', '"maybe"', 0],
    ];
    for (const [file, code, needle, delta] of cases) {
      const r = await check(['--format', 'json', file]);
      const reports = JSON.parse(r.stdout) as FileReport[];
      assert.equal(reports.length, 1, file);
      assert.equal(reports[0]!.file, file);
      assert.equal(reports[0]!.diagnostics.length, 1, `${file}: ${JSON.stringify(reports[0]!.diagnostics)}`);
      const d = reports[0]!.diagnostics[0]!;
      assert.equal(d.code, code, file);
      assert.deepEqual(d.range.start, positionOf(file, needle, delta), file);
      assert.ok(['error', 'warning', 'info', 'hint'].includes(d.severity));
    }
  });

  test('valid documents: no diagnostics, exit 0', async () => {
    const files = ['examples/agent-json/settings-table.verdict.json', 'examples/agent-json/config-loader.critique.json', 'examples/agent-json/chunked-spec.recipe-input.json', 'examples/agent-json/queued.recipe-output.json', 'examples/agent-json/generative-only.report.json'];
    const r = await check(['--format', 'json', ...files]);
    const reports = JSON.parse(r.stdout) as FileReport[];
    assert.deepEqual(reports.map((x) => x.diagnostics), files.map(() => []));
    assert.deepEqual(reports.map((x) => x.kind), ['verdict', 'critique', 'recipe-input', 'recipe-output', 'report']);
    assert.equal(r.code, 0);
  });

  test('every corpus verdict: no schema or syntax diagnostic', async () => {
    const corpus = CORPUS_DIR;
    const io = capture(dir);
    await run(['--format', 'json', corpus], io);
    // The folder's README.md is walked too (markdown is checked); the verdicts are the JSON reports.
    const reports = (JSON.parse(io.out.join('')) as FileReport[]).filter((r) => r.kind !== 'markdown');
    assert.equal(reports.length, readdirSync(corpus).filter((f) => f.endsWith('.json')).length);
    for (const rep of reports) assert.deepEqual(rep.diagnostics.filter((d) => d.code === 'schema' || d.code === 'json-syntax'), [], rep.file);
  });
});

describe('toonlens check: walking, formats, exit codes', () => {
  test('a directory: recognized documents only, node_modules skipped, exit 1 on errors', async () => {
    const r = await check(['--format', 'json', 'examples']);
    const reports = JSON.parse(r.stdout) as FileReport[];
    const files = reports.map((x) => x.file);
    assert.ok(files.includes('examples/golden/valid-report.json'));
    assert.ok(!files.some((f) => f.includes('node_modules')));
    assert.ok(!files.includes('examples/package.json'));
    assert.equal(r.code, 1);
  });

  test('--exit-zero reports the same errors and exits 0', async () => {
    const strict = await check(['--format', 'json', 'examples']);
    const lenient = await check(['--format', 'json', '--exit-zero', 'examples']);
    assert.equal(strict.code, 1);
    assert.equal(lenient.code, 0);
    assert.deepEqual(JSON.parse(lenient.stdout), JSON.parse(strict.stdout));
  });

  test('a glob', async () => {
    const r = await check(['--format', 'json', 'examples/**/*.critique.json']);
    const files = (JSON.parse(r.stdout) as FileReport[]).map((x) => x.file);
    assert.deepEqual(files, ['examples/agent-json/bad-fingerprint.critique.json', 'examples/agent-json/config-loader.critique.json', 'examples/agent-json/unexpected-field.critique.json']);
  });

  test('text: path:line:col severity code message, 1-based', async () => {
    const file = 'examples/agent-json/unexpected-field.critique.json';
    const r = await check([file]);
    const p = positionOf(file, '"currency"');
    assert.ok(r.stdout.startsWith(`${file}:${p.line + 1}:${p.character + 1} error schema Unexpected property "currency"`), r.stdout);
    assert.equal(r.code, 1);
  });

  test('sarif 2.1.0: driver, rules from the codes, 1-based regions, relative URIs', async () => {
    const file = 'examples/agent-json/unexpected-field.critique.json';
    const r = await check(['--format=sarif', file, 'examples/agent-json/future-major.verdict.json']);
    const sarif = JSON.parse(r.stdout);
    assert.equal(sarif.version, '2.1.0');
    const runObj = sarif.runs[0];
    assert.equal(runObj.tool.driver.name, 'toonlens');
    assert.deepEqual(runObj.tool.driver.rules.map((x: { id: string }) => x.id), ['schema', 'unsupported-version']);
    const res = runObj.results[0];
    assert.equal(res.ruleId, 'schema');
    assert.equal(res.level, 'error');
    assert.equal(runObj.results[1].level, 'warning');
    const loc = res.locations[0].physicalLocation;
    assert.equal(loc.artifactLocation.uri, file);
    const p = positionOf(file, '"currency"');
    assert.equal(loc.region.startLine, p.line + 1);
    assert.equal(loc.region.startColumn, p.character + 1);
  });

  test('an explicit unrelated file is skipped with a note; exit 0', async () => {
    const r = await check(['examples/package.json']);
    assert.equal(r.code, 0);
    assert.match(r.stderr, /not a ToonLens document/);
    assert.equal(r.stdout, '');
  });

  test('usage and I/O errors exit 2; --help and --version exit 0', async () => {
    assert.equal((await check(['nope/missing.json'])).code, 2);
    assert.equal((await check(['--format', 'xml', 'examples'])).code, 2);
    assert.equal((await check(['--bogus', 'examples'])).code, 2);
    assert.equal((await check([])).code, 2);
    const help = await check(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /--format text\|json\|sarif/);
    assert.equal((await check(['--version'])).code, 0);
  });

  test('binary, invalid UTF-8, BOM and truncated files: one diagnostic each, no crash', async () => {
    writeFileSync(join(dir, 'nul.verdict.json'), Buffer.from([0x7b, 0x00, 0x7d]));
    writeFileSync(join(dir, 'latin1.verdict.json'), Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x7d]));
    writeFileSync(join(dir, 'truncated.verdict.json'), '{"schema_version": "1.0", "verdict": ');
    const verdict = readFileSync(join(dir, 'examples', 'agent-json', 'settings-table.verdict.json'));
    writeFileSync(join(dir, 'bom.verdict.json'), Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), verdict]));
    const r = await check(['--format', 'json', 'nul.verdict.json', 'latin1.verdict.json', 'truncated.verdict.json', 'bom.verdict.json']);
    const reports = JSON.parse(r.stdout) as FileReport[];
    assert.deepEqual(reports.map((x) => x.diagnostics.map((d) => d.code)), [['json-syntax'], ['json-syntax'], ['json-syntax'], []]);
    assert.match(reports[0]!.diagnostics[0]!.message, /byte 1/);
    assert.match(reports[1]!.diagnostics[0]!.message, /invalid UTF-8 at byte 2/);
    assert.equal(r.code, 1);
  });

  test('over --max-file-size-mb: an info diagnostic, nothing parsed, exit 0', async () => {
    const r = await check(['--format', 'json', '--max-file-size-mb', '0.0001', 'examples/agent-json/unknown-verdict.verdict.json']);
    const reports = JSON.parse(r.stdout) as FileReport[];
    assert.deepEqual(reports[0]!.diagnostics.map((d) => [d.code, d.severity]), [['limits/too-large', 'info']]);
    assert.equal(r.code, 0);
  });
});

describe('toonlens check: the repository’s editor settings', () => {
  test('.vscode/settings.json is never read (documentKinds nor maxFileSizeMB); .toonlens.json documentKinds are', async () => {
    mkdirSync(join(dir, '.vscode'), { recursive: true });
    mkdirSync(join(dir, 'results'), { recursive: true });
    writeFileSync(join(dir, '.vscode', 'settings.json'), '{\n  "toonlens.documentKinds": { "results/*.json": "recipe-output" },\n  "toonlens.maxFileSizeMB": 1e308,\n}\n');
    writeFileSync(join(dir, 'results', 'run-1.json'), '{"error": "melted"}');
    try {
      const ignored = JSON.parse((await check(['--format', 'json', 'results'])).stdout) as FileReport[];
      assert.deepEqual(ignored, []);
      writeFileSync(join(dir, 'results', '.toonlens.json'), '{\n  // comments are fine here\n  "documentKinds": { "run-*.json": "recipe-output" },\n}\n');
      const reports = JSON.parse((await check(['--format', 'json', 'results'])).stdout) as FileReport[];
      const run1 = reports.find((x) => x.file === 'results/run-1.json');
      assert.equal(run1?.kind, 'recipe-output', JSON.stringify(reports));
      assert.deepEqual(run1!.diagnostics.map((d) => d.code), ['schema']);
      assert.match(run1!.diagnostics[0]!.message, /"melted" is not allowed \(enum\)/);
    } finally {
      rmSync(join(dir, '.vscode'), { recursive: true, force: true });
      rmSync(join(dir, 'results'), { recursive: true, force: true });
    }
  });
});

describe('toonlens check: report rules see the files (Node workspace)', () => {
  test('the golden report is clean; after its target changes, the edit is stale', async () => {
    const report = 'examples/golden/valid-report.json';
    const clean = JSON.parse((await check(['--format', 'json', report])).stdout) as FileReport[];
    assert.deepEqual(clean[0]!.diagnostics, []);
    const target = join(dir, 'examples', 'golden', 'docs', 'plan.md');
    writeFileSync(target, readFileSync(target, 'utf8') + '- [ ] one more thing\n');
    const stale = JSON.parse((await check(['--format', 'json', report])).stdout) as FileReport[];
    assert.deepEqual(stale[0]!.diagnostics.map((d) => d.code), ['report/stale-edit']);
  });
});

describe('toonlens check --fix', () => {
  test('writes the unattended fixes atomically, then reports what remains', async () => {
    const file = 'examples/agent-json/unsafe-auto-apply.verdict.json';
    const before = readFileSync(join(dir, file), 'utf8');
    const r = await check(['--fix', '--format', 'json', file]);
    const after = readFileSync(join(dir, file), 'utf8');
    assert.notEqual(after, before);
    assert.equal(JSON.parse(after).safe_to_auto_apply, false);
    assert.equal(after.replace('"safe_to_auto_apply": false', '"safe_to_auto_apply": true'), before, 'only the value changed');
    const reports = JSON.parse(r.stdout) as FileReport[];
    assert.deepEqual(reports[0]!.diagnostics.filter((d) => d.code === 'verdict/safe-to-auto-apply'), []);
    assert.ok(!readdirSync(join(dir, 'examples', 'agent-json')).some((f) => f.endsWith('.tmp')), 'no temp file left');
    assert.match(r.stderr, /fixed/);
    const again = await check(['--fix', file]);
    assert.equal(readFileSync(join(dir, file), 'utf8'), after, 'a second --fix changes nothing');
    assert.doesNotMatch(again.stderr, /fixed/);
  });
});

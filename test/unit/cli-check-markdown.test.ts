/**
 * `toonlens check` on markdown and .toon files, the project config (.toonlens.json: rules, ignore, documentKinds)
 * and inline control comments, on the real example markdown.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, type FileReport } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { markdownDiagnostics } from '../../server/src/core/markdown/diagnostics';
import { planDocument } from '../../server/src/core/markdown/engine';
import { applyRuleLevels, configDiagnostics, isIgnored, parseConfig } from '../../server/src/core/config';
import { inlineDirectives } from '../../server/src/core/markdown/inlineControl';
import { LineIndex } from '../../server/src/core/lineIndex';
import { REPO_ROOT } from '../paths';

let dir: string;

async function check(args: string[], cwd = dir) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { cwd, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readStdin: async () => '' };
  const code = await run(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

async function reports(args: string[], cwd = dir): Promise<FileReport[]> {
  const r = await check(['--format', 'json', ...args], cwd);
  return JSON.parse(r.stdout) as FileReport[];
}

const codes = (r: FileReport | undefined) => (r?.diagnostics ?? []).map((d) => `${d.range.start.line + 1}:${d.code}:${d.severity}`);

/**
 * The example markdown is agent instructions by content, not by name: the project config says so (as
 * examples/markdown/.toonlens.json does), and every config a test writes keeps saying it.
 */
const AGENT_FILES = '"agentFiles": ["**/*.md"]';
const BASE_CONFIG = `{ ${AGENT_FILES} }\n`;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'toonlens-check-md-'));
  mkdirSync(join(dir, '.git')); // the project root: config lookup stops here
  cpSync(join(REPO_ROOT, 'examples', 'markdown'), join(dir, 'md'), { recursive: true, filter: (src) => !src.endsWith('.toonlens.json') });
  writeFileSync(join(dir, '.toonlens.json'), BASE_CONFIG);
  cpSync(join(REPO_ROOT, 'examples', 'toon'), join(dir, 'toon'), { recursive: true });
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('markdown and .toon in check', () => {
  test('a markdown file gets exactly the core diagnostics the editor publishes (codes, ranges, severities, messages)', async () => {
    for (const name of ['AGENTS.md', 'duplicate-rules.md', 'long-section.md', 'config-table.md']) {
      const text = readFileSync(join(dir, 'md', name), 'utf8');
      const index = new LineIndex(text);
      const at = (r: { start: number; end: number }) => ({ start: index.positionAt(r.start), end: index.positionAt(r.end) });
      const expected = markdownDiagnostics(text, planDocument(text), { path: name, agentFile: true }).map((d) => ({
        code: d.code,
        severity: d.severity,
        message: d.message,
        range: at(d.range),
        ...(d.related ? { related: d.related.map((r) => ({ message: r.message, range: at(r.range) })) } : {}),
      }));
      const [report] = await reports([`md/${name}`]);
      assert.equal(report!.kind, 'markdown');
      assert.deepEqual(report!.diagnostics, expected, name);
    }
  });

  test('folders are walked for *.md and *.toon; warnings alone exit 0, a broken toon fence exits 1', async () => {
    const all = await reports(['.']);
    assert.deepEqual(all.map((r) => r.file), ['.toonlens.json', 'md/AGENTS.md', 'md/config-table.md', 'md/duplicate-rules.md', 'md/long-section.md', 'toon/README.md', 'toon/orders.toon']);
    assert.deepEqual(codes(all.find((r) => r.file === 'md/long-section.md')), ['3:toon/long-section:info', '3:toon/split-candidate:info']);
    assert.equal((await check(['.'])).code, 0);
    writeFileSync(join(dir, 'md', 'broken.md'), '# Data\n\n```toon\nitems[3]: a,b\n```\n');
    writeFileSync(join(dir, 'toon', 'broken.toon'), 'items[3]: a,b\n');
    try {
      const r = await check(['.']);
      assert.equal(r.code, 1);
      assert.match(r.stdout, /^md\/broken\.md:4:1 error toon\/fence-decode /m);
      assert.match(r.stdout, /^toon\/broken\.toon:1:1 error toon\/fence-decode /m);
      const sarif = JSON.parse((await check(['--format', 'sarif', 'md/broken.md'])).stdout);
      assert.equal(sarif.runs[0].results[0].ruleId, 'toon/fence-decode');
    } finally {
      rmSync(join(dir, 'md', 'broken.md'));
      rmSync(join(dir, 'toon', 'broken.toon'));
    }
  });
});

describe('.toonlens.json', () => {
  const writeConfig = (text: string, at = dir) => writeFileSync(join(at, '.toonlens.json'), text.replace(/^\{/, `{ ${AGENT_FILES}, `));
  const removeConfig = (at = dir) => (at === dir ? writeFileSync(join(dir, '.toonlens.json'), BASE_CONFIG) : rmSync(join(at, '.toonlens.json'), { force: true }));

  test('rules change severities and "off" removes a diagnostic; the exit code follows', async () => {
    writeConfig('{\n  // JSON with comments\n  "rules": { "toon/long-section": "off", "toon/split-candidate": "error", "toon/duplicate-rule": "info", },\n}\n');
    try {
      const rs = await reports(['md']);
      assert.deepEqual(codes(rs.find((r) => r.file === 'md/long-section.md')), ['3:toon/split-candidate:error']);
      assert.deepEqual(codes(rs.find((r) => r.file === 'md/duplicate-rules.md')).filter((c) => c.includes('duplicate')), ['7:toon/duplicate-rule:info', '12:toon/duplicate-rule:info'], 'repeats across sections too');
      assert.equal((await check(['md'])).code, 1, 'an error-level rule fails the check');
    } finally {
      removeConfig();
    }
  });

  test('rules apply to agent-JSON codes too', async () => {
    cpSync(join(REPO_ROOT, 'examples', 'agent-json', 'unknown-verdict.verdict.json'), join(dir, 'v.verdict.json'));
    writeConfig('{ "rules": { "schema": "warning" } }');
    try {
      const [r] = await reports(['v.verdict.json']);
      assert.deepEqual(r!.diagnostics.map((d) => [d.code, d.severity]), [['schema', 'warning']]);
      assert.equal((await check(['v.verdict.json'])).code, 0);
      writeConfig('{ "rules": { "schema": "off" } }');
      assert.deepEqual((await reports(['v.verdict.json']))[0]!.diagnostics, []);
    } finally {
      removeConfig();
      rmSync(join(dir, 'v.verdict.json'));
    }
  });

  test('the nearest config wins, and the search stops at the project root (.git)', async () => {
    const outer = mkdtempSync(join(tmpdir(), 'toonlens-outer-'));
    try {
      // A config above the project root is never read.
      writeFileSync(join(outer, '.toonlens.json'), '{ "rules": { "toon/split-candidate": "off" } }');
      cpSync(dir, join(outer, 'proj'), { recursive: true });
      const proj = join(outer, 'proj');
      assert.deepEqual(codes((await reports(['md/long-section.md'], proj))[0]), ['3:toon/long-section:info', '3:toon/split-candidate:info']);
      writeConfig('{ "rules": { "toon/long-section": "warning" } }', proj);
      writeConfig('{ "rules": { "toon/split-candidate": "off" } }', join(proj, 'md'));
      assert.deepEqual(codes((await reports(['md/long-section.md'], proj))[0]), ['3:toon/long-section:info'], 'md/.toonlens.json is nearer than the root one');
      assert.deepEqual(codes((await reports(['md/long-section.md', '--config', '.toonlens.json'], proj))[0]), ['3:toon/long-section:warning', '3:toon/split-candidate:info']);
    } finally {
      rmSync(outer, { recursive: true, force: true });
    }
  });

  test('ignore globs: walked files are skipped, named ones skipped with a note', async () => {
    writeConfig('{ "ignore": ["long-section.md", "toon/"] }');
    try {
      const walked = await reports(['.']);
      assert.deepEqual(walked.map((r) => r.file), ['.toonlens.json', 'md/AGENTS.md', 'md/config-table.md', 'md/duplicate-rules.md']);
      assert.deepEqual(walked[0], { file: '.toonlens.json', kind: 'config', diagnostics: [] }, 'the config file is checked too');
      const named = await check(['md/long-section.md']);
      assert.equal(named.code, 0);
      assert.equal(named.stdout, '');
      assert.match(named.stderr, /md\/long-section\.md: ignored by \.toonlens\.json; skipped/);
    } finally {
      removeConfig();
    }
  });

  test('documentKinds associates JSON files like the setting', async () => {
    mkdirSync(join(dir, 'results'), { recursive: true });
    writeFileSync(join(dir, 'results', 'run-1.json'), '{"error": "melted"}');
    writeConfig('{ "documentKinds": { "results/*.json": "recipe-output" } }');
    try {
      const rs = await reports(['results']);
      assert.deepEqual(rs.map((r) => [r.file, r.kind, r.diagnostics.map((d) => d.code)]), [['results/run-1.json', 'recipe-output', ['schema']]]);
    } finally {
      removeConfig();
      rmSync(join(dir, 'results'), { recursive: true, force: true });
    }
  });

  test('an invalid config is one line on stderr and exit 2; its valid parts still apply', async () => {
    writeConfig('{ "rules": { "toon/long-section": "off", "toon/split-candidate": "loud" }, "colour": true }');
    try {
      const r = await check(['md/long-section.md']);
      assert.equal(r.code, 2);
      const line = r.stderr.split('\n').find((l) => l.includes('invalid config'))!;
      assert.match(line, /^toonlens check: invalid config \.toonlens\.json: /);
      assert.match(line, /\(and \d+ more\)/);
      assert.doesNotMatch(r.stdout, /toon\/long-section/);
      assert.match(r.stdout, /toon\/split-candidate/);
      const [cfg] = await reports(['.toonlens.json']);
      assert.deepEqual(cfg!.diagnostics.map((d) => [d.code, d.range.start.line]), [['schema', 0], ['schema', 0]], 'the config file shows its problems where they are');
      writeConfig('{ "rules": ');
      assert.equal((await check(['md/long-section.md'])).code, 2);
      assert.equal((await check(['md/long-section.md', '--config', 'nope.json'])).code, 2);
    } finally {
      removeConfig();
    }
  });

  test('core: parse, validate with ranges, rule levels, ignore matching', () => {
    assert.deepEqual(parseConfig('{ "tokenizer": "o200k_base", "minTokenSavings": 20, "ignore": ["vendor/**"] }'), {
      config: { rules: {}, documentKinds: {}, tokenizer: 'o200k_base', minTokenSavings: 20, ignore: ['vendor/**'], agentFiles: [] },
      problems: [],
    });
    const text = '{\n  "rules": { "toon/long-section": "loud" },\n  "colour": 1\n}';
    const diags = configDiagnostics(text);
    assert.deepEqual(diags.map((d) => [d.code, text.slice(d.range.start, d.range.end)]), [['schema', '"loud"'], ['schema', '"colour"']]);
    assert.deepEqual(configDiagnostics('{ "rules": { } '), [{ code: 'json-syntax', severity: 'error', message: 'CloseBraceExpected', range: { start: 15, end: 16 } }]);
    const ds = [{ code: 'a', severity: 'info' as const }, { code: 'b', severity: 'error' as const }, { code: 'c', severity: 'warning' as const }];
    assert.deepEqual(applyRuleLevels(ds, { a: 'error', b: 'off' }), [{ code: 'a', severity: 'error' }, { code: 'c', severity: 'warning' }]);
    assert.ok(isIgnored(['*.generated.md'], 'docs/x.generated.md'));
    assert.ok(isIgnored(['vendor/'], 'vendor/a/b.md'));
    assert.ok(!isIgnored(['vendor/'], 'src/vendor.md'));
    assert.ok(!isIgnored(['docs/**'], '../docs/a.md'), 'never outside the config folder');
  });
});

describe('inline control comments', () => {
  const file = () => join(dir, 'md', 'inline.md');
  const base = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'long-section.md'), 'utf8');

  test('disable-next-line, disable … enable and disable-line silence exactly what they name', async () => {
    const heading = '## Everything about releases\n';
    assert.ok(base.includes(heading));
    const cases: [string, string[]][] = [
      ['<!-- toonlens-disable-next-line toon/long-section -->\n' + heading, ['4:toon/split-candidate:info']],
      ['<!-- toonlens-disable-next-line -->\n' + heading, []],
      ['<!-- toonlens-disable long-section, split_candidate -->\n' + heading, []],
      ['<!-- toonlens-disable -->\n<!-- toonlens-enable toon/split-candidate -->\n' + heading, ['5:toon/split-candidate:info']],
      ['<!-- toonlens-disable toon/vague-rule -->\n' + heading, ['4:toon/long-section:info', '4:toon/split-candidate:info']],
      ['<!-- toonlens-disable -->\n<!-- toonlens-enable -->\n' + heading, ['5:toon/long-section:info', '5:toon/split-candidate:info']],
    ];
    for (const [replacement, expected] of cases) {
      writeFileSync(file(), base.replace(heading, replacement));
      assert.deepEqual(codes((await reports(['md/inline.md']))[0]), expected, replacement);
    }
    // A disable comment inside a code fence is text, not a directive.
    writeFileSync(file(), base.replace(heading, '```\n<!-- toonlens-disable -->\n```\n' + heading));
    assert.deepEqual(codes((await reports(['md/inline.md']))[0]), ['6:toon/long-section:info', '6:toon/split-candidate:info']);
    const dup = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'duplicate-rules.md'), 'utf8');
    const line = '- Always greet the customer by name when it is known.\n';
    const lastAt = dup.lastIndexOf(line);
    writeFileSync(file(), dup.slice(0, lastAt) + '<!-- toonlens-disable-next-line toon/duplicate-rule -->\n' + dup.slice(lastAt));
    const before = codes((await reports(['md/duplicate-rules.md']))[0]).filter((c) => c.includes('duplicate'));
    const after = codes((await reports(['md/inline.md']))[0]).filter((c) => c.includes('duplicate'));
    assert.equal(after.length, before.length - 1);
    rmSync(file());
  });

  test('directives are read from HTML blocks only, with their lines', () => {
    const text = 'a\n\n<!-- toonlens-disable x -->\n\n`<!-- toonlens-enable -->`\n\n<!--\ntoonlens-disable-line\n-->\n';
    assert.deepEqual(
      inlineDirectives(text).map((d) => [d.kind, d.codes, d.line, d.endLine]),
      [['disable', ['toon/x'], 2, 2], ['disable-line', [], 6, 8]],
    );
  });

  test('<!-- toonlens: keep --> keeps a section markdown: verdict keep_markdown, never in the hybrid', async () => {
    const md = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'config-table.md'), 'utf8');
    const plain = planDocument(md);
    const converting = plain.sections.filter((s) => s.action === 'convert');
    assert.ok(converting.length > 0, 'the example converts something');
    const target = converting[0]!;
    const at = target.slice.headingEnd;
    const kept = md.slice(0, at) + '\n<!-- toonlens: keep -->\n' + md.slice(at);
    const plan = planDocument(kept);
    const s = plan.sections.find((x) => x.slice.heading === target.slice.heading)!;
    assert.equal(s.verdict!.verdict, 'keep_markdown');
    assert.equal(s.action, 'keep');
    assert.ok(s.verdict!.warnings.some((w) => w.code === 'keep_marker'));
    assert.ok(plan.hybrid.includes(kept.slice(s.slice.charStart, s.slice.charEnd)), 'the kept section is verbatim in the hybrid');
    // Our own checker accepts the plan the override produced.
    writeFileSync(join(dir, 'kept.plan.json'), JSON.stringify(plan.verdict));
    const [r] = await reports(['kept.plan.json']);
    assert.deepEqual(r!.diagnostics.filter((d) => d.severity === 'error' || d.severity === 'warning'), []);
    rmSync(join(dir, 'kept.plan.json'));
  });
});

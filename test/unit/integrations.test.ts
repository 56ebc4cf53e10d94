/**
 * The ecosystem files: SARIF output valid against the official SARIF 2.1.0 schema, the composite action and
 * the pre-commit hook manifest parsed and their structure checked, and the publish fields of package.json.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft07 from 'ajv';
import addFormats from 'ajv-formats';
import type { Log } from 'sarif';
import { run } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { FIXTURES, REPO_ROOT } from '../paths';

// js-yaml is in node_modules through the dev tools; only its load() is used.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => {
  assert.ok(v !== null && typeof v === 'object' && !Array.isArray(v), `an object: ${JSON.stringify(v)}`);
  return v as Obj;
};

async function sarifOf(cwd: string, args: string[]): Promise<{ code: number; log: Log }> {
  let out = '';
  const io: CliIO = { cwd, stdout: (t) => void (out += t), stderr: () => undefined, readStdin: async () => '' };
  const code = await run(['--format', 'sarif', ...args], io);
  return { code, log: JSON.parse(out) as Log };
}

describe('SARIF 2.1.0', () => {
  test('check --format sarif on markdown, .toon and agent JSON is valid against the official schema', async () => {
    const schema = JSON.parse(readFileSync(join(FIXTURES, 'sarif', 'sarif-schema-2.1.0.json'), 'utf8')) as Obj;
    // Draft-04's top-level `id` is draft-07's `$id`; nothing else in the schema differs between the drafts.
    const { id, $schema: _draft, ...rest } = schema;
    void _draft;
    const ajv = new AjvDraft07({ allErrors: true, strict: false });
    addFormats(ajv);
    const validate = ajv.compile({ ...rest, $id: String(id) });
    const dir = mkdtempSync(join(tmpdir(), 'toonlens-sarif-'));
    try {
      cpSync(join(REPO_ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
      writeFileSync(join(dir, 'examples', 'markdown', 'broken fence.md'), '# Data\n\n```toon\nitems[3]: a,b\n```\n');
      const { code, log } = await sarifOf(dir, ['examples']);
      assert.equal(code, 1);
      const ok = validate(log);
      assert.ok(ok, JSON.stringify(validate.errors?.slice(0, 5), null, 2));
      const results = log.runs[0]!.results ?? [];
      const ids = new Set(results.map((r) => r.ruleId));
      for (const c of ['toon/fence-decode', 'toon/long-section', 'toon/duplicate-rule', 'schema']) assert.ok(ids.has(c), `${c} in the SARIF results`);
      const fence = results.find((r) => r.ruleId === 'toon/fence-decode')!;
      assert.equal(fence.level, 'error');
      assert.equal(fence.locations![0]!.physicalLocation!.artifactLocation!.uri, 'examples/markdown/broken%20fence.md');
      assert.equal(fence.locations![0]!.physicalLocation!.region!.startLine, 4);
      // Every result's ruleIndex points at its rule.
      const rules = log.runs[0]!.tool.driver.rules!;
      for (const r of results) assert.equal(rules[r.ruleIndex!]!.id, r.ruleId);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('action.yml (composite)', () => {
  test('runs toonlens check --format sarif on the given paths and uploads with upload-sarif', () => {
    const action = obj(yaml.load(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')));
    assert.equal(typeof action.name, 'string');
    assert.equal(typeof action.description, 'string');
    const inputs = obj(action.inputs);
    for (const name of ['paths', 'version', 'sarif-file', 'upload', 'fail-on-error']) {
      const input = obj(inputs[name]);
      assert.equal(typeof input.description, 'string', name);
      assert.equal(typeof input.default, 'string', `${name} has a string default`);
    }
    const runs = obj(action.runs);
    assert.equal(runs.using, 'composite');
    const steps = (runs.steps as unknown[]).map(obj);
    for (const s of steps) {
      if (s.run !== undefined) assert.equal(s.shell, 'bash', 'composite run steps name their shell');
      else assert.equal(typeof s.uses, 'string');
      if (typeof s.run === 'string') assert.doesNotMatch(s.run, /\$\{\{\s*inputs\./, 'inputs reach scripts through env, never inline');
    }
    const check = steps.find((s) => s.id === 'check')!;
    assert.match(String(check.run), /toonlens@\$\{TOONLENS_VERSION\}" check --format sarif -- \$\{TOONLENS_PATHS\} > "\$\{TOONLENS_SARIF\}"/);
    assert.equal(obj(check.env).TOONLENS_PATHS, '${{ inputs.paths }}');
    const upload = steps.find((s) => typeof s.uses === 'string' && s.uses.startsWith('github/codeql-action/upload-sarif@'))!;
    assert.ok(upload, 'an upload-sarif step');
    assert.equal(obj(upload.with).sarif_file, '${{ inputs.sarif-file }}');
    assert.ok(steps.indexOf(upload) > steps.indexOf(check), 'uploads after the check');
    assert.match(String(upload.if), /always\(\)/, 'uploads even when errors were found');
    assert.equal(obj(obj(action.outputs)['exit-code']).value, '${{ steps.check.outputs.exit-code }}');
  });
});

describe('.pre-commit-hooks.yaml', () => {
  test('one node hook running toonlens check on staged agent JSON, markdown and .toon files', () => {
    const hooks = yaml.load(readFileSync(join(REPO_ROOT, '.pre-commit-hooks.yaml'), 'utf8'));
    assert.ok(Array.isArray(hooks));
    assert.equal(hooks.length, 1);
    const hook = obj(hooks[0]);
    assert.equal(hook.id, 'toonlens-check');
    assert.equal(hook.entry, 'toonlens check --');
    assert.equal(hook.language, 'node');
    assert.equal(typeof hook.name, 'string');
    const files = new RegExp(String(hook.files));
    for (const f of ['AGENTS.md', 'docs/plan.markdown', 'out/run.verdict.json', 'data/orders.toon']) assert.ok(files.test(f), f);
    for (const f of ['src/index.ts', 'README.mdx', 'image.png']) assert.ok(!files.test(f), f);
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string> };
    assert.equal(pkg.bin[String(hook.entry).split(' ')[0]!], './bin/toonlens.js', 'the entry is the package bin');
  });
});

describe('publish fields', () => {
  test('package.json: repository, icon (128×128 PNG), galleryBanner, CHANGELOG, files, bin, prepack', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Obj;
    assert.match(String(obj(pkg.repository).url), /^https:\/\/github\.com\/.+\.git$/);
    assert.equal(typeof obj(pkg.galleryBanner).color, 'string');
    const png = readFileSync(join(REPO_ROOT, String(pkg.icon)));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.toString('ascii', 12, 16), 'IHDR');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
    assert.ok(existsSync(join(REPO_ROOT, 'CHANGELOG.md')));
    assert.ok(!existsSync(join(REPO_ROOT, '.vscodeignore')), 'vsce refuses both .vscodeignore and files');
    const files = pkg.files as string[];
    for (const f of ['bin/toonlens.js', 'dist/cli.js', 'dist/server.js', 'dist/client.js', 'CHANGELOG.md', String(pkg.icon)]) assert.ok(files.includes(f), f);
    assert.match(String(obj(pkg.scripts).prepack), /esbuild\.mjs/);
    assert.match(readFileSync(join(REPO_ROOT, 'bin', 'toonlens.js'), 'utf8'), /require\('\.\.\/dist\/cli\.js'\)/);
  });

  test('vsce ls: the VSIX file list, without a warning', { timeout: 120_000 }, () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], { cwd: REPO_ROOT, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.doesNotMatch(r.stdout + r.stderr, /WARNING|warn/i);
    const listed = r.stdout.trim().split('\n');
    for (const f of ['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'images/icon.png', 'dist/client.js', 'dist/server.js', 'schemas/toonlens-config.v1.json']) assert.ok(listed.includes(f), `${f} in the VSIX`);
    assert.ok(!listed.some((f) => /^(test|server|client|bench|scripts)\//.test(f)), listed.join(', '));
  });
});

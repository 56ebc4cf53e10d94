/**
 * The ecosystem files: SARIF output valid against the official SARIF 2.1.0 schema, the composite action and
 * the pre-commit hook manifest parsed and their structure checked, and the publish fields of package.json.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
  type Step = Obj & { run?: string; env?: Record<string, string>; uses?: string; if?: string; id?: string };
  const action = obj(yaml.load(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')));
  const steps = (obj(action.runs).steps as unknown[]).map((s) => obj(s) as Step);
  const step = (id: string) => steps.find((s) => s.id === id)!;

  /**
   * Runs one `run:` step as the runner does: `bash --noprofile --norc -eo pipefail`, its `env:` with the
   * `${{ … }}` expressions the test gives, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files; returns its outputs.
   */
  function runStep(s: Step, context: Record<string, string>, cwd: string, work: string) {
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, GITHUB_OUTPUT: join(work, `output-${s.id}`), GITHUB_STEP_SUMMARY: join(work, 'summary.md'), RUNNER_TEMP: work, CI: 'true', GITHUB_ACTIONS: 'true' };
    writeFileSync(env.GITHUB_OUTPUT!, '');
    for (const [k, v] of Object.entries(s.env ?? {})) {
      env[k] = String(v).replace(/\$\{\{\s*([\w.-]+)\s*\}\}/g, (_, name: string) => {
        assert.ok(name in context, `the test gives ${name}`);
        return context[name]!;
      });
    }
    const script = join(work, `step-${s.id ?? 'x'}.sh`);
    writeFileSync(script, s.run!);
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { cwd, env, encoding: 'utf8', timeout: 300_000 });
    const outputs = Object.fromEntries(readFileSync(env.GITHUB_OUTPUT!, 'utf8').split('\n').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
    return { status: r.status, stdout: r.stdout, stderr: r.stderr, outputs };
  }

  test('structure: current majors, inputs through env, SARIF upload only when asked and permitted', () => {
    assert.equal(typeof action.name, 'string');
    const inputs = obj(action.inputs);
    for (const name of ['paths', 'upload', 'sarif-file', 'fail-on-error', 'node-version']) assert.equal(typeof obj(inputs[name]).default, 'string', name);
    assert.equal(obj(inputs.upload).default, 'false', 'no upload unless asked');
    assert.equal(inputs.version, undefined, 'no registry version: the CLI is the action checkout');
    assert.equal(obj(action.runs).using, 'composite');
    for (const s of steps) {
      if (s.run !== undefined) assert.equal(s.shell, 'bash');
      if (typeof s.run === 'string') {
        assert.doesNotMatch(s.run, /\$\{\{/, 'expressions reach scripts through env, never inline');
        assert.doesNotMatch(s.run, /npx|npm (i|install) (-g )?toonlens/, 'nothing installed by registry name');
      }
    }
    const setup = steps.find((s) => s.uses?.startsWith('actions/setup-node@'))!;
    assert.equal(setup.uses, 'actions/setup-node@v6');
    assert.equal(obj(setup.with)['node-version'], '${{ inputs.node-version }}');
    assert.equal(step('install').env!.TOONLENS_ACTION_PATH, '${{ github.action_path }}');
    assert.match(step('check').run!, /check --format sarif --output-file "\$\{TOONLENS_SARIF\}" -- "\$\{paths\[@\]\}"/);
    const upload = steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'))!;
    assert.equal(upload.uses, 'github/codeql-action/upload-sarif@v4');
    assert.equal(upload['continue-on-error'], true, 'a failed upload never fails the job');
    assert.match(String(upload.if), /inputs\.upload == 'true'/);
    assert.match(String(upload.if), /github\.event\.pull_request\.head\.repo\.full_name != github\.repository/, 'skipped on fork pull requests');
    assert.ok(steps.indexOf(upload) > steps.indexOf(step('check')));
    const fail = steps[steps.length - 1]!;
    assert.match(String(fail.if), /inputs\.fail-on-error == 'true' && steps\.check\.outputs\.exit-code == '1'/);
  });

  test('its steps run: install from the checkout, annotations, summary, SARIF, failing on errors', { timeout: 600_000 }, () => {
    const work = mkdtempSync(join(tmpdir(), 'toonlens-action-'));
    try {
      // The action's checkout: the sources (node_modules linked; the install step builds dist/ there).
      const actionPath = join(work, 'action');
      for (const f of ['package.json', 'esbuild.mjs', 'bin', 'server', 'client', 'schemas', 'scripts']) cpSync(join(REPO_ROOT, f), join(actionPath, f), { recursive: true });
      symlinkSync(join(REPO_ROOT, 'node_modules'), join(actionPath, 'node_modules'), 'dir');
      const ws = join(work, 'ws');
      cpSync(join(REPO_ROOT, 'examples', 'agent-json'), join(ws, 'agent-json'), { recursive: true });
      mkdirSync(join(ws, 'my notes'));
      writeFileSync(join(ws, 'my notes', 'AGENTS.md'), '# Data\n\n```toon\nitems[3]: a,b\n```\n');
      writeFileSync(join(ws, '-dash.md'), '# Data\n\n```toon\nitems[2]: a\n```\n');

      const context: Record<string, string> = { 'github.action_path': actionPath, 'inputs.paths': 'agent-json\n  my notes/AGENTS.md  \n\n-dash.md\n', 'inputs.sarif-file': 'out/toonlens.sarif' };
      mkdirSync(join(ws, 'out'));
      const install = runStep(step('install'), context, ws, work);
      assert.equal(install.status, 0, install.stdout + install.stderr);
      assert.equal(install.outputs.bin, join(actionPath, 'bin', 'toonlens.js'));
      context['steps.install.outputs.bin'] = install.outputs.bin!;

      const check = runStep(step('check'), context, ws, work);
      assert.equal(check.status, 0, check.stdout + check.stderr);
      assert.equal(check.outputs['exit-code'], '1');
      assert.equal(check.outputs['sarif-file'], 'out/toonlens.sarif');
      assert.match(check.stdout, /^::error file=my notes\/AGENTS\.md,line=4,col=1,endLine=4,endColumn=\d+,title=toonlens toon\/fence-decode::Expected 3/m);
      assert.match(check.stdout, /^::error file=-dash\.md,line=4,/m, 'a path starting with - is a path');
      assert.match(check.stdout, /^::error file=agent-json\/[\w.-]+\.json,line=\d+/m);
      assert.match(check.stdout, /^::warning file=agent-json\/future-major\.verdict\.json,/m);
      const log = JSON.parse(readFileSync(join(ws, 'out', 'toonlens.sarif'), 'utf8')) as Log;
      assert.equal(log.version, '2.1.0');
      const summary = readFileSync(join(work, 'summary.md'), 'utf8');
      assert.match(summary, /^## ToonLens\n\n❌ \d+ errors?, \d+ warnings?, \d+ infos?/);
      assert.match(summary, /\| error \| `my notes\/AGENTS\.md:4` \| `toon\/fence-decode` \|/);

      context['steps.check.outputs.exit-code'] = check.outputs['exit-code']!;
      const fail = runStep(steps[steps.length - 1]!, context, ws, work);
      assert.equal(fail.status, 1);
      assert.match(fail.stdout, /^::error title=ToonLens::toonlens check found error diagnostics/m);

      // A path that does not exist: the check step fails, and says why.
      const missing = runStep(step('check'), { ...context, 'inputs.paths': 'nope/' }, ws, work);
      assert.equal(missing.status, 2);
      assert.equal(missing.outputs['exit-code'], '2');
      assert.equal(missing.outputs['sarif-file'], undefined, 'nothing to upload');
      assert.match(missing.stdout, /^::error title=ToonLens check did not run::/m);
      assert.match(missing.stderr, /input file not found: nope\//);

      // A broken install fails the job with a clear message, not with "errors found".
      const broken = join(work, 'broken');
      mkdirSync(broken);
      const bad = runStep(step('install'), { ...context, 'github.action_path': broken }, ws, work);
      assert.equal(bad.status, 1);
      assert.match(bad.stdout, /^::error title=ToonLens could not be installed::.+is not a ToonLens checkout/m);
      assert.equal(bad.outputs.bin, undefined);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('.pre-commit-hooks.yaml', () => {
  test('one node hook running toonlens check on staged agent JSON, markdown and .toon files', () => {
    const hooks = yaml.load(readFileSync(join(REPO_ROOT, '.pre-commit-hooks.yaml'), 'utf8'));
    assert.ok(Array.isArray(hooks));
    assert.equal(hooks.length, 1);
    const hook = obj(hooks[0]);
    assert.equal(hook.id, 'toonlens-check');
    assert.equal(hook.entry, 'toonlens check --', 'file names after --, never read as options');
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
  test('package.json: repository, icon (128×128 PNG), galleryBanner, CHANGELOG, files, bins, library, no prepack', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Obj;
    assert.match(String(obj(pkg.repository).url), /^https:\/\/github\.com\/.+\.git$/);
    assert.equal(typeof obj(pkg.galleryBanner).color, 'string');
    const png = readFileSync(join(REPO_ROOT, String(pkg.icon)));
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.equal(png.toString('ascii', 12, 16), 'IHDR');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [128, 128]);
    assert.ok(existsSync(join(REPO_ROOT, 'CHANGELOG.md')));
    assert.ok(!existsSync(join(REPO_ROOT, '.vscodeignore')), 'vsce refuses both .vscodeignore and files');
    assert.equal(pkg.private, undefined, 'publishable');
    assert.deepEqual(pkg.dependencies ?? {}, {}, 'every runtime dependency is bundled into dist/');
    const files = pkg.files as string[];
    for (const f of ['bin/*.js', 'dist/cli.js', 'dist/server.js', 'dist/jsonWorker.js', 'dist/lib.js', 'dist/lib.d.ts', 'schemas/*.json', 'docs/*.md', 'CHANGELOG.md']) assert.ok(files.includes(f), f);
    for (const f of files) assert.doesNotMatch(f, /client|images|syntaxes/, `${f}: the npm package carries no editor client, screenshots or grammars`);
    assert.deepEqual(pkg.bin, { toonlens: './bin/toonlens.js', 'toonlens-language-server': './bin/toonlens-language-server.js' });
    assert.deepEqual(obj(obj(pkg.exports)['.']), { types: './dist/lib.d.ts', default: './dist/lib.js' });
    const scripts = obj(pkg.scripts);
    assert.equal(scripts.prepack, undefined, 'no build at pack time (a git install builds in prepare)');
    assert.match(String(scripts.prepare), /scripts\/prepare\.mjs/);
    assert.match(String(scripts.release), /scripts\/release\.mjs/);
    assert.match(readFileSync(join(REPO_ROOT, 'bin', 'toonlens.js'), 'utf8'), /require\('\.\.\/dist\/cli\.js'\)/);
    assert.match(readFileSync(join(REPO_ROOT, 'bin', 'toonlens-language-server.js'), 'utf8'), /require\('\.\.\/dist\/server\.js'\)/);
    assert.match(readFileSync(join(REPO_ROOT, '.gitignore'), 'utf8'), /^release\/$/m);
  });
});

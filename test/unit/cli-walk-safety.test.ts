// `toonlens check` stays inside the tree it walks (a file symlink out of it is skipped with a note, never
// read), and file names never act as options: `--` ends the options for every command, and the packaged
// integrations (action.yml, .pre-commit-hooks.yaml) put it before the paths.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as check } from '../../server/src/cli/check';
import { COMMANDS, main } from '../../server/src/cli/main';
import type { CliIO } from '../../server/src/cli/io';
import { REPO_ROOT } from '../paths';

// js-yaml is in node_modules through the dev tools; only its load() is used.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): unknown };

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function capture(cwd: string): CliIO & { out: string; err: string } {
  const io = { out: '', err: '', cwd, stdout: (t: string) => void (io.out += t), stderr: (t: string) => void (io.err += t), readStdin: async () => '' };
  return io;
}

/** top/outside/secret.json and top/repo (a repository) whose leak.json links to it. */
function leakLayout() {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'toonlens-walk-')));
  dirs.push(top);
  const repo = join(top, 'repo');
  mkdirSync(join(top, 'outside'), { recursive: true });
  mkdirSync(join(repo, '.git'), { recursive: true });
  mkdirSync(join(repo, 'docs'), { recursive: true });
  writeFileSync(join(top, 'outside', 'secret.json'), JSON.stringify({ SECRET_VALUE_123: 'hunter2', schema_version: 'SECRET_VALUE_123' }));
  symlinkSync('../outside/secret.json', join(repo, 'leak.json'));
  symlinkSync('../../outside/secret.json', join(repo, 'docs', 'leak2.verdict.json'));
  writeFileSync(join(repo, 'docs', 'real.md'), '# Real\n\nText.\n');
  symlinkSync('docs/real.md', join(repo, 'inner.md'));
  writeFileSync(join(repo, '.toonlens.json'), JSON.stringify({ documentKinds: { 'leak.json': 'verdict', '**/*.json': 'verdict' } }));
  return { top, repo };
}

describe('check walks stay inside the tree', () => {
  test('leak.json -> ../outside/secret.json with a documentKinds entry: skipped with a note, SARIF quotes nothing of it', async () => {
    const { repo } = leakLayout();
    for (const target of ['.', '**/*.json']) {
      const io = capture(repo);
      await check(['--format', 'sarif', target], io);
      assert.doesNotMatch(io.out + io.err, /SECRET_VALUE_123|hunter2/, target);
      assert.match(io.err, /leak\.json: a symlink to a file outside the folder being checked; skipped, not read/, target);
      if (target === '.') assert.match(io.err, /docs\/leak2\.verdict\.json: a symlink to a file outside/);
    }
  });

  test('a symlink to a file inside the tree is still checked', async () => {
    const { repo } = leakLayout();
    const io = capture(repo);
    await check(['--format', 'json', '.'], io);
    const files = (JSON.parse(io.out) as { file: string }[]).map((r) => r.file);
    assert.ok(files.includes('inner.md'), files.join(', '));
    assert.ok(files.includes('docs/real.md'));
    assert.ok(!files.some((f) => /leak/.test(f)), files.join(', '));
  });
});

describe('file names are never options', () => {
  /** A repository whose only document has one error, an evil config that would switch it off, and a file named like the option. */
  function optionNamedRepo() {
    const repo = realpathSync(mkdtempSync(join(tmpdir(), 'toonlens-optnames-')));
    dirs.push(repo);
    mkdirSync(join(repo, '.git'));
    writeFileSync(join(repo, 'bad.verdict.json'), '{ "schema_version": ');
    writeFileSync(join(repo, 'evil.json'), JSON.stringify({ rules: { 'json-syntax': 'off' } }));
    writeFileSync(join(repo, '--config=evil.json'), '{}');
    writeFileSync(join(repo, '--exit-zero'), '');
    return repo;
  }

  test('the pre-commit hook: a committed `--config=evil.json` cannot turn it green', async () => {
    const repo = optionNamedRepo();
    const hooks = yaml.load(readFileSync(join(REPO_ROOT, '.pre-commit-hooks.yaml'), 'utf8')) as { entry: string; args?: string[] }[];
    const [bin, ...entryArgs] = hooks[0]!.entry.split(' ');
    assert.equal(bin, 'toonlens');
    // pre-commit runs: entry, the hook's args, then the staged file names.
    const staged = ['--config=evil.json', 'bad.verdict.json'];
    const hook = capture(repo);
    assert.equal(await main([...entryArgs, ...(hooks[0]!.args ?? []), ...staged], hook), 1, hook.out + hook.err);
    assert.match(hook.out, /bad\.verdict\.json:1:\d+ error json-syntax/);
    // Without `--` the same file name is the option and hides the error: the reason the entry carries it.
    const naive = capture(repo);
    assert.equal(await main(['check', ...staged], naive), 0);
  });

  test('the Action: paths "--exit-zero ." cannot pass a failing check', async () => {
    const repo = optionNamedRepo();
    rmSync(join(repo, '--exit-zero'));
    const action = yaml.load(readFileSync(join(REPO_ROOT, 'action.yml'), 'utf8')) as { runs: { steps: { id?: string; run?: string }[] } };
    // The step reads one path per line into "${paths[@]}" and passes them after `--`.
    const line = action.runs.steps.find((s) => s.id === 'check')!.run!.split('\n').find((l) => l.includes(' check '))!;
    const words = line.slice(line.indexOf(' check ') + 1).split(' ');
    const dashes = words.indexOf('--');
    assert.ok(dashes > 0 && words[dashes + 1] === '"${paths[@]}"', line);
    const argv = [...words.slice(0, dashes).filter((w) => w !== '--output-file' && !w.includes('TOONLENS_SARIF')), '--', '--exit-zero', '.'];
    assert.deepEqual(argv.slice(0, 4), ['check', '--format', 'sarif', '--']);
    const io = capture(repo);
    assert.notEqual(await main(argv, io), 0);
    assert.match(io.err, /input file not found: --exit-zero/);
  });

  test('every command takes the words after `--` as paths: `--help`, `--version`, `--json` there are files', async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), 'toonlens-dashdash-')));
    dirs.push(dir);
    for (const cmd of COMMANDS) {
      for (const word of ['--help', '-h', '--version']) {
        const io = capture(dir);
        const args = cmd === 'schema-diff' ? ['--', word, 'other.json'] : ['--', word];
        const code = await main([cmd, ...args], io);
        assert.notEqual(code, 0, `${cmd} ${args.join(' ')}: ${io.out}`);
        assert.doesNotMatch(io.out, /Usage|^\d+\.\d+\.\d+/, `${cmd} ${args.join(' ')} printed help or the version`);
        assert.match(io.err + io.out, new RegExp(word.replace(/-/g, '\\-')), `${cmd}: the message names the file ${word}`);
      }
    }
  });
});

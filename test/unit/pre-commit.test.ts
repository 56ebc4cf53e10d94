/**
 * The pre-commit hook installs and runs from a git checkout of this repository, as pre-commit users get it:
 * `pre-commit try-repo <this repo> toonlens-check` in a fresh git repository with a fresh PRE_COMMIT_HOME (so the
 * hook's node environment is really installed: npm installs the checkout as a git dependency and `prepare` builds
 * dist/). A staged file whose name starts with '-' is checked (the entry ends its options with `--`); an error
 * fails the hook, a clean file passes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';

const version = spawnSync('pre-commit', ['--version'], { encoding: 'utf8' });
const missing = version.error !== undefined || version.status !== 0;
if (missing) {
  // Loud on purpose: this is the only test that may skip, and only here. .ci/run installs pre-commit.
  process.stderr.write('\n*** pre-commit is not installed: the pre-commit hook test is SKIPPED (pip install pre-commit==4.6.2) ***\n\n');
}

test('pre-commit try-repo: the hook installs from the checkout and runs', { timeout: 900_000, skip: missing ? 'pre-commit is not installed (pip install pre-commit)' : false }, () => {
  const work = mkdtempSync(join(tmpdir(), 'toonlens-pre-commit-'));
  try {
    const repo = join(work, 'repo');
    const env = { ...process.env, PRE_COMMIT_HOME: join(work, 'home'), PRE_COMMIT_COLOR: 'never', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
    const git = (...args: string[]) => {
      const r = spawnSync('git', args, { cwd: repo, env, encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    };
    spawnSync('git', ['init', '-q', repo], { env });
    writeFileSync(join(repo, '-broken.md'), '# Data\n\n```toon\nitems[3]: a,b\n```\n');
    writeFileSync(join(repo, 'ok.md'), '# Notes\n\nPlain text.\n');
    writeFileSync(join(repo, 'code.ts'), 'export {};\n');
    git('add', '.');
    const tryRepo = (...args: string[]) => spawnSync('pre-commit', ['try-repo', REPO_ROOT, 'toonlens-check', ...args], { cwd: repo, env, encoding: 'utf8', timeout: 850_000 });

    // Every staged file (pre-commit's own argument parser would read '-broken.md' given to --files as an option).
    const failed = tryRepo('--all-files');
    assert.equal(failed.status, 1, failed.stdout + failed.stderr);
    assert.match(failed.stdout, /^-broken\.md:4:1 error toon\/fence-decode /m, failed.stdout);
    assert.match(failed.stdout, /2 documents checked: 1 error/, 'only markdown, JSON and .toon files reach the hook');
    assert.doesNotMatch(failed.stdout + failed.stderr, /Cannot find module|ENOTEMPTY|internal error/);

    const passed = tryRepo('--files', 'ok.md');
    assert.equal(passed.status, 0, passed.stdout + passed.stderr);
    assert.match(passed.stdout, /toonlens check\.+Passed/);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

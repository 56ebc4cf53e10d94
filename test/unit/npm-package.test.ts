/**
 * The npm package installs and runs: `npm pack` (its prepack builds the bundles) on a copy of the sources,
 * `npm i -g ./toonlens-<v>.tgz --prefix <tmp>` from the npm cache, then the installed `toonlens` binary:
 * --version, --help, every command's --help, and real commands on real files — no build step after install.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** What `npm pack` needs of the repository (the prepack build reads the sources). */
const SOURCES = ['package.json', 'esbuild.mjs', 'tsconfig.json', 'bin', 'server', 'client', 'schemas', 'syntaxes', 'images', 'docs', 'README.md', 'LICENSE', 'CHANGELOG.md'];

test('npm pack → npm i -g from the tarball → toonlens runs from the prefix', { timeout: 600_000 }, () => {
  const work = mkdtempSync(join(tmpdir(), 'toonlens-npm-'));
  try {
    // A copy of the sources, so the prepack build writes its own dist/ (the repository's is in use by other tests).
    const src = join(work, 'src');
    for (const f of SOURCES) cpSync(join(REPO_ROOT, f), join(src, f), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
    const packed = JSON.parse(execFileSync(NPM, ['pack', '--json', '--pack-destination', work], { cwd: src, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })) as { filename: string; files: { path: string }[] }[];
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(packed[0]!.filename, `toonlens-${version}.tgz`);
    const files = packed[0]!.files.map((f) => f.path).sort();
    for (const f of ['bin/toonlens.js', 'dist/cli.js', 'dist/server.js', 'dist/tokenizer-o200k_base.js', 'dist/tokenizer-cl100k_base.js', 'dist/tokenizer-o200k_base.json', 'dist/tokenizer-cl100k_base.json', 'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'schemas/toonlens-config.v1.json']) assert.ok(files.includes(f), `${f} in the tarball`);
    assert.ok(!files.some((f) => /^(server|client|test|bench)\//.test(f) || f.endsWith('.map')), `no sources, tests or maps: ${files.join(', ')}`);

    const prefix = join(work, 'prefix');
    const install = spawnSync(NPM, ['install', '-g', join(work, packed[0]!.filename), '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { env, encoding: 'utf8' });
    assert.equal(install.status, 0, install.stderr);
    const bin = process.platform === 'win32' ? join(prefix, 'toonlens.cmd') : join(prefix, 'bin', 'toonlens');
    assert.ok(existsSync(bin), 'the bin is linked into the prefix');
    assert.ok(!existsSync(join(prefix, 'lib', 'node_modules', 'toonlens', 'server')), 'installed without sources');

    const toonlens = (args: string[], cwd = work) => spawnSync(bin, args, { cwd, env, encoding: 'utf8' });
    const v = toonlens(['--version']);
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.stdout, `${version}\n`);
    const help = toonlens(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^toonlens \d+\.\d+\.\d+ — /);
    for (const c of ['check', 'profile', 'convert', 'plan', 'validate', 'decode', 'apply', 'schema-diff']) {
      const h = toonlens([c, '--help']);
      assert.equal(h.status, 0, `${c} --help: ${h.stderr}`);
      assert.match(h.stdout, new RegExp(`^Usage: toonlens ${c}[\\s\\S]*Examples:`), c);
    }

    // Every command on real files.
    cpSync(join(REPO_ROOT, 'examples'), join(work, 'examples'), { recursive: true });
    const md = 'examples/markdown/long-section.md';
    const check = toonlens(['check', 'examples/markdown', 'examples/agent-json/unknown-verdict.verdict.json']);
    assert.equal(check.status, 1, check.stderr);
    assert.match(check.stdout, /long-section\.md:3:1 info toon\/long-section /);
    assert.match(check.stdout, /unknown-verdict\.verdict\.json:\d+:\d+ error schema /);
    assert.equal(toonlens(['profile', md, '--json']).status, 0);
    const plan = toonlens(['plan', 'examples/markdown/config-table.md']);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /net: \d+ → \d+ chars/);
    // Both encodings load from their own bundles next to dist/cli.js.
    const cl100k = toonlens(['plan', 'examples/markdown/config-table.md', '--tokenizer', 'cl100k_base']);
    assert.equal(cl100k.status, 0, cl100k.stderr);
    assert.match(cl100k.stdout, /cl100k_base/);
    const conv = toonlens(['convert', 'examples/markdown/config-table.md', '--out', 'out.toon']);
    assert.equal(conv.status, 0, conv.stderr);
    assert.equal(toonlens(['validate', 'out.toon']).status, 0);
    assert.equal(toonlens(['decode', 'out.toon', '--out', 'out.json']).status, 0);
    assert.ok(JSON.parse(readFileSync(join(work, 'out.json'), 'utf8')));
    writeFileSync(join(work, 'old.json'), '{"type":"object","properties":{"a":{"type":"string"}}}');
    writeFileSync(join(work, 'new.json'), '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}');
    assert.equal(toonlens(['schema-diff', 'old.json', 'new.json', '--role', 'input']).status, 1);
    const apply = toonlens(['apply', 'examples/golden/valid-report.json', '--dry-run']);
    assert.ok(apply.status === 0 || apply.status === 1, apply.stderr);
    const missing = toonlens(['plan', 'nope.md', '--json']);
    assert.equal(missing.status, 1);
    assert.equal((JSON.parse(missing.stdout) as { error: { code: string } }).error.code, 'input_not_found');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

#!/usr/bin/env node
// `npm run release`: the two things a user installs, built from this checkout into release/ (git-ignored):
//   release/toonlens-<version>.tgz   the npm package (CLI, language server, library) — `npm install -g ./…tgz`
//   release/toonlens-<version>.vsix  the editor extension — `code --install-extension ./…vsix`
// Options: --out DIR (instead of release/), --vsix (only the VSIX), --tarball (only the tarball),
// --no-build (use the dist/ already built with --production).
//
// The tarball's contents are package.json's `files`; the VSIX's are VSIX_FILES below. Each is packed from a
// staging folder with its own package.json: the tarball's without development scripts and dependencies, the
// VSIX's listing VSIX_FILES as its `files` (vsce takes `files` as its list and refuses a .vscodeignore beside
// one), so each artifact carries only what it runs. Both bundle every dependency: the
// tarball installs with no registry.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const arg = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const known = new Set(['--out', '--vsix', '--tarball', '--no-build']);
for (let i = 0; i < argv.length; i++) {
  if (!known.has(argv[i])) fail(`unknown option '${argv[i]}' (options: ${[...known].join(', ')})`);
  if (argv[i] === '--out') i++;
}
const out = resolve(arg('--out') ?? join(ROOT, 'release'));
const onlyVsix = argv.includes('--vsix');
const onlyTarball = argv.includes('--tarball');

/** What the extension runs: the client, the server and its worker, the tokenizer ranks, schemas, grammars. */
export const VSIX_FILES = ['dist/client.js', 'dist/server.js', 'dist/jsonWorker.js', 'dist/tokenizer-o200k_base.js', 'dist/tokenizer-o200k_base.json', 'dist/tokenizer-cl100k_base.js', 'dist/tokenizer-cl100k_base.json', 'schemas', 'syntaxes/toon.tmLanguage.json', 'syntaxes/toon-markdown-injection.tmLanguage.json', 'syntaxes/toon.language-configuration.json', 'images/icon.png', 'README.md', 'LICENSE', 'CHANGELOG.md'];

function fail(message) {
  process.stderr.write(`release: ${message}\n`);
  process.exit(1);
}

function run(cmd, args, cwd = ROOT) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });
  } catch (e) {
    fail(`${cmd} ${args.join(' ')} failed (exit ${e.status ?? e.signal})`);
  }
}

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
mkdirSync(out, { recursive: true });
if (!argv.includes('--no-build')) run(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production']);
const needed = [...(onlyVsix ? [] : pkg.files.filter((f) => !f.includes('*'))), ...(onlyTarball ? [] : VSIX_FILES)];
for (const f of needed) if (!existsSync(join(ROOT, f))) fail(`${f} is missing: build with 'node esbuild.mjs --production' or drop --no-build`);

const written = [];
if (!onlyVsix) {
  // The tarball is packed from a staging folder too: the files npm would pack, and a package.json without the
  // development scripts and dependencies (a `prepare` there makes npm warn about install scripts on every
  // `npm install -g ./…tgz`, though it never runs for a tarball).
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const listed = JSON.parse(run(npm, ['pack', '--dry-run', '--json', '--ignore-scripts']))[0].files.map((f) => f.path);
  const stage = mkdtempSync(join(tmpdir(), 'toonlens-pack-'));
  try {
    for (const f of listed) if (f !== 'package.json') cpSync(join(ROOT, f), join(stage, f));
    const manifest = { ...pkg };
    for (const k of ['scripts', 'devDependencies', 'overrides']) delete manifest[k];
    writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    const packed = JSON.parse(run(npm, ['pack', '--json', '--ignore-scripts', '--pack-destination', out], stage));
    written.push(join(out, packed[0].filename));
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
if (!onlyTarball) {
  const stage = mkdtempSync(join(tmpdir(), 'toonlens-vsix-'));
  try {
    for (const f of VSIX_FILES) cpSync(join(ROOT, f), join(stage, f), { recursive: true });
    const manifest = { ...pkg };
    for (const k of ['files', 'scripts', 'devDependencies', 'dependencies', 'bin', 'exports', 'types', 'overrides']) delete manifest[k];
    manifest.files = VSIX_FILES;
    writeFileSync(join(stage, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
    const vsix = join(out, `${pkg.name}-${pkg.version}.vsix`);
    // Relative links in the README become links into the repository (vsce's default), so the Extensions view has none that are dead.
    run(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--out', vsix], stage);
    written.push(vsix);
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}
for (const f of written) process.stdout.write(`${f}\n`);
if (readdirSync(ROOT).some((n) => n.endsWith('.tgz') || n.endsWith('.vsix'))) process.stderr.write('release: note: a .tgz or .vsix is left in the repository root from an earlier build\n');

#!/usr/bin/env node
// `npm run prepare`, which npm runs after `npm install` in a checkout, before `npm pack`, and when it installs this
// repository as a git dependency (`npm install -g git+https://…`, pre-commit's node hooks): builds dist/ with
// `node esbuild.mjs --production`. In that last case npm runs the clone's own install with the outer `--global` in
// its environment, so the clone's devDependencies (esbuild among them) are never installed and a plain build
// fails; then they are installed here first, locally and exactly as package-lock.json pins them (from the npm
// cache where it has them: the lockfile pins every version and integrity, so nothing needs revalidating).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const resolves = (name) => {
  try {
    createRequire(join(ROOT, 'package.json')).resolve(name);
    return true;
  } catch {
    return false;
  }
};

if (!resolves('esbuild') || !resolves('typescript')) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_(global|location|prefix)$/i.test(k)));
  process.stderr.write('toonlens prepare: installing the build tools (package-lock.json) to build dist/\n');
  try {
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['ci', '--include=dev', '--ignore-scripts', '--no-audit', '--no-fund', '--no-global', '--prefer-offline'], { cwd: ROOT, env, stdio: ['ignore', 2, 2] });
  } catch (e) {
    process.stderr.write(`toonlens prepare: npm ci failed (exit ${e.status ?? e.signal}); cannot build dist/\n`);
    process.exit(1);
  }
}
try {
  execFileSync(process.execPath, [join(ROOT, 'esbuild.mjs'), '--production'], { cwd: ROOT, stdio: ['ignore', 2, 2] });
} catch (e) {
  process.stderr.write(`toonlens prepare: the build failed (exit ${e.status ?? e.signal})\n`);
  process.exit(1);
}

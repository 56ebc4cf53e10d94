#!/usr/bin/env node
// One runner for the real-editor tests (`npm run test:e2e`).
//   1. Builds the extension, packs the VSIX (scripts/release.mjs --vsix) and unpacks it as VS Code installs it
//      (its extension/ folder): the suite runs against exactly what users install, never the development folder.
//      Bundles the mocha suite (test/e2e/suite → dist/e2e/index.js).
//   2. Copies the fixture workspace to a fresh temp folder (the tests edit files in it).
//   3. Tries @vscode/test-electron: where VS Code can be downloaded, the suite runs there.
//   4. Otherwise (these machines are offline): installs code-server's bundled VS Code server, headless
//      Debian chromium and playwright-core (test/e2e/setup.sh, idempotent, into .e2e/), starts the server
//      with the smoke-test driver and opens the workbench with extensionDevelopmentPath/extensionTestsPath
//      in the URL payload; the extension host runs the suite and reports its exit code back.
//   Then the restricted-mode run, and the reopen run: a section converted in one window reverts exactly in a new
//   window of the same folder (E2E_SKIP_REOPEN=1 skips it, E2E_ONLY_REOPEN=1 runs only it).
//   --screenshots also takes the README's screenshots (docs/images/) from the same server.
// Exit: 0 passed, 1 failed, 2 infrastructure error. Env: VSCODE_E2E_FORCE=1 skips test-electron.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const e2eDir = path.join(repo, 'test', 'e2e');
const E2E_HOME = process.env.E2E_HOME ?? path.join(repo, '.e2e');
const takeScreenshots = process.argv.includes('--screenshots');
const t0 = Date.now();
const lap = (what) => console.log(`[e2e ${((Date.now() - t0) / 1000).toFixed(1)}s] ${what}`);

/**
 * The environment without npm's lifecycle variables: run as `npm run test:e2e`, npm_config_* (user agent,
 * node version …) would leak into the Node 24 installs below and make code-server's postinstall see Node 20.
 */
const baseEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: repo, ...opts });
  return r.status ?? 2;
}

async function build() {
  if (sh('npm', ['run', 'build', '--silent']) !== 0) throw new Error('npm run build failed');
  const esbuild = await import('esbuild');
  for (const entry of ['index', 'restricted', 'reopen-convert', 'reopen-revert']) {
    await esbuild.build({
      entryPoints: [path.join(e2eDir, 'suite', `${entry}.ts`)],
      outfile: path.join(repo, 'dist', 'e2e', `${entry}.js`),
      bundle: true, platform: 'node', format: 'cjs', target: 'node20',
      external: ['vscode', 'mocha'], logLevel: 'warning',
    });
  }
}

/** The workspaces this run made: removed when it passes, kept (their paths printed) when it fails. */
const workspaces = [];

/**
 * Packs the VSIX from the build just made and unpacks its `extension/` folder, as `code --install-extension`
 * does: the folder the suite loads the extension from.
 */
function installedVsix() {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'toonlens-vsix-'));
  workspaces.push(out);
  if (sh(process.execPath, [path.join(repo, 'scripts', 'release.mjs'), '--vsix', '--no-build', '--out', out]) !== 0) throw new Error('packing the VSIX failed');
  const vsix = fs.readdirSync(out).find((n) => n.endsWith('.vsix'));
  const buf = fs.readFileSync(path.join(out, vsix));
  const ext = path.join(out, 'extension');
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  let p = buf.readUInt32LE(eocd + 16);
  for (let i = buf.readUInt16LE(eocd + 10); i > 0; i--) {
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
    if (!name.startsWith('extension/') || name.endsWith('/')) continue;
    const target = path.join(out, name);
    if (!target.startsWith(ext + path.sep)) throw new Error(`a VSIX entry outside extension/: ${name}`);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + size);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, method === 8 ? inflateRawSync(raw) : raw);
  }
  return ext;
}

function freshWorkspace() {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toonlens-ws-'));
  workspaces.push(ws);
  fs.cpSync(path.join(e2eDir, 'workspace'), ws, { recursive: true });
  return fs.realpathSync(ws);
}

function settleWorkspaces(code) {
  if (code === 0) for (const ws of workspaces) fs.rmSync(ws, { recursive: true, force: true });
  else if (workspaces.length) console.error(`[e2e] the failed run's workspaces are kept: ${workspaces.join(' ')}`);
  return code;
}

async function viaTestElectron(ws, extension) {
  if (process.env.VSCODE_E2E_FORCE === '1') return undefined;
  let exe;
  try {
    const te = await import('@vscode/test-electron');
    exe = await te.downloadAndUnzipVSCode({ version: process.env.VSCODE_VERSION ?? 'stable', timeout: 15000 });
    lap(`VS Code downloaded: ${exe}`);
    await te.runTests({
      vscodeExecutablePath: exe, extensionDevelopmentPath: extension,
      extensionTestsPath: path.join(repo, 'dist', 'e2e', 'index.js'),
      launchArgs: [ws, '--disable-extensions'],
    });
    return 0;
  } catch (err) {
    if (!exe) {
      lap(`@vscode/test-electron cannot download VS Code (${String(err.message).split('\n')[0]}); using the VS Code server`);
      return undefined;
    }
    console.error('tests failed:', err);
    return 1;
  }
}

/** Environment of the e2e scripts (contained HOME/TMPDIR, Node 24 on PATH), read from env.sh. */
function e2eEnv() {
  const r = spawnSync('bash', ['-c', `. "${path.join(e2eDir, 'env.sh')}" && env -0`], {
    env: { ...baseEnv, E2E_HOME }, encoding: 'utf8', maxBuffer: 1 << 24,
  });
  const env = {};
  for (const kv of r.stdout.split('\0')) {
    const i = kv.indexOf('=');
    if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return env;
}

/** `trust: true` keeps workspace trust on (a folder opened by URL is then untrusted: restricted mode). */
async function startServer(env, { trust = false } = {}) {
  const data = fs.mkdtempSync(path.join(env.TMPDIR, 'run-'));
  for (const d of ['user', 'ext', 'server']) fs.mkdirSync(path.join(data, d), { recursive: true });
  // No trust prompt at startup: the folder simply stays untrusted.
  for (const dir of [path.join(data, 'user', 'User'), path.join(data, 'server', 'data', 'User')]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.emptyWindow': false }));
  }
  const log = fs.openSync(path.join(data, 'server.log'), 'w');
  const child = spawn(env.E2E_NODE, [env.E2E_SERVER_MAIN,
    '--host', '127.0.0.1', '--port', '0', '--without-connection-token', '--accept-server-license-terms',
    '--server-data-dir', path.join(data, 'server'), '--user-data-dir', path.join(data, 'user'),
    '--extensions-dir', path.join(data, 'ext'), '--telemetry-level', 'off', ...(trust ? [] : ['--disable-workspace-trust']),
    '--enable-smoke-test-driver'], { env: { ...env, XDG_RUNTIME_DIR: data }, stdio: ['ignore', log, log], detached: true });
  const logPath = path.join(data, 'server.log');
  for (let i = 0; i < 300; i++) {
    const m = fs.readFileSync(logPath, 'utf8').match(/Extension host agent listening on (\d+)/);
    if (m) return { url: `http://127.0.0.1:${m[1]}`, stop: () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ } }, logPath };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
  throw new Error(`VS Code server did not start:\n${fs.readFileSync(logPath, 'utf8').slice(-3000)}`);
}

function loadPlaywright(env) {
  return createRequire(path.join(env.E2E_TOOLS, 'package.json'))('playwright-core');
}

async function launchBrowser(env) {
  const { chromium } = loadPlaywright(env);
  return chromium.launch({
    executablePath: process.env.E2E_CHROMIUM ?? '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-sync',
      '--disable-background-networking', '--disable-component-update', '--password-store=basic', '--disable-quic'],
    env: { ...env, HOME: env.HOME, TMPDIR: env.TMPDIR },
  });
}

const remoteUri = (server, p) => `vscode-remote://${new URL(server).host}${path.resolve(p)}`;
function workbenchUrl(server, folder, payload) {
  return `${new URL(server).origin}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`;
}

/** Prints what the extension host logs (mocha's reporter): those console calls carry $logExtensionHostMessage on their stack. */
async function forwardExtensionHostConsole(page) {
  const MARK = '__toonlens_ext_host__';
  await page.addInitScript((mark) => {
    for (const m of ['log', 'info', 'warn', 'error']) {
      const orig = console[m];
      console[m] = function (...args) {
        const fromExtHost = (new Error().stack || '').includes('$logExtensionHostMessage');
        return orig.apply(this, fromExtHost ? [mark, ...args] : args);
      };
    }
  }, MARK);
  page.on('console', async (msg) => {
    let vals = await Promise.all(msg.args().map((a) => a.jsonValue().catch(() => String(a))));
    if (vals[0] !== MARK) return;
    vals = vals.slice(1);
    const lvl = typeof vals[0] === 'string' && /^%c\s*(TRACE|DEBUG|INFO|WARN|ERR)\s*$/.test(vals[0]);
    if (lvl) vals = vals.slice(2);
    const { format } = await import('node:util');
    const text = format(...vals).replace(/^\[Extension Host\] ?/, '').replace(/ \(at [^)]*\)\s*$/, '').replace(/\n$/, '');
    process.stdout.write(`${text}\n`);
  });
}

async function runSuiteInServer(env, server, ws, extension, entry = 'index.js') {
  const browser = await launchBrowser(env);
  try {
    const page = await browser.newPage();
    await forwardExtensionHostConsole(page);
    let onExit;
    const exited = new Promise((r) => { onExit = r; });
    await page.exposeFunction('codeAutomationExit', (c) => onExit(c));
    const url = workbenchUrl(server.url, ws, [
      ['extensionDevelopmentPath', remoteUri(server.url, extension)],
      ['extensionTestsPath', remoteUri(server.url, path.join(repo, 'dist', 'e2e', entry))],
      ['skipWelcome', 'true'], ['skipReleaseNotes', 'true'],
    ]);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60000 });
    const timeoutMs = Number(process.env.E2E_TEST_TIMEOUT_MS ?? 240000);
    const result = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), timeoutMs))]);
    if (result === 'timeout') { lap(`TIMEOUT after ${timeoutMs} ms`); return 2; }
    lap(`extension host exited with code ${result}`);
    return Number.isInteger(result) ? result : 2;
  } finally {
    await browser.close().catch(() => {});
  }
}

async function main() {
  await build();
  const extension = installedVsix();
  lap(`extension from the VSIX: ${extension}`);
  const ws = freshWorkspace();
  lap(`workspace ${ws}`);
  const viaElectron = await viaTestElectron(ws, extension);
  if (viaElectron !== undefined) return viaElectron;
  if (sh('bash', [path.join(e2eDir, 'setup.sh')], { env: { ...baseEnv, E2E_HOME } }) !== 0) return 2;
  const env = e2eEnv();
  let server = await startServer(env);
  lap(`VS Code server ${server.url}`);
  try {
    // E2E_ONLY_REOPEN=1: only the reopen run (exact Revert across windows).
    let code = process.env.E2E_ONLY_REOPEN ? 0 : await runSuiteInServer(env, server, ws, extension);
    if (code === 2) {
      // An infrastructure failure (the workbench never reported back), not a test failure: one fresh try.
      lap('infrastructure failure: retrying once with a fresh server and workspace');
      server.stop();
      server = await startServer(env);
      code = await runSuiteInServer(env, server, freshWorkspace(), extension);
    }
    if (code === 0 && !process.env.E2E_SKIP_RESTRICTED && !process.env.E2E_ONLY_REOPEN) {
      // The restricted-mode run: workspace trust ON, the folder not trusted.
      server.stop();
      server = await startServer(env, { trust: true });
      lap(`VS Code server with workspace trust on ${server.url}`);
      code = await runSuiteInServer(env, server, freshWorkspace(), extension, 'restricted.js');
      server.stop();
      server = await startServer(env);
    }
    if (code === 0 && !process.env.E2E_SKIP_REOPEN) {
      // Exact Revert across windows: convert in one window, then revert in a new window of the same folder.
      const folder = freshWorkspace();
      fs.copyFileSync(path.join(e2eDir, 'reopen', 'reopen-ports.md'), path.join(folder, 'docs', 'reopen-ports.md'));
      code = await runSuiteInServer(env, server, folder, extension, 'reopen-convert.js');
      lap(`reopen: first window exited with ${code}`);
      if (code === 0) {
        // The new window opens the folder through a symlink: VS Code then hands the extension another per-window
        // storage folder (as it does for a folder reopened in a new window of the desktop app), the folder's real
        // path stays the same.
        const again = `${folder}-again`;
        fs.symlinkSync(folder, again);
        workspaces.push(again);
        code = await runSuiteInServer(env, server, again, extension, 'reopen-revert.js');
        lap(`reopen: second window exited with ${code}`);
      }
    }
    if (code === 0 && takeScreenshots) {
      const { takeReadmeScreenshots } = await import('./screenshots.mjs');
      await takeReadmeScreenshots({ env, server, repo, launchBrowser: () => launchBrowser(env), remoteUri, workbenchUrl, freshWorkspace, lap });
    }
    return code;
  } finally {
    server.stop();
  }
}

main().then((code) => process.exit(settleWorkspaces(code)), (err) => { console.error(`[e2e] ${err.stack ?? err}`); process.exit(settleWorkspaces(2)); });

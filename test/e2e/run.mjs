#!/usr/bin/env node
// One runner for the real-editor tests (`npm run test:e2e`).
//   1. Builds the VSIX the way a release does (scripts/release.mjs --vsix: a production build, packed by vsce)
//      and bundles the mocha suite (test/e2e/suite → dist/e2e/*.js).
//   2. Copies the fixture workspace to a fresh temp folder (the tests edit files in it).
//   3. Tries @vscode/test-electron: where VS Code can be downloaded, its own CLI installs the VSIX into a fresh
//      extensions dir and the suite runs there.
//   4. Otherwise (these machines are offline): installs code-server's bundled VS Code server, headless
//      Debian chromium and playwright-core (test/e2e/setup.sh, idempotent, into .e2e/), installs the VSIX with
//      the server's own CLI (`--install-extension x.vsix --extensions-dir DIR`, as a user of code-server or of a
//      remote VS Code does), starts the server on that extensions dir with the smoke-test driver and opens the
//      workbench with extensionTestsPath in the URL payload. The extension under test is the installed one:
//      extensionDevelopmentPath names only an empty runner extension (VS Code runs extension tests only with
//      one), never the repository or an unpacked folder, and every suite asserts that ToonLens came from DIR.
//   Then the restricted-mode run, and the reopen run: a section converted in one window reverts exactly in a new
//   window of the same folder (E2E_SKIP_REOPEN=1 skips it, E2E_ONLY_REOPEN=1 runs only it; E2E_SKIP_TIMINGS=1 marks
//   the timing test pending). Last the agent-context run, on the mixed context fixture opened as a folder of its own
//   (E2E_SKIP_CONTEXT=1 skips it, E2E_ONLY_CONTEXT=1 runs only it).
//   Lines the suite prints as `[e2e timing] …` (editor timings) are printed again at the end, with the laps.
//   --screenshots also takes the README's screenshots (docs/images/) from the same server.
// Exit: 0 passed, 1 failed, 2 infrastructure error. Env: VSCODE_E2E_FORCE=1 skips test-electron.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

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

/** The workspaces this run made: removed when it passes, kept (their paths printed) when it fails. */
const workspaces = [];

/** Builds and packs the VSIX as a release does (into a temp folder), and bundles the suite; the VSIX's path. */
async function build() {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'toonlens-vsix-'));
  workspaces.push(out);
  if (sh(process.execPath, [path.join(repo, 'scripts', 'release.mjs'), '--vsix', '--out', out]) !== 0) throw new Error('building the VSIX (scripts/release.mjs --vsix) failed');
  const vsix = fs.readdirSync(out).find((n) => n.endsWith('.vsix'));
  if (!vsix) throw new Error(`scripts/release.mjs --vsix wrote no .vsix into ${out}`);
  const esbuild = await import('esbuild');
  for (const entry of ['index', 'restricted', 'reopen-convert', 'reopen-revert', 'context']) {
    await esbuild.build({
      entryPoints: [path.join(e2eDir, 'suite', `${entry}.ts`)],
      outfile: path.join(repo, 'dist', 'e2e', `${entry}.js`),
      bundle: true, platform: 'node', format: 'cjs', target: 'node20',
      external: ['vscode', 'mocha'], logLevel: 'warning',
    });
  }
  return path.join(out, vsix);
}

/** ToonLens's extension id, as VS Code names its folder in an extensions dir (`<id>-<version>`). */
const pkg = JSON.parse(fs.readFileSync(path.join(repo, 'package.json'), 'utf8'));
const EXTENSION_ID = `${pkg.publisher}.${pkg.name}`;

/**
 * The extension folder `--install-extension` made in `extensionsDir`, checked to be the VSIX's version and
 * to be listed in the dir's extensions.json (what VS Code scans at start-up).
 */
function installedFolder(extensionsDir) {
  const folder = path.join(extensionsDir, `${EXTENSION_ID}-${pkg.version}`);
  if (!fs.existsSync(path.join(folder, 'package.json'))) {
    throw new Error(`the VSIX did not install into ${extensionsDir} (found: ${fs.readdirSync(extensionsDir).join(', ') || 'nothing'})`);
  }
  const listed = JSON.parse(fs.readFileSync(path.join(extensionsDir, 'extensions.json'), 'utf8'));
  if (!listed.some((e) => e.identifier?.id?.toLowerCase() === EXTENSION_ID && e.version === pkg.version)) {
    throw new Error(`${EXTENSION_ID}@${pkg.version} is not listed in ${extensionsDir}/extensions.json`);
  }
  return folder;
}

/**
 * An extension with nothing in it, the run's extensionDevelopmentPath: VS Code runs extension tests only in a
 * window with a development extension, and this one keeps that from being ToonLens (which then loads as
 * installed, exactly as for a user).
 */
function runnerExtension(parent) {
  const dir = path.join(parent, 'e2e-runner');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({
    name: 'toonlens-e2e-runner', displayName: 'ToonLens e2e runner (empty)', publisher: 'toonlens-e2e', version: '0.0.0',
    engines: { vscode: '*' }, description: 'Hosts the ToonLens e2e suite; contributes nothing.',
  }, null, 2));
  return dir;
}

/**
 * The documents of the timing test, written into `dir`: real markdown, the repository's corpus fixtures with
 * numbered headings, made by the bench's own generator (the bench's "corpus markdown" input: the editor's
 * figures and the bench's are of one text), ~1 MB, and as the anchor its first ~10 KB cut at a heading
 * (found by markdown-it).
 */
function timingDocuments(dir) {
  fs.mkdirSync(dir, { recursive: true });
  const script = `const gen = await import('./bench/markdown-gen.ts');
const { default: MarkdownIt } = await import('markdown-it');
const { writeFileSync } = await import('node:fs');
const large = (gen.corpusMarkdownDocument ?? gen.default.corpusMarkdownDocument)(1_000_000);
const head = large.slice(0, 40_000);
const lineStarts = [0];
for (let i = 0; i < head.length; i++) if (head.charCodeAt(i) === 10) lineStarts.push(i + 1);
const cut = new MarkdownIt().parse(head, {}).filter((t) => t.type === 'heading_open' && t.map).map((t) => lineStarts[t.map[0]]).find((at) => at >= 10_000);
if (cut === undefined) throw new Error('no heading after 10 KB');
writeFileSync(${JSON.stringify(path.join(dir, 'large-1mb.md'))}, large);
writeFileSync(${JSON.stringify(path.join(dir, 'anchor-10kb.md'))}, large.slice(0, cut));`;
  if (sh(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script]) !== 0) throw new Error('generating the timing documents failed');
  return dir;
}

function freshWorkspace() {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toonlens-ws-'));
  workspaces.push(ws);
  fs.cpSync(path.join(e2eDir, 'workspace'), ws, { recursive: true });
  return fs.realpathSync(ws);
}

/**
 * The mixed agent-context fixture (test/fixtures/context/mixed, which the unit tests pin) as a fresh folder of its
 * own, with the e2e workspace's editor settings: its agent files sit at the root, and the main workspace's findings
 * stay as they are.
 */
function contextWorkspace() {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'toonlens-context-'));
  workspaces.push(ws);
  fs.cpSync(path.join(repo, 'test', 'fixtures', 'context', 'mixed'), ws, { recursive: true });
  fs.cpSync(path.join(e2eDir, 'workspace', '.vscode'), path.join(ws, '.vscode'), { recursive: true });
  return fs.realpathSync(ws);
}

function settleWorkspaces(code) {
  if (code === 0) for (const ws of workspaces) fs.rmSync(ws, { recursive: true, force: true });
  else if (workspaces.length) console.error(`[e2e] the failed run's workspaces are kept: ${workspaces.join(' ')}`);
  return code;
}

async function viaTestElectron(ws, vsix, extensionsDir, runner, timingDir) {
  if (process.env.VSCODE_E2E_FORCE === '1') return undefined;
  let exe;
  try {
    const te = await import('@vscode/test-electron');
    exe = await te.downloadAndUnzipVSCode({ version: process.env.VSCODE_VERSION ?? 'stable', timeout: 15000 });
    lap(`VS Code downloaded: ${exe}`);
    const cli = te.resolveCliPathFromVSCodeExecutablePath(exe);
    if (sh(cli, ['--install-extension', vsix, '--extensions-dir', extensionsDir]) !== 0) throw new Error('code --install-extension failed');
    lap(`VSIX installed: ${installedFolder(extensionsDir)}`);
    await te.runTests({
      vscodeExecutablePath: exe, extensionDevelopmentPath: runner,
      extensionTestsPath: path.join(repo, 'dist', 'e2e', 'index.js'),
      extensionTestsEnv: { TOONLENS_E2E_EXTENSIONS_DIR: extensionsDir, TOONLENS_E2E_TIMING_DIR: timingDir },
      launchArgs: [ws, '--extensions-dir', extensionsDir],
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

/**
 * Installs the VSIX with the VS Code server's own CLI, as a user of a remote VS Code or of code-server does
 * (the server's `bin/code-server --install-extension` is `node server-main.js --install-extension`); the folder
 * it made.
 */
function installVsix(env, vsix, extensionsDir) {
  const data = fs.mkdtempSync(path.join(env.TMPDIR, 'install-'));
  const r = spawnSync(env.E2E_NODE, [env.E2E_SERVER_MAIN, '--accept-server-license-terms',
    '--server-data-dir', path.join(data, 'server'), '--user-data-dir', path.join(data, 'user'),
    '--extensions-dir', extensionsDir, '--install-extension', vsix, '--force'], { env, encoding: 'utf8', timeout: 300000 });
  fs.rmSync(data, { recursive: true, force: true });
  const said = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  if (r.status !== 0) throw new Error(`--install-extension ${vsix} failed (exit ${r.status ?? r.signal}):\n${said}`);
  if (said) console.log(said.split('\n').map((l) => `[e2e] ${l}`).join('\n'));
  return installedFolder(extensionsDir);
}

/**
 * A VS Code server on the run's extensions dir (the VSIX installed there), with the smoke-test driver.
 * `trust: true` keeps workspace trust on (a folder opened by URL is then untrusted: restricted mode).
 */
async function startServer(env, extensionsDir, timingDir, { trust = false } = {}) {
  const data = fs.mkdtempSync(path.join(env.TMPDIR, 'run-'));
  for (const d of ['user', 'server']) fs.mkdirSync(path.join(data, d), { recursive: true });
  // No trust prompt at startup: the folder simply stays untrusted.
  for (const dir of [path.join(data, 'user', 'User'), path.join(data, 'server', 'data', 'User')]) {
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'settings.json'), JSON.stringify({ 'security.workspace.trust.startupPrompt': 'never', 'security.workspace.trust.emptyWindow': false }));
  }
  const log = fs.openSync(path.join(data, 'server.log'), 'w');
  const child = spawn(env.E2E_NODE, [env.E2E_SERVER_MAIN,
    '--host', '127.0.0.1', '--port', '0', '--without-connection-token', '--accept-server-license-terms',
    '--server-data-dir', path.join(data, 'server'), '--user-data-dir', path.join(data, 'user'),
    '--extensions-dir', extensionsDir, '--telemetry-level', 'off', ...(trust ? [] : ['--disable-workspace-trust']),
    // The extension host inherits this environment: the suite checks that ToonLens was loaded from extensionsDir,
    // and the timing test reads its documents from timingDir.
    '--enable-smoke-test-driver'], { env: { ...env, XDG_RUNTIME_DIR: data, TOONLENS_E2E_EXTENSIONS_DIR: extensionsDir, TOONLENS_E2E_TIMING_DIR: timingDir }, stdio: ['ignore', log, log], detached: true });
  const logPath = path.join(data, 'server.log');
  for (let i = 0; i < 300; i++) {
    const m = fs.readFileSync(logPath, 'utf8').match(/Extension host agent listening on (\d+)/);
    if (m) return { url: `http://127.0.0.1:${m[1]}`, stop: () => { try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ } }, logPath, dataDir: data };
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

/** The `[e2e timing]` lines the suites printed, repeated at the end of the run. */
const timings = [];

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
    if (text.trimStart().startsWith('[e2e timing]')) timings.push(text.trim());
  });
}

/** The extension host logs of a server's windows so far: `{ host, ours }` paths (the host's log, ToonLens's output channels). */
function extensionHostLogs(dataDir) {
  const logs = [];
  const root = path.join(dataDir, 'user', 'logs');
  for (const session of fs.existsSync(root) ? fs.readdirSync(root) : []) {
    for (const host of fs.readdirSync(path.join(root, session)).filter((n) => /^exthost\d+$/.test(n))) {
      const dir = path.join(root, session, host);
      const oursDir = path.join(dir, `${EXTENSION_ID}`);
      const ours = fs.existsSync(oursDir) ? fs.readdirSync(oursDir).filter((n) => n.endsWith('.log')).map((n) => path.join(oursDir, n)) : [];
      logs.push({ host: path.join(dir, 'remoteexthost.log'), ours });
    }
  }
  return logs;
}

const read = (p) => (fs.existsSync(p) ? fs.readFileSync(p, 'utf8') : '');
const ERROR_LINE = /^\S+ \S+ \[error\]/;
const LOG_LINE = /^\d{4}-\d\d-\d\d \S+ \[/;
/** Each error entry of a log: its line and the detail lines under it (message, code, stack), at most 6. */
function errorEntries(text) {
  const lines = text.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    if (!ERROR_LINE.test(lines[i])) continue;
    const detail = [];
    for (let j = i + 1; j < lines.length && detail.length < 6 && lines[j] !== '' && !LOG_LINE.test(lines[j]); j++) detail.push(lines[j]);
    out.push([lines[i], ...detail].join('\n    '));
  }
  return out;
}

/**
 * Waits until every extension host of the server's windows logged its exit (the window closed), then
 * answers the error lines about ToonLens: any error in ToonLens's output channels, and the host's own errors
 * that name the extension (an exception in its code, a rejected promise at deactivation). An empty list means
 * the window opened, ran and closed without an error of ours.
 */
async function closeErrors(server) {
  // A host logs its exit once its extensions are deactivated (the client's stop is bounded, see deactivate).
  const exited = (l) => /Extension host with pid \d+ exiting with code/.test(read(l.host));
  for (let i = 0; i < 200 && !extensionHostLogs(server.dataDir).every(exited); i++) await new Promise((r) => setTimeout(r, 100));
  const errors = [];
  const logs = extensionHostLogs(server.dataDir);
  if (logs.length === 0) errors.push(`no extension host log under ${server.dataDir}`);
  for (const l of logs) {
    if (!exited(l)) errors.push(`${l.host}: the extension host did not exit within 20 s of the window closing`);
    else if (!/exiting with code 0\b/.test(read(l.host))) errors.push(`${l.host}: ${read(l.host).match(/.*exiting with code.*/)?.[0]}`);
    for (const e of errorEntries(read(l.host))) if (/toonlens/i.test(e.split('\n')[0])) errors.push(`${l.host}: ${e}`);
    for (const o of l.ours) for (const e of errorEntries(read(o))) errors.push(`${o}: ${e}`);
  }
  return errors;
}

async function runSuiteInServer(env, server, ws, runner, entry = 'index.js') {
  const code = await runSuiteInWindow(env, server, ws, runner, entry);
  if (code !== 0) return code;
  // No error of ours from opening the window to closing it (the extension host's log, ToonLens's output).
  const errors = await closeErrors(server);
  if (errors.length) {
    lap(`errors logged by the extension host or ToonLens's output (window close included):\n  ${errors.join('\n  ')}`);
    return 1;
  }
  lap(`${entry}: the window closed with no error in the extension host log or ToonLens's output`);
  return 0;
}

async function runSuiteInWindow(env, server, ws, runner, entry) {
  const browser = await launchBrowser(env);
  try {
    const page = await browser.newPage();
    await forwardExtensionHostConsole(page);
    let onExit;
    const exited = new Promise((r) => { onExit = r; });
    await page.exposeFunction('codeAutomationExit', (c) => onExit(c));
    const url = workbenchUrl(server.url, ws, [
      ['extensionDevelopmentPath', remoteUri(server.url, runner)],
      ['extensionTestsPath', remoteUri(server.url, path.join(repo, 'dist', 'e2e', entry))],
      ['skipWelcome', 'true'], ['skipReleaseNotes', 'true'],
    ]);
    await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60000 });
    // How long the workbench may take to report back (an infrastructure hang otherwise); the main run holds the
    // timing test, whose large document takes longest on a loaded machine.
    const timeoutMs = Number(process.env.E2E_TEST_TIMEOUT_MS ?? (entry === 'index.js' ? 600000 : 240000));
    const result = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), timeoutMs))]);
    if (result === 'timeout') { lap(`TIMEOUT after ${timeoutMs} ms`); return 2; }
    lap(`extension host exited with code ${result}`);
    return Number.isInteger(result) ? result : 2;
  } finally {
    await browser.close().catch(() => {});
  }
}

async function main() {
  const vsix = await build();
  lap(`VSIX built: ${vsix}`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'toonlens-e2e-ext-'));
  workspaces.push(scratch);
  const extensionsDir = path.join(scratch, 'extensions');
  fs.mkdirSync(extensionsDir);
  const runner = runnerExtension(scratch);
  // E2E_SKIP_TIMINGS=1: the timing test is reported as skipped (pending), its documents not made.
  const timingDir = process.env.E2E_SKIP_TIMINGS ? '' : timingDocuments(path.join(scratch, 'timing'));
  const ws = freshWorkspace();
  lap(`workspace ${ws}`);
  const viaElectron = await viaTestElectron(ws, vsix, extensionsDir, runner, timingDir);
  if (viaElectron !== undefined) return viaElectron;
  if (sh('bash', [path.join(e2eDir, 'setup.sh')], { env: { ...baseEnv, E2E_HOME } }) !== 0) return 2;
  lap('setup done');
  const env = e2eEnv();
  lap(`VSIX installed by the VS Code server: ${installVsix(env, vsix, extensionsDir)}`);
  let server = await startServer(env, extensionsDir, timingDir);
  lap(`VS Code server ${server.url}`);
  try {
    // E2E_ONLY_REOPEN=1 / E2E_ONLY_CONTEXT=1: only the reopen run (exact Revert across windows) / the agent-context run.
    const only = process.env.E2E_ONLY_REOPEN ? 'reopen' : process.env.E2E_ONLY_CONTEXT ? 'context' : undefined;
    let code = only ? 0 : await runSuiteInServer(env, server, ws, runner);
    if (code === 2) {
      // An infrastructure failure (the workbench never reported back), not a test failure: one fresh try.
      lap('infrastructure failure: retrying once with a fresh server and workspace');
      server.stop();
      server = await startServer(env, extensionsDir, timingDir);
      code = await runSuiteInServer(env, server, freshWorkspace(), runner);
    }
    if (code === 0 && !process.env.E2E_SKIP_RESTRICTED && !only) {
      // The restricted-mode run: workspace trust ON, the folder not trusted.
      server.stop();
      server = await startServer(env, extensionsDir, timingDir, { trust: true });
      lap(`VS Code server with workspace trust on ${server.url}`);
      code = await runSuiteInServer(env, server, freshWorkspace(), runner, 'restricted.js');
      lap(`restricted run exited with ${code}`);
      server.stop();
      server = await startServer(env, extensionsDir, timingDir);
    }
    if (code === 0 && !process.env.E2E_SKIP_REOPEN && only !== 'context') {
      // Exact Revert across windows: convert in one window, then revert in a new window of the same folder.
      const folder = freshWorkspace();
      fs.copyFileSync(path.join(e2eDir, 'reopen', 'reopen-ports.md'), path.join(folder, 'docs', 'reopen-ports.md'));
      code = await runSuiteInServer(env, server, folder, runner, 'reopen-convert.js');
      lap(`reopen: first window exited with ${code}`);
      if (code === 0) {
        // The new window opens the folder through a symlink: VS Code then hands the extension another per-window
        // storage folder (as it does for a folder reopened in a new window of the desktop app), the folder's real
        // path stays the same.
        const again = `${folder}-again`;
        fs.symlinkSync(folder, again);
        workspaces.push(again);
        code = await runSuiteInServer(env, server, again, runner, 'reopen-revert.js');
        lap(`reopen: second window exited with ${code}`);
      }
    }
    if (code === 0 && !process.env.E2E_SKIP_CONTEXT && only !== 'reopen') {
      code = await runSuiteInServer(env, server, contextWorkspace(), runner, 'context.js');
      lap(`agent context run exited with ${code}`);
    }
    if (code === 0 && takeScreenshots) {
      const { takeReadmeScreenshots } = await import('./screenshots.mjs');
      await takeReadmeScreenshots({ env, server, repo, launchBrowser: () => launchBrowser(env), remoteUri, workbenchUrl, freshWorkspace, contextWorkspace, lap });
    }
    return code;
  } finally {
    server.stop();
    for (const t of timings) console.log(t);
    lap('done');
  }
}

main().then((code) => process.exit(settleWorkspaces(code)), (err) => { console.error(`[e2e] ${err.stack ?? err}`); process.exit(settleWorkspaces(2)); });

/**
 * The process-driving half of the fuzz run: the BUILT language server (`dist/server.js --stdio`, one
 * process for the whole run, moved from workspace to workspace with workspace/didChangeWorkspaceFolders) and
 * the BUILT CLI (`bin/toonlens.js`, one process per command) over generated hostile workspaces, then over
 * large inputs. Each workspace (a pure function of the seed and its number) has:
 *
 * - a `.git` (a real `git init`, or a hand-made one), a nested repository's `sub/.git`;
 * - symlinks into `.git` (`docs/g -> ../.git`, `hooks -> .git/hooks`, a file link to `.git/config`), out of the
 *   project (`docs/out -> ../../outside`, a file link to an outside secret), dangling ones and a self-loop;
 * - FIFOs named like inputs (`pipe.md`, `fifo.report.json`, `docs/pipe.toon`), a sparse file over every size
 *   limit, binary files with markdown/JSON/TOON names, a file named with 80 `a`s;
 * - hostile globs in `.vscode/settings.json` and `.toonlens.json` (exponential for a backtracking matcher,
 *   huge, unbalanced), sometimes an invalid or FIFO or symlinked config;
 * - a docs-hygiene report whose `exact_edit`s target all of those paths (with the right sha256 where the
 *   target is readable, so only the safety checks stand between the edit and the write).
 *
 * Properties, per operation (each bounded by a generous timeout): the process never crashes or hangs (the
 * server answers a hover on a small document after each workspace), its exit code is a documented one and
 * every error is a one-line message (no stack trace, no `internal`), the server never sends a workspace edit
 * whose target lies inside any `.git` or outside the workspace, and nothing is written inside any `.git` or
 * outside the workspace (the whole tree and outside sentinel folders are snapshotted, lstat-wise, before and
 * after each operation; a read-only operation may change nothing at all).
 *
 *   npm run build && node --import tsx test/fuzz/fuzz.ts --cases 300 --processes 200 [--large 1|0.05|0] [--cli-per-workspace 3]
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import * as nodePath from 'node:path';
import { pathToFileURL, fileURLToPath } from 'node:url';
import {
  CodeLensRequest,
  DidChangeWorkspaceFoldersNotification,
  ExecuteCommandRequest,
  type Diagnostic,
  type WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';
import { LspHarness, REPO_ROOT, withTimeout } from '../lsp/harness';
import { fuzzReportEntry } from './properties';
import { Rng } from '../../bench/prng';
import { markdownDocument } from '../../bench/markdown-gen';
import { planJson } from '../../bench/json-gen';
import { deriveSafetyTier } from '../../server/src/core/agentJson/report/index';
import { KIND_CHARACTERIZATION } from '../../server/src/core/agentJson/report/shape';
import { errorMessage } from '../../server/src/core/errors';

const CLI = nodePath.join(REPO_ROOT, 'bin', 'toonlens.js');
/** Any one operation: far above what it takes on a loaded machine, far below "hangs". */
const OP_TIMEOUT_MS = 120_000;
/** An operation over a large input. */
const LARGE_TIMEOUT_MS = 600_000;

export interface ProcessFuzzOptions {
  workspaces: number;
  seed: number;
  /** Scale of the large-input phase: 1 = markdown of ~6 MB with 10^5 sections and JSON of ~8–15 MB; 0 = none. */
  large?: number;
  /** CLI commands run per workspace (picked at random from the list, `check` always among them). Default 3. */
  cliPerWorkspace?: number;
  log?: (line: string) => void;
}

export interface ProcessFuzzResult {
  workspaces: number;
  /** Operations checked: CLI runs, LSP requests and notifications that were awaited. */
  ops: number;
  cliRuns: number;
  lspOps: number;
  /** Workspace edits the server sent (each target checked). */
  editsChecked: number;
  /** Peak RSS (VmHWM) of the server, and the largest of any CLI process, in MB. */
  serverMaxRssMB: number;
  cliMaxRssMB: number;
  ms: number;
  /** Wall time per phase (setup, cli, lsp …), summed over the workspaces. */
  phaseMs: Record<string, number>;
  failures: string[];
  notes: Record<string, number>;
}

// ---------------------------------------------------------------- the workspace

export interface Workspace {
  base: string;
  /** Real path of the project root. */
  root: string;
  outside: string;
  report: string;
  /** Workspace-relative paths of files an editor could open (regular files). */
  openable: string[];
  /** Server settings for this workspace (hostile documentKinds, a size limit). */
  settings: Record<string, unknown>;
}

const A80 = 'a'.repeat(80);
const HOSTILE_GLOBS = [
  '*a*a*a*a*a*a*a*b.json',
  '**/*a*a*a*a*a*a*a*a*a*a*a*a*b*',
  '**/**/**/**/**/**/**/**/**/**/x.json',
  '{a,{b,{c,{d,{e,{f}}}}}}*.md',
  '[[[[[[',
  '!(a|b',
  '?'.repeat(300),
  '*'.repeat(2000) + 'b',
  'a'.repeat(5000) + '*.json',
  '\\\\\\*',
  '../../**/*.json',
  '/etc/**',
  '.git/**',
];

function sha(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

function mkfifo(p: string): boolean {
  try {
    execFileSync('mkfifo', [p], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function git(cwd: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=fuzz', '-c', 'user.email=fuzz@example.invalid', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', ...args], { cwd, stdio: 'ignore' });
}

function write(root: string, rel: string, data: string | Uint8Array): void {
  const p = nodePath.join(root, rel);
  fs.mkdirSync(nodePath.dirname(p), { recursive: true });
  fs.writeFileSync(p, data);
}

function link(root: string, rel: string, target: string): void {
  const p = nodePath.join(root, rel);
  fs.mkdirSync(nodePath.dirname(p), { recursive: true });
  try {
    fs.symlinkSync(target, p);
  } catch {
    /* an earlier choice took the name */
  }
}

function randomBytes(rng: Rng, n: number): Uint8Array {
  const b = new Uint8Array(n);
  for (let i = 0; i < n; i++) b[i] = rng.int(0, 255);
  return b;
}

const KINDS_OF_EDIT = ['delete-range', 'move-to-archive', 'insert-frontmatter', 'replace-text', 'dedupe', 'delete', 'extract-then-delete'] as const;

/** Targets of the report's exact_edits: every hostile spot of the workspace, and a few honest files. */
const TARGETS = [
  'docs/a.md', 'docs/b.md', 'notes.md', 'AGENTS.md',
  '.git/config', '.git/HEAD', '.git/hooks/post-checkout', '.GIT/config', './.git/config', 'docs/../.git/config',
  'docs/g/config', 'docs/g/hooks/post-checkout', 'docs/g/info/exclude', 'hooks/pre-commit', 'gitconfig.md',
  'sub/.git/config', 'sub/.git/hooks/x', 'sub/g2/config',
  'docs/out/secret.md', 'docs/out/new.md', 'docs/secret.md', '../outside/secret.md', '/etc/passwd', 'docs/../../outside/secret.md',
  'dangling.md', 'docs/dead/x.md', 'loop', 'loop/x.md',
  'pipe.md', 'fifo.report.json', 'docs/pipe.toon', 'huge.md', 'bin.md', 'bin.report.json', `${A80}.json`,
  'docs/archive/new.md', '', '.', 'docs/',
];
const DESTS = ['docs/archive/a.md', 'docs/g/hooks/post-checkout', '.git/hooks/pre-commit', 'docs/out/moved.md', 'dangling.md', 'docs/dead/new.md', 'sub/.git/info/x', 'hooks/post-merge', '../outside/moved.md', 'pipe.md', 'docs/archive/'];

function buildReport(rng: Rng, root: string): string {
  const n = rng.int(3, 12);
  const entries = Array.from({ length: n }, () => {
    const path = rng.pick(TARGETS);
    const kind = rng.pick(KINDS_OF_EDIT);
    let expected = 'ab'.repeat(32);
    try {
      const abs = nodePath.resolve(root, path);
      const st = fs.statSync(abs);
      if (st.isFile() && st.size < 1024 * 1024 && rng.chance(0.85)) expected = sha(fs.readFileSync(abs));
    } catch {
      /* unreadable: a wrong sha */
    }
    const exact: Record<string, unknown> = { kind, expected_sha256: expected };
    const lifecycle = { rule_ref: 'r', lifetime: 'temporary' };
    if (kind === 'delete' || kind === 'extract-then-delete') {
      exact.anchor = { whole_file: true };
      exact.lifecycle = lifecycle;
      if (kind === 'extract-then-delete') {
        exact.extraction_target = 'repo-durable';
        exact.target_ref = rng.pick(TARGETS);
      }
    } else if (kind !== 'insert-frontmatter') exact.anchor = rng.chance(0.2) ? { whole_file: true } : { start_line: 1, end_line: rng.int(1, 3) };
    if (kind === 'move-to-archive') exact.dest_path = rng.pick(DESTS);
    if (kind === 'insert-frontmatter') Object.assign(exact, { key: 'hygiene', value: 'frozen' });
    if (kind === 'replace-text') Object.assign(exact, { match: rng.pick(['line two', 'secret', '[core]', 'ref:']), replacement: rng.pick(['x', '', '[core]\n\tfsmonitor = evil']) });
    if (kind === 'dedupe') exact.canonical_ref = { path: rng.pick(TARGETS), start_line: 1, end_line: 2 };
    const ch = KIND_CHARACTERIZATION[kind];
    const destructive = ch.isDestructive;
    const reversible = ch.isReversible !== false;
    const lc = kind === 'delete' || kind === 'extract-then-delete' ? lifecycle : null;
    const tier = rng.chance(0.8) ? deriveSafetyTier('deterministic', destructive, reversible, lc as never, null) : rng.pick(['auto', 'confirm']);
    return fuzzReportEntry(path, exact, destructive, reversible, tier);
  });
  return JSON.stringify(
    {
      schema_version: '1.0',
      tool_version: '0.4.2',
      generated_at: '2026-11-29T10:00:00Z',
      scan: { project_root: rng.pick(['.', '.', '.', '..', 'docs/g', 'docs/out', '/']), scope_globs: ['**/*.md'], excluded_dirs: [], files_scanned: n },
      shortlist: entries.map((e) => e.path),
      entries,
      promotion_candidates: [],
    },
    null,
    rng.chance(0.5) ? 2 : undefined,
  );
}

function hostileKinds(rng: Rng): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = rng.int(1, 5); i > 0; i--) out[rng.pick(HOSTILE_GLOBS)] = rng.chance(0.05) ? 'bogus' : rng.pick(['verdict', 'report', 'critique', 'recipe-input', 'recipe-output']);
  return out;
}

export function buildWorkspace(rng: Rng, index: number): Workspace {
  const base = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), 'toonlens-pfuzz-')));
  const root = nodePath.join(base, 'ws');
  const outside = nodePath.join(base, 'outside');
  fs.mkdirSync(root);
  write(outside, 'secret.md', '# Secret\n\nsecret one\nsecret two\n');
  write(outside, 'keep/deep.md', 'outside sentinel\n');

  write(root, 'docs/a.md', '# A\n\nline two\nline three\nline four\n\n## More\n\n- must keep this rule in mind always\n- owner: team\n');
  write(root, 'docs/b.md', '---\ntitle: b\n---\n# B\n\nline two\nline two\n');
  write(root, 'notes.md', 'note one\nnote two\nnote three\n');
  write(root, 'AGENTS.md', markdownDocument(index + 1, rng.int(3, 12), rng.int(2000, 8000)));
  write(root, 'docs/plan.verdict.json', fs.readFileSync(nodePath.join(REPO_ROOT, 'examples', 'agent-json', 'settings-table.verdict.json')));
  write(root, `${A80}.json`, '{"schema_version":"1.0","verdict":"convert"}');
  write(root, `docs/${'a'.repeat(60)}b.md`, '# aaa\n\n- key: value\n- other: thing\n');
  write(root, 'data.toon', rng.chance(0.5) ? 'items[2]{a,b}:\n  1,2\n  3,4\n' : 'items[3]{a,b}:\n  1,"unterminated\n');

  if (rng.chance(0.6)) {
    git(root, 'init', '-q');
    if (rng.chance(0.4)) {
      git(root, 'add', '-A');
      git(root, 'commit', '-q', '-m', 'fuzz');
    }
  } else {
    write(root, '.git/HEAD', 'ref: refs/heads/main\n');
    write(root, '.git/config', '[core]\n\trepositoryformatversion = 0\n');
    fs.mkdirSync(nodePath.join(root, '.git', 'hooks'), { recursive: true });
    fs.mkdirSync(nodePath.join(root, '.git', 'objects'), { recursive: true });
  }
  write(root, 'sub/.git/HEAD', 'ref: refs/heads/main\n');
  write(root, 'sub/.git/config', '[core]\n');
  write(root, 'sub/readme.md', '# Sub\n\nnested repository\n');

  // Symlinks into .git, out of the project, dangling, looping.
  if (rng.chance(0.9)) link(root, 'docs/g', '../.git');
  if (rng.chance(0.7)) link(root, 'hooks', '.git/hooks');
  if (rng.chance(0.6)) link(root, 'gitconfig.md', '.git/config');
  if (rng.chance(0.5)) link(root, 'sub/g2', '.git');
  if (rng.chance(0.8)) link(root, 'docs/out', '../../outside');
  if (rng.chance(0.6)) link(root, 'docs/secret.md', '../../outside/secret.md');
  if (rng.chance(0.7)) link(root, 'dangling.md', 'nowhere/missing.md');
  if (rng.chance(0.5)) link(root, 'docs/dead', '../missing-dir');
  if (rng.chance(0.5)) link(root, 'loop', 'loop');
  if (rng.chance(0.3)) link(root, 'docs/root-link', '/');

  // FIFOs, a file over every size limit (sparse), binary files.
  for (const f of ['pipe.md', 'fifo.report.json', 'docs/pipe.toon']) if (rng.chance(0.7)) mkfifo(nodePath.join(root, f));
  if (rng.chance(0.7)) {
    const fd = fs.openSync(nodePath.join(root, 'huge.md'), 'w');
    fs.ftruncateSync(fd, 65 * 1024 * 1024 + rng.int(0, 1024)); // sparse: nothing is really written
    fs.closeSync(fd);
  }
  write(root, 'bin.md', randomBytes(rng, rng.int(10, 4000)));
  write(root, 'bin.report.json', randomBytes(rng, rng.int(10, 4000)));
  if (rng.chance(0.5)) write(root, 'image.toon', randomBytes(rng, 300));

  // Hostile globs in the settings a repository commits, and in its .toonlens.json.
  const vscode: Record<string, unknown> = { 'toonlens.documentKinds': hostileKinds(rng) };
  if (rng.chance(0.3)) vscode['toonlens.rules'] = { 'toon/long-section': 'off', '*': 'error', [A80]: rng.chance(0.2) ? 'bogus' : 'warning' };
  write(root, '.vscode/settings.json', rng.chance(0.1) ? '{"toonlens.documentKinds": {' : JSON.stringify(vscode, null, 2));
  const configChoice = rng.int(0, 9);
  if (configChoice <= 5) {
    write(root, '.toonlens.json', JSON.stringify({ rules: { 'toon/vague-rule': rng.chance(0.1) ? 'bogus' : rng.pick(['off', 'error', 'info']) }, documentKinds: hostileKinds(rng), ignore: [rng.pick(HOSTILE_GLOBS), rng.pick(HOSTILE_GLOBS)] }));
  } else if (configChoice === 6) write(root, '.toonlens.json', '{ "rules": { "toon/vague-rule": ');
  else if (configChoice === 7) mkfifo(nodePath.join(root, '.toonlens.json'));
  else if (configChoice === 8) link(root, '.toonlens.json', '../outside/secret.md');

  const reportRel = rng.pick(['hygiene.report.json', 'docs/hygiene.report.json', 'sub/r.report.json']);
  write(root, reportRel, buildReport(rng, root));
  return {
    base,
    root,
    outside,
    report: reportRel,
    openable: ['AGENTS.md', 'docs/a.md', 'docs/plan.verdict.json', `${A80}.json`, 'data.toon', 'bin.md', 'bin.report.json', '.toonlens.json'],
    settings: { documentKinds: hostileKinds(rng), maxFileSizeMB: rng.pick([1, 50]), ...(rng.chance(0.3) ? { rules: { 'toon/long-section': 'off' } } : {}) },
  };
}

// ---------------------------------------------------------------- snapshots

type Entry = string;

/** Every entry under `dir`, lstat-wise (symlinks not followed): path → type, mode, size, and a content digest. */
function snapshot(dir: string, out = new Map<string, Entry>()): Map<string, Entry> {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return out;
  }
  for (const n of names) {
    const p = nodePath.join(dir, n);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(p);
    } catch {
      continue;
    }
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out.set(p, `link ${fs.readlinkSync(p)}`);
    else if (st.isDirectory()) {
      out.set(p, `dir ${mode}`);
      snapshot(p, out);
    } else if (st.isFile()) {
      // A large (sparse) file: size and mtime; any other: its bytes.
      out.set(p, st.size > 1024 * 1024 ? `file ${mode} ${st.size} ${st.mtimeMs}` : `file ${mode} ${sha(fs.readFileSync(p))}`);
    } else out.set(p, `${st.isFIFO() ? 'fifo' : 'other'} ${mode}`);
  }
  return out;
}

function changedPaths(before: Map<string, Entry>, after: Map<string, Entry>): string[] {
  const out: string[] = [];
  for (const [p, e] of before) if (after.get(p) !== e) out.push(p);
  for (const p of after.keys()) if (!before.has(p)) out.push(p);
  return out;
}

/** Whether a path (absolute, as walked) is inside a `.git` of the project or of a nested repository. */
function inGitDir(root: string, p: string): boolean {
  const rel = nodePath.relative(root, p);
  return rel.split(nodePath.sep).some((seg) => seg.toLowerCase() === '.git');
}

function outsideRoot(root: string, p: string): boolean {
  const rel = nodePath.relative(root, p);
  return rel === '..' || rel.startsWith('..' + nodePath.sep) || nodePath.isAbsolute(rel);
}

/** Where a path really lands: the real path of its deepest existing ancestor, plus the rest. */
function realLanding(p: string): string {
  let probe = nodePath.resolve(p);
  const rest: string[] = [];
  for (;;) {
    try {
      return nodePath.join(fs.realpathSync(probe), ...rest.reverse());
    } catch {
      const parent = nodePath.dirname(probe);
      if (parent === probe) return p;
      rest.push(nodePath.basename(probe));
      probe = parent;
    }
  }
}

// ---------------------------------------------------------------- processes

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  hwmMB: number;
}

function vmHWM(pid: number): number {
  try {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Runs the built CLI with a timeout, sampling its peak RSS while it runs. */
function runCli(args: string[], cwd: string, timeoutMs: number): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let hwm = 0;
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout.length < 4_000_000 ? (stdout += c) : undefined));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr.length < 100_000 ? (stderr += c) : undefined));
    const sampler = setInterval(() => (hwm = Math.max(hwm, vmHWM(child.pid!))), 100);
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearInterval(sampler);
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut, hwmMB: hwm });
    });
  });
}

interface CliCase {
  args: (w: Workspace) => string[];
  /** The documented exit codes of this command. */
  codes: number[];
  /** Whether it may write (inside the workspace, never in .git). */
  writes?: boolean;
  /** What stdout must be. */
  stdout?: 'json' | 'sarif' | 'json-envelope';
  /** The one hostile input of the command: its error must say what it is (a FIFO, over the limit, missing). */
  input?: string;
}

/** The message a hostile input must get, by what it is on disk. */
function expectedMessage(w: Workspace, rel: string): RegExp | undefined {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(nodePath.join(w.root, rel));
  } catch {
    return /not found|does not exist|no such file/i;
  }
  if (st.isFIFO()) return /FIFO|not a regular file/;
  if (st.isFile() && st.size > 64 * 1024 * 1024) return /over the .*limit/;
  return undefined;
}

const ENGINE = [0, 1];
const CLI_CASES: Record<string, CliCase> = {
  'check .': { args: () => ['check', '.'], codes: [0, 1, 2] },
  'check --format json': { args: () => ['check', '--format', 'json', '.'], codes: [0, 1, 2], stdout: 'json' },
  'check --format sarif': { args: () => ['check', '--format', 'sarif', '.'], codes: [0, 1, 2], stdout: 'sarif' },
  'check hostile paths': { args: () => ['check', 'pipe.md', 'huge.md', 'bin.md', 'docs/g', 'dangling.md', 'fifo.report.json', `${A80}.json`], codes: [0, 1, 2] },
  'check --fix': { args: () => ['check', '--fix', '.'], codes: [0, 1, 2], writes: true },
  'apply --tier all': { args: (w) => ['apply', w.report, '--tier', 'all'], codes: [0, 1, 2], writes: true },
  'apply --dry-run': { args: (w) => ['apply', w.report, '--tier', 'all', '--dry-run', '--format', 'json'], codes: [0, 1, 2] },
  'apply a FIFO': { args: () => ['apply', 'fifo.report.json'], codes: [2], input: 'fifo.report.json' },
  'plan a FIFO': { args: () => ['plan', 'pipe.md', '--json'], codes: ENGINE, stdout: 'json-envelope', input: 'pipe.md' },
  'profile huge': { args: () => ['profile', 'huge.md', '--json'], codes: ENGINE, stdout: 'json-envelope', input: 'huge.md' },
  'convert binary': { args: () => ['convert', 'bin.md', '--json'], codes: ENGINE, stdout: 'json-envelope' },
  'plan AGENTS.md': { args: () => ['plan', 'AGENTS.md'], codes: ENGINE },
  'plan through .git': { args: () => ['plan', 'gitconfig.md'], codes: ENGINE },
  'validate': { args: () => ['validate', 'data.toon'], codes: ENGINE },
  'decode a FIFO': { args: () => ['decode', 'docs/pipe.toon'], codes: ENGINE, input: 'docs/pipe.toon' },
  'validate binary': { args: () => ['validate', 'image.toon'], codes: ENGINE },
  'schema-diff hostile': { args: () => ['schema-diff', 'fifo.report.json', 'bin.report.json'], codes: [0, 1, 2] },
};

/** Problems with one CLI run's outcome (empty: fine). */
function judgeCli(name: string, c: CliCase, r: Run, w?: Workspace): string[] {
  const out: string[] = [];
  const tail = `\n    stderr: ${r.stderr.slice(0, 600)}\n    stdout: ${r.stdout.slice(0, 300)}`;
  if (r.timedOut) return [`${name}: still running after the timeout (killed)${tail}`];
  if (r.signal) return [`${name}: killed by ${r.signal}${tail}`];
  if (r.code === null || !c.codes.includes(r.code)) out.push(`${name}: exit code ${r.code}, documented: ${c.codes.join('/')}${tail}`);
  if (/\n\s+at .+\(.+:\d+:\d+\)|^\s+at /m.test(r.stderr) || /FATAL ERROR|heap out of memory|Maximum call stack/i.test(r.stderr)) out.push(`${name}: a stack trace or fatal error on stderr${tail}`);
  if (/"code"\s*:\s*"internal"/.test(r.stdout) || /\binternal error\b/i.test(r.stderr)) out.push(`${name}: an internal error${tail}`);
  // Errors are one `toonlens <command>: …` line; what else stderr may say (check's summary) is no JS error.
  const jsError = r.stderr.split('\n').find((line) => /^(?:Uncaught |node:|file:\/\/|\w*Error\b|\w+Exception\b)/.test(line));
  if (jsError) out.push(`${name}: a JavaScript error on stderr: ${JSON.stringify(jsError.slice(0, 200))}${tail}`);
  if (r.code === 2 && !/^toonlens( [a-z-]+)?: /.test(r.stderr)) out.push(`${name}: exit 2 without a one-line \`toonlens <command>: …\` message${tail}`);
  const expected = c.input && w ? expectedMessage(w, c.input) : undefined;
  if (expected && !r.timedOut) {
    if (r.code === 0) out.push(`${name}: exit 0 on a hostile input ${c.input}${tail}`);
    else if (!expected.test(r.stderr + r.stdout)) out.push(`${name}: the error does not say what ${c.input} is (${expected})${tail}`);
  }
  if (c.stdout && r.code !== 2 && r.stdout.trim()) {
    try {
      const v = JSON.parse(r.stdout) as unknown;
      if (c.stdout === 'json' && !Array.isArray(v)) out.push(`${name}: --format json printed no array`);
      if (c.stdout === 'sarif' && (v as { version?: string }).version !== '2.1.0') out.push(`${name}: --format sarif printed no SARIF 2.1.0`);
    } catch {
      out.push(`${name}: stdout is not JSON${tail}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------- the run

/** Every file URI a workspace edit touches (text edits, creates, renames from and to, deletes). */
function editTargets(edit: WorkspaceEdit): string[] {
  const out = Object.keys(edit.changes ?? {});
  for (const dc of edit.documentChanges ?? []) {
    if ('textDocument' in dc) out.push(dc.textDocument.uri);
    else if (dc.kind === 'rename') out.push(dc.oldUri, dc.newUri);
    else out.push(dc.uri);
  }
  return out;
}

const SMALL_MD = '# Alive\n\n- key: value\n- other: thing\n- third: item\n';

export async function runProcessFuzz(opts: ProcessFuzzOptions): Promise<ProcessFuzzResult> {
  const t0 = performance.now();
  const log = opts.log ?? (() => undefined);
  const failures: string[] = [];
  const notes = new Map<string, number>();
  const note = (k: string) => notes.set(k, (notes.get(k) ?? 0) + 1);
  let cliRuns = 0;
  let lspOps = 0;
  let editsChecked = 0;
  let cliMax = 0;
  let serverMax = 0;
  const phaseMs: Record<string, number> = {};
  let mark = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    phaseMs[name] = (phaseMs[name] ?? 0) + (now - mark);
    mark = now;
  };
  if (!fs.existsSync(nodePath.join(REPO_ROOT, 'dist', 'server.js')) || !fs.existsSync(nodePath.join(REPO_ROOT, 'dist', 'cli.js'))) {
    throw new Error('the process fuzz drives the built server and CLI: run `npm run build` first');
  }
  const home = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), 'toonlens-pfuzz-home-')));
  const lsp = await LspHarness.start({ workspaceDir: home, env: { TOONLENS_TEST_COUNTERS: '1' } });
  const pid = lsp.process.pid!;
  const sampler = setInterval(() => (serverMax = Math.max(serverMax, vmHWM(pid))), 250);
  let folder = { uri: pathToFileURL(home).toString(), name: 'home' };
  const alive = lsp.open(pathToFileURL(nodePath.join(home, 'alive.md')).toString(), SMALL_MD);
  const fail = (where: string, msg: string) => {
    failures.push(`${where}: ${msg}`);
    log(`  FAILED ${where}: ${msg.split('\n')[0]}`);
  };
  const serverAlive = async (where: string) => {
    lspOps++;
    try {
      const h = await withTimeout(lsp.hover(alive, { line: 0, character: 3 }), OP_TIMEOUT_MS, 'hover on a small document');
      if (!h) fail(where, 'the hover on the small document answered nothing');
    } catch (err) {
      fail(where, `the server does not answer: ${errorMessage(err)}\nstderr: ${lsp.stderr.slice(-2000)}`);
    }
    if (!lsp.alive) throw new Error(`${where}: the server exited\nstderr: ${lsp.stderr.slice(-4000)}`);
  };
  const request = <T>(method: string, params: unknown, what: string, ms = OP_TIMEOUT_MS) => {
    lspOps++;
    return withTimeout(lsp.connection.sendRequest(method, params) as Promise<T>, ms, what);
  };

  try {
    for (let i = 0; i < opts.workspaces && failures.length < 20; i++) {
      const rng = new Rng((opts.seed * 1_000_003 + i * 7919) >>> 0);
      mark = performance.now();
      const w = buildWorkspace(rng, i);
      phase('setup');
      const where = `workspace ${i} (seed ${opts.seed})`;
      try {
        // --- the CLI: `check` and a random choice of the other commands.
        const names = Object.keys(CLI_CASES);
        const picks = new Set<string>(['check .']);
        while (picks.size < Math.min(names.length, opts.cliPerWorkspace ?? 3)) picks.add(rng.pick(names));
        for (const name of picks) {
          const c = CLI_CASES[name]!;
          const before = snapshot(w.base);
          const r = await runCli(c.args(w), w.root, OP_TIMEOUT_MS);
          cliRuns++;
          cliMax = Math.max(cliMax, r.hwmMB);
          note(`cli ${name.split(' ')[0]} exit ${r.code}`);
          for (const p of judgeCli(name, c, r, w)) fail(where, p);
          const changed = changedPaths(before, snapshot(w.base));
          for (const p of changed) {
            if (outsideRoot(w.root, p)) fail(where, `${name} changed ${p}, outside the workspace`);
            else if (inGitDir(w.root, p)) fail(where, `${name} changed ${p}, inside a .git`);
            else if (!c.writes) fail(where, `${name} (read-only) changed ${p}`);
          }
          if (changed.length) note(`cli ${name.split(' ')[0]} wrote inside the workspace`);
        }

        phase('cli');
        // --- the server, moved to this workspace, with hostile settings.
        const before = snapshot(w.base);
        const next = { uri: pathToFileURL(w.root).toString(), name: `ws${i}` };
        await lsp.connection.sendNotification(DidChangeWorkspaceFoldersNotification.type, { event: { added: [next], removed: [folder] } });
        folder = next;
        await lsp.setSettings(w.settings);
        const uris: string[] = [];
        const reportUri = pathToFileURL(nodePath.join(w.root, w.report)).toString();
        lsp.open(reportUri, fs.readFileSync(nodePath.join(w.root, w.report), 'utf8'), 'json');
        uris.push(reportUri);
        for (const rel of w.openable) {
          let text: string;
          try {
            const st = fs.lstatSync(nodePath.join(w.root, rel));
            if (!st.isFile()) continue;
            text = fs.readFileSync(nodePath.join(w.root, rel), 'latin1');
          } catch {
            continue;
          }
          const uri = pathToFileURL(nodePath.join(w.root, rel)).toString();
          lsp.open(uri, text);
          uris.push(uri);
        }
        lspOps++;
        let diags: Diagnostic[] = [];
        try {
          diags = await lsp.waitForDiagnostics(reportUri, () => true, OP_TIMEOUT_MS);
        } catch (err) {
          fail(where, `no diagnostics for the report: ${errorMessage(err)}`);
        }
        note(`report diagnostics ${diags.length > 0 ? 'some' : 'none'}`);
        for (const d of diags) if (typeof d.message !== 'string' || d.range.start.line < 0) fail(where, `a malformed diagnostic ${JSON.stringify(d)}`);
        phase('lsp open');
        const editsBefore = lsp.appliedEdits.length;
        try {
          const lenses = (await request<{ command?: { command: string; arguments?: unknown[] } }[] | null>(CodeLensRequest.method, { textDocument: { uri: reportUri } }, 'report code lenses')) ?? [];
          note(`report lenses ${Math.min(lenses.length, 5)}${lenses.length >= 5 ? '+' : ''}`);
          for (const l of lenses) {
            if (!l.command?.command) continue;
            const r = await request<{ applied?: boolean } | null>(ExecuteCommandRequest.method, { command: l.command.command, arguments: l.command.arguments ?? [] }, `command ${l.command.command}`);
            note(`lens command ${r && typeof r === 'object' && 'applied' in r ? (r.applied ? 'applied' : 'not applied') : 'answered'}`);
          }
          // Every entry through the apply command as a client may send it (a stale lens, another client), and
          // apply-all: the server must check again when it builds the edit.
          const reportFsPath = nodePath.join(w.root, w.report);
          const entries = (JSON.parse(fs.readFileSync(reportFsPath, 'utf8')) as { entries: unknown[] }).entries.length;
          for (let k = 0; k < entries; k++) {
            const args = [{ reportFsPath, entryIndex: k, tier: rng.pick(['auto', 'confirm']) }];
            const r = await request<{ applied?: boolean } | null>(ExecuteCommandRequest.method, { command: 'toonlens.applyEdit', arguments: args }, 'toonlens.applyEdit');
            note(`apply command ${r && typeof r === 'object' && 'applied' in r ? (r.applied ? 'applied' : 'not applied') : 'answered'}`);
          }
          phase('lsp lenses + apply');
          await request(ExecuteCommandRequest.method, { command: 'toonlens.applyAllAuto', arguments: [{ uri: reportUri, reportFsPath }] }, 'toonlens.applyAllAuto');
          const outcome = await request<{ checked?: number } | null>(ExecuteCommandRequest.method, { command: 'toonlens.checkWorkspace', arguments: [] }, 'Check Workspace');
          note(`check workspace ${outcome?.checked === undefined ? 'no outcome' : 'checked'}`);
          phase('lsp check workspace');
          for (const uri of uris.slice(1)) {
            await request(CodeLensRequest.method, { textDocument: { uri } }, `code lenses of ${uri}`).catch((err: unknown) => fail(where, `lenses of ${uri}: ${errorMessage(err)}`));
          }
        } catch (err) {
          fail(where, errorMessage(err));
        }
        for (const e of lsp.appliedEdits.slice(editsBefore)) {
          for (const uri of editTargets(e.edit)) {
            editsChecked++;
            const p = fileURLToPath(uri);
            const real = realLanding(p);
            if (outsideRoot(w.root, p) || outsideRoot(w.root, real)) fail(where, `the server sent an edit of ${p} (lands at ${real}), outside the workspace`);
            else if (inGitDir(w.root, p) || inGitDir(w.root, real)) fail(where, `the server sent an edit of ${p} (lands at ${real}), inside a .git`);
          }
        }
        phase('lsp other lenses');
        for (const uri of uris) lsp.close(uri);
        await serverAlive(where);
        await lsp.waitIdle(OP_TIMEOUT_MS); // every background run (rechecks, lens refreshes) is over before the snapshot
        lspOps++;
        phase('lsp alive');
        // The harness does not apply the edits it is sent: the server itself wrote nothing.
        for (const p of changedPaths(before, snapshot(w.base))) fail(where, `the server changed ${p}`);
      } finally {
        fs.rmSync(w.base, { recursive: true, force: true });
      }
      if ((i + 1) % 10 === 0 || i + 1 === opts.workspaces) log(`  processes: ${i + 1}/${opts.workspaces} workspaces, ${cliRuns} CLI runs, ${lspOps} LSP requests, ${failures.length} failures (${((performance.now() - t0) / 1000).toFixed(0)} s)`);
    }

    if ((opts.large ?? 1) > 0 && failures.length === 0) {
      const large = await largeInputs(opts.large ?? 1, lsp, log, () => folder, (f) => (folder = f));
      cliRuns += large.cliRuns;
      lspOps += large.lspOps;
      cliMax = Math.max(cliMax, large.cliMaxMB);
      for (const f of large.failures) fail('large inputs', f);
      await serverAlive('large inputs');
    }
  } finally {
    clearInterval(sampler);
    serverMax = Math.max(serverMax, vmHWM(pid));
    lsp.kill();
    await lsp.exited;
    lsp.connection.dispose();
    fs.rmSync(home, { recursive: true, force: true });
  }
  return {
    workspaces: opts.workspaces,
    ops: cliRuns + lspOps,
    cliRuns,
    lspOps,
    editsChecked,
    serverMaxRssMB: serverMax,
    cliMaxRssMB: cliMax,
    ms: performance.now() - t0,
    phaseMs,
    failures,
    notes: Object.fromEntries(notes),
  };
}

/**
 * Large inputs through both processes: markdown of ~6 MB with 10^5 sections, a ~8 MB report over a real
 * workspace and a ~15 MB plan (at scale 1). The server must give the markdown its lenses and the JSON its
 * diagnostics, answering a hover on a small document meanwhile; the CLI must plan and check them.
 */
async function largeInputs(scale: number, lsp: LspHarness, log: (l: string) => void, getFolder: () => { uri: string; name: string }, setFolder: (f: { uri: string; name: string }) => void) {
  const failures: string[] = [];
  let cliRuns = 0;
  let lspOps = 0;
  let cliMaxMB = 0;
  const dir = fs.realpathSync(fs.mkdtempSync(nodePath.join(tmpdir(), 'toonlens-pfuzz-large-')));
  try {
    fs.cpSync(nodePath.join(REPO_ROOT, 'test', 'fixtures', 'report', 'sample'), dir, { recursive: true });
    const sections = Math.max(1000, Math.round(100_000 * scale));
    const md = markdownDocument(97, sections, Math.round(6_000_000 * scale));
    fs.writeFileSync(nodePath.join(dir, 'big.md'), md);
    const sample = JSON.parse(fs.readFileSync(nodePath.join(dir, 'hygiene.report.json'), 'utf8')) as { entries: unknown[] };
    const copies = Math.max(1, Math.round((8_000_000 * scale) / JSON.stringify(sample.entries).length));
    sample.entries = Array.from({ length: copies }, () => sample.entries).flat();
    const report = JSON.stringify(sample);
    fs.writeFileSync(nodePath.join(dir, 'big.report.json'), report);
    const plan = planJson(5, Math.max(200, Math.round(9000 * scale))).text;
    fs.writeFileSync(nodePath.join(dir, 'big.plan.verdict.json'), plan);
    log(`  large inputs: markdown ${(md.length / 1e6).toFixed(1)} MB (${sections.toLocaleString('en-US')} sections), report ${(report.length / 1e6).toFixed(1)} MB, plan ${(plan.length / 1e6).toFixed(1)} MB`);

    const cases: [string, string[], number[]][] = [
      ['plan big.md', ['plan', 'big.md'], [0]],
      ['check big.md', ['check', 'big.md'], [0, 1]],
      ['check big.report.json', ['check', '--format', 'json', 'big.report.json'], [0, 1]],
      ['check big.plan.verdict.json', ['check', 'big.plan.verdict.json'], [0, 1]],
    ];
    for (const [name, args, codes] of cases) {
      const t = performance.now();
      const r = await runCli(args, dir, LARGE_TIMEOUT_MS);
      cliRuns++;
      cliMaxMB = Math.max(cliMaxMB, r.hwmMB);
      for (const p of judgeCli(name, { args: () => args, codes }, r)) failures.push(p);
      log(`    CLI ${name}: exit ${r.code} in ${((performance.now() - t) / 1000).toFixed(1)} s, peak RSS ${r.hwmMB.toFixed(0)} MB`);
    }

    const next = { uri: pathToFileURL(dir).toString(), name: 'large' };
    await lsp.connection.sendNotification(DidChangeWorkspaceFoldersNotification.type, { event: { added: [next], removed: [getFolder()] } });
    setFolder(next);
    // A lens per section (the default shows only sections that convert): the count below is one per section.
    await lsp.setSettings({ codeLens: { sections: 'all' } });
    const small = lsp.open(pathToFileURL(nodePath.join(dir, 'small.md')).toString(), SMALL_MD);
    const t = performance.now();
    const mdUri = lsp.open(pathToFileURL(nodePath.join(dir, 'big.md')).toString(), md);
    const reportUri = lsp.open(pathToFileURL(nodePath.join(dir, 'big.report.json')).toString(), report, 'json');
    const planUri = lsp.open(pathToFileURL(nodePath.join(dir, 'big.plan.verdict.json')).toString(), plan, 'json');
    lspOps += 3;
    const mdLenses = withTimeout(lsp.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri: mdUri } }), LARGE_TIMEOUT_MS, 'lenses of the large markdown');
    mdLenses.catch(() => undefined);
    // While all of that is analysed, a small document is answered.
    const h = await withTimeout(lsp.hover(small, { line: 0, character: 3 }), OP_TIMEOUT_MS, 'hover on a small document during the large inputs').catch((err: unknown) => {
      failures.push(errorMessage(err));
      return null;
    });
    lspOps++;
    if (!h) failures.push('no hover on the small document while the large inputs were analysed');
    log(`    LSP hover on a small document meanwhile: ${((performance.now() - t) / 1000).toFixed(1)} s after the opens`);
    try {
      const lenses = await mdLenses;
      lspOps++;
      if (!lenses || lenses.length < sections) failures.push(`the large markdown got ${lenses?.length} lenses for ${sections} sections`);
      log(`    LSP lenses of the large markdown: ${lenses?.length} after ${((performance.now() - t) / 1000).toFixed(1)} s`);
      for (const uri of [reportUri, planUri]) {
        const d = await lsp.waitForDiagnostics(uri, () => true, LARGE_TIMEOUT_MS);
        lspOps++;
        log(`    LSP diagnostics of ${uri.slice(uri.lastIndexOf('/') + 1)}: ${d.length} after ${((performance.now() - t) / 1000).toFixed(1)} s`);
      }
    } catch (err) {
      failures.push(errorMessage(err));
    }
    for (const u of [small, mdUri, reportUri, planUri]) lsp.close(u);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return { failures, cliRuns, lspOps, cliMaxMB };
}

export function processSummary(r: ProcessFuzzResult): string {
  const notes = Object.entries(r.notes)
    .sort((a, b) => b[1] - a[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `processes: ${r.workspaces} hostile workspaces, ${r.ops.toLocaleString('en-US')} operations (${r.cliRuns} CLI runs, ${r.lspOps} LSP requests over one server), ${r.editsChecked} workspace-edit targets checked, ${r.failures.length} failures, ${(r.ms / 1000).toFixed(0)} s; max RSS: server ${r.serverMaxRssMB.toFixed(0)} MB, CLI ${r.cliMaxRssMB.toFixed(0)} MB`,
    `  time per phase: ${Object.entries(r.phaseMs).map(([k, v]) => `${k} ${(v / 1000).toFixed(1)} s`).join(', ')}`,
    notes ? `  (${notes})` : '',
    ...r.failures.map((f) => `  FAILED ${f}`),
  ]
    .filter(Boolean)
    .join('\n');
}

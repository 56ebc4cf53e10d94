/**
 * Running git for the workspace's questions (tracked state, the toplevel, the hook folder): no
 * fsmonitor, no prompts, no optional locks, a timeout, and undefined instead of an error.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as nodePath from 'node:path';

const GIT_TIMEOUT_MS = 5000;

/** git's stdout, or undefined when git is missing, fails or times out. */
export function git(cwd: string, args: string[]): string | undefined {
  try {
    return execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', 'core.quotepath=off', ...args], {
      cwd,
      encoding: 'utf8',
      timeout: GIT_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch {
    return undefined;
  }
}

/** The real form of a path that may not exist yet: its nearest existing ancestor's real path plus the rest. */
function realOrPlanned(p: string): string {
  const missing: string[] = [];
  let probe = nodePath.resolve(p);
  for (;;) {
    try {
      return nodePath.join(fs.realpathSync.native(probe), ...missing);
    } catch {
      const parent = nodePath.dirname(probe);
      if (parent === probe) return nodePath.resolve(p);
      missing.unshift(nodePath.basename(probe));
      probe = parent;
    }
  }
}

/** The longest a hook-folder answer is reused even while git's config files look unchanged (included files, system config). */
const HOOK_DIRS_MAX_AGE_MS = 5000;

interface HookEntry {
  dirs: readonly string[];
  /** The config files git reads for that repository, as stat saw them when the answer was made. */
  configFiles: readonly string[];
  stamp: string;
  at: number;
}

const hookCache = new Map<string, HookEntry>();

/** Size, mtime and inode of each file (or "-" when it is missing): a change to any of them invalidates an answer. */
function stampOf(files: readonly string[]): string {
  return files
    .map((f) => {
      try {
        const st = fs.statSync(f);
        return `${st.size}:${st.mtimeMs}:${st.ino}`;
      } catch {
        return '-';
      }
    })
    .join('|');
}

/** The user's and the system's git config files (what `git config --global` / `--system` edit). */
function globalConfigFiles(): string[] {
  const home = process.env.HOME ?? process.env.USERPROFILE;
  const xdg = process.env.XDG_CONFIG_HOME ?? (home ? nodePath.join(home, '.config') : undefined);
  return [...(home ? [nodePath.join(home, '.gitconfig')] : []), ...(xdg ? [nodePath.join(xdg, 'git', 'config')] : []), '/etc/gitconfig'];
}

/**
 * The folder git runs hooks from for the repository holding the existing folder `dir`: `core.hooksPath`
 * when configured (relative values resolved the way git resolves them), else the git directory's
 * `hooks/`. Returned as real paths (a folder that does not exist yet: its real parent plus the rest);
 * empty when `dir` is in no repository or git is not available. An answer is reused only while the
 * repository's and the user's git config files are unchanged, and for a few seconds at most (a batch of
 * writes asks for every folder it touches; git is not spawned for each).
 */
export function gitHookDirs(dir: string): readonly string[] {
  const now = Date.now();
  const hit = hookCache.get(dir);
  if (hit && now - hit.at < HOOK_DIRS_MAX_AGE_MS && stampOf(hit.configFiles) === hit.stamp) return hit.dirs;
  const out = git(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'hooks', '--git-common-dir', '--git-dir']);
  const [hooks, common, gitDir] = (out ?? '').split(/\r?\n/);
  const dirs = hooks && nodePath.isAbsolute(hooks) ? [realOrPlanned(hooks)] : [];
  const configFiles = [...(common ? [nodePath.join(common, 'config')] : []), ...(gitDir ? [nodePath.join(gitDir, 'config.worktree')] : []), ...globalConfigFiles()];
  if (hookCache.size > 10000) hookCache.clear();
  hookCache.set(dir, { dirs, configFiles, stamp: stampOf(configFiles), at: now });
  return dirs;
}

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

/**
 * The folder git runs hooks from for the repository holding the existing folder `dir`: `core.hooksPath`
 * when configured (relative values resolved the way git resolves them), else the git directory's
 * `hooks/`. Returned as real paths (a folder that does not exist yet: its real parent plus the rest);
 * empty when `dir` is in no repository or git is not available.
 */
export function gitHookDirs(dir: string): readonly string[] {
  const out = git(dir, ['rev-parse', '--path-format=absolute', '--git-path', 'hooks']);
  const line = out?.replace(/\r?\n$/, '');
  return line && nodePath.isAbsolute(line) ? [realOrPlanned(line)] : [];
}

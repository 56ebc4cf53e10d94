/**
 * A file's text at git HEAD, for schema-drift baselines. Asynchronous (never blocks the server's only
 * thread) and bounded: a timeout and a cap on its output; any failure (no git, not a repository,
 * untracked file, timeout) answers undefined. Callers run it only in a trusted workspace: git reads the
 * repository's config, which an untrusted folder controls.
 */
import { execFile } from 'node:child_process';
import { basename, dirname } from 'node:path';

export const GIT_TIMEOUT_MS = 3000;

export function gitHeadText(absPath: string, timeoutMs = GIT_TIMEOUT_MS): Promise<string | undefined> {
  return new Promise((resolve) => {
    try {
      const child = execFile(
        'git',
        ['-C', dirname(absPath), 'show', `HEAD:./${basename(absPath)}`],
        { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, windowsHide: true },
        (err, stdout) => resolve(err ? undefined : stdout),
      );
      child.stdin?.end();
    } catch {
      resolve(undefined);
    }
  });
}

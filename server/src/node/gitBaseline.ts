/**
 * A file's text at git HEAD, for schema-drift baselines. Bounded: a 3 s timeout and 64 MB of output;
 * any failure (no git, not a repository, untracked file) answers undefined.
 */
import { execFileSync } from 'node:child_process';
import { basename, dirname } from 'node:path';

export function gitHeadText(absPath: string): string | undefined {
  try {
    return execFileSync('git', ['-C', dirname(absPath), 'show', `HEAD:./${basename(absPath)}`], {
      encoding: 'utf8',
      timeout: 3000,
      maxBuffer: 64 * 1024 * 1024,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return undefined;
  }
}

/**
 * One check (or one lens computation) of a report asks the workspace the same questions many times: the
 * root's real path for every entry, the real path of every ancestor of a missing target, the git state
 * and the bytes of a file several entries point at. A memoizing view answers each question once for the
 * duration of one synchronous pass over the report; nothing outlives it (a later pass sees the disk again,
 * and every write re-verifies on its own).
 */
import type { WorkspaceReader } from '../types';

/** Bytes of file content a memo keeps at most (beyond it, reads go to the workspace each time). */
const MAX_MEMO_BYTES = 64 * 1024 * 1024;

export function memoizeWorkspace(ws: WorkspaceReader): WorkspaceReader {
  const real = new Map<string, string | undefined>();
  const git = new Map<string, { tracked: boolean; clean: boolean } | undefined>();
  const files = new Map<string, Uint8Array | undefined>();
  let bytes = 0;
  return {
    root: ws.root,
    openText: (p) => ws.openText(p),
    realpath(p) {
      if (real.has(p)) return real.get(p);
      const r = ws.realpath(p);
      real.set(p, r);
      return r;
    },
    gitState(p) {
      if (git.has(p)) return git.get(p);
      const r = ws.gitState(p);
      git.set(p, r);
      return r;
    },
    // The containment walk's questions (core/report/paths.ts realLocation): forwarded, memoized, never dropped.
    ...(ws.entryType ? { entryType: memo1(ws.entryType.bind(ws)) } : {}),
    ...(ws.isGitDir ? { isGitDir: memo1(ws.isGitDir.bind(ws)) } : {}),
    ...(ws.hookDirs ? { hookDirs: memo1(ws.hookDirs.bind(ws)) } : {}),
    ...(ws.isExecutable ? { isExecutable: memo1(ws.isExecutable.bind(ws)) } : {}),
    readFile(p) {
      if (files.has(p)) return files.get(p);
      const r = ws.readFile(p);
      if (bytes + (r?.length ?? 0) <= MAX_MEMO_BYTES) {
        files.set(p, r);
        bytes += r?.length ?? 0;
      }
      return r;
    },
  };
}

/** `f` answered once per argument for the life of the memo. */
function memo1<R>(f: (p: string) => R): (p: string) => R {
  const m = new Map<string, R>();
  return (p) => {
    if (m.has(p)) return m.get(p) as R;
    const r = f(p);
    m.set(p, r);
    return r;
  };
}

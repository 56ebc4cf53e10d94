/**
 * Containment of every path a report names. A report is untrusted: a path it carries may only ever
 * resolve to a file inside the workspace folder that holds the report.
 *
 * Decisions (documented here and in the diagnostics):
 * - Report paths are POSIX, project-root-relative and literal. Refused as unsafe: empty paths,
 *   absolute paths (`/…`), drive letters (`C:`), UNC/backslash paths (any `\` — it is a separator on
 *   Windows), NUL and other control characters, URLs (`scheme://`), any `..` segment (even one that
 *   would stay inside: the lexical and the physical meaning of `link/..` differ), and any
 *   percent-encoding (`%2e%2e`): paths are never decoded, and a literal `%XX` is refused as ambiguous.
 *   A `.git` segment (any case) is refused too: an edit to .git/config or a hook could run code.
 * - `scan.project_root` is resolved against the report's folder; it may use `..` (a report kept in a
 *   sub-folder), but must stay inside the workspace root, also after symlinks are resolved.
 * - A trailing `/` marks a directory (directory-rule aggregates); it is not part of the file name.
 * - Live resolution asks the workspace only about paths that are lexically inside the root, then
 *   follows symlinks (realpath of the path, or of its nearest existing ancestor when it does not exist
 *   yet) and refuses anything whose real location leaves the workspace root.
 */
import * as nodePath from 'node:path';
import type { WorkspaceReader } from '../types';
import { get, str } from './shape';

/**
 * Plainly safe: segments of word characters, `.` and `-` that each start with a letter, digit or `_`
 * (so no `.`/`..`/`.git` segment), separated by single `/`, with at most a trailing `/`. Such a path has no
 * control character, backslash, `:` (drive letter, URL), `%` or leading `/`: every check below passes.
 */
const PLAINLY_SAFE = /^[A-Za-z0-9_][\w.-]*(?:\/[A-Za-z0-9_][\w.-]*)*\/?$/;

/** Why a report path is unsafe, or undefined when it is a safe project-root-relative path. */
export function unsafePathReason(p: unknown, opts: { allowDotDot?: boolean } = {}): string | undefined {
  if (typeof p !== 'string') return undefined; // a type error is the schema's business
  if (PLAINLY_SAFE.test(p)) return undefined;
  return unsafePathReasonSlow(p, opts.allowDotDot === true);
}

/** Every check, one by one (the reference the fast test above must agree with: test/unit/perf-paths.test.ts). */
export function unsafePathReasonSlow(p: string, allowDotDot: boolean): string | undefined {
  if (p.length === 0) return 'is empty';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(p)) return p.includes('\u0000') ? 'contains a NUL character' : 'contains a control character';
  if (p.includes('\\')) return "contains a backslash (use '/'; '\\' is a separator on Windows)";
  if (/^[A-Za-z]:/.test(p)) return 'starts with a drive letter';
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(p)) return 'is a URL, not a project-root-relative path';
  if (p.startsWith('/')) return 'is absolute';
  if (/%[0-9A-Fa-f]{2}/.test(p)) return 'contains percent-encoding (paths are literal; refused as ambiguous)';
  if (p.split('/').some((s) => s.toLowerCase() === '.git')) return 'is inside .git (repository internals are never edited)';
  if (!allowDotDot) {
    const segments = p.split('/');
    if (segments.includes('..')) {
      let depth = 0;
      for (const s of segments) {
        if (s === '..') depth--;
        else if (s !== '' && s !== '.') depth++;
        if (depth < 0) return 'leaves the project root';
      }
      return "contains a '..' segment";
    }
  }
  return undefined;
}

/** Whether `child` is `parent` or lies under it (both absolute, normalized). */
export function isInside(parent: string, child: string): boolean {
  const p = nodePath.resolve(parent);
  const c = nodePath.resolve(child);
  if (c === p) return true;
  const prefix = p.endsWith(nodePath.sep) ? p : p + nodePath.sep;
  return c.startsWith(prefix);
}

/** Where a report's relative paths are resolved. */
export interface ReportLocation {
  /** Workspace root (lexical, absolute). */
  root: string;
  /** Workspace root with symlinks resolved. */
  rootReal: string;
  /** Absolute project root: the report's folder + scan.project_root. */
  projectRoot: string;
}

export type Located<T> = ({ ok: true } & T) | { ok: false; reason: string };

/**
 * The project root of a report at `reportFsPath`, contained in `workspace.root` (symlinks included).
 * Fails when there is no workspace root, the report lies outside it, or project_root escapes it.
 */
export function locateProjectRoot(report: unknown, reportFsPath: string | undefined, workspace: WorkspaceReader): Located<{ loc: ReportLocation }> {
  const rootRaw = workspace.root;
  if (!rootRaw || !reportFsPath || !nodePath.isAbsolute(rootRaw) || !nodePath.isAbsolute(reportFsPath)) {
    return { ok: false, reason: 'no workspace folder holds the report' };
  }
  const root = nodePath.resolve(rootRaw);
  if (!isInside(root, reportFsPath)) return { ok: false, reason: 'the report is outside the workspace folder' };
  const projectRootRel = str(get(get(report, 'scan'), 'project_root'));
  if (projectRootRel === undefined) return { ok: false, reason: 'scan.project_root is missing' };
  const why = unsafePathReason(projectRootRel, { allowDotDot: true });
  if (why) return { ok: false, reason: `scan.project_root ${why}` };
  const projectRoot = nodePath.resolve(nodePath.dirname(nodePath.resolve(reportFsPath)), projectRootRel);
  if (!isInside(root, projectRoot)) return { ok: false, reason: 'scan.project_root leaves the workspace folder' };
  const rootReal = workspace.realpath(root);
  if (rootReal === undefined) return { ok: false, reason: 'the workspace folder does not exist' };
  // The project root, or its nearest existing ancestor, must really be inside the workspace.
  let probe = projectRoot;
  let projectReal = workspace.realpath(probe);
  while (projectReal === undefined && probe !== root) {
    probe = nodePath.dirname(probe);
    projectReal = workspace.realpath(probe);
  }
  if (projectReal === undefined || !isInside(rootReal, projectReal)) return { ok: false, reason: 'scan.project_root resolves outside the workspace folder through a symlink' };
  if (probe !== projectRoot) return { ok: false, reason: 'scan.project_root does not exist' };
  return { ok: true, loc: { root, rootReal, projectRoot } };
}

/** A report path resolved inside the workspace. */
export interface ResolvedPath {
  /** Lexical absolute path (project root + relative path). */
  absPath: string;
  /** The real path when it exists (symlinks followed; inside the workspace root). */
  realPath: string | undefined;
  /** Whether the last component itself is a symlink (its real path differs from its real parent + name). */
  isSymlink: boolean;
}

/**
 * Resolves a project-root-relative report path inside the workspace, or says why it cannot be.
 * Only paths lexically inside the project root are ever passed to the workspace.
 */
export function resolveInsideRoot(loc: ReportLocation, rel: unknown, workspace: WorkspaceReader): Located<ResolvedPath> {
  if (typeof rel !== 'string') return { ok: false, reason: 'the path is not a string' };
  const why = unsafePathReason(rel);
  if (why) return { ok: false, reason: `path ${JSON.stringify(rel)} ${why}` };
  const trimmed = rel.replace(/\/+$/, '');
  const absPath = trimmed === '' ? loc.projectRoot : nodePath.resolve(loc.projectRoot, trimmed);
  if (!isInside(loc.projectRoot, absPath) || !isInside(loc.root, absPath)) {
    return { ok: false, reason: `path ${JSON.stringify(rel)} leaves the project root` };
  }
  // The nearest existing ancestor (or the path itself) must really be inside the workspace.
  let probe = absPath;
  let real: string | undefined;
  for (;;) {
    real = workspace.realpath(probe);
    if (real !== undefined) break;
    const parent = nodePath.dirname(probe);
    if (parent === probe || !isInside(loc.projectRoot, parent)) break;
    probe = parent;
  }
  if (real === undefined) return { ok: false, reason: 'the project root does not exist' };
  if (!isInside(loc.rootReal, real)) {
    return { ok: false, reason: `path ${JSON.stringify(rel)} resolves outside the workspace through a symlink` };
  }
  if (probe !== absPath) return { ok: true, absPath, realPath: undefined, isSymlink: false };
  let isSymlink = false;
  if (absPath !== loc.projectRoot) {
    const parentReal = workspace.realpath(nodePath.dirname(absPath));
    isSymlink = parentReal === undefined || nodePath.join(parentReal, nodePath.basename(absPath)) !== real;
  }
  return { ok: true, absPath, realPath: real, isSymlink };
}

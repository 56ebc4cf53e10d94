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
 *   Hook folders count as `.git`: a `.husky`, `.githooks`, `.lefthook` or `.lefthook-local` segment
 *   (same spellings), and, in the live walk, the folder git runs hooks from (`core.hooksPath`); so do
 *   hook managers' configuration files (`lefthook.yml`, `.pre-commit-config.yaml`, …).
 * - `scan.project_root` is resolved against the report's folder; it may use `..` (a report kept in a
 *   sub-folder), but must stay inside the workspace root, also after symlinks are resolved.
 * - A trailing `/` marks a directory (directory-rule aggregates); it is not part of the file name.
 * - Live resolution asks the workspace only about paths that are lexically inside the root, then
 *   follows symlinks (realpath of the path, or of its nearest existing ancestor when it does not exist
 *   yet) and refuses anything whose real location leaves the workspace root, lies inside a git
 *   directory (a `.git` segment in any spelling, or a folder holding HEAD, objects/ and refs/), or
 *   passes through a dangling symlink (a create there would land wherever the link points).
 *   {@link realLocation} is that one walk, shared by the planner, the rules and the Node writer.
 */
import * as nodePath from 'node:path';
import type { EntryType, WorkspaceReader } from '../../types';
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
  if (PLAINLY_SAFE.test(p)) return hookConfigReason(p);
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
  if (p.split('/').some(isGitSegment)) return 'is inside .git (repository internals are never edited)';
  const hook = p.split('/').find(isHookSegment);
  if (hook !== undefined) return `is inside a git hook folder (${hook}); hooks run code and are never edited`;
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
  return hookConfigReason(p);
}

/**
 * A hook manager's configuration file (lefthook, pre-commit, husky 4, simple-git-hooks, overcommit): it
 * names commands that run on git events, so editing it is as good as writing a hook.
 */
const HOOK_CONFIG_FILE = /^(?:\.?lefthook(?:-local)?\.ya?ml|\.pre-commit-config\.ya?ml|\.huskyrc(?:\.json|\.c?js|\.ya?ml)?|husky\.config\.c?js|\.?simple-git-hooks\.(?:c?js|json)|\.overcommit\.yml)$/;

/** Whether one path segment (spelled any way {@link isGitSegment} accepts) names a hook manager's configuration file. */
export function isHookConfigName(segment: string): boolean {
  return HOOK_CONFIG_FILE.test(normalizeSegment(segment));
}

function hookConfigReason(p: string): string | undefined {
  const name = p.replace(/\/+$/, '');
  const last = name.slice(name.lastIndexOf('/') + 1);
  return isHookConfigName(last) ? `names a git hook manager's configuration (${last}); it defines commands that run on git events and is never edited` : undefined;
}

/** Code points HFS+ ignores in file names (so `.g\u200cit` is `.git` there). */
const HFS_IGNORABLE = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * Whether one path segment names a `.git` entry on some file system: any case (case-insensitive
 * volumes), HFS+ ignorable code points removed, NTFS trailing dots/spaces and `::$DATA`-style stream
 * suffixes dropped, and the NTFS 8.3 short name `git~1`.
 */
export function isGitSegment(segment: string): boolean {
  const s = normalizeSegment(segment);
  return s === '.git' || s === 'git~1';
}

/** A segment as a case-insensitive, HFS+/NTFS-tolerant file system would name it. */
function normalizeSegment(segment: string): string {
  let s = segment.replace(HFS_IGNORABLE, '').toLowerCase();
  const colon = s.indexOf(':');
  if (colon >= 0) s = s.slice(0, colon);
  let end = s.length;
  while (end > 0 && (s[end - 1] === '.' || s[end - 1] === ' ')) end--;
  return s.slice(0, end);
}

/** Folders git hook managers run hooks from (husky, a plain `core.hooksPath` convention, lefthook). */
const HOOK_FOLDERS = new Set(['.husky', '.githooks', '.lefthook', '.lefthook-local']);

/** Whether one path segment names a hook folder, spelled any way {@link isGitSegment} accepts for `.git`. */
export function isHookSegment(segment: string): boolean {
  return HOOK_FOLDERS.has(normalizeSegment(segment));
}

/** Whether `child` is `parent` or lies under it (both absolute, normalized). */
export function isInside(parent: string, child: string): boolean {
  const p = nodePath.resolve(parent);
  const c = nodePath.resolve(child);
  if (c === p) return true;
  const prefix = p.endsWith(nodePath.sep) ? p : p + nodePath.sep;
  return c.startsWith(prefix);
}

/** What the containment walk asks of the file system (a WorkspaceReader is one; the Node writer passes the live fs). */
export interface FsView {
  realpath(absPath: string): string | undefined;
  entryType?(absPath: string): EntryType | undefined;
  isGitDir?(absPath: string): boolean;
  /** The real folders git runs hooks from for the repository holding the existing folder `dirReal` (`core.hooksPath`). */
  hookDirs?(dirReal: string): readonly string[];
}

/** Where a path really is, once every existing component is resolved. */
export interface RealLocation {
  /** The real path of the path itself, when it exists. */
  real: string | undefined;
  /** The real path of its nearest existing ancestor (the path itself when it exists). */
  existingReal: string;
  /** The components below that ancestor that do not exist yet (empty when the path exists). */
  missing: string[];
}

/**
 * THE containment walk (planner, live rules and the Node writer all use it): resolves `absPath`, or its
 * nearest existing ancestor not above `stop`, through `fs.realpath`, and accepts it only when the real
 * location is inside `rootReal`, has no `.git` or hook-folder segment in any spelling (its missing
 * remainder neither), is not inside a git directory nor the folder git runs hooks from, and the first missing component is not a dangling symlink. `label`
 * starts every reason. `absPath` must be lexically inside `stop`; only such paths are asked about.
 */
export function realLocation(absPath: string, stop: string, rootReal: string, fs: FsView, label: string): Located<RealLocation> {
  let probe = absPath;
  const missing: string[] = [];
  let real = fs.realpath(probe);
  while (real === undefined) {
    const parent = nodePath.dirname(probe);
    if (parent === probe || !isInside(stop, parent)) return { ok: false, reason: `${label} does not exist` };
    missing.unshift(nodePath.basename(probe));
    probe = parent;
    real = fs.realpath(probe);
  }
  if (missing.length > 0) {
    const first = fs.entryType?.(nodePath.join(probe, missing[0]!));
    if (first !== undefined) return { ok: false, reason: `${label} passes through ${first === 'symlink' ? 'a dangling symlink' : `a ${first} that cannot be resolved`} (${missing[0]}); refused` };
  }
  if (!isInside(rootReal, real)) return { ok: false, reason: `${label} resolves outside the workspace through a symlink` };
  const inside = nodePath.relative(rootReal, real);
  const segments = [...(inside === '' ? [] : inside.split(nodePath.sep)), ...missing];
  if (segments.some(isGitSegment)) return { ok: false, reason: `${label} resolves inside .git${inside.split(nodePath.sep).some(isGitSegment) ? ' through a symlink' : ''} (repository internals are never edited)` };
  const hook = segments.find(isHookSegment);
  if (hook !== undefined) return { ok: false, reason: `${label} resolves inside a git hook folder (${hook}); hooks run code and are never edited` };
  const last = segments[segments.length - 1];
  if (last !== undefined && isHookConfigName(last)) return { ok: false, reason: `${label} resolves to a git hook manager's configuration (${last}); it defines commands that run on git events and is never edited` };
  if (fs.hookDirs) {
    const folder = missing.length > 0 || fs.entryType?.(real) === 'directory' ? real : nodePath.dirname(real);
    const planned = nodePath.join(real, ...missing).toLowerCase();
    for (const h of fs.hookDirs(folder)) {
      if (isInside(h.toLowerCase(), planned)) return { ok: false, reason: `${label} resolves inside the folder git runs hooks from (${h}, core.hooksPath); hooks run code and are never edited` };
    }
  }
  if (fs.isGitDir) {
    // Every existing folder from the root down to the deepest existing one (a bare repository has no `.git` name).
    let dir = missing.length > 0 || fs.entryType?.(real) === 'directory' ? real : nodePath.dirname(real);
    for (;;) {
      if (fs.isGitDir(dir)) return { ok: false, reason: `${label} resolves inside a git directory (${dir}); repository internals are never edited` };
      if (dir === rootReal || !isInside(rootReal, dir)) break;
      dir = nodePath.dirname(dir);
    }
  }
  return { ok: true, real: missing.length === 0 ? real : undefined, existingReal: real, missing };
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
  const where = realLocation(projectRoot, root, rootReal, workspace, 'scan.project_root');
  if (!where.ok) return where;
  if (where.real === undefined) return { ok: false, reason: 'scan.project_root does not exist' };
  return { ok: true, loc: { root, rootReal, projectRoot } };
}

/** A report path resolved inside the workspace. */
export interface ResolvedPath {
  /** Lexical absolute path (project root + relative path). */
  absPath: string;
  /** The real path when it exists (symlinks followed; inside the workspace root). */
  realPath: string | undefined;
  /** Whether the last component itself is a symlink. */
  isSymlink: boolean;
  /** What is there (lstat), when the workspace can say. */
  entryType?: EntryType;
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
  const where = realLocation(absPath, loc.projectRoot, loc.rootReal, workspace, `path ${JSON.stringify(rel)}`);
  if (!where.ok) return /does not exist$/.test(where.reason) ? { ok: false, reason: 'the project root does not exist' } : where;
  if (where.real === undefined) return { ok: true, absPath, realPath: undefined, isSymlink: false };
  const entryType = workspace.entryType?.(absPath);
  let isSymlink = false;
  if (absPath !== loc.projectRoot) {
    if (entryType !== undefined) isSymlink = entryType === 'symlink';
    else {
      const parentReal = workspace.realpath(nodePath.dirname(absPath));
      isSymlink = parentReal === undefined || nodePath.join(parentReal, nodePath.basename(absPath)) !== where.real;
    }
  }
  const targetType = isSymlink ? workspace.entryType?.(where.real) : entryType;
  return { ok: true, absPath, realPath: where.real, isSymlink, ...(targetType !== undefined ? { entryType: targetType } : {}) };
}

/** What a file-system entry is, in words ("a FIFO (named pipe)"), for messages. */
export function describeEntryType(t: EntryType): string {
  switch (t) {
    case 'file':
      return 'a regular file';
    case 'directory':
      return 'a directory';
    case 'symlink':
      return 'a symlink';
    case 'fifo':
      return 'a FIFO (named pipe)';
    case 'socket':
      return 'a socket';
    case 'character device':
      return 'a character device';
    case 'block device':
      return 'a block device';
    default:
      return 'not a regular file';
  }
}

/** "`rel` is a FIFO (named pipe), not a regular file" when a resolved path exists as something other than a file. */
export function notARegularFile(rel: string, resolved: ResolvedPath): string | undefined {
  if (resolved.realPath === undefined || resolved.entryType === undefined || resolved.entryType === 'file') return undefined;
  return `${rel} is ${describeEntryType(resolved.entryType)}, not a regular file`;
}

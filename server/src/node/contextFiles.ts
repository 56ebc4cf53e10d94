/**
 * The repository as the context model reads it: every file path (glob triggers are checked against them), the
 * agent files' texts through the bounded reader, imported files read on demand and only inside the tree (a
 * path that leaves the root, or a symlink out of it, reads as missing), and Gemini CLI's `context.fileName`
 * from `.gemini/settings.json`.
 */
import * as nodePath from 'node:path';
import { parse as parseJsonc } from 'jsonc-parser';
import { isContextCandidate, type AgentOptions } from '../core/context/agents';
import type { ContextFile } from '../core/context/model';
import { readRegularText, realpathOrUndefined } from './files';
import { workspaceFiles } from './workspaceFiles';

/** Bounds of one repository walk. */
export const CONTEXT_MAX_PATHS = 200_000;
export const CONTEXT_MAX_ENTRIES = 1_000_000;
/** An agent file larger than this is not read (it is reported as a problem instead). */
export const CONTEXT_MAX_FILE_BYTES = 8 * 1024 * 1024;

export interface RepositoryContext {
  root: string;
  files: ContextFile[];
  allPaths: string[];
  options: AgentOptions;
  read(path: string): string | undefined;
  /** Files that could not be read, with the reason. */
  problems: { path: string; reason: string }[];
  truncated: boolean;
}

/** Gemini CLI's configured context file names (`context.fileName`, a string or a list), if the repository sets them. */
export function geminiFileNames(root: string): string[] | undefined {
  const r = readRegularText(nodePath.join(root, '.gemini', 'settings.json'), 1024 * 1024);
  if (!r.ok) return undefined;
  const v: unknown = parseJsonc(r.text, [], { allowTrailingComma: true });
  const ctx = v && typeof v === 'object' ? (v as Record<string, unknown>).context : undefined;
  const name = ctx && typeof ctx === 'object' ? (ctx as Record<string, unknown>).fileName : (v as Record<string, unknown> | undefined)?.contextFileName;
  if (typeof name === 'string' && name) return [name];
  if (Array.isArray(name)) {
    const names = name.filter((n): n is string => typeof n === 'string' && n !== '');
    return names.length ? names : undefined;
  }
  return undefined;
}

/** Walks `root` and reads its agent files. */
export async function readRepositoryContext(root: string, opts: { ignored?: (rel: string) => boolean; options?: AgentOptions } = {}): Promise<RepositoryContext> {
  const absRoot = nodePath.resolve(root);
  const realRoot = realpathOrUndefined(absRoot) ?? absRoot;
  const names = geminiFileNames(absRoot);
  const options: AgentOptions = { ...(names ? { geminiFileNames: names } : {}), ...opts.options };
  const allPaths: string[] = [];
  const walk = await workspaceFiles(absRoot, {
    wanted: (rel) => {
      allPaths.push(rel);
      return isContextCandidate(rel, options);
    },
    ...(opts.ignored ? { ignored: opts.ignored } : {}),
    maxFiles: CONTEXT_MAX_PATHS,
    maxEntries: CONTEXT_MAX_ENTRIES,
    cancelled: () => false,
  });
  const problems: RepositoryContext['problems'] = [];
  const files: ContextFile[] = [];
  for (const abs of walk.files) {
    const rel = nodePath.relative(absRoot, abs).split(nodePath.sep).join('/');
    const r = readRegularText(abs, CONTEXT_MAX_FILE_BYTES);
    if (r.ok) files.push({ path: rel, text: r.text });
    else problems.push({ path: rel, reason: r.reason });
  }
  const read = (rel: string): string | undefined => {
    const abs = nodePath.resolve(absRoot, rel);
    const real = realpathOrUndefined(abs);
    if (!real || (real !== realRoot && !real.startsWith(realRoot + nodePath.sep))) return undefined;
    const r = readRegularText(real, CONTEXT_MAX_FILE_BYTES);
    return r.ok ? r.text : undefined;
  };
  return { root: absRoot, files, allPaths, options, read, problems, truncated: walk.truncated };
}

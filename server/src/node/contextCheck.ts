/**
 * The context diagnostics `toonlens check` adds to the markdown files it checks: the context model of each
 * file's repository is built once (its walk honours the root's `.toonlens.json` ignore globs), and every checked
 * file gets the diagnostics that name it. Related locations and the removal fix stay with the editor and
 * `toonlens context`: `check --fix` never deletes instructions.
 */
import * as nodePath from 'node:path';
import { contextModel } from '../core/context/model';
import { contextDiagnostics, type ContextDiagnostic } from '../core/context/diagnostics';
import { isTokenizerName, tokenizer, DEFAULT_TOKENIZER } from '../core/tokens';
import type { CoreDiagnostic } from '../core/types';
import type { ToonLensConfig } from '../core/config';
import { isIgnored } from '../core/config';
import { readRepositoryContext } from './contextFiles';

export class ContextDiagnosticsByRoot {
  private readonly byRoot = new Map<string, Promise<Map<string, ContextDiagnostic[]>>>();

  /** The context diagnostics of an absolute file path inside `root` (none for a file outside it). */
  async forFile(root: string, absPath: string, rootConfig: ToonLensConfig): Promise<CoreDiagnostic[]> {
    const rel = nodePath.relative(root, absPath);
    if (!rel || rel.startsWith('..') || nodePath.isAbsolute(rel)) return [];
    let pending = this.byRoot.get(root);
    if (!pending) this.byRoot.set(root, (pending = build(root, rootConfig)));
    const found = (await pending).get(rel.split(nodePath.sep).join('/')) ?? [];
    return found.map((d) => ({ code: d.code, severity: d.severity, message: d.message, range: { start: d.start, end: d.end } }));
  }
}

async function build(root: string, config: ToonLensConfig): Promise<Map<string, ContextDiagnostic[]>> {
  const repo = await readRepositoryContext(root, config.ignore.length ? { ignored: (rel) => isIgnored(config.ignore, rel.replace(/\/$/, '')) } : {});
  const tok = tokenizer(isTokenizerName(config.tokenizer) ? config.tokenizer : DEFAULT_TOKENIZER);
  const model = contextModel({ files: repo.files, allPaths: repo.allPaths, read: repo.read, count: (t) => tok.count(t), options: repo.options });
  const out = new Map<string, ContextDiagnostic[]>();
  for (const d of contextDiagnostics(model, config.contextBudget ?? {})) {
    const list = out.get(d.path);
    if (list) list.push(d);
    else out.set(d.path, [d]);
  }
  return out;
}

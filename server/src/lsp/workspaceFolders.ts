/** The workspace folders the client opened, as file-system paths, and which one holds a document. */
import { isAbsolute, relative, resolve } from 'node:path';
import type { InitializeParams, WorkspaceFolder } from 'vscode-languageserver/node';
import { fsPathOf } from '../node/files';

export { fsPathOf };

export class WorkspaceFolders {
  private roots: string[] = [];

  constructor(params: InitializeParams) {
    const folders: WorkspaceFolder[] = params.workspaceFolders ?? [];
    for (const f of folders) this.add(f.uri);
    if (folders.length === 0) {
      if (params.rootUri) this.add(params.rootUri);
      else if (params.rootPath) this.roots.push(resolve(params.rootPath));
    }
  }

  all(): readonly string[] {
    return this.roots;
  }

  add(uri: string): void {
    const p = fsPathOf(uri);
    if (p && !this.roots.includes(p)) this.roots.push(p);
  }

  remove(uri: string): void {
    const p = fsPathOf(uri);
    this.roots = this.roots.filter((r) => r !== p);
  }

  /** The innermost folder containing the document. */
  rootOf(uri: string): string | undefined {
    const p = fsPathOf(uri);
    if (!p) return undefined;
    let best: string | undefined;
    for (const r of this.roots) {
      const rel = relative(r, p);
      const inside = rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
      if (inside && (!best || r.length > best.length)) best = r;
    }
    return best;
  }
}

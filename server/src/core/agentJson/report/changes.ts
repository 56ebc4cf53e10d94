/**
 * File changes an exact_edit plans, shaped 1:1 for an LSP WorkspaceEdit (TextDocumentEdit, CreateFile,
 * DeleteFile, RenameFile) and for the CLI's file-system writer. Paths are absolute.
 */

/** A text edit in UTF-16 offsets into the text the plan read (the open buffer when open, else the decoded file). */
export interface TextEdit {
  start: number;
  end: number;
  newText: string;
}

export type FileChange =
  | {
      type: 'edit';
      absPath: string;
      edits: TextEdit[];
      /** sha256 of the text the offsets point into (the open buffer's UTF-8 or the file's bytes): a writer re-checks it. */
      baseSha256: string;
      /**
       * Set when the text was read from disk and starts with a BOM, which the offsets count (as U+FEFF at 0).
       * An editor model that hides the BOM (VS Code's) must subtract 1 from every offset; no edit ever covers offset 0.
       */
      diskBom?: true;
    }
  | { type: 'create'; absPath: string; text: string }
  | { type: 'delete'; absPath: string; /** sha256 of the file's bytes when planned: a writer re-checks it. */ baseSha256: string }
  | { type: 'rename'; from: string; to: string; /** sha256 of `from` when planned. */ baseSha256: string };

/** Applies a whole plan or nothing; implemented for Node in server/src/node/workspace.ts, faked in tests. */
export interface WorkspaceWriter {
  apply(changes: readonly FileChange[]): { ok: true } | { ok: false; reason: string };
}

/** Applies non-overlapping edits (any order) to a text. */
export function applyTextEdits(text: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.start) + e.newText + out.slice(e.end);
  return out;
}

/** The paths a plan writes (edited, created, deleted, renamed from or to). */
export function writtenPaths(changes: readonly FileChange[]): string[] {
  return changes.flatMap((c) => (c.type === 'rename' ? [c.from, c.to] : [c.absPath]));
}

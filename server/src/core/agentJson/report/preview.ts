/**
 * What a planned exact_edit will do, for the person asked to confirm it: per file, the workspace-relative
 * path, the 1-based line range it touches and a short preview (`- ` removed lines, `+ ` added lines).
 * Pure: texts come from the caller (the open buffer or the file the plan read).
 */
import * as nodePath from 'node:path';
import type { FileChange } from './changes';

export interface ChangePreview {
  /** Workspace-relative path (posix separators), or the absolute path outside the root. */
  file: string;
  /** "line 12", "lines 12–18", "new file", "whole file". */
  lines: string;
  /** What happens, in a few words ("remove", "append", "create", "delete", "rename to docs/a.md"). */
  action: string;
  /** At most {@link PREVIEW_MAX_LINES} lines, each at most {@link PREVIEW_MAX_COLUMNS} characters. */
  preview: string;
  /** 0-based line of the first touched line (where an editor should reveal it), when the file stays. */
  revealLine?: number;
}

export const PREVIEW_MAX_LINES = 8;
export const PREVIEW_MAX_COLUMNS = 120;

/** The path as the user knows it: relative to the workspace root when inside it. */
export function displayPath(absPath: string, root: string | undefined): string {
  if (root) {
    const rel = nodePath.relative(root, absPath);
    if (rel && !rel.startsWith('..') && !nodePath.isAbsolute(rel)) return rel.split(nodePath.sep).join('/');
  }
  return absPath;
}

/** 1-based line of an offset (CRLF, LF and CR all end a line). */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) line++;
  }
  return line;
}

const lineLabel = (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}–${b}`);

/** Up to PREVIEW_MAX_LINES lines of `text`, each prefixed and cut to PREVIEW_MAX_COLUMNS; "…" says more follow. */
function excerpt(text: string, prefix: string): string[] {
  const all = text.replace(/\r?\n$|\r$/, '').split(/\r\n|\n|\r/);
  if (text.length === 0) return [];
  const shown = all.slice(0, PREVIEW_MAX_LINES).map((l) => prefix + (l.length > PREVIEW_MAX_COLUMNS ? l.slice(0, PREVIEW_MAX_COLUMNS - 1) + '…' : l));
  if (all.length > PREVIEW_MAX_LINES) shown.push(`${prefix}… (${all.length - PREVIEW_MAX_LINES} more line${all.length - PREVIEW_MAX_LINES === 1 ? '' : 's'})`);
  return shown;
}

/** One preview per file change of a plan. `textOf` gives the text an edit's offsets point into. */
export function previewChanges(changes: readonly FileChange[], root: string | undefined, textOf: (absPath: string) => string | undefined): ChangePreview[] {
  return changes.map((c): ChangePreview => {
    switch (c.type) {
      case 'edit': {
        const text = textOf(c.absPath) ?? '';
        const sorted = [...c.edits].sort((x, y) => x.start - y.start);
        const first = sorted[0];
        const last = sorted[sorted.length - 1];
        if (!first || !last) return { file: displayPath(c.absPath, root), lines: 'no change', action: 'nothing', preview: '' };
        const startLine = lineOf(text, first.start);
        // An edit ending at the start of a line (a removed line's terminator) touches the line before it only.
        const endOffset = last.end > last.start && /[\r\n]/.test(text.charAt(last.end - 1)) ? last.end - 1 : last.end;
        const endLine = lineOf(text, endOffset);
        const removed = sorted.map((e) => text.slice(e.start, e.end)).join('');
        const added = sorted.map((e) => e.newText).join('');
        const action = removed && added ? 'replace' : removed ? 'remove' : first.start >= text.length ? 'append' : 'insert';
        const preview = [...excerpt(removed, '- '), ...excerpt(added, '+ ')].join('\n');
        return { file: displayPath(c.absPath, root), lines: lineLabel(startLine, endLine), action, preview, revealLine: startLine - 1 };
      }
      case 'create':
        return { file: displayPath(c.absPath, root), lines: 'new file', action: 'create', preview: excerpt(c.text, '+ ').join('\n'), revealLine: 0 };
      case 'delete': {
        const text = textOf(c.absPath);
        return { file: displayPath(c.absPath, root), lines: 'whole file', action: 'delete', preview: text === undefined ? '' : excerpt(text, '- ').join('\n') };
      }
      case 'rename':
        return { file: displayPath(c.from, root), lines: 'whole file', action: `move to ${displayPath(c.to, root)}`, preview: '' };
    }
  });
}

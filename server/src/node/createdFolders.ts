/**
 * Folders an applied WorkspaceEdit makes the editor create (a CreateFile or RenameFile into a folder that
 * does not exist yet: editors create the parents, and Undo removes the file but not them). The server notes
 * them before the edit and removes them again, only while empty, once the file they were made for is gone.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';

/** The missing folders above `absFile`, nearest first, that lie strictly inside `root`. */
export function missingFolders(absFile: string, root: string): string[] {
  const out: string[] = [];
  const top = nodePath.resolve(root);
  let dir = nodePath.dirname(nodePath.resolve(absFile));
  while (dir !== top && dir.startsWith(top + nodePath.sep) && !fs.existsSync(dir)) {
    out.push(dir);
    dir = nodePath.dirname(dir);
  }
  return out;
}

/** Removes each folder (nearest first) while it is an empty real directory; stops at the first that is not. Returns those removed. */
export function removeEmptyFolders(dirs: readonly string[]): string[] {
  const removed: string[] = [];
  for (const dir of dirs) {
    try {
      const st = fs.lstatSync(dir);
      if (!st.isDirectory() || fs.readdirSync(dir).length > 0) break;
      fs.rmdirSync(dir); // never recursive: fails rather than deletes anything
      removed.push(dir);
    } catch {
      break;
    }
  }
  return removed;
}

/** Whether a path exists (any kind of entry). */
export function pathExists(absPath: string): boolean {
  try {
    fs.lstatSync(absPath);
    return true;
  } catch {
    return false;
  }
}

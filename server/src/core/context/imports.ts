/**
 * `@path` imports in memory files (Claude Code's CLAUDE.md, Gemini CLI's GEMINI.md): an `@` at the start of a
 * line or after whitespace, followed by a path, outside fenced code blocks and inline code spans (neither
 * agent evaluates imports there). A reference counts as an import only when it looks like a file path: it
 * holds a `/` or a `.` after its first character, so `@username` and `@here` stay prose. Linear in the text.
 */

export interface ImportRef {
  /** The path as written (trailing punctuation dropped). */
  spec: string;
  /** Offsets of `@path` in the text. */
  start: number;
  end: number;
}

const TRAILING = /[),.;:!?'"\]]+$/;

/** The import references of a text, in order. */
export function findImports(text: string, from = 0): ImportRef[] {
  const out: ImportRef[] = [];
  let at = from;
  let fence = '';
  while (at < text.length) {
    let end = text.indexOf('\n', at);
    if (end < 0) end = text.length;
    const line = text.slice(at, end);
    const f = /^\s{0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = '';
    } else if (f) {
      fence = f[1]!;
    } else if (line.includes('@')) {
      scanLine(line, at, out);
    }
    at = end + 1;
  }
  return out;
}

function scanLine(line: string, base: number, out: ImportRef[]): void {
  let inCode = 0; // length of the open backtick run, 0 outside a code span
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '`') {
      let j = i;
      while (line[j] === '`') j++;
      const run = j - i;
      if (inCode === 0) {
        // Only a span that closes on this line is code (an unmatched run is literal text).
        if (line.indexOf('`'.repeat(run), j) >= 0) inCode = run;
      } else if (run === inCode) inCode = 0;
      i = j - 1;
      continue;
    }
    if (inCode || c !== '@') continue;
    if (i > 0 && !/\s/.test(line[i - 1]!)) continue;
    let j = i + 1;
    while (j < line.length && !/\s/.test(line[j]!) && line[j] !== '`') j++;
    const spec = line.slice(i + 1, j).replace(TRAILING, '');
    if (spec.length > 1 && /[/.]/.test(spec.slice(1)) && !/^[a-z][a-z0-9+.-]*:/i.test(spec)) {
      out.push({ spec, start: base + i, end: base + i + 1 + spec.length });
    }
    i = j - 1;
  }
}

/** Where an import spec points, relative to the repository root; undefined when outside it (`~/…`, absolute, `../` past the root). */
export function resolveImport(fromPath: string, spec: string): string | undefined {
  if (spec.startsWith('~') || spec.startsWith('/') || /^[A-Za-z]:[\\/]/.test(spec)) return undefined;
  const dir = fromPath.includes('/') ? fromPath.slice(0, fromPath.lastIndexOf('/')) : '';
  const parts = dir ? dir.split('/') : [];
  for (const seg of spec.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

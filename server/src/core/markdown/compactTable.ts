/**
 * "Compact table": a markdown-preserving candidate beside TOON. Every GFM table of the text is rewritten with its
 * cell padding dropped and its delimiter row shortened to one dash a column (`|---:|` → `|-:|`), and a table is
 * rewritten only when the rendered HTML (markdown-it, CommonMark + GFM tables) of the whole text stays exactly the
 * same, so the document still reads and renders as before. Linear in the text.
 */
import MarkdownIt from 'markdown-it';
import { blockParser } from './parser';

/** One table rewritten: the text range it replaces and its new text. */
export interface TableEdit {
  start: number;
  end: number;
  text: string;
}

export interface CompactTables {
  /** The rewritten tables, in document order (none when no table gets shorter or none keeps the HTML). */
  edits: TableEdit[];
  /** The whole text with the edits applied. */
  text: string;
}

let renderer: ReturnType<typeof MarkdownIt> | undefined;
/** The full renderer (inline pass on), configured as the core's block parser. */
function render(text: string): string {
  renderer ??= MarkdownIt('commonmark').enable(['table', 'strikethrough']);
  return renderer.render(text);
}

/** Line start offsets of `text`. */
function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/**
 * The cells of one table row, split at unescaped pipes outside code spans (as GFM does), each trimmed; the
 * row's leading indentation and outer pipes are dropped. Undefined for a row it does not understand.
 */
function cells(row: string): string[] | undefined {
  const out: string[] = [];
  let cur = '';
  let tick = 0;
  for (let i = 0; i < row.length; i++) {
    const c = row[i]!;
    if (c === '\\' && i + 1 < row.length) {
      cur += c + row[i + 1]!;
      i++;
      continue;
    }
    if (c === '`') {
      let n = 1;
      while (row[i + n] === '`') n++;
      if (tick === 0) tick = n;
      else if (tick === n) tick = 0;
      cur += row.slice(i, i + n);
      i += n - 1;
      continue;
    }
    if (c === '|' && tick === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  if (tick !== 0) return undefined;
  out.push(cur.trim());
  const t = row.trim();
  if (t.startsWith('|')) out.shift();
  if (t.endsWith('|') && !t.endsWith('\\|')) out.pop();
  return out;
}

/** A delimiter cell shortened: `:---:` → `:-:`, `---:` → `-:`, `---` → `-`. */
function shortDelimiter(cell: string): string | undefined {
  const m = /^(:?)-+(:?)$/.exec(cell.replace(/\s+/g, ''));
  return m ? `${m[1]}-${m[2]}` : undefined;
}

/** One table's compact text (rows joined by `\n`), or undefined when a row is not understood. */
function compactTable(lines: string[]): string | undefined {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const indent = /^[ \t]*/.exec(line)![0];
    if (indent.includes('\t') || indent.length > 3) return undefined;
    const cs = cells(line);
    if (!cs) return undefined;
    if (i === 1) {
      const ds = cs.map(shortDelimiter);
      if (ds.some((d) => d === undefined)) return undefined;
      out.push(`|${ds.join('|')}|`);
    } else out.push(`|${cs.join('|')}|`);
  }
  return out.join('\n');
}

/** The text's tables compacted, each only where it gets shorter and the rendered HTML stays identical. */
export function compactTables(text: string): CompactTables {
  const tokens = blockParser().parse(text, {});
  const starts = lineStarts(text);
  const offsetOfLine = (line: number) => (line < starts.length ? starts[line]! : text.length);
  const candidates: TableEdit[] = [];
  for (const t of tokens) {
    // Top-level tables only (a table in a list or a quote carries the container's prefix on every line).
    if (t.type !== 'table_open' || t.level !== 0 || !t.map) continue;
    const [from, to] = t.map;
    const start = offsetOfLine(from);
    let end = offsetOfLine(to);
    while (end > start && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
    const lines = text.slice(start, end).split(/\r?\n/);
    const compact = compactTable(lines);
    if (compact === undefined) continue;
    const eol = text.slice(start, end).includes('\r\n') ? '\r\n' : '\n';
    const replacement = compact.split('\n').join(eol);
    if (replacement.length < end - start) candidates.push({ start, end, text: replacement });
  }
  if (candidates.length === 0) return { edits: [], text };
  const apply = (edits: TableEdit[]) => {
    let out = '';
    let at = 0;
    for (const e of edits) {
      out += text.slice(at, e.start) + e.text;
      at = e.end;
    }
    return out + text.slice(at);
  };
  // Each table is checked alone (linear: every table is rendered twice), then the whole text once.
  const kept = candidates.filter((e) => render(text.slice(e.start, e.end)) === render(e.text));
  if (kept.length === 0) return { edits: [], text };
  const all = apply(kept);
  if (render(all) !== render(text)) return { edits: [], text };
  return { edits: kept, text: all };
}

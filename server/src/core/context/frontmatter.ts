/**
 * The YAML frontmatter of an agent file (`---` lines around it, at the very start), read as the small subset
 * agent files use: `key: scalar`, `key: [a, b]`, and `key:` followed by `- item` lines. Quoted scalars keep
 * their text; `true` / `false` are booleans; anything else is a string. Nested maps and multi-line scalars
 * are kept as their raw text. Linear in the text; never throws.
 */

export type FrontmatterValue = string | boolean | string[];

export interface Frontmatter {
  /** Keys as written (later keys win). */
  data: Record<string, FrontmatterValue>;
  /** Offset where the body starts (0 when the file has no frontmatter). */
  bodyStart: number;
  /** Whether the text opens with a frontmatter block. */
  present: boolean;
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'")))) {
    const inner = t.slice(1, -1);
    return t.startsWith("'") ? inner.replace(/''/g, "'") : inner.replace(/\\"/g, '"').replace(/\\\\/g, '\\');
  }
  return t;
}

/** A trailing ` # comment` outside quotes dropped. */
function stripComment(v: string): string {
  let quote = '';
  for (let i = 0; i < v.length; i++) {
    const c = v[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && (i === 0 || v[i - 1] === ' ' || v[i - 1] === '\t')) return v.slice(0, i);
  }
  return v;
}

function scalar(raw: string): FrontmatterValue {
  const v = stripComment(raw).trim();
  if (v === 'true' || v === 'True' || v === 'TRUE') return true;
  if (v === 'false' || v === 'False' || v === 'FALSE') return false;
  if (v.startsWith('[') && v.endsWith(']')) {
    return splitFlow(v.slice(1, -1))
      .map(unquote)
      .filter((s) => s !== '');
  }
  return unquote(v);
}

/** Items of a flow sequence body, split on commas outside quotes and braces (`{ts,tsx}` stays whole). */
function splitFlow(body: string): string[] {
  const out: string[] = [];
  let quote = '';
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth <= 0) {
      out.push(body.slice(start, i));
      start = i + 1;
    }
  }
  out.push(body.slice(start));
  return out;
}

/** Parses the frontmatter at the start of `text` (a BOM is skipped). */
export function parseFrontmatter(text: string): Frontmatter {
  const data: Record<string, FrontmatterValue> = {};
  let at = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const firstEnd = lineEnd(text, at);
  if (text.slice(at, firstEnd).trimEnd() !== '---') return { data, bodyStart: 0, present: false };
  at = nextLine(text, firstEnd);
  let key: string | undefined;
  let list: string[] | undefined;
  while (at < text.length) {
    const end = lineEnd(text, at);
    const line = text.slice(at, end);
    const next = nextLine(text, end);
    const trimmed = line.trimEnd();
    if (trimmed === '---' || trimmed === '...') return { data, bodyStart: next, present: true };
    const item = /^\s*-\s+(.*)$/.exec(line) ?? /^\s*-$/.exec(line);
    if (item && key !== undefined) {
      list ??= [];
      const v = unquote(stripComment(item[1] ?? ''));
      if (v !== '') list.push(v);
      data[key] = list;
    } else {
      const kv = /^([A-Za-z_][\w.-]*)\s*:(.*)$/.exec(line);
      if (kv) {
        key = kv[1]!;
        list = undefined;
        const rest = kv[2]!.trim();
        data[key] = rest === '' ? '' : scalar(rest);
      } else if (key !== undefined && /^\s+\S/.test(line) && typeof data[key] === 'string') {
        // A continuation line of a plain or folded scalar.
        const prev = data[key] as string;
        const piece = line.trim();
        data[key] = prev === '' || prev === '>' || prev === '|' || prev === '>-' || prev === '|-' ? piece : `${prev} ${piece}`;
      }
    }
    at = next;
  }
  // No closing line: not frontmatter, the whole text is body.
  return { data: {}, bodyStart: 0, present: false };
}

function lineEnd(text: string, from: number): number {
  const n = text.indexOf('\n', from);
  const end = n < 0 ? text.length : n;
  return end > from && text[end - 1] === '\r' ? end - 1 : end;
}

function nextLine(text: string, end: number): number {
  if (text[end] === '\r') end++;
  return text[end] === '\n' ? end + 1 : end;
}

/** A value as a list of non-empty strings: a list as is, a string split on commas (Cursor's `globs: a, b`). */
export function stringList(v: FrontmatterValue | undefined): string[] {
  if (v === undefined || typeof v === 'boolean') return [];
  const items = Array.isArray(v) ? v : splitFlow(v);
  return items.map((s) => unquote(s)).filter((s) => s !== '');
}

/** A value as one string ('' when absent or not a string). */
export function stringValue(v: FrontmatterValue | undefined): string {
  return typeof v === 'string' ? v : Array.isArray(v) ? v.join(', ') : '';
}

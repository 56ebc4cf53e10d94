/**
 * The JSON model a slice becomes (docs/engine.md#3-the-model), and its inverse.
 *
 * Shape (documented in docs/engine.md):
 * - A slice is a single-key object. The key says what the slice is: `"## Heading"`
 *   (ATX level + heading text), `""` for a preamble, `"---"` for frontmatter (its raw text).
 * - A body with exactly one paragraph is a string; with exactly one bullet list a string
 *   array; with exactly one table an array of row objects keyed by the header cells (TOON's
 *   tabular form is where savings come from; canonical number/boolean cells are JSON numbers/
 *   booleans); with exactly one definition list its term → text object (unless every term
 *   looks like a block key); a heading without body is `""`.
 * - Any other body is an object whose keys name each block's kind and position:
 *   `p1` paragraph, `l2` bullet list, `o3` ordered list (`[...]` or `{start, items}`),
 *   `t4` table rows, `c5` code (string, or `{lang, code}`), `d6` definitions (term → text),
 *   `m7` raw markdown kept verbatim (HTML, block quotes, rules, reference definitions…).
 * - A document is the slices' objects merged into one object when every key is distinct,
 *   else an array of the slice objects.
 */
import type { Block } from './blocks';
import { pushAll } from '../arrays';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [k: string]: JsonValue };
export type JsonObject = { [k: string]: JsonValue };

const BLOCK_KEY = /^([pltocdm])([1-9]\d*)$/;

/**
 * The inline-array cap: TOON writes an array of strings on one line (`[N]: a,b,c`), which past a few dozen values
 * is one unreadable line. A list with more items than this, or whose items joined by one separator are longer
 * than {@link INLINE_ARRAY_MAX_CHARS}, is modelled as one-column rows keyed {@link LIST_ITEM_KEY}, which TOON
 * writes in its tabular form: one item a line.
 */
export const INLINE_ARRAY_MAX_VALUES = 64;
export const INLINE_ARRAY_MAX_CHARS = 400;
/** The column of a list past the inline-array cap (`[N]{item}:`, one item a row). */
export const LIST_ITEM_KEY = 'item';

/** Whether a list's items are past the inline-array cap. */
export function pastInlineCap(items: readonly string[]): boolean {
  if (items.length > INLINE_ARRAY_MAX_VALUES) return true;
  let n = items.length - 1;
  for (const x of items) if ((n += x.length) > INLINE_ARRAY_MAX_CHARS) return true;
  return false;
}

/** A list's items as the model holds them: the strings, or one-column rows past the inline-array cap. */
function listValue(items: string[]): JsonValue[] {
  return pastInlineCap(items) ? items.map((x) => ({ [LIST_ITEM_KEY]: x })) : items;
}

/** Whether `v` is a list past the inline-array cap (rows whose only key is {@link LIST_ITEM_KEY}). */
function isItemRows(v: JsonValue[]): boolean {
  return v.length > 0 && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length === 1 && Object.prototype.hasOwnProperty.call(x, LIST_ITEM_KEY));
}

/** A list's items back from the model (one-column rows unwrapped). */
function listItemsOf(v: JsonValue[]): JsonValue[] {
  return isItemRows(v) ? v.map((x) => (x as JsonObject)[LIST_ITEM_KEY]!) : v;
}
/** A slice key: `#`…`######` (+ text), `""` (preamble) or `---` (frontmatter). */
const SLICE_KEY = /^(?:#{1,6}(?: [\s\S]*)?|---|)$/;

/**
 * Whether a decoded value is a slice or document model (slice keys, see the module comment) rather than a
 * section body: an object whose keys are all slice keys, or an array of such single-key objects.
 * Bodies never look like this (a definition list whose terms all look like slice keys is block-keyed).
 */
export function isSliceModel(v: JsonValue): boolean {
  const keyed = (x: JsonValue) => x !== null && typeof x === 'object' && !Array.isArray(x) && Object.keys(x).length > 0 && Object.keys(x).every((k) => SLICE_KEY.test(k));
  if (Array.isArray(v)) return v.length > 0 && v.every((x) => keyed(x) && Object.keys(x as JsonObject).length === 1);
  return keyed(v);
}

/** Model key of a slice. */
export function sliceKey(kind: 'frontmatter' | 'preamble' | 'section', heading: { level: number; text: string } | null): string {
  if (kind === 'frontmatter') return '---';
  if (!heading) return '';
  return '#'.repeat(heading.level) + (heading.text ? ' ' + heading.text : '');
}

function blockValue(b: Block): JsonValue {
  switch (b.kind) {
    case 'p':
      return b.text;
    case 'l':
      return listValue(b.items);
    case 'o':
      return b.start === 1 ? listValue(b.items) : { start: b.start, items: listValue(b.items) };
    case 't':
      return tableRows(b.header, b.rows);
    case 'c':
      return b.lang ? { lang: b.lang, code: b.code } : b.code;
    case 'd': {
      const o: JsonObject = {};
      for (const [k, v] of b.defs) o[k] = v;
      return o;
    }
    case 'm':
      return b.raw;
  }
}

/**
 * A table cell: canonical number and boolean literals become JSON numbers/booleans (TOON writes
 * them unquoted; as strings they would need quotes). Canonical means String(value) gives back
 * the exact cell text, so rendering reproduces the source text and re-parsing the same model.
 */
export function cellValue(text: string): JsonValue {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?(?:0|[1-9]\d*)(?:\.\d+)?$/.test(text)) {
    const n = Number(text);
    if (Number.isFinite(n) && String(n) === text) return n;
  }
  return text;
}

function tableRows(header: string[], rows: string[][]): JsonObject[] {
  return rows.map((r) => {
    const o: JsonObject = {};
    header.forEach((h, i) => {
      o[h] = cellValue(r[i] ?? '');
    });
    return o;
  });
}

/** The body value of a list of blocks (see the module comment for the shape). */
export function bodyValue(blocks: Block[]): JsonValue {
  if (blocks.length === 0) return '';
  if (blocks.length === 1) {
    const b = blocks[0]!;
    if (b.kind === 'p' && b.text !== '') return b.text;
    if (b.kind === 'l' && b.items.length > 0) return listValue(b.items);
    // (a one-column table headed by a slice-like key would read back as a slice model, one headed by the list
    // item key as a long list: block-keyed then)
    if (b.kind === 't' && !(b.header.length === 1 && (SLICE_KEY.test(b.header[0]!) || b.header[0] === LIST_ITEM_KEY))) return tableRows(b.header, b.rows);
    // One definition list is its term → text object, unless every term looks like a block key.
    if (b.kind === 'd' && !b.defs.every(([k]) => BLOCK_KEY.test(k)) && !b.defs.every(([k]) => SLICE_KEY.test(k))) return blockValue(b);
  }
  const o: JsonObject = {};
  blocks.forEach((b, i) => {
    o[b.kind + (i + 1)] = blockValue(b);
  });
  return o;
}

// ---------------------------------------------------------------------------
// Rendering: model → markdown. Re-parsing the rendering yields the same model.

function longestRun(s: string, ch: string): number {
  let best = 0;
  let cur = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === ch) {
      cur++;
      if (cur > best) best = cur;
    } else cur = 0;
  }
  return best;
}

function renderItems(items: JsonValue[], marker: (i: number) => string): string {
  return listItemsOf(items)
    .map((it, i) => {
      const m = marker(i);
      const text = typeof it === 'string' ? it : JSON.stringify(it);
      const pad = ' '.repeat(m.length + 1);
      const [first, ...rest] = text.split('\n');
      const head = first === '' ? m : `${m} ${first}`;
      return [head, ...rest.map((l) => (l === '' ? '' : pad + l))].join('\n');
    })
    .join('\n');
}

function cell(v: JsonValue): string {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function renderTable(rows: JsonValue[]): string {
  const first = rows[0];
  const header = first && typeof first === 'object' && !Array.isArray(first) ? Object.keys(first) : [];
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const out = [line(header.map((h) => cell(h))), line(header.map(() => '---'))];
  for (const r of rows) {
    const o = r && typeof r === 'object' && !Array.isArray(r) ? (r as JsonObject) : {};
    out.push(line(header.map((h) => cell(o[h] ?? ''))));
  }
  return out.join('\n');
}

function renderCode(code: string, lang: string): string {
  if (lang.includes('`')) {
    const f = '~'.repeat(Math.max(3, longestRun(code, '~') + 1));
    return `${f}${lang}\n${code}${code === '' ? '' : '\n'}${f}`;
  }
  const f = '`'.repeat(Math.max(3, longestRun(code, '`') + 1));
  return `${f}${lang}\n${code}${code === '' ? '' : '\n'}${f}`;
}

interface RenderState {
  lastBullet: string;
  lastOrdered: string;
  prev: string;
}

function renderBlock(kind: string, v: JsonValue, st: RenderState): string {
  switch (kind) {
    case 'p':
      return typeof v === 'string' ? v : JSON.stringify(v);
    case 'l': {
      // Adjacent lists with the same marker would merge on re-parse: alternate markers.
      const m = st.prev === 'l' && st.lastBullet === '-' ? '*' : '-';
      st.lastBullet = m;
      return renderItems(Array.isArray(v) ? v : [v], () => m);
    }
    case 'o': {
      const d = st.prev === 'o' && st.lastOrdered === '.' ? ')' : '.';
      st.lastOrdered = d;
      let start = 1;
      let items: JsonValue[] = [];
      if (Array.isArray(v)) items = v;
      else if (v && typeof v === 'object') {
        start = typeof v.start === 'number' ? v.start : 1;
        items = Array.isArray(v.items) ? v.items : [];
      }
      return renderItems(items, (i) => `${start + i}${d}`);
    }
    case 't':
      return renderTable(Array.isArray(v) ? v : []);
    case 'c':
      if (typeof v === 'string') return renderCode(v, '');
      if (v && typeof v === 'object' && !Array.isArray(v)) return renderCode(String(v.code ?? ''), String(v.lang ?? ''));
      return renderCode(JSON.stringify(v), '');
    case 'd': {
      const o = v && typeof v === 'object' && !Array.isArray(v) ? v : {};
      return Object.entries(o)
        .map(([k, x]) => `- **${k}**: ${typeof x === 'string' ? x : JSON.stringify(x)}`)
        .join('\n');
    }
    case 'm':
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
  return '';
}

/** Renders a slice body back to markdown blocks separated by blank lines. */
export function renderBody(body: JsonValue): string {
  const st: RenderState = { lastBullet: '', lastOrdered: '', prev: '' };
  if (typeof body === 'string') return body;
  if (Array.isArray(body)) {
    if (isItemRows(body)) return renderBlock('l', body, st);
    if (body.length > 0 && body.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x))) return renderTable(body);
    return renderBlock('l', body, st);
  }
  if (body && typeof body === 'object') {
    if (!Object.keys(body).every((k) => BLOCK_KEY.test(k))) return renderBlock('d', body, st);
    const parts: string[] = [];
    for (const [k, v] of Object.entries(body)) {
      const m = BLOCK_KEY.exec(k);
      const kind = m ? m[1]! : 'p';
      const r = renderBlock(kind, v, st);
      st.prev = kind;
      if (r !== '') parts.push(r);
    }
    return parts.join('\n\n');
  }
  return body === null ? '' : String(body);
}

/** Renders one slice object ({key: body}) back to markdown. */
export function renderSliceEntry(key: string, body: JsonValue): string {
  if (key === '---') return typeof body === 'string' ? body : JSON.stringify(body);
  const m = /^(#{1,6})(?: ([\s\S]*))?$/.exec(key);
  const rendered = renderBody(body);
  if (!m) return rendered;
  const level = m[1]!.length;
  const text = m[2] ?? '';
  let heading: string;
  if (text.includes('\n') && level <= 2) heading = `${text}\n${level === 1 ? '===' : '---'}`;
  else heading = text ? `${m[1]} ${text.replace(/\n/g, ' ')}` : m[1]!;
  return rendered === '' ? heading : `${heading}\n\n${rendered}`;
}

/** Renders a slice or document model back to markdown. */
export function renderModel(model: JsonValue): string {
  const parts: string[] = [];
  const entries: [string, JsonValue][] = [];
  if (Array.isArray(model)) {
    for (const el of model) {
      if (el && typeof el === 'object' && !Array.isArray(el)) pushAll(entries, Object.entries(el));
      else entries.push(['', el]);
    }
  } else if (model && typeof model === 'object') pushAll(entries, Object.entries(model));
  else entries.push(['', model]);
  for (const [k, v] of entries) {
    const r = renderSliceEntry(k, v);
    if (r !== '') parts.push(r);
  }
  return parts.length ? parts.join('\n\n') + '\n' : '';
}

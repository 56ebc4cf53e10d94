/**
 * Quick fixes expressed on the JSON value (JsonFix) turned into text edits with jsonc-parser's `modify`,
 * which keeps the rest of the document's formatting byte for byte.
 */
import { modify, applyEdits as applyTextEdits, parseTree, findNodeAtLocation, type Edit, type FormattingOptions, type Node } from 'jsonc-parser';
import type { JsonFix } from '../types';

/** A replacement of `length` characters at `offset` (offsets into the text the fix was computed on). */
export interface TextEdit {
  offset: number;
  length: number;
  content: string;
}

/** Indentation and line ending the document already uses, so inserted properties look like their neighbours. */
export function detectFormatting(text: string): FormattingOptions {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const m = /\n([ \t]+)\S/.exec(text);
  const indent = m?.[1] ?? '  ';
  const insertSpaces = !indent.startsWith('\t');
  return { insertSpaces, tabSize: insertSpaces ? Math.max(1, Math.min(indent.length, 8)) : 1, eol };
}

/**
 * The text edits that apply `fix` to `text`. Each JsonEdit sets the value at its path (creating the last key
 * when absent) or removes it. A fix of several edits becomes one edit spanning what changed, so all offsets
 * refer to `text`. Returns [] when the text cannot be edited (not JSON, or nesting too deep to parse).
 */
export function fixToTextEdits(text: string, fix: JsonFix): TextEdit[] {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? text.slice(1) : text;
  const formattingOptions = detectFormatting(body);
  try {
    if (fix.edits.length === 1) {
      return shift(editsFor(body, fix.edits[0]!, formattingOptions), bom);
    }
    let current = body;
    for (const e of fix.edits) current = applyTextEdits(current, editsFor(current, e, formattingOptions));
    return shift(diffAsOneEdit(body, current), bom);
  } catch {
    // jsonc-parser recurses per nesting level; on absurd nesting the fix is simply not offered.
    return [];
  }
}

function editsFor(text: string, e: JsonFix['edits'][number], formattingOptions: FormattingOptions): Edit[] {
  if (!e.remove) {
    const insertion = insertNewProperty(text, e.path, e.value, formattingOptions);
    if (insertion) return insertion;
  }
  return modify(text, e.path as (string | number)[], e.remove ? undefined : e.value, { formattingOptions });
}

/**
 * Adding a property to an existing object, written like its siblings. jsonc-parser's own insertion
 * re-formats the whole line of the previous property (a one-line nested value gets exploded), so
 * new keys are inserted here: after the last property, on its own line at the siblings' indentation
 * (or inline, in a one-line object). Undefined when this is not such an insertion.
 */
function insertNewProperty(text: string, path: JsonFix['edits'][number]['path'], value: unknown, fmt: FormattingOptions): Edit[] | undefined {
  const key = path[path.length - 1];
  if (typeof key !== 'string' || value === undefined) return undefined;
  const root = parseTree(text, [], { disallowComments: true });
  if (!root) return undefined;
  const parent: Node | undefined = path.length === 1 ? root : findNodeAtLocation(root, path.slice(0, -1) as (string | number)[]);
  if (!parent || parent.type !== 'object') return undefined;
  const props = parent.children ?? [];
  if (props.some((p) => p.children?.[0]?.value === key)) return undefined; // a replacement: modify handles it without reflowing
  const eol = fmt.eol ?? '\n';
  const unit = fmt.insertSpaces === false ? '\t' : ' '.repeat(fmt.tabSize ?? 2);
  const last = props[props.length - 1];
  if (last) {
    const lineStart = text.lastIndexOf('\n', last.offset - 1) + 1;
    const lead = text.slice(lineStart, last.offset);
    const multiline = /^[ \t]*$/.test(lead) && text.slice(parent.offset, last.offset).includes('\n');
    if (!multiline) {
      return [{ offset: last.offset + last.length, length: 0, content: `, ${JSON.stringify(key)}: ${JSON.stringify(value)}` }];
    }
    return [{ offset: last.offset + last.length, length: 0, content: `,${eol}${lead}${JSON.stringify(key)}: ${indentJson(value, unit, lead, eol)}` }];
  }
  const lineStart = text.lastIndexOf('\n', parent.offset - 1) + 1;
  const outer = /^[ \t]*/.exec(text.slice(lineStart, parent.offset))![0];
  const inner = outer + unit;
  return [{ offset: parent.offset + 1, length: parent.length - 2, content: `${eol}${inner}${JSON.stringify(key)}: ${indentJson(value, unit, inner, eol)}${eol}${outer}` }];
}

function indentJson(value: unknown, unit: string, base: string, eol: string): string {
  return JSON.stringify(value, null, unit).split('\n').join(eol + base);
}

function shift(edits: Edit[], by: number): TextEdit[] {
  return edits.map((e) => ({ offset: e.offset + by, length: e.length, content: e.content }));
}

/** The smallest single edit turning `before` into `after` (common prefix and suffix kept). */
function diffAsOneEdit(before: string, after: string): Edit[] {
  if (before === after) return [];
  let start = 0;
  const max = Math.min(before.length, after.length);
  while (start < max && before.charCodeAt(start) === after.charCodeAt(start)) start++;
  let endB = before.length;
  let endA = after.length;
  while (endB > start && endA > start && before.charCodeAt(endB - 1) === after.charCodeAt(endA - 1)) {
    endB--;
    endA--;
  }
  return [{ offset: start, length: endB - start, content: after.slice(start, endA) }];
}

/** Applies text edits (non-overlapping, offsets into `text`). */
export function applyTextEditsTo(text: string, edits: TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.offset - a.offset);
  let out = text;
  for (const e of sorted) out = out.slice(0, e.offset) + e.content + out.slice(e.offset + e.length);
  return out;
}

/**
 * Applies every fix marked `fixAll`, one after the other, re-reading positions after each
 * (a fix computed on the original value stays meaningful: it addresses paths, not offsets).
 * Applying the result again changes nothing.
 */
export function applyFixes(text: string, fixes: JsonFix[]): string {
  let out = text;
  for (const fix of fixes) {
    if (!fix.fixAll) continue;
    out = applyTextEditsTo(out, fixToTextEdits(out, fix));
  }
  return out;
}

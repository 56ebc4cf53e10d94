/**
 * Content coverage (docs/engine.md#3-the-model): letters and digits of the source (any script,
 * markdown syntax excluded) present in the model's string values, clamped to 1.
 */
import { countAlnum } from './blocks';
import type { JsonValue } from './model';
import { pushAll } from '../arrays';

function anyAlnum(v: JsonValue): number {
  if (typeof v === 'string') return countAlnum(v);
  if (typeof v === 'number' || typeof v === 'boolean') return countAlnum(String(v));
  if (Array.isArray(v)) return v.reduce<number>((n, x) => n + anyAlnum(x), 0);
  if (v && typeof v === 'object') return Object.entries(v).reduce<number>((n, [k, x]) => n + countAlnum(k) + anyAlnum(x), 0);
  return 0;
}

function isRow(x: JsonValue): x is { [k: string]: JsonValue } {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

function tableAlnum(rows: JsonValue[]): number {
  // Header cells count once (they are the keys of every row), like in the source.
  const first = rows[0];
  let n = isRow(first!) ? Object.keys(first).reduce((k, h) => k + countAlnum(h), 0) : 0;
  for (const r of rows) if (isRow(r)) for (const v of Object.values(r)) n += anyAlnum(v);
  return n;
}

function blockAlnum(kind: string, v: JsonValue): number {
  if (kind === 't' && Array.isArray(v)) return tableAlnum(v);
  if ((kind === 'c' || kind === 'o') && isRow(v)) {
    return kind === 'c' ? anyAlnum(v.lang ?? '') + anyAlnum(v.code ?? '') : anyAlnum(v.items ?? []);
  }
  return anyAlnum(v);
}

/** Letters and digits of a slice body, counted by its shape (see model.ts). */
export function bodyAlnum(body: JsonValue): number {
  if (Array.isArray(body)) {
    if (body.length > 0 && body.every(isRow)) return tableAlnum(body);
    return anyAlnum(body);
  }
  if (isRow(body)) {
    if (!Object.keys(body).every((k) => /^[pltocdm][1-9]\d*$/.test(k))) return anyAlnum(body);
    let n = 0;
    for (const [k, v] of Object.entries(body)) n += blockAlnum(/^([pltocdm])[1-9]\d*$/.exec(k)?.[1] ?? 'p', v);
    return n;
  }
  return anyAlnum(body);
}

/** Letters and digits a slice or document model keeps: slice keys (headings) plus bodies. */
export function modelAlnum(model: JsonValue): number {
  const entries: [string, JsonValue][] = [];
  if (Array.isArray(model)) {
    for (const el of model) if (isRow(el)) pushAll(entries, Object.entries(el));
  } else if (isRow(model)) pushAll(entries, Object.entries(model));
  else return anyAlnum(model);
  return entries.reduce((n, [k, v]) => n + countAlnum(k) + (k === '---' ? anyAlnum(v) : bodyAlnum(v)), 0);
}

/** Letters and digits of a markdown source, ordered-list marker numbers excluded (they are syntax). */
export function sourceAlnum(markdown: string): number {
  return countAlnum(markdown) - countOrderedMarkerDigits(markdown.replace(/^\uFEFF/, ''));
}

function countOrderedMarkerDigits(markdown: string): number {
  let n = 0;
  const re = /^[ \t>]*(\d{1,9})[.)](?=[ \t]|$)/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(markdown)) !== null) n += m[1]!.length;
  return n;
}

/** Coverage ratio in [0, 1], or null when the source has no letters or digits. */
export function coverageRatio(source: number, kept: number): number | null {
  if (source <= 0) return null;
  return Math.min(1, kept / source);
}

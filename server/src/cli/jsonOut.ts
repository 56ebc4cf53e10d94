/**
 * A CLI's JSON output written in pieces: exactly `JSON.stringify(value, null, 2) + '\n'`, without the whole text and
 * its UTF-8 copy held at once: the output of a large plan must never exist as one string.
 *
 * The top levels (objects and arrays down to {@link STREAM_DEPTH}) are walked here; each value below them is one
 * `JSON.stringify(v, null, 2)`, indented to its place. That is exact because every line break in JSON.stringify's
 * indented output is structural (a line break inside a string is written `\n`).
 */
import type { CliIO } from './io';

/** About how many characters each write carries. */
export const CHUNK_CHARS = 1 << 16;

/** Levels walked here; deeper values are stringified whole (a plan's section rows are at depth 3). */
const STREAM_DEPTH = 3;

const INDENT = '  ';

/** Prints a command's JSON output on its stdout, in pieces ({@link writeJson}). */
export function printJson(io: Pick<CliIO, 'stdout'>, value: unknown): void {
  writeJson((t) => io.stdout(t), value);
}

/** Writes `JSON.stringify(value, null, 2) + '\n'` through `write`, in pieces of about `chunkChars` characters. */
export function writeJson(write: (text: string) => void, value: unknown, chunkChars = CHUNK_CHARS): void {
  let buf = '';
  const put = (s: string): void => {
    buf += s;
    if (buf.length >= chunkChars) {
      write(buf);
      buf = '';
    }
  };
  if (walked(value, 0)) walk(put, value, '', 0);
  else {
    const text = leafText('', value, '');
    if (text === null) throw new TypeError('writeJson: the value has no JSON text (undefined, a function or a symbol)');
    put(text);
  }
  put('\n');
  if (buf) write(buf);
}

/**
 * Whether this walk writes the value itself: a plain array or object above {@link STREAM_DEPTH} without a toJSON
 * method. Everything else (deeper values, primitives, boxed primitives, values with toJSON) is one JSON.stringify.
 */
function walked(v: unknown, depth: number): v is object {
  if (depth >= STREAM_DEPTH || v === null || typeof v !== 'object') return false;
  if (typeof (v as { toJSON?: unknown }).toJSON === 'function') return false;
  return Array.isArray(v) || !(v instanceof Number || v instanceof String || v instanceof Boolean);
}

/**
 * The text JSON.stringify writes for `holder[key] = raw` at `indent` (its structural line breaks followed by that
 * indent), or null when it leaves the property out (undefined, a function, a symbol, a toJSON that returns one).
 * Made by JSON.stringify itself, on a holder of that one key, so toJSON gets the key and runs once.
 */
function leafText(key: string, raw: unknown, indent: string): string | null {
  const text = JSON.stringify({ [key]: raw }, null, 2);
  if (text === '{}') return null;
  // '{\n  "key": ' + the value (its lines indented by two more) + '\n}'
  const value = text.slice(4 + JSON.stringify(key).length + 2, text.length - 2);
  return value.replaceAll('\n  ', '\n' + indent);
}

/** Writes a walked array or object at `indent`. */
function walk(put: (s: string) => void, v: object, indent: string, depth: number): void {
  const inner = indent + INDENT;
  if (Array.isArray(v)) {
    if (v.length === 0) return put('[]');
    put('[\n');
    for (let i = 0; i < v.length; i++) {
      put(inner);
      const item: unknown = v[i];
      if (walked(item, depth + 1)) walk(put, item, inner, depth + 1);
      else put(leafText(String(i), item, inner) ?? 'null');
      put(i + 1 < v.length ? ',\n' : '\n');
    }
    return put(indent + ']');
  }
  let first = true;
  for (const k of Object.keys(v)) {
    const item: unknown = (v as Record<string, unknown>)[k];
    const text = walked(item, depth + 1) ? undefined : leafText(k, item, inner);
    if (text === null) continue;
    put((first ? '{\n' : ',\n') + inner + JSON.stringify(k) + ': ');
    first = false;
    if (text === undefined) walk(put, item as object, inner, depth + 1);
    else put(text);
  }
  put(first ? '{}' : '\n' + indent + '}');
}

/** Merging the capabilities several features declare into one InitializeResult. */
import type { ServerCapabilities } from 'vscode-languageserver/node';
import { isObject } from '../core/json/value';

/**
 * Deep merge: objects merge key by key, arrays are united (no duplicates), an object beats `true`
 * (`codeActionProvider: true` + `{ codeActionKinds }` → the object), otherwise the later value wins.
 */
export function mergeCapabilities(...all: ServerCapabilities[]): ServerCapabilities {
  let out: unknown = {};
  for (const c of all) out = merge(out, c);
  return out as ServerCapabilities;
}

function merge(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  if (Array.isArray(a) && Array.isArray(b)) return [...a, ...b.filter((x) => !a.some((y) => JSON.stringify(y) === JSON.stringify(x)))];
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = merge(a[k], v);
    return out;
  }
  if (isObject(a) && b === true) return a;
  return b;
}


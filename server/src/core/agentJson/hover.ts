/**
 * Hover text for agent JSON: the kind's explainer first (derived fields, cross-field rules),
 * then the description OUR schema gives the property or value under the cursor.
 */
import { getLocation, parse as parseTolerant } from 'jsonc-parser';
import type { DocumentKind, JsonPath, OffsetRange } from '../types';
import type { CheckOptions } from './check';
import { detectKind } from './kinds';
import { EXPLAINERS } from './rules/explain';
import { SCHEMAS } from '../json/schema';
import { tokenAt, type TokenIndex } from '../json/locate';
import { isObject as isObj } from '../json/value';
import { unescapePointerSegment } from '../json/pointer';

/** What the caller already knows about the text (the memoized check of the same text and options). */
export interface KnownDocument {
  /** The kind the check found for this text (undefined: not a ToonLens document). */
  kind: DocumentKind | undefined;
  /** The parsed value; read only when a hover has something to explain (it may be parsed on demand). */
  value: () => unknown;
  /** Scan checkpoints kept for this text (one per document version): later hovers resume near the cursor. */
  checkpoints?: TokenIndex;
}

/** A hover's markdown, the range it applies to, and where it came from (a kind's explainer, or the schema's description). */
export interface JsonHover {
  markdown: string;
  range: OffsetRange;
  source: 'explainer' | 'schema';
}

/**
 * Markdown for the property or value at `offset`, with the range it applies to; undefined for non-ToonLens documents.
 * With `known` (the memoized check of this very text, which `JSON.parse` accepted), nothing is parsed again here.
 */
export function hoverAt(text: string, offset: number, opts: CheckOptions = {}, known?: KnownDocument): JsonHover | undefined {
  const limit = (opts.settings?.maxFileSizeMB ?? 50) * 1024 * 1024;
  if (text.length > limit) return undefined;
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? text.slice(1) : text;
  const at = offset - bom;

  if (known) {
    const kind = opts.kind ?? known.kind;
    if (!kind) return undefined;
    // Valid JSON: one scan that stops at the cursor (no parse, no tree), and the value only when there is a token.
    const token = tokenAt(body, at, known.checkpoints);
    if (!token) return undefined;
    return explain(kind, known.value(), token.path, { start: token.start + bom, end: token.end + bom });
  }

  let value: unknown;
  let valid = true;
  try {
    value = JSON.parse(body);
  } catch {
    valid = false;
    try {
      value = parseTolerant(body, [], { disallowComments: true });
    } catch {
      return undefined;
    }
  }
  const kind = opts.kind ?? detectKind(body, value, { fsPath: opts.fsPath, settings: opts.settings, root: opts.workspace?.root });
  if (!kind) return undefined;

  if (valid) {
    // The same answer as jsonc-parser's getLocation below, in one tight scan up to the cursor.
    const token = tokenAt(body, at);
    if (!token) return undefined;
    return explain(kind, value, token.path, { start: token.start + bom, end: token.end + bom });
  }

  // Not JSON: jsonc-parser's tolerant scan (only up to the cursor, but recursive and callback-driven).
  let location: ReturnType<typeof getLocation>;
  try {
    location = getLocation(body, at);
  } catch {
    return undefined; // nesting too deep for jsonc-parser's recursive scanner: no hover rather than a crash
  }
  const token = location.previousNode;
  // Only a hover on a token (a property key or a literal value); punctuation and whitespace have none.
  if (!token || at < token.offset || at > token.offset + token.length) return undefined;
  return explain(kind, value, location.path, { start: token.offset + bom, end: token.offset + token.length + bom });
}

function explain(kind: DocumentKind, value: unknown, path: JsonPath, range: OffsetRange): JsonHover | undefined {
  let markdown: string | undefined;
  try {
    markdown = EXPLAINERS[kind]?.(value, path);
  } catch {
    markdown = undefined; // an explainer bug must not take the hover down
  }
  if (markdown) return { markdown, range, source: 'explainer' };
  markdown = schemaHover(SCHEMAS[kind], value, path);
  return markdown ? { markdown, range, source: 'schema' } : undefined;
}

type Schema = Record<string, unknown>;


/** Markdown from the schema: the property name, its description, and its allowed values when it is an enum. */
export function schemaHover(root: Schema, value: unknown, path: JsonPath): string | undefined {
  const schema = schemaAt(root, value, path);
  if (!schema) return undefined;
  const last = path[path.length - 1];
  const name = last === undefined ? String(root.title ?? 'document') : typeof last === 'number' ? `item ${last}` : last;
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  const enumValues = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (!description && !enumValues) return undefined;
  const parts = [`**${name}**${description ? ` — ${description}` : ''}`];
  if (enumValues) parts.push(`Allowed: ${enumValues.map((v) => '`' + JSON.stringify(v) + '`').join(', ')}`);
  return parts.join('\n\n');
}

/** The subschema describing the value at `path`, following properties, items, $ref and the matching oneOf/anyOf branch. */
function schemaAt(root: Schema, value: unknown, path: JsonPath): Schema | undefined {
  let schema: Schema | undefined = deref(root, root);
  let instance: unknown = value;
  for (const seg of path) {
    if (!schema) return undefined;
    const next: Schema | undefined = childSchema(root, schema, instance, seg);
    instance = instance !== null && typeof instance === 'object' ? (instance as Record<string | number, unknown>)[seg] : undefined;
    schema = next;
  }
  return schema ? resolveBranch(root, schema, instance) : undefined;
}

function childSchema(root: Schema, schema: Schema, instance: unknown, seg: string | number): Schema | undefined {
  const s = resolveBranch(root, schema, instance);
  if (typeof seg === 'number') {
    if (isObj(s.items)) return deref(root, s.items);
    return undefined;
  }
  if (isObj(s.properties) && isObj(s.properties[seg])) {
    const own = deref(root, s.properties[seg] as Schema);
    // A branch may only constrain the value (e.g. a narrowed enum) without a description: keep the base one.
    if (own.description === undefined && isObj(schema.properties) && isObj(schema.properties[seg])) {
      const base = deref(root, schema.properties[seg] as Schema);
      return { ...own, description: base.description };
    }
    return own;
  }
  for (const kw of ['allOf', 'oneOf', 'anyOf'] as const) {
    const list = s[kw];
    if (Array.isArray(list)) {
      for (const b of list) {
        if (!isObj(b)) continue;
        const bb = deref(root, b);
        if (isObj(bb.properties) && isObj(bb.properties[seg])) return deref(root, bb.properties[seg] as Schema);
      }
    }
  }
  return undefined;
}

/** For a oneOf/anyOf schema, the branch the instance belongs to (const discriminators first); else the schema itself. */
function resolveBranch(root: Schema, schema: Schema, instance: unknown): Schema {
  const s = deref(root, schema);
  const list = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
  if (!list) return s;
  const branches = list.filter(isObj).map((b) => deref(root, b));
  const fitting = branches.find((b) => discriminatorsMatch(b, instance)) ?? branches.find((b) => typeFits(b, instance));
  if (!fitting) return s;
  // Keep the outer description when the branch has none.
  return { ...fitting, description: fitting.description ?? s.description, properties: { ...(isObj(s.properties) ? s.properties : {}), ...(isObj(fitting.properties) ? fitting.properties : {}) } };
}

function discriminatorsMatch(branch: Schema, instance: unknown): boolean {
  if (!isObj(instance) || !isObj(branch.properties)) return false;
  let any = false;
  for (const [k, p] of Object.entries(branch.properties)) {
    if (!isObj(p) || !('const' in p) || !(k in instance)) continue;
    if (JSON.stringify(p.const) !== JSON.stringify(instance[k])) return false;
    any = true;
  }
  return any;
}

function typeFits(branch: Schema, instance: unknown): boolean {
  if (branch.type === undefined) return false;
  const t = instance === null ? 'null' : Array.isArray(instance) ? 'array' : typeof instance === 'number' ? 'number' : typeof instance;
  const types = Array.isArray(branch.type) ? branch.type : [branch.type];
  return types.some((x) => x === t || (x === 'integer' && t === 'number'));
}

function deref(root: Schema, s: Schema): Schema {
  let cur = s;
  for (let hops = 0; hops < 16 && typeof cur.$ref === 'string' && cur.$ref.startsWith('#/'); hops++) {
    let target: unknown = root;
    for (const raw of cur.$ref.slice(2).split('/')) {
      const seg = unescapePointerSegment(raw);
      target = isObj(target) ? target[seg] : undefined;
    }
    if (!isObj(target)) break;
    const { $ref: _ref, ...rest } = cur;
    cur = { ...target, ...rest };
  }
  return cur;
}

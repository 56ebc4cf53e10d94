/**
 * Schema drift: every difference between two versions of a JSON Schema, each classified as
 * breaking or additive for the schema's role.
 *
 * The classification follows from which side of the contract validates against the schema:
 * - `input` (the tool's arguments; callers written against the old schema send, the new schema judges):
 *   a change that REJECTS something the old schema accepted breaks callers — tightening is breaking,
 *   loosening is additive.
 * - `output` (the tool's results; the producer follows the new schema, consumers were written against
 *   the old one): a change that lets the producer EMIT something the old schema did not allow breaks
 *   consumers (an added enum value, a loosened additionalProperties, a widened type, an added oneOf
 *   branch) — loosening is breaking, tightening is additive.
 * - `both` (role unknown): breaking when it breaks either side.
 * Regardless of role, removing a property breaks (callers' or consumers' field disappears), adding an
 * optional property is additive, an incomparable change (a changed const, pattern, `$ref`, type
 * swapped for another) is breaking, and annotations (description, title, examples…) are additive.
 *
 * Pointers are RFC 6901 JSON pointers into the schema: into the new schema for what was added or
 * changed, into the old one for what was removed. An added or removed enum value or required name
 * points at the element (`…/enum/10`: index in the new array when added, in the old one when removed).
 */
import type { Finding, JsonPath, JsonTarget } from '../types';
import { ruleCode } from '../codes';
import { isObject } from '../json/value';
import { escapePointerSegment, toPointer, fromPointer } from '../json/pointer';

export type SchemaRole = 'input' | 'output' | 'both';
export type ChangeClassification = 'breaking' | 'additive';

export type ChangeKind =
  | 'property-added'
  | 'property-removed'
  | 'property-forbidden'
  | 'property-allowed'
  | 'required-added'
  | 'required-removed'
  | 'additional-properties-tightened'
  | 'additional-properties-loosened'
  | 'type-changed'
  | 'enum-value-added'
  | 'enum-value-removed'
  | 'enum-added'
  | 'enum-removed'
  | 'const-added'
  | 'const-removed'
  | 'const-changed'
  | 'constraint-tightened'
  | 'constraint-loosened'
  | 'constraint-changed'
  | 'branch-added'
  | 'branch-removed'
  | 'subschema-added'
  | 'subschema-removed'
  | 'schema-tightened'
  | 'schema-loosened'
  | 'ref-changed'
  | 'definition-added'
  | 'definition-removed'
  | 'annotation-changed'
  | 'keyword-changed';

export interface SchemaChange {
  /** RFC 6901 pointer of the changed keyword or property. */
  pointer: string;
  kind: ChangeKind;
  classification: ChangeClassification;
  /** The old value (undefined when it was absent). */
  before: unknown;
  /** The new value (undefined when it is absent). */
  after: unknown;
  /** One line: what changed and why it is classified so. */
  message: string;
}

/**
 * How a change moves the set of documents the schema accepts:
 * tighten (fewer), loosen (more), incompatible (neither a subset nor a superset, or unknowable),
 * neutral (no validation effect), or a property removed / added (classified the same for both roles).
 */
type Effect = 'tighten' | 'loosen' | 'incompatible' | 'neutral' | 'property-removed' | 'property-added';

type Obj = Record<string, unknown>;
const own = (o: Obj, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

/** Structural equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => own(b, k) && jsonEqual(a[k], b[k]));
  }
  return false;
}

export { escapePointerSegment, toPointer, fromPointer };

const ANNOTATIONS = new Set(['title', 'description', '$comment', 'examples', 'default', '$id', 'id', '$schema', 'readOnly', 'writeOnly', 'deprecated', 'contentMediaType', 'contentEncoding']);
const UPPER_BOUNDS = new Set(['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties']);
const LOWER_BOUNDS = new Set(['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties']);
/** Keywords whose value is one subschema, diffed with the same polarity. */
const SUBSCHEMA_KEYWORDS = new Set(['items', 'additionalItems', 'contains', 'propertyNames', 'then', 'else']);
const BRANCH_KEYWORDS = new Set(['oneOf', 'anyOf', 'allOf']);

function classify(effect: Effect, role: SchemaRole): ChangeClassification {
  switch (effect) {
    case 'neutral':
    case 'property-added':
      return 'additive';
    case 'incompatible':
    case 'property-removed':
      return 'breaking';
    case 'tighten':
      return role === 'output' ? 'additive' : 'breaking';
    case 'loosen':
      return role === 'input' ? 'additive' : 'breaking';
  }
}

function reason(effect: Effect, role: SchemaRole): string {
  if (effect === 'tighten') {
    if (role === 'input') return ' — arguments valid before may now be rejected';
    if (role === 'output') return ' — results stay within what consumers accept';
    return ' — breaks as an input schema: arguments valid before may now be rejected';
  }
  if (effect === 'loosen') {
    if (role === 'output') return ' — results may now carry what old consumers reject';
    if (role === 'input') return ' — callers may send more than before';
    return ' — breaks as an output schema: results may now carry what old consumers reject';
  }
  if (effect === 'incompatible') return ' — neither a tightening nor a loosening';
  if (effect === 'property-removed') return ' — readers and writers of it break';
  return '';
}

const show = (v: unknown): string => {
  if (v === undefined) return 'absent';
  const s = JSON.stringify(v);
  return s.length > 80 ? s.slice(0, 77) + '…' : s;
};

function isForbidden(s: unknown): boolean {
  return s === false || (isObject(s) && own(s, 'not') && isObject(s.not) && Object.keys(s.not).length === 0 && Object.keys(s).length === 1);
}

/** Inverts an effect (changes inside `not` move the accepted set the other way). */
function invert(e: Effect): Effect {
  return e === 'tighten' ? 'loosen' : e === 'loosen' ? 'tighten' : e;
}

class Differ {
  readonly changes: SchemaChange[] = [];
  constructor(private readonly role: SchemaRole) {}

  private add(path: JsonPath, kind: ChangeKind, effect: Effect, before: unknown, after: unknown, what: string, inverted: boolean): void {
    const e = inverted ? invert(effect) : effect;
    this.changes.push({
      pointer: toPointer(path),
      kind: inverted ? invertKind(kind, effect) : kind,
      classification: classify(e, this.role),
      before,
      after,
      message: what + reason(e, this.role),
    });
  }

  /** Diffs two schemas at `path`; `inverted` inside `not`. */
  schema(a: unknown, b: unknown, path: JsonPath, inverted: boolean): void {
    if (jsonEqual(a, b)) return;
    if (!isObject(a) || !isObject(b)) {
      // Boolean schemas (or junk): judge by acceptance — false accepts nothing, true/{} everything.
      const effect: Effect =
        b === false || isForbidden(b) ? 'tighten' : a === false || isForbidden(a) ? 'loosen' : a === true ? 'tighten' : b === true ? 'loosen' : 'incompatible';
      this.add(path, effect === 'tighten' ? 'schema-tightened' : effect === 'loosen' ? 'schema-loosened' : 'keyword-changed', effect, a, b, `schema ${show(a)} → ${show(b)}`, inverted);
      return;
    }
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    for (const k of keys) {
      const av = own(a, k) ? a[k] : undefined;
      const bv = own(b, k) ? b[k] : undefined;
      if (jsonEqual(av, bv)) continue;
      this.keyword(k, av, bv, [...path, k], inverted);
    }
  }

  private keyword(k: string, av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    const added = av === undefined;
    const removed = bv === undefined;
    if (ANNOTATIONS.has(k)) return this.add(path, 'annotation-changed', 'neutral', av, bv, `${k} ${added ? 'added' : removed ? 'removed' : 'changed'}`, inv);
    if (k === 'properties' || k === 'patternProperties') return this.properties(k, av, bv, path, inv);
    if (k === 'definitions' || k === '$defs') return this.definitions(av, bv, path, inv);
    if (k === 'required') return this.required(av, bv, path, inv);
    if (k === 'dependencies') return this.dependencies(av, bv, path, inv);
    if (k === 'additionalProperties') return this.additionalProperties(av, bv, path, inv);
    if (k === 'type') return this.type(av, bv, path, inv);
    if (k === 'enum') return this.enumeration(av, bv, path, inv);
    if (k === 'const') {
      if (added) return this.add(path, 'const-added', 'tighten', av, bv, `const ${show(bv)} added`, inv);
      if (removed) return this.add(path, 'const-removed', 'loosen', av, bv, `const ${show(av)} removed`, inv);
      return this.add(path, 'const-changed', 'incompatible', av, bv, `const ${show(av)} → ${show(bv)}`, inv);
    }
    if (UPPER_BOUNDS.has(k) || LOWER_BOUNDS.has(k)) return this.bound(k, av, bv, path, inv);
    if (k === 'pattern' || k === 'format' || k === 'multipleOf' || k === 'uniqueItems') return this.constraint(k, av, bv, path, inv);
    if (k === '$ref') return this.add(path, 'ref-changed', added ? 'tighten' : removed ? 'loosen' : 'incompatible', av, bv, `$ref ${show(av)} → ${show(bv)}`, inv);
    if (BRANCH_KEYWORDS.has(k)) return this.branches(k, av, bv, path, inv);
    if (k === 'not') {
      if (added) return this.add(path, 'subschema-added', 'tighten', av, bv, `not ${show(bv)} added`, inv);
      if (removed) return this.add(path, 'subschema-removed', 'loosen', av, bv, `not ${show(av)} removed`, inv);
      return this.schema(av, bv, path, !inv);
    }
    if (k === 'if') return this.add(path, 'keyword-changed', 'incompatible', av, bv, `if ${added ? 'added' : removed ? 'removed' : 'changed'}`, inv);
    if (SUBSCHEMA_KEYWORDS.has(k) && !Array.isArray(av) && !Array.isArray(bv)) {
      if (added) return this.add(path, 'subschema-added', 'tighten', av, bv, `${k} ${show(bv)} added`, inv);
      if (removed) return this.add(path, 'subschema-removed', 'loosen', av, bv, `${k} ${show(av)} removed`, inv);
      return this.schema(av, bv, path, inv);
    }
    if (k === 'items' && Array.isArray(av) && Array.isArray(bv)) return this.tuple(av, bv, path, inv);
    this.add(path, 'keyword-changed', 'incompatible', av, bv, `${k} ${show(av)} → ${show(bv)}`, inv);
  }

  private properties(k: string, av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    const a = isObject(av) ? av : {};
    const b = isObject(bv) ? bv : {};
    if ((av !== undefined && !isObject(av)) || (bv !== undefined && !isObject(bv))) {
      return this.add(path, 'keyword-changed', 'incompatible', av, bv, `${k} ${show(av)} → ${show(bv)}`, inv);
    }
    const isPattern = k === 'patternProperties';
    const label = (name: string) => (isPattern ? `pattern property ${JSON.stringify(name)}` : `property ${JSON.stringify(name)}`);
    for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])]) {
      const p = [...path, name];
      const inA = own(a, name);
      const inB = own(b, name);
      if (inA && inB) {
        if (jsonEqual(a[name], b[name])) continue;
        if (isForbidden(b[name]) && !isForbidden(a[name])) this.add(p, 'property-forbidden', 'tighten', a[name], b[name], `${label(name)} now forbidden (${show(b[name])})`, inv);
        else if (isForbidden(a[name]) && !isForbidden(b[name])) this.add(p, 'property-allowed', 'loosen', a[name], b[name], `${label(name)} no longer forbidden`, inv);
        else this.schema(a[name], b[name], p, inv);
      } else if (inB) {
        if (isForbidden(b[name])) this.add(p, 'property-forbidden', 'tighten', undefined, b[name], `${label(name)} added as forbidden (${show(b[name])})`, inv);
        else if (isPattern) this.add(p, 'subschema-added', 'tighten', undefined, b[name], `${label(name)} added`, inv);
        else this.add(p, 'property-added', 'property-added', undefined, b[name], `${label(name)} added`, inv);
      } else {
        if (isForbidden(a[name])) this.add(p, 'property-allowed', 'loosen', a[name], undefined, `${label(name)} no longer forbidden (its not: {} removed)`, inv);
        else if (isPattern) this.add(p, 'subschema-removed', 'loosen', a[name], undefined, `${label(name)} removed`, inv);
        else this.add(p, 'property-removed', 'property-removed', a[name], undefined, `${label(name)} removed`, inv);
      }
    }
  }

  private definitions(av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    if (!isObject(av) || !isObject(bv)) {
      return this.add(path, av === undefined ? 'definition-added' : bv === undefined ? 'definition-removed' : 'keyword-changed', 'neutral', av, bv, `${String(path[path.length - 1])} ${av === undefined ? 'added' : bv === undefined ? 'removed' : 'changed'}`, inv);
    }
    for (const name of [...new Set([...Object.keys(av), ...Object.keys(bv)])]) {
      const p = [...path, name];
      if (!own(av, name)) this.add(p, 'definition-added', 'neutral', undefined, bv[name], `definition ${JSON.stringify(name)} added`, inv);
      else if (!own(bv, name)) this.add(p, 'definition-removed', 'neutral', av[name], undefined, `definition ${JSON.stringify(name)} removed`, inv);
      else this.schema(av[name], bv[name], p, inv);
    }
  }

  private required(av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    const a = Array.isArray(av) ? av : [];
    const b = Array.isArray(bv) ? bv : [];
    if ((av !== undefined && !Array.isArray(av)) || (bv !== undefined && !Array.isArray(bv))) {
      return this.add(path, 'keyword-changed', 'incompatible', av, bv, `required ${show(av)} → ${show(bv)}`, inv);
    }
    b.forEach((name, j) => {
      if (!a.some((x) => jsonEqual(x, name))) this.add([...path, j], 'required-added', 'tighten', undefined, name, `${show(name)} now required`, inv);
    });
    a.forEach((name, i) => {
      if (!b.some((x) => jsonEqual(x, name))) this.add([...path, i], 'required-removed', 'loosen', name, undefined, `${show(name)} no longer required`, inv);
    });
  }

  private dependencies(av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    const a = isObject(av) ? av : {};
    const b = isObject(bv) ? bv : {};
    for (const name of [...new Set([...Object.keys(a), ...Object.keys(b)])]) {
      const p = [...path, name];
      const x = own(a, name) ? a[name] : undefined;
      const y = own(b, name) ? b[name] : undefined;
      if (jsonEqual(x, y)) continue;
      if (x === undefined) this.add(p, 'subschema-added', 'tighten', x, y, `dependency of ${JSON.stringify(name)} added`, inv);
      else if (y === undefined) this.add(p, 'subschema-removed', 'loosen', x, y, `dependency of ${JSON.stringify(name)} removed`, inv);
      else if (Array.isArray(x) && Array.isArray(y)) {
        for (const d of y) if (!x.includes(d)) this.add(p, 'required-added', 'tighten', undefined, d, `${show(d)} now required with ${JSON.stringify(name)}`, inv);
        for (const d of x) if (!y.includes(d)) this.add(p, 'required-removed', 'loosen', d, undefined, `${show(d)} no longer required with ${JSON.stringify(name)}`, inv);
      } else if (!Array.isArray(x) && !Array.isArray(y)) this.schema(x, y, p, inv);
      else this.add(p, 'keyword-changed', 'incompatible', x, y, `dependency of ${JSON.stringify(name)} changed`, inv);
    }
  }

  private additionalProperties(av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    // Openness: absent/true = anything, an object schema = constrained, false = nothing.
    const rank = (v: unknown): number => (v === undefined || v === true || (isObject(v) && Object.keys(v).length === 0) ? 2 : v === false ? 0 : 1);
    const ra = rank(av);
    const rb = rank(bv);
    if (ra === 1 && rb === 1) return this.schema(av, bv, path, inv);
    if (ra === rb) return this.add(path, 'keyword-changed', 'neutral', av, bv, `additionalProperties ${show(av)} → ${show(bv)} (same meaning)`, inv);
    const tighter = rb < ra;
    this.add(
      path,
      tighter ? 'additional-properties-tightened' : 'additional-properties-loosened',
      tighter ? 'tighten' : 'loosen',
      av,
      bv,
      `additionalProperties ${show(av)} → ${show(bv)} (${tighter ? 'tightened: fewer undeclared properties allowed' : 'loosened: undeclared properties now allowed'})`,
      inv,
    );
  }

  private type(av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    if (av === undefined) return this.add(path, 'type-changed', 'tighten', av, bv, `type ${show(bv)} added`, inv);
    if (bv === undefined) return this.add(path, 'type-changed', 'loosen', av, bv, `type ${show(av)} removed`, inv);
    const set = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : [String(v)]);
    const covers = (types: string[], t: string) => types.includes(t) || (t === 'integer' && types.includes('number'));
    const a = set(av);
    const b = set(bv);
    const gained = b.filter((t) => !covers(a, t));
    const lost = a.filter((t) => !covers(b, t));
    const effect: Effect = gained.length && lost.length ? 'incompatible' : gained.length ? 'loosen' : lost.length ? 'tighten' : 'neutral';
    const how = effect === 'loosen' ? 'widened' : effect === 'tighten' ? 'narrowed' : effect === 'neutral' ? 'same types' : 'changed';
    this.add(path, 'type-changed', effect, av, bv, `type ${show(av)} → ${show(bv)} (${how})`, inv);
  }

  private enumeration(av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    if (av === undefined) return this.add(path, 'enum-added', 'tighten', av, bv, `enum ${show(bv)} added`, inv);
    if (bv === undefined) return this.add(path, 'enum-removed', 'loosen', av, bv, `enum ${show(av)} removed`, inv);
    if (!Array.isArray(av) || !Array.isArray(bv)) return this.add(path, 'keyword-changed', 'incompatible', av, bv, `enum ${show(av)} → ${show(bv)}`, inv);
    bv.forEach((v, j) => {
      if (!av.some((x) => jsonEqual(x, v))) this.add([...path, j], 'enum-value-added', 'loosen', undefined, v, `enum value ${show(v)} added`, inv);
    });
    av.forEach((v, i) => {
      if (!bv.some((x) => jsonEqual(x, v))) this.add([...path, i], 'enum-value-removed', 'tighten', v, undefined, `enum value ${show(v)} removed`, inv);
    });
    // Same values, new order: no validation effect, but it is a difference.
    if (av.length === bv.length && av.every((x) => bv.some((y) => jsonEqual(x, y))) && bv.every((y) => av.some((x) => jsonEqual(x, y)))) {
      this.add(path, 'annotation-changed', 'neutral', av, bv, 'enum values reordered', inv);
    }
  }

  private bound(k: string, av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    const upper = UPPER_BOUNDS.has(k);
    let effect: Effect;
    if (av === undefined) effect = 'tighten';
    else if (bv === undefined) effect = 'loosen';
    else if (typeof av === 'number' && typeof bv === 'number') effect = (upper ? bv < av : bv > av) ? 'tighten' : 'loosen';
    else effect = 'incompatible';
    const kind: ChangeKind = effect === 'tighten' ? 'constraint-tightened' : effect === 'loosen' ? 'constraint-loosened' : 'constraint-changed';
    const what = av === undefined ? `${k} ${show(bv)} added` : bv === undefined ? `${k} ${show(av)} removed` : `${k} ${show(av)} → ${show(bv)}`;
    this.add(path, kind, effect, av, bv, what, inv);
  }

  private constraint(k: string, av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    let effect: Effect;
    if (k === 'uniqueItems') effect = bv === true ? 'tighten' : av === true ? 'loosen' : 'neutral';
    else if (av === undefined) effect = 'tighten';
    else if (bv === undefined) effect = 'loosen';
    else if (k === 'multipleOf' && typeof av === 'number' && typeof bv === 'number' && av > 0 && bv > 0) {
      effect = Number.isInteger(bv / av) ? 'tighten' : Number.isInteger(av / bv) ? 'loosen' : 'incompatible';
    } else effect = 'incompatible';
    const kind: ChangeKind = effect === 'tighten' ? 'constraint-tightened' : effect === 'loosen' ? 'constraint-loosened' : 'constraint-changed';
    const what = av === undefined ? `${k} ${show(bv)} added` : bv === undefined ? `${k} ${show(av)} removed` : `${k} ${show(av)} → ${show(bv)}`;
    this.add(path, kind, effect, av, bv, what, inv);
  }

  private branches(k: string, av: unknown, bv: unknown, path: JsonPath, inv: boolean): void {
    // A oneOf/anyOf branch widens what validates; an allOf member narrows it.
    const addEffect: Effect = k === 'allOf' ? 'tighten' : 'loosen';
    const removeEffect: Effect = k === 'allOf' ? 'loosen' : 'tighten';
    if (!Array.isArray(av) || !Array.isArray(bv)) {
      if (av === undefined) return this.add(path, 'subschema-added', 'tighten', av, bv, `${k} added`, inv);
      if (bv === undefined) return this.add(path, 'subschema-removed', 'loosen', av, bv, `${k} removed`, inv);
      return this.add(path, 'keyword-changed', 'incompatible', av, bv, `${k} changed`, inv);
    }
    const pairs = pairBranches(av, bv);
    for (const [i, j] of pairs.matched) this.schema(av[i], bv[j], [...path, j], inv);
    for (const j of pairs.added) this.add([...path, j], 'branch-added', addEffect, undefined, bv[j], `${k} branch ${j} added`, inv);
    for (const i of pairs.removed) this.add([...path, i], 'branch-removed', removeEffect, av[i], undefined, `${k} branch ${i} removed`, inv);
  }

  private tuple(av: unknown[], bv: unknown[], path: JsonPath, inv: boolean): void {
    const n = Math.max(av.length, bv.length);
    for (let i = 0; i < n; i++) {
      if (i >= av.length) this.add([...path, i], 'subschema-added', 'tighten', undefined, bv[i], `items[${i}] added`, inv);
      else if (i >= bv.length) this.add([...path, i], 'subschema-removed', 'loosen', av[i], undefined, `items[${i}] removed`, inv);
      else this.schema(av[i], bv[i], [...path, i], inv);
    }
  }
}

/** Kinds named for a direction flip inside `not`. */
function invertKind(kind: ChangeKind, _effect: Effect): ChangeKind {
  const flips: Partial<Record<ChangeKind, ChangeKind>> = {
    'constraint-tightened': 'constraint-loosened',
    'constraint-loosened': 'constraint-tightened',
    'schema-tightened': 'schema-loosened',
    'schema-loosened': 'schema-tightened',
    'additional-properties-tightened': 'additional-properties-loosened',
    'additional-properties-loosened': 'additional-properties-tightened',
  };
  return flips[kind] ?? kind;
}

/** A branch's discriminating signature: its const-valued properties and required keys. */
function branchSignature(s: unknown): string {
  if (!isObject(s)) return JSON.stringify(s);
  const props = isObject(s.properties) ? s.properties : {};
  const consts = Object.keys(props)
    .filter((k) => isObject(props[k]) && own(props[k] as Obj, 'const'))
    .sort()
    .map((k) => `${k}=${JSON.stringify((props[k] as Obj).const)}`);
  return consts.length ? consts.join(',') : JSON.stringify(Array.isArray(s.required) ? [...s.required].sort() : []);
}

/**
 * Pairs old and new branches: identical ones first, then the same signature, then (equal counts left)
 * by position. Unpaired old branches were removed, unpaired new ones added.
 */
function pairBranches(a: unknown[], b: unknown[]): { matched: [number, number][]; added: number[]; removed: number[] } {
  const freeA = new Set(a.map((_, i) => i));
  const freeB = new Set(b.map((_, i) => i));
  const matched: [number, number][] = [];
  const pass = (same: (x: unknown, y: unknown) => boolean) => {
    for (const i of [...freeA]) {
      const j = [...freeB].find((j) => same(a[i], b[j]));
      if (j !== undefined) {
        matched.push([i, j]);
        freeA.delete(i);
        freeB.delete(j);
      }
    }
  };
  pass(jsonEqual);
  if (freeA.size === freeB.size) {
    // Same count: positions pair up (the common case, a branch edited in place).
    const ra = [...freeA];
    const rb = [...freeB];
    ra.forEach((i, n) => matched.push([i, rb[n]!]));
    freeA.clear();
    freeB.clear();
  } else {
    const sigA = new Map([...freeA].map((i) => [i, branchSignature(a[i])]));
    const sigB = new Map([...freeB].map((j) => [j, branchSignature(b[j])]));
    const counts = (m: Map<number, string>, s: string) => [...m.values()].filter((x) => x === s).length;
    pass((x, y) => {
      const sx = branchSignature(x);
      return sx === branchSignature(y) && counts(sigA, sx) === 1 && counts(sigB, sx) === 1;
    });
  }
  matched.sort((x, y) => x[1] - y[1]);
  return { matched, added: [...freeB].sort((x, y) => x - y), removed: [...freeA].sort((x, y) => x - y) };
}

/** Every difference between two versions of a schema, classified for its role. Never throws on JSON values. */
export function diffSchemas(oldSchema: unknown, newSchema: unknown, role: SchemaRole): SchemaChange[] {
  const d = new Differ(role);
  d.schema(oldSchema, newSchema, [], false);
  return d.changes;
}

/**
 * The role a schema file's name announces, if any: a word `input`/`request`/`arguments` or
 * `output`/`result`/`response` in its base name (`update_recipe_build.input.schema.json` → input).
 */
export function schemaRoleFromFileName(file: string): 'input' | 'output' | undefined {
  const base = file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
  const words = base.toLowerCase().split(/[^a-z0-9]+/);
  const input = words.includes('input') || words.includes('request') || words.includes('arguments');
  const output = words.includes('output') || words.includes('result') || words.includes('response');
  return input === output ? undefined : input ? 'input' : 'output';
}

/** Whether any change breaks. */
export function hasBreaking(changes: readonly SchemaChange[]): boolean {
  return changes.some((c) => c.classification === 'breaking');
}

/** The value at a path, or undefined. */
function valueAt(root: unknown, path: readonly string[]): { found: boolean; value: unknown } {
  let cur: unknown = root;
  for (const seg of path) {
    if (Array.isArray(cur)) {
      const i = /^(0|[1-9]\d*)$/.test(seg) ? Number(seg) : NaN;
      if (!(i < cur.length)) return { found: false, value: undefined };
      cur = cur[i];
    } else if (isObject(cur) && own(cur, seg)) cur = cur[seg];
    else return { found: false, value: undefined };
  }
  return { found: true, value: cur };
}

/** Typed path segments (array indexes as numbers) for a pointer into `root`, as far as it exists. */
function typedPath(root: unknown, segs: readonly string[]): JsonPath {
  const out: (string | number)[] = [];
  let cur: unknown = root;
  for (const seg of segs) {
    if (Array.isArray(cur)) {
      out.push(Number(seg));
      cur = cur[Number(seg)];
    } else {
      out.push(seg);
      cur = isObject(cur) ? cur[seg] : undefined;
    }
  }
  return out;
}

/** Where a change shows in the NEW schema. */
function targetInNew(newSchema: unknown, c: SchemaChange): JsonTarget {
  const segs = fromPointer(c.pointer);
  // A removed array element's pointer is an index into the OLD array: point at the new array instead.
  if (c.kind === 'enum-value-removed' || c.kind === 'required-removed' || c.kind === 'branch-removed') {
    const parent = valueAt(newSchema, segs.slice(0, -1));
    if (parent.found && Array.isArray(parent.value)) return { path: typedPath(newSchema, segs.slice(0, -1)) };
  }
  const at = valueAt(newSchema, segs);
  if (at.found) return { path: typedPath(newSchema, segs) };
  // Removed: point at the nearest object that still exists, naming the missing key when it is the parent.
  for (let n = segs.length - 1; n >= 0; n--) {
    const parent = valueAt(newSchema, segs.slice(0, n));
    if (!parent.found) continue;
    const path = typedPath(newSchema, segs.slice(0, n));
    if (n === segs.length - 1 && isObject(parent.value)) return { path, part: 'missing', property: segs[n]! };
    return { path };
  }
  return { path: [] };
}

/**
 * The changes as findings on the NEW schema: `schema-drift/breaking` (warning) and
 * `schema-drift/additive` (info), each at the changed node, or for a removal at the object that lost it.
 */
export function schemaDriftFindings(oldSchema: unknown, newSchema: unknown, role: SchemaRole): Finding[] {
  let changes: SchemaChange[];
  try {
    changes = diffSchemas(oldSchema, newSchema, role);
  } catch {
    return []; // only a schema nested deeper than the stack allows gets here; drift is advisory
  }
  return changes.map((c) => ({
    ...ruleCode(c.classification === 'breaking' ? 'schema-drift/breaking' : 'schema-drift/additive'),
    message: `${c.message} (${role === 'both' ? 'schema' : role + ' schema'}, vs baseline)`,
    target: targetInNew(newSchema, c),
  }));
}

/** One text line per change: `breaking|additive <pointer> <description>`. */
export function formatChangeLine(c: SchemaChange): string {
  return `${c.classification} ${c.pointer === '' ? '(root)' : c.pointer} ${c.message}`;
}

/**
 * JSON Schema validation of agent JSON against OUR schemas in schemas/ (ajv, all errors, compiled once per kind),
 * turned into findings a person can act on: one finding per real problem, a failing oneOf/anyOf reported once
 * through its closest branch, messages that name the keyword and the allowed values.
 */
import Ajv2020 from 'ajv/dist/2020';
import AjvDraft07 from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { DocumentKind, Finding, JsonPath, JsonTarget } from '../types';
import { ruleCode } from '../codes';
import verdictSchema from '../../../../schemas/verdict.v1.json';
import reportSchema from '../../../../schemas/report.v1.json';
import critiqueSchema from '../../../../schemas/critique-report.v1.json';
import recipeInputSchema from '../../../../schemas/recipe-input.v1.json';
import recipeOutputSchema from '../../../../schemas/recipe-output.v1.json';
import { pushAll } from '../arrays';
import { isObject } from './value';
import { escapePointerSegment as escapePointer, unescapePointerSegment } from './pointer';

type SchemaObject = Record<string, unknown>;

/** Our schema of each kind (the hover reads descriptions from these). */
export const SCHEMAS: Record<DocumentKind, SchemaObject> = {
  verdict: verdictSchema as SchemaObject,
  report: reportSchema as SchemaObject,
  critique: critiqueSchema as SchemaObject,
  'recipe-input': recipeInputSchema as SchemaObject,
  'recipe-output': recipeOutputSchema as SchemaObject,
};

/** Draft of each schema: 2020-12 for the ones we author in that draft, draft-07 where upstream is draft-07. */
const DRAFT_2020: ReadonlySet<DocumentKind> = new Set(['verdict', 'report']);

interface CompiledKind {
  ajv: AjvLike;
  id: string;
  validate: ValidateFunction;
  /** Schema object → JSON pointer inside the kind's schema, to compile single oneOf branches on demand. */
  pointers: Map<object, string>;
  branchValidators: Map<string, ValidateFunction>;
}

interface AjvLike {
  addSchema(schema: object): unknown;
  getSchema(ref: string): ValidateFunction | undefined;
}

let ajv2020: AjvLike | undefined;
let ajv07: AjvLike | undefined;
const compiled = new Map<DocumentKind, CompiledKind>();

function ajvFor(kind: DocumentKind): AjvLike {
  // strict: false — the contracts use union types (`"type": ["string", "null"]`) and loosely typed
  // keywords that ajv's strict mode only warns about; the copies keep upstream's structure verbatim.
  // verbose: errors carry their schema objects, which is how a failing oneOf finds its branches.
  // validateSchema: false — our schemas are fixed files, checked against their meta-schemas by a unit test
  // (json-schema.test.ts), so compiling the meta-schema on every start (every CLI run would pay it) buys nothing.
  const options = { allErrors: true, verbose: true, strict: false, validateFormats: true, validateSchema: false } as const;
  if (DRAFT_2020.has(kind)) {
    if (!ajv2020) {
      const a = new Ajv2020(options);
      addFormats(a);
      ajv2020 = a as unknown as AjvLike;
    }
    return ajv2020;
  }
  if (!ajv07) {
    const a = new AjvDraft07(options);
    addFormats(a);
    ajv07 = a as unknown as AjvLike;
  }
  return ajv07;
}

/** The compiled validator of a kind (compiled on first use, then cached). */
export function compiledSchema(kind: DocumentKind): CompiledKind {
  let c = compiled.get(kind);
  if (c) return c;
  const schema = SCHEMAS[kind];
  const id = String(schema.$id);
  const ajv = ajvFor(kind);
  if (!ajv.getSchema(id)) ajv.addSchema(schema);
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`schema ${id} did not compile`);
  const pointers = new Map<object, string>();
  indexPointers(schema, '', pointers);
  c = { ajv, id, validate, pointers, branchValidators: new Map() };
  compiled.set(kind, c);
  return c;
}

function indexPointers(node: unknown, pointer: string, into: Map<object, string>): void {
  if (node === null || typeof node !== 'object') return;
  if (!into.has(node)) into.set(node, pointer);
  if (Array.isArray(node)) node.forEach((v, i) => indexPointers(v, `${pointer}/${i}`, into));
  else for (const [k, v] of Object.entries(node)) indexPointers(v, `${pointer}/${escapePointer(k)}`, into);
}


// ───────────── the fast accept/reject validator ─────────────
//
// Most documents are valid, and for a valid document the only question is "valid?". That question is
// answered by a second validator of the same schema, compiled for speed: first error only, no verbose
// errors, regular expressions without the `u` flag and string lengths in code units where the schema's
// patterns and limits cannot tell the difference (checked per schema, below), and a `discriminator` on every
// oneOf whose branches are told apart by a required `const` property (exact_edit by `kind`), so one branch
// is evaluated instead of all of them.
// It accepts exactly the documents the full validator accepts (test/unit/perf-schema.test.ts); only
// when it rejects does the full validator (all errors, verbose) run to explain why, as before.

const fastCompiled = new Map<DocumentKind, ValidateFunction>();

function compileFast(kind: DocumentKind, schema: object): ValidateFunction {
  const options = {
    allErrors: false,
    verbose: false,
    strict: false,
    validateSchema: false, // as in ajvFor

    validateFormats: true,
    discriminator: true,
    // Regular expressions without the `u` flag, when no pattern can tell the difference.
    unicodeRegExp: !patternsAreAscii(schema),
    // String lengths in UTF-16 code units instead of code points, when no limit can tell the difference.
    unicode: !lengthsAreCodeUnitSafe(schema),
    // ajv calls the `unicode` option deprecated (it still works); say nothing about it, pass the rest on.
    logger: {
      log: (...args: unknown[]) => console.log(...args),
      warn: (...args: unknown[]) => {
        if (!args.some((a) => typeof a === 'string' && a.includes('option unicode'))) console.warn(...args);
      },
      error: (...args: unknown[]) => console.error(...args),
    },
  };
  const a = DRAFT_2020.has(kind) ? new Ajv2020(options) : new AjvDraft07(options);
  addFormats(a);
  return a.compile(schema);
}

/** Every value of `keyword` anywhere in `schema`. */
function keywordValues(schema: unknown, keyword: string, into: unknown[] = []): unknown[] {
  if (Array.isArray(schema)) for (const v of schema) keywordValues(v, keyword, into);
  else if (isObject(schema)) {
    for (const [k, v] of Object.entries(schema)) {
      if (k === keyword) into.push(v);
      keywordValues(v, keyword, into);
    }
  }
  return into;
}

/**
 * Whether every `pattern` (and `patternProperties` key) matches the same strings with and without the `u`
 * flag: printable ASCII only, and nothing that matches a lone surrogate in one mode and a code point in the
 * other (`.`, negated classes or escapes) or only exists in one mode (`\p{…}`, `\u{…}`).
 */
export function patternsAreAscii(schema: unknown): boolean {
  const patterns = keywordValues(schema, 'pattern');
  for (const pp of keywordValues(schema, 'patternProperties')) pushAll(patterns, isObject(pp) ? Object.keys(pp) : ['.']);
  return patterns.every((p) => typeof p === 'string' && /^[\x20-\x7e]*$/.test(p) && !/(^|[^\\])(\\\\)*(\.|\[\^)|\\[SWDBbpPuck]/.test(p));
}

/**
 * Whether counting string lengths in code units instead of code points cannot change a verdict: no
 * `maxLength`, and no `minLength` above 1 (a string has ≥ 1 code point iff it has ≥ 1 code unit).
 */
export function lengthsAreCodeUnitSafe(schema: unknown): boolean {
  return keywordValues(schema, 'maxLength').length === 0 && keywordValues(schema, 'minLength').every((n) => typeof n === 'number' && n <= 1);
}

/**
 * A copy of `schema` with `discriminator: { propertyName }` on every oneOf of an object-typed schema whose
 * branches all declare `properties[propertyName].const` (distinct strings) and require it. With such branches at most one can
 * pass — the one whose const equals the instance's value — so "exactly one branch passes" and "the
 * branch named by the property passes" accept the same instances.
 */
export function withDiscriminators(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withDiscriminators);
  if (!isObject(schema)) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = withDiscriminators(v);
  const property = Array.isArray(schema.oneOf) && schema.discriminator === undefined ? discriminatorProperty(schema, schema.oneOf) : undefined;
  if (property !== undefined) out.discriminator = { propertyName: property };
  return out;
}

function discriminatorProperty(parent: Record<string, unknown>, branches: unknown[]): string | undefined {
  // ajv applies `discriminator` to objects only (and then skips the oneOf): a non-object instance must
  // already be refused by the parent's own `type`, or it would pass where every branch refuses it.
  if (parent.type !== 'object' || branches.length < 2) return undefined;
  const first = branches[0];
  if (!isObject(first) || !isObject(first.properties)) return undefined;
  const requiredBy = (s: Record<string, unknown>, p: string) => Array.isArray(s.required) && s.required.includes(p);
  for (const p of Object.keys(first.properties)) {
    const seen = new Set<string>();
    const ok = branches.every((b) => {
      if (!isObject(b) || b.$ref !== undefined || !isObject(b.properties)) return false;
      const ps = b.properties[p];
      if (!isObject(ps) || typeof ps.const !== 'string' || seen.has(ps.const)) return false;
      seen.add(ps.const);
      return requiredBy(b, p) || requiredBy(parent, p);
    });
    if (ok) return p;
  }
  return undefined;
}

/** The fast accept/reject validator of a kind (compiled on first use); the full one if it cannot be built. */
export function fastSchemaValidator(kind: DocumentKind): ValidateFunction {
  let v = fastCompiled.get(kind);
  if (v) return v;
  try {
    v = compileFast(kind, withDiscriminators(SCHEMAS[kind]) as object);
  } catch {
    v = compiledSchema(kind).validate;
  }
  fastCompiled.set(kind, v);
  return v;
}

/** Whether `value` is valid under the full (all errors, verbose) validator — the reference the fast one must equal. */
export function isValidAgainstFullSchema(kind: DocumentKind, value: unknown): boolean {
  return compiledSchema(kind).validate(value) === true;
}

/** Whether `value` is valid under our schema of `kind` (tests use it to compare with the upstream schema). */
export function isValidAgainstSchema(kind: DocumentKind, value: unknown): boolean {
  return fastSchemaValidator(kind)(value) === true;
}

/**
 * Schema findings for a parsed value of a known kind. The top-level `$schema` property is the association
 * hint (docs/document-kinds.md), so it is never reported as unexpected.
 */
export function validateAgainstSchema(kind: DocumentKind, value: unknown): Finding[] {
  if (fastSchemaValidator(kind)(value) === true) return [];
  const c = compiledSchema(kind);
  if (c.validate(value) === true) return [];
  const errors = reduceCompound(c, [...(c.validate.errors ?? [])], value, '');
  const findings: Finding[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    const f = toFinding(e, value);
    if (!f) continue;
    const key = `${JSON.stringify(f.target)}|${f.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    findings.push(f);
  }
  return findings;
}

// ───────────── oneOf / anyOf: one error, through the closest branch ─────────────

const COMPOUND = new Set(['oneOf', 'anyOf']);

/** Identity of an error across validators: where, which keyword, which schema object (schemaPaths differ per validator). */
function signature(c: CompiledKind, e: ErrorObject, prefix: string): string {
  return `${prefix}${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}|${c.pointers.get(e.parentSchema as object) ?? e.schemaPath}`;
}

function under(path: string, base: string): boolean {
  return path === base || path.startsWith(base + '/');
}

/**
 * Replaces every failing oneOf/anyOf (outermost first) and all the errors its branches produced
 * by the errors of the single closest branch, recursively.
 * `prefix` is the instance path of `value` inside the document (errors carry paths relative to `value`).
 */
function reduceCompound(c: CompiledKind, errors: ErrorObject[], value: unknown, prefix: string): ErrorObject[] {
  let work = errors.map((e) => (prefix ? { ...e, instancePath: prefix + e.instancePath } : e));
  // Each round replaces the outermost compounds; errors are grouped by the compound that owns their
  // instance path first, so a document with thousands of failing oneOfs stays linear, not quadratic.
  for (;;) {
    const outermost = new Map<string, ErrorObject>();
    for (const e of work) if (COMPOUND.has(e.keyword) && !outermost.has(e.instancePath)) outermost.set(e.instancePath, e);
    if (outermost.size === 0) return work;
    for (const at of [...outermost.keys()]) if (ownerPath(at, outermost, true) !== undefined) outermost.delete(at);
    const groups = new Map<string, ErrorObject[]>();
    const next: ErrorObject[] = [];
    for (const e of work) {
      const owner = ownerPath(e.instancePath, outermost, false);
      if (owner === undefined) next.push(e);
      else {
        let g = groups.get(owner);
        if (!g) groups.set(owner, (g = []));
        g.push(e);
      }
    }
    for (const [at, group] of groups) pushAll(next, replaceCompound(c, outermost.get(at)!, group, value, prefix));
    work = next;
  }
}

/** The shortest path in `owners` that is `path` or one of its ancestors (`strict`: ancestors only). */
function ownerPath(path: string, owners: Map<string, ErrorObject>, strict: boolean): string | undefined {
  if (owners.has('') && (path !== '' || !strict)) return '';
  let i = 0;
  for (;;) {
    i = path.indexOf('/', i + 1);
    const candidate = i === -1 ? path : path.slice(0, i);
    if (candidate !== '' && owners.has(candidate) && (!strict || candidate !== path)) return candidate;
    if (i === -1) return undefined;
  }
}

function replaceCompound(c: CompiledKind, compound: ErrorObject, errors: ErrorObject[], root: unknown, rootPrefix: string): ErrorObject[] {
  const at = compound.instancePath;
  const instance = valueAtPointer(root, at.slice(rootPrefix.length));
  const branches = (Array.isArray(compound.schema) ? compound.schema : []) as unknown[];
  const keyword = compound.keyword;
  const basePointer = c.pointers.get(compound.parentSchema as object);

  // Evaluate each branch on its own: exact per-branch errors, whatever $refs they go through.
  const evaluated = branches.map((b, i) => {
    const v = basePointer !== undefined ? branchValidator(c, `${basePointer}/${keyword}/${i}`) : undefined;
    if (!v) return { i, schema: b, errors: [] as ErrorObject[], ok: false, known: false };
    const ok = v(instance) === true;
    return { i, schema: b, errors: ok ? [] : [...(v.errors ?? [])], ok, known: true };
  });
  const branchSignatures = new Set<string>();
  for (const ev of evaluated) for (const e of ev.errors) branchSignatures.add(signature(c, e, at));

  // Everything the branches produced (and the compound itself) goes; the sibling keywords' errors stay.
  const kept = errors.filter((e) => {
    if (e === compound) return false;
    if (!under(e.instancePath, at)) return true;
    if (branchSignatures.has(signature(c, e, ''))) return false;
    const p = c.pointers.get(e.parentSchema as object);
    if (p !== undefined && basePointer !== undefined && p.startsWith(`${basePointer}/${keyword}/`)) return false;
    if (COMPOUND.has(e.keyword) && e.instancePath !== at) return false; // a nested compound belongs to some branch
    return true;
  });

  const passing = (compound.params as { passingSchemas?: number[] | null }).passingSchemas;
  if (Array.isArray(passing) && passing.length > 1) {
    return [...kept, synthetic(compound, at, tooManyMessage(branches, passing), requiredOnlyAll(branches) ? 'missing' : 'value')];
  }
  if (evaluated.some((ev) => !ev.known)) {
    return [...kept, synthetic(compound, at, `does not match any allowed shape (${keyword})`, 'value')];
  }

  // Pure `required` branches (exactly-one-of-these-properties): say so in one sentence.
  const requiredOnly = branches.map(requiredOnlyProperty);
  if (requiredOnly.every((p) => p !== undefined)) {
    return [...kept, synthetic(compound, at, `must have ${keyword === 'oneOf' ? 'exactly one' : 'at least one'} of: ${requiredOnly.join(', ')} (${keyword})`, 'missing')];
  }

  const disc = discriminatorVerdicts(branches, instance);
  if (disc.property !== undefined && disc.matching.length === 0 && disc.present) {
    // The document names a shape that does not exist: one error at the discriminator.
    const allowed = disc.allowed.map(show).join(', ');
    const discPath = `${at}/${escapePointer(disc.property)}`;
    // A sibling `enum` on the discriminator already says the same thing.
    if (kept.some((e) => e.instancePath === discPath)) return kept;
    const actual = (instance as Record<string, unknown>)[disc.property];
    return [...kept, synthetic(compound, discPath, `${show(actual)} is not allowed; expected one of ${allowed} (${keyword} on ${disc.property})`, 'value')];
  }
  let candidates = evaluated.filter((ev) => disc.matching.includes(ev.i));
  if (candidates.length === 0) candidates = evaluated;
  const typed = candidates.filter((ev) => typeAccepts(ev.schema, instance));
  if (typed.length > 0) candidates = typed;
  const best = candidates.reduce((a, b) => (b.errors.length < a.errors.length || (b.errors.length === a.errors.length && deepest(b.errors) > deepest(a.errors)) ? b : a));
  if (best.errors.length === 0) return [...kept, synthetic(compound, at, `does not match any allowed shape (${keyword})`, 'value')];
  const reduced = reduceCompound(c, best.errors, instance, at);
  return [...kept, ...reduced];
}

function branchValidator(c: CompiledKind, pointer: string): ValidateFunction | undefined {
  let v = c.branchValidators.get(pointer);
  if (!v) {
    try {
      v = c.ajv.getSchema(`${c.id}#${pointer}`);
    } catch {
      v = undefined;
    }
    if (v) c.branchValidators.set(pointer, v);
  }
  return v;
}

/** An error of our own making; `part` says whether it points at the value or at the object (as a missing property does). */
function synthetic(model: ErrorObject, instancePath: string, message: string, part: 'value' | 'missing'): ErrorObject {
  return { keyword: SYNTHETIC, instancePath, schemaPath: model.schemaPath, params: { part }, message };
}
const SYNTHETIC = 'toonlens:compound';

function requiredOnlyAll(branches: unknown[]): boolean {
  return branches.every((b) => requiredOnlyProperty(b) !== undefined);
}

function deepest(errors: ErrorObject[]): number {
  return errors.reduce((m, e) => Math.max(m, e.instancePath.split('/').length), 0);
}

function requiredOnlyProperty(branch: unknown): string | undefined {
  if (!isObject(branch)) return undefined;
  const keys = Object.keys(branch).filter((k) => k !== 'description');
  const req = branch.required;
  if (keys.length === 1 && Array.isArray(req) && req.length === 1 && typeof req[0] === 'string') return req[0];
  return undefined;
}

function tooManyMessage(branches: unknown[], passing: number[]): string {
  const req = branches.map(requiredOnlyProperty);
  if (req.every((p) => p !== undefined)) return `must have exactly one of: ${req.join(', ')}, not several (oneOf)`;
  return `matches more than one allowed shape (oneOf branches ${passing.join(' and ')}); exactly one must match`;
}

/** Branch discriminators: a property whose schema is a `const` (or one-value `enum`) in some branch. */
function discriminatorVerdicts(branches: unknown[], instance: unknown): { property?: string; matching: number[]; allowed: unknown[]; present: boolean } {
  if (!isObject(instance)) return { matching: [], allowed: [], present: false };
  const constsByProperty = new Map<string, Map<number, unknown[]>>();
  branches.forEach((b, i) => {
    const props = isObject(b) && isObject(b.properties) ? b.properties : undefined;
    if (!props) return;
    for (const [name, s] of Object.entries(props)) {
      const values = constValues(s);
      if (!values) continue;
      let m = constsByProperty.get(name);
      if (!m) constsByProperty.set(name, (m = new Map()));
      m.set(i, values);
    }
  });
  // The discriminator is the const property most branches declare (kind, outcome, op, …).
  let best: string | undefined;
  for (const [name, m] of constsByProperty) if (!best || m.size > constsByProperty.get(best)!.size) best = name;
  if (!best) return { matching: [], allowed: [], present: false };
  const table = constsByProperty.get(best)!;
  const present = Object.prototype.hasOwnProperty.call(instance, best);
  const actual = instance[best];
  const matching: number[] = [];
  const allowed: unknown[] = [];
  for (const [i, values] of table) {
    for (const v of values) if (!allowed.some((a) => deepEqual(a, v))) allowed.push(v);
    if (present && values.some((v) => deepEqual(v, actual))) matching.push(i);
  }
  // `present` asks for the "names a shape that does not exist" error: only fair when every branch pins the
  // discriminator (a branch without it, like an error result without `outcome`, could still be meant).
  return { property: best, matching, allowed, present: present && table.size === branches.length };
}

function constValues(s: unknown): unknown[] | undefined {
  if (!isObject(s)) return undefined;
  if ('const' in s) return [s.const];
  if (Array.isArray(s.enum) && s.enum.length === 1) return s.enum;
  return undefined;
}

function typeAccepts(schema: unknown, instance: unknown): boolean {
  if (!isObject(schema) || schema.type === undefined) return true;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  const t = jsonType(instance);
  return types.some((x) => x === t || (x === 'number' && t === 'integer'));
}

// ───────────── one ajv error → one finding ─────────────

function toFinding(e: ErrorObject, root: unknown): Finding | undefined {
  const path = pointerToPath(e.instancePath, root);
  const p = e.params as Record<string, unknown>;
  const at = (target: JsonTarget, message: string): Finding => ({ ...ruleCode('schema'), message, target });
  const where = path.length ? `${pathLabel(path)}: ` : '';
  switch (e.keyword) {
    case 'if':
      return undefined; // the failing then/else branch reports the real problem
    case 'required': {
      const missing = String(p.missingProperty);
      return at({ path, part: 'missing', property: missing }, `Missing property "${missing}" (required)${path.length ? ` in ${pathLabel(path)}` : ''}`);
    }
    case 'dependencies':
    case 'dependentRequired': {
      const missing = String(p.missingProperty);
      return at({ path, part: 'missing', property: missing }, `Missing property "${missing}", required when "${String(p.property)}" is present (${e.keyword})`);
    }
    case 'additionalProperties': {
      const extra = String(p.additionalProperty);
      if (path.length === 0 && extra === '$schema') return undefined;
      const allowed = isObject(e.parentSchema) && isObject(e.parentSchema.properties) ? Object.keys(e.parentSchema.properties) : [];
      const list = allowed.length ? `; allowed: ${allowed.slice(0, 12).join(', ')}${allowed.length > 12 ? ', …' : ''}` : '';
      return at({ path: [...path, extra], part: 'key' }, `Unexpected property "${extra}" (additionalProperties: false)${list}`);
    }
    case 'unevaluatedProperties': {
      const extra = String(p.unevaluatedProperty);
      return at({ path: [...path, extra], part: 'key' }, `Unexpected property "${extra}" (unevaluatedProperties: false)`);
    }
    case 'false schema': {
      const last = path[path.length - 1];
      return at({ path, part: 'key' }, `Property "${String(last)}" is not allowed here (false schema)`);
    }
    case 'enum': {
      const allowed = (p.allowedValues as unknown[]) ?? [];
      return at({ path }, `${where}${show(valueAtPath(root, path))} is not allowed (enum); expected one of ${allowed.map(show).join(', ')}`);
    }
    case 'const':
      return at({ path }, `${where}must be ${show(p.allowedValue)} (const), got ${show(valueAtPath(root, path))}`);
    case 'type':
      return at({ path }, `${where}must be ${Array.isArray(p.type) ? p.type.join(' or ') : String(p.type)} (type), got ${jsonType(valueAtPath(root, path))}`);
    case 'pattern':
      return at({ path }, `${where}${show(valueAtPath(root, path))} does not match ${String(p.pattern)} (pattern)`);
    case 'format':
      return at({ path }, `${where}${show(valueAtPath(root, path))} is not a valid ${String(p.format)} (format)`);
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return at({ path }, `${where}must be ${String(p.comparison)} ${String(p.limit)} (${e.keyword}), got ${show(valueAtPath(root, path))}`);
    case 'minLength':
    case 'maxLength':
      return at({ path }, `${where}must be ${e.keyword === 'minLength' ? 'at least' : 'at most'} ${String(p.limit)} characters (${e.keyword})`);
    case 'minItems':
    case 'maxItems':
      return at({ path }, `${where}must have ${e.keyword === 'minItems' ? 'at least' : 'at most'} ${String(p.limit)} items (${e.keyword})`);
    case 'minProperties':
    case 'maxProperties':
      return at({ path }, `${where}must have ${e.keyword === 'minProperties' ? 'at least' : 'at most'} ${String(p.limit)} properties (${e.keyword})`);
    case 'uniqueItems':
      return at({ path }, `${where}items ${String(p.j)} and ${String(p.i)} are identical (uniqueItems)`);
    case SYNTHETIC:
      return p.part === 'missing'
        ? at({ path, part: 'missing', property: '' }, `${where}${e.message ?? ''}`)
        : at({ path }, `${where}${e.message ?? ''}`);
    default:
      return at({ path }, `${where}${e.message ?? 'is invalid'} (${e.keyword})`);
  }
}

// ───────────── small helpers ─────────────


function jsonType(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'array';
  if (typeof x === 'number') return Number.isInteger(x) ? 'integer' : 'number';
  return typeof x;
}

/** Short JSON rendering of a value for a message. */
function show(x: unknown): string {
  if (x === undefined) return 'nothing';
  if (typeof x === 'string') {
    const s = JSON.stringify(x.length > 40 ? x.slice(0, 37) + '…' : x);
    return s;
  }
  if (x === null || typeof x !== 'object') return JSON.stringify(x);
  return Array.isArray(x) ? 'an array' : 'an object';
}

function pathLabel(path: JsonPath): string {
  return path.map((s, i) => (typeof s === 'number' ? `[${s}]` : i === 0 ? s : `.${s}`)).join('');
}

/** Converts a JSON pointer to path segments; a segment becomes a number where it indexes an array of `root`. */
export function pointerToPath(pointer: string, root: unknown): (string | number)[] {
  if (!pointer) return [];
  const out: (string | number)[] = [];
  let cur: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = unescapePointerSegment(raw);
    if (Array.isArray(cur) && /^(0|[1-9][0-9]*)$/.test(seg)) {
      out.push(Number(seg));
      cur = cur[Number(seg)];
    } else {
      out.push(seg);
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
    }
  }
  return out;
}

function valueAtPath(root: unknown, path: JsonPath): unknown {
  let cur: unknown = root;
  for (const seg of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string | number, unknown>)[seg];
  }
  return cur;
}

function valueAtPointer(root: unknown, pointer: string): unknown {
  return valueAtPath(root, pointerToPath(pointer, root));
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Completion data for update_recipe_build arguments, derived at runtime from the input schema's
 * `ops.items.oneOf` (one branch per op, discriminated by `op: { const }`): nothing is hand-listed,
 * so a new op in the schema is offered as soon as the schema copy is updated.
 */
import type { JsonPath } from '../../types';
import { isObject, type Obj } from './calls';
import { RECIPE_INPUT_SCHEMA } from './schemas';

export interface RecipeCompletion {
  label: string;
  detail?: string;
  /** JSON text to insert as-is (a quoted op name, a `"key": value` member, or a whole op object). */
  insertText?: string;
}

/** One op as the schema defines it. */
export interface OpSpec {
  op: string;
  description?: string;
  /** Required properties other than `op`, in schema order. */
  required: string[];
  properties: Obj;
}

const opSpecCache = new WeakMap<object, OpSpec[]>();

/** The ops of an update_recipe_build input schema, in schema order. */
export function opSpecs(schema: unknown = RECIPE_INPUT_SCHEMA): OpSpec[] {
  if (!isObject(schema)) return [];
  const cached = opSpecCache.get(schema);
  if (cached) return cached;
  const out: OpSpec[] = [];
  const ops = isObject(schema.properties) ? schema.properties.ops : undefined;
  const items = isObject(ops) ? ops.items : undefined;
  const branches = isObject(items) && Array.isArray(items.oneOf) ? items.oneOf : [];
  for (const b of branches) {
    if (!isObject(b) || !isObject(b.properties)) continue;
    const opProp = b.properties.op;
    if (!isObject(opProp) || typeof opProp.const !== 'string') continue;
    const required = Array.isArray(b.required) ? b.required.filter((r): r is string => typeof r === 'string' && r !== 'op') : [];
    out.push({
      op: opProp.const,
      description: typeof b.description === 'string' ? b.description : undefined,
      required,
      properties: b.properties,
    });
  }
  opSpecCache.set(schema, out);
  return out;
}

/** A JSON placeholder for a property schema: its const, first enum value, or an empty value of its type. */
export function placeholderFor(propSchema: unknown): string {
  if (!isObject(propSchema)) return 'null';
  if ('const' in propSchema) return JSON.stringify(propSchema.const) ?? 'null';
  if (Array.isArray(propSchema.enum) && propSchema.enum.length) return JSON.stringify(propSchema.enum[0]) ?? 'null';
  const t = Array.isArray(propSchema.type) ? propSchema.type[0] : propSchema.type;
  switch (t) {
    case 'object':
      return '{}';
    case 'array':
      return '[]';
    case 'string':
      return '""';
    case 'integer':
    case 'number':
      return '0';
    case 'boolean':
      return 'false';
    default:
      return Array.isArray(propSchema.oneOf) && propSchema.oneOf.length ? placeholderFor(propSchema.oneOf[0]) : 'null';
  }
}

function typeLabel(propSchema: unknown): string | undefined {
  if (!isObject(propSchema)) return undefined;
  if ('const' in propSchema) return `const ${JSON.stringify(propSchema.const)}`;
  if (Array.isArray(propSchema.enum)) return propSchema.enum.map((v) => JSON.stringify(v)).join(' | ');
  if (typeof propSchema.type === 'string') return propSchema.type;
  if (Array.isArray(propSchema.type)) return propSchema.type.join(' | ');
  return undefined;
}

function opSkeleton(spec: OpSpec): string {
  const members = [`"op": ${JSON.stringify(spec.op)}`, ...spec.required.map((r) => `${JSON.stringify(r)}: ${placeholderFor(spec.properties[r])}`)];
  return `{ ${members.join(', ')} }`;
}

/** Where the completion is asked, relative to one call's arguments. */
function relativeToCall(value: unknown, path: JsonPath): { args: unknown; rest: JsonPath } {
  if (Array.isArray(value) && typeof path[0] === 'number') return { args: value[path[0]], rest: path.slice(1) };
  return { args: value, rest: path };
}

/**
 * Completion items at `path`:
 * - `[…, 'ops']` (the ops array): one skeleton per op, with its required fields;
 * - `[…, 'ops', i, 'op']` (the op's value): every op name, with the op's description;
 * - `[…, 'ops', i]` (keys of an op object): for a chosen op, its required fields not yet present;
 *   before an op is chosen, the `op` key itself.
 * `…` is empty for a single call's arguments, or the call index in a batch array. Never throws.
 */
export function recipeCompletions(value: unknown, path: JsonPath, schema: unknown = RECIPE_INPUT_SCHEMA): RecipeCompletion[] {
  try {
    const specs = opSpecs(schema);
    const { args, rest } = relativeToCall(value, path);
    if (rest.length === 1 && rest[0] === 'ops') {
      return specs.map((s) => ({ label: s.op, detail: s.description, insertText: opSkeleton(s) }));
    }
    if (rest.length === 3 && rest[0] === 'ops' && typeof rest[1] === 'number' && rest[2] === 'op') {
      return specs.map((s) => ({ label: s.op, detail: s.description, insertText: JSON.stringify(s.op) }));
    }
    if (rest.length === 2 && rest[0] === 'ops' && typeof rest[1] === 'number') {
      const ops = isObject(args) && Array.isArray(args.ops) ? args.ops : undefined;
      const op = ops?.[rest[1]];
      const chosen = isObject(op) && typeof op.op === 'string' ? specs.find((s) => s.op === op.op) : undefined;
      if (!chosen) {
        if (isObject(op) && 'op' in op) return [];
        return [{ label: 'op', detail: `one of ${specs.map((s) => s.op).join(', ')}`, insertText: '"op": ""' }];
      }
      return chosen.required
        .filter((r) => !(isObject(op) && Object.prototype.hasOwnProperty.call(op, r)))
        .map((r) => ({
          label: r,
          detail: [`required by ${chosen.op}`, typeLabel(chosen.properties[r])].filter(Boolean).join(': '),
          insertText: `${JSON.stringify(r)}: ${placeholderFor(chosen.properties[r])}`,
        }));
    }
  } catch {
    // completion data never breaks the editor
  }
  return [];
}

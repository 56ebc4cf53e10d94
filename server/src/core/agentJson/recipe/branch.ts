/**
 * Which oneOf branch of the review_recipe_build result schema a document is closest to, judged by
 * its discriminators (`const`/`enum` properties such as `outcome`, `state`, `qualification_route`),
 * its required keys and the keys a branch forbids. Derived from the schema at runtime, so the
 * schema pass can report a failed oneOf through the branch the author meant.
 */
import { isObject, type Obj } from './calls';
import { RECIPE_OUTPUT_SCHEMA } from './schemas';

export interface OutputBranch {
  /** Index into the schema's top-level oneOf. */
  index: number;
  /** Human name derived from the branch's discriminators, e.g. "quoted (with budget_capability)", "queued", "error". */
  name: string;
}

interface BranchInfo {
  index: number;
  properties: Obj;
  required: string[];
  /** Properties declared impossible (`not: {}` or `false`). */
  forbidden: Set<string>;
  /** Whether undeclared properties are rejected. */
  closed: boolean;
  /** The first required const-valued property (`outcome`): the main discriminator. */
  primary: string | undefined;
  name: string;
}

function isForbiddenSchema(s: unknown): boolean {
  return s === false || (isObject(s) && isObject(s.not) && Object.keys(s.not).length === 0);
}

const branchCache = new WeakMap<object, BranchInfo[]>();

/** The branches of a oneOf schema with derived names. */
export function outputBranches(schema: unknown = RECIPE_OUTPUT_SCHEMA): BranchInfo[] {
  if (!isObject(schema) || !Array.isArray(schema.oneOf)) return [];
  const cached = branchCache.get(schema);
  if (cached) return cached;
  const infos: BranchInfo[] = schema.oneOf.map((b, index) => {
    const o = isObject(b) ? b : {};
    const properties = isObject(o.properties) ? o.properties : {};
    const required = Array.isArray(o.required) ? o.required.filter((r): r is string => typeof r === 'string') : [];
    const forbidden = new Set(Object.keys(properties).filter((k) => isForbiddenSchema(properties[k])));
    const constKey = required.find((k) => isObject(properties[k]) && 'const' in (properties[k] as Obj));
    const base = constKey !== undefined ? String((properties[constKey] as Obj).const) : (required[0] ?? `branch ${index}`);
    return { index, properties, required, forbidden, closed: o.additionalProperties === false, primary: constKey, name: base };
  });
  // Branches sharing a name (two "quoted" shapes) are told apart by a key one requires and the other forbids or omits.
  const byName = new Map<string, BranchInfo[]>();
  for (const b of infos) byName.set(b.name, [...(byName.get(b.name) ?? []), b]);
  for (const group of byName.values()) {
    if (group.length < 2) continue;
    const suffix = new Map<BranchInfo, string>();
    for (const b of group) {
      const own = b.required.find((k) => group.every((o) => o === b || !o.required.includes(k)));
      if (own !== undefined) {
        suffix.set(b, `with ${own}`);
        for (const o of group) if (o !== b && !suffix.has(o)) suffix.set(o, `without ${own}`);
      }
    }
    group.forEach((b) => (b.name = `${b.name} (${suffix.get(b) ?? `branch ${b.index}`})`));
  }
  branchCache.set(schema, infos);
  return infos;
}

function matchesDiscriminator(propSchema: unknown, v: unknown): boolean | undefined {
  if (!isObject(propSchema)) return undefined;
  if ('const' in propSchema) return JSON.stringify(propSchema.const) === JSON.stringify(v);
  if (Array.isArray(propSchema.enum)) return propSchema.enum.some((e) => JSON.stringify(e) === JSON.stringify(v));
  return undefined;
}

/** Score of a document against one branch; undefined when nothing in the document points at it. */
function score(doc: Obj, b: BranchInfo): number | undefined {
  let s = 0;
  let evidence = false;
  for (const [key, propSchema] of Object.entries(b.properties)) {
    if (!Object.prototype.hasOwnProperty.call(doc, key)) continue;
    const m = matchesDiscriminator(propSchema, doc[key]);
    const isConst = isObject(propSchema) && 'const' in propSchema;
    if (m === true) {
      s += key === b.primary ? 30 : isConst ? 10 : 3;
      evidence = true;
    } else if (m === false) s -= key === b.primary ? 100 : isConst ? 50 : 5;
  }
  for (const r of b.required) {
    if (Object.prototype.hasOwnProperty.call(doc, r)) {
      s += 1;
      evidence = true;
    } else s -= 1;
  }
  for (const key of Object.keys(doc)) {
    if (key === '$schema') continue;
    if (b.forbidden.has(key) || (b.closed && !Object.prototype.hasOwnProperty.call(b.properties, key))) s -= 4;
  }
  return evidence ? s : undefined;
}

/**
 * The oneOf branch of the review_recipe_build result schema the document is closest to, or undefined
 * when the value is not an object or nothing in it points at any branch. Ties go to the earlier branch.
 */
export function recipeOutputBranch(value: unknown, schema: unknown = RECIPE_OUTPUT_SCHEMA): OutputBranch | undefined {
  try {
    if (!isObject(value)) return undefined;
    let best: { b: BranchInfo; s: number } | undefined;
    for (const b of outputBranches(schema)) {
      const s = score(value, b);
      if (s !== undefined && (best === undefined || s > best.s)) best = { b, s };
    }
    return best ? { index: best.b.index, name: best.b.name } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * How a recipe-input document holds tool calls. A document is either
 * - one call's arguments: an object `{ build_ref, revision, idempotency_key, ops }`, or
 * - a batch: an array of such objects, the calls in the order they are (or were) sent.
 * Chunk rules follow chunk_ids across the calls of a batch; sizes are measured per call.
 * Anything else holds no calls (the schema pass reports the shape).
 */
import type { JsonPath } from '../../types';
import { isObject } from '../../json/value';
export { isObject };

export type Obj = Record<string, unknown>;


export interface RecipeCall {
  /** Path of the call's arguments object in the document ([] for a single call, [i] in a batch). */
  path: JsonPath;
  args: Obj;
}

export interface RecipeOp {
  /** Path of the op object. */
  path: JsonPath;
  op: Obj;
  /** The call the op belongs to. */
  call: RecipeCall;
}

/** The calls a recipe-input document holds, in send order. */
export function recipeCalls(value: unknown): RecipeCall[] {
  if (isObject(value)) return [{ path: [], args: value }];
  if (Array.isArray(value)) {
    const out: RecipeCall[] = [];
    value.forEach((v, i) => {
      if (isObject(v)) out.push({ path: [i], args: v });
    });
    return out;
  }
  return [];
}

/** The object ops of one call, in order. */
export function callOps(call: RecipeCall): RecipeOp[] {
  const ops = call.args.ops;
  if (!Array.isArray(ops)) return [];
  const out: RecipeOp[] = [];
  ops.forEach((op, i) => {
    if (isObject(op)) out.push({ path: [...call.path, 'ops', i], op, call });
  });
  return out;
}

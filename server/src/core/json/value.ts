/** Small predicates on parsed JSON values, written once for core, features and the CLI. */

/** Whether a parsed JSON value is an object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

import type { JsonPath } from '../types';

/** Hover explanation for a verdict document (placeholder until it lands). */
export function explainVerdict(_value: unknown, _path: JsonPath): string | undefined {
  return undefined;
}

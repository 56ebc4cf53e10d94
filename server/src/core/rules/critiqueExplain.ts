import type { JsonPath } from '../types';

/** Hover explanation for a critique document (placeholder until it lands). */
export function explainCritique(_value: unknown, _path: JsonPath): string | undefined {
  return undefined;
}

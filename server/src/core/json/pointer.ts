/** JSON Pointers (RFC 6901), written once: segment escaping and pointer ↔ path. */

/** Escapes one segment (`~` → `~0`, `/` → `~1`). */
export function escapePointerSegment(s: string | number): string {
  return String(s).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Unescapes one segment (`~1` → `/`, then `~0` → `~`). */
export function unescapePointerSegment(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** The pointer of a path. */
export function toPointer(path: readonly (string | number)[]): string {
  return path.map((s) => '/' + escapePointerSegment(s)).join('');
}

/** The unescaped segments of a pointer (`''` is the root). */
export function fromPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map(unescapePointerSegment);
}

/**
 * The argument check every `workspace/executeCommand` goes through before a feature's handler sees it.
 *
 * Commands are reachable from any client and, through lenses and links, from documents: an argument of the wrong
 * type must get a clear InvalidParams answer, never a TypeError from deep inside a handler. The fields ToonLens's
 * commands share are typed once here; a handler still checks the presence of what it needs.
 */

type FieldType = 'string' | 'number' | 'boolean' | 'position' | 'array';

/** Every field a ToonLens command argument may carry, by name, and its type. */
const FIELD_TYPES: Readonly<Record<string, FieldType>> = {
  uri: 'string',
  reportFsPath: 'string',
  heading: 'string',
  tier: 'string',
  version: 'number',
  sectionStart: 'number',
  entryIndex: 'number',
  line: 'number',
  position: 'position',
  records: 'array',
};

function isPosition(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return false;
  const p = v as { line?: unknown; character?: unknown };
  return Number.isSafeInteger(p.line) && (p.line as number) >= 0 && Number.isSafeInteger(p.character) && (p.character as number) >= 0;
}

function hasType(v: unknown, type: FieldType): boolean {
  switch (type) {
    case 'position':
      return isPosition(v);
    case 'array':
      return Array.isArray(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    default:
      return typeof v === type;
  }
}

/**
 * Why `args` cannot be a ToonLens command's arguments, or undefined when they can: not an array, or an object
 * argument with a known field of the wrong type (`{ "uri": 5 }`).
 */
export function commandArgsProblem(args: unknown): string | undefined {
  if (args === undefined || args === null) return undefined;
  if (!Array.isArray(args)) return 'the arguments must be an array';
  for (let i = 0; i < args.length; i++) {
    const a: unknown = args[i];
    if (a === null || typeof a !== 'object' || Array.isArray(a)) continue;
    for (const [field, type] of Object.entries(FIELD_TYPES)) {
      if (!Object.prototype.hasOwnProperty.call(a, field)) continue;
      const v = (a as Record<string, unknown>)[field];
      if (v === undefined || hasType(v, type)) continue;
      const shown = type === 'position' ? 'a position { line, character } of non-negative integers' : type === 'array' ? 'an array' : `a ${type}`;
      return `argument ${i + 1}: "${field}" must be ${shown}, not ${v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v}`;
    }
  }
  return undefined;
}

/**
 * The docs-hygiene report's vocabulary (see docs/report-shape.md): the closed enums,
 * each exact_edit kind's required fields and fixed characterization, and total accessors that
 * never throw on a value of the wrong type (a report is untrusted input).
 */
import { isObject as isObj } from '../../json/value';
export { isObj };

export type ExactEditKind =
  | 'delete-range'
  | 'move-to-archive'
  | 'insert-frontmatter'
  | 'replace-text'
  | 'dedupe'
  | 'delete'
  | 'extract-then-delete';

export const EXACT_EDIT_KINDS: readonly ExactEditKind[] = [
  'delete-range',
  'move-to-archive',
  'insert-frontmatter',
  'replace-text',
  'dedupe',
  'delete',
  'extract-then-delete',
];

/** Kinds whose tier also depends on lifecycle evidence and git state. */
export const LIFECYCLE_KINDS: readonly ExactEditKind[] = ['delete', 'extract-then-delete'];

/** Fixed (is_destructive, is_reversible) of each kind; `either` where the spec leaves it git-history dependent. */
export const KIND_CHARACTERIZATION: Record<ExactEditKind, { isDestructive: boolean; isReversible: boolean | 'either' }> = {
  'delete-range': { isDestructive: true, isReversible: false },
  'move-to-archive': { isDestructive: false, isReversible: true },
  'insert-frontmatter': { isDestructive: false, isReversible: true },
  'replace-text': { isDestructive: false, isReversible: true },
  dedupe: { isDestructive: false, isReversible: true },
  delete: { isDestructive: true, isReversible: 'either' },
  'extract-then-delete': { isDestructive: true, isReversible: 'either' },
};

/** Fields each kind requires besides `kind` and `expected_sha256` (extraction_target/target_ref are checked by their own rule). */
export const KIND_REQUIRED_FIELDS: Record<ExactEditKind, readonly string[]> = {
  'delete-range': ['anchor'],
  'move-to-archive': ['anchor', 'dest_path'],
  'insert-frontmatter': ['key', 'value'],
  'replace-text': ['anchor', 'match', 'replacement'],
  dedupe: ['anchor', 'canonical_ref'],
  delete: ['anchor', 'lifecycle'],
  'extract-then-delete': ['anchor', 'lifecycle'],
};

export const STALE_SUBTYPES = ['contradicted', 'orphaned', 'superseded', 'provisional', 'completed-in-place', 'duplicated'] as const;
export const BLOAT_SUBTYPES = ['distill', 'split', 'freeze'] as const;
export const SUBTYPES_BY_CLASS: Record<'stale' | 'bloat', readonly string[]> = { stale: STALE_SUBTYPES, bloat: BLOAT_SUBTYPES };

export type Obj = Record<string, unknown>;


export function has(o: Obj, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(o, key);
}

/** Own property only (a report can never reach Object.prototype through `__proto__` keys). */
export function get(o: unknown, key: string): unknown {
  return isObj(o) && has(o, key) ? o[key] : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function bool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

export function isKind(v: unknown): v is ExactEditKind {
  return typeof v === 'string' && (EXACT_EDIT_KINDS as readonly string[]).includes(v);
}

/** A positive safe integer line number, or undefined. */
export function lineNumber(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
}

/** Line anchor `{start_line, end_line}` with integer values, or undefined. */
export function lineAnchor(v: unknown): { start: number; end: number } | undefined {
  const start = lineNumber(get(v, 'start_line'));
  const end = lineNumber(get(v, 'end_line'));
  return start !== undefined && end !== undefined ? { start, end } : undefined;
}

export function isWholeFileAnchor(v: unknown): boolean {
  return get(v, 'whole_file') === true;
}

/** The report's entries array (empty when absent or not an array). */
export function entriesOf(report: unknown): unknown[] {
  const e = get(report, 'entries');
  return Array.isArray(e) ? e : [];
}

export function shortlistOf(report: unknown): unknown[] {
  const s = get(report, 'shortlist');
  return Array.isArray(s) ? s : [];
}

/** The path of a shortlist item (a string, or `{path}`), or undefined. */
export function shortlistItemPath(item: unknown): string | undefined {
  return typeof item === 'string' ? item : str(get(item, 'path'));
}

/** Lifecycle evidence as deriveSafetyTier reads it. */
export interface LifecycleEvidence {
  lifetime?: unknown;
  served_when_path?: unknown;
  served_when?: unknown;
}

/** The lifecycle object of a lifecycle op: exact_edit.lifecycle (empty when missing: proves nothing). */
export function lifecycleOfEdit(exactEdit: unknown): LifecycleEvidence {
  const l = get(exactEdit, 'lifecycle');
  return isObj(l) ? l : {};
}

/** Whether an entry's lifecycle (on the entry or its exact_edit) carries a classifier-judged served_when. */
export function hasClassifierJudgedServedWhen(entry: unknown): boolean {
  for (const l of [get(entry, 'lifecycle'), get(get(entry, 'exact_edit'), 'lifecycle')]) {
    if (isObj(l) && has(l, 'served_when') && l.served_when !== undefined && l.served_when !== null) return true;
  }
  return false;
}

/** `{tracked, clean}` when both are booleans, else undefined (unknown proves nothing). */
export function gitStateOf(v: unknown): { tracked: boolean; clean: boolean } | undefined {
  const tracked = bool(get(v, 'tracked'));
  const clean = bool(get(v, 'clean'));
  return tracked !== undefined && clean !== undefined ? { tracked, clean } : undefined;
}

/**
 * Which agent-JSON kind a document is. Order (first answer wins):
 * 1. its top-level `$schema` property naming one of our schemas (or the upstream one);
 * 2. the `toonlens.documentKinds` setting (glob → kind, matched against the workspace-relative path and the basename);
 * 3. file-name conventions (see docs/document-kinds.md);
 * 4. content sniffing on the kind's distinctive required top-level keys.
 * Anything else is not a ToonLens document: undefined, and no diagnostics at all.
 */
import { compileGlob } from '../glob';
import type { DocumentKind } from '../types';
import { DOCUMENT_KINDS } from '../types';

/** The settings that steer kind association (a subset of CheckSettings, kept structural to avoid an import cycle). */
export interface KindSettings {
  documentKinds?: Record<string, DocumentKind>;
}

/** What kind association may look at besides the document itself. */
export interface KindOptions {
  fsPath?: string;
  settings?: KindSettings;
  /** Workspace folder the glob setting is relative to; without it globs see the path as given. */
  root?: string;
}

/** `$schema` URL basenames → kind. Critique before report: "critique-report" also ends in "report". */
const SCHEMA_URL_KINDS: readonly [RegExp, DocumentKind][] = [
  [/(^|[/#])verdict(\.v\d+)?(\.schema)?\.json$/i, 'verdict'],
  [/(^|[/#])critique-report(\.v\d+)?(\.schema)?\.json$/i, 'critique'],
  [/(^|[/#])(docs-hygiene-|hygiene-)?report(\.v\d+)?(\.schema)?\.json$/i, 'report'],
  [/(^|[/#])(recipe-input(\.v\d+)?|update_recipe_build\.input)(\.schema)?\.json$/i, 'recipe-input'],
  [/(^|[/#])(recipe-output(\.v\d+)?|review_recipe_build\.output[\w.]*?)(\.schema)?\.json$/i, 'recipe-output'],
];

/** File-name conventions, tested against the basename (lower-cased). Critique before the generic report pattern. */
const FILE_NAME_KINDS: readonly [RegExp, DocumentKind][] = [
  [/(^|\.)verdict\.json$/, 'verdict'],
  [/^critique-report\.json$|\.critique(-report)?\.json$/, 'critique'],
  [/^(docs-)?hygiene-report\.json$|\.hygiene-report\.json$|\.report\.json$/, 'report'],
  [/(^|\.)recipe-input\.json$/, 'recipe-input'],
  [/(^|\.)recipe-output\.json$/, 'recipe-output'],
];

/** The kind a `$schema` URL names, if it names one of ours (or the upstream one). */
export function kindFromSchemaUrl(url: string): DocumentKind | undefined {
  const bare = url.replace(/[?#].*$/, '');
  for (const [re, kind] of SCHEMA_URL_KINDS) if (re.test(bare)) return kind;
  return undefined;
}

/** The kind a file name follows by convention. */
export function kindFromFileName(fsPath: string): DocumentKind | undefined {
  const base = baseName(fsPath).toLowerCase();
  for (const [re, kind] of FILE_NAME_KINDS) if (re.test(base)) return kind;
  return undefined;
}

const matcherCache = new Map<string, (p: string) => boolean>();
/** Globs come from the repository: compiled once each by the linear-time matcher (core/glob.ts), never backtracking. */
function globMatcher(glob: string): (p: string) => boolean {
  let m = matcherCache.get(glob);
  if (!m) {
    m = compileGlob(glob); // never throws; an over-long glob matches nothing
    if (matcherCache.size > 1000) matcherCache.clear();
    matcherCache.set(glob, m);
  }
  return m;
}

/** The kind the `toonlens.documentKinds` setting assigns to this path, if any glob matches. */
export function kindFromSettings(fsPath: string, settings: KindSettings | undefined, root?: string): DocumentKind | undefined {
  const table = settings?.documentKinds;
  if (!table) return undefined;
  const posix = fsPath.replace(/\\/g, '/');
  const candidates = [posix, baseName(posix)];
  if (root) {
    const r = root.replace(/\\/g, '/').replace(/\/+$/, '') + '/';
    if (posix.startsWith(r)) candidates.unshift(posix.slice(r.length));
  }
  for (const [glob, kind] of Object.entries(table)) {
    if (!DOCUMENT_KINDS.includes(kind)) continue;
    const matches = globMatcher(glob);
    if (candidates.some((c) => matches(c))) return kind;
  }
  return undefined;
}

const RECIPE_OUTPUT_OUTCOMES = new Set(['quoted', 'queued', 'supervised_required']);

/** The kind whose distinctive required top-level keys the value carries. */
export function kindFromContent(value: unknown): DocumentKind | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const o = value as Record<string, unknown>;
  const has = (...keys: string[]) => keys.every((k) => Object.prototype.hasOwnProperty.call(o, k));
  if (has('schema_version', 'verdict', 'measured_chars', 'flags')) return 'verdict';
  if (has('shortlist', 'entries', 'generated_at')) return 'report';
  if (has('skillFolder', 'sessionId', 'verdictProvenance', 'items')) return 'critique';
  if (has('build_ref', 'revision', 'idempotency_key', 'ops') && Array.isArray(o.ops)) return 'recipe-input';
  if (typeof o.outcome === 'string' && RECIPE_OUTPUT_OUTCOMES.has(o.outcome)) {
    if (o.outcome === 'quoted' && has('max_credits', 'budget_state', 'next_action')) return 'recipe-output';
    if (o.outcome === 'queued' && has('activity_ref', 'state', 'poll_after_seconds')) return 'recipe-output';
    if (o.outcome === 'supervised_required' && has('activity_ref', 'handoff', 'qualification_route')) return 'recipe-output';
  }
  return undefined;
}

/**
 * The document's kind, or undefined when it is not a ToonLens document.
 * `value` is the parsed value (or a tolerant parser's partial value when the text is broken).
 */
export function detectKind(text: string, value: unknown | undefined, opts: KindOptions): DocumentKind | undefined {
  const schemaUrl = schemaProperty(value) ?? schemaPropertyFromText(text, value);
  if (schemaUrl !== undefined) {
    const k = kindFromSchemaUrl(schemaUrl);
    if (k) return k;
  }
  if (opts.fsPath) {
    const k = kindFromSettings(opts.fsPath, opts.settings, opts.root) ?? kindFromFileName(opts.fsPath);
    if (k) return k;
  }
  return kindFromContent(value);
}

/** Distinctive keys of each kind, as they appear quoted in the text (for documents too large to parse). */
const PREFIX_KEYS: readonly [DocumentKind, readonly string[]][] = [
  ['verdict', ['schema_version', 'verdict', 'measured_chars', 'flags']],
  ['report', ['shortlist', 'entries', 'generated_at']],
  ['critique', ['skillFolder', 'sessionId', 'verdictProvenance', 'items']],
  ['recipe-input', ['build_ref', 'revision', 'idempotency_key', 'ops']],
];

/**
 * The kind of a document that will not be parsed (over the size limit), guessed from its first bytes:
 * a `$schema` naming one of ours, else all of a kind's distinctive keys appearing as property names.
 */
export function kindFromTextPrefix(text: string, opts: KindOptions): DocumentKind | undefined {
  const head = text.slice(0, 65536);
  const schema = /"\$schema"\s*:\s*"([^"\\]{1,500})"/.exec(head)?.[1];
  const bySchema = schema !== undefined ? kindFromSchemaUrl(schema) : undefined;
  if (bySchema) return bySchema;
  if (opts.fsPath) {
    const k = kindFromSettings(opts.fsPath, opts.settings, opts.root) ?? kindFromFileName(opts.fsPath);
    if (k) return k;
  }
  for (const [kind, keys] of PREFIX_KEYS) if (keys.every((k) => head.includes(`"${k}"`))) return kind;
  return undefined;
}

function schemaProperty(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const s = (value as Record<string, unknown>)['$schema'];
    if (typeof s === 'string') return s;
  }
  return undefined;
}

/** When nothing parsed, a `$schema` near the start of the text still names the kind. */
function schemaPropertyFromText(text: string, value: unknown): string | undefined {
  if (value !== undefined) return undefined;
  const m = /^\s*\uFEFF?\s*\{\s*"\$schema"\s*:\s*"([^"\\]{1,500})"/.exec(text.slice(0, 1024));
  return m?.[1];
}

function baseName(p: string): string {
  const i = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return i < 0 ? p : p.slice(i + 1);
}

/**
 * Planning a report entry's exact_edit as file changes, refusing on any doubt. Nothing here writes:
 * the plan goes to the LSP layer (one WorkspaceEdit, so undo reverts it) or the CLI's Node writer.
 *
 * Order of checks, always: the report is trusted to be applied at all (workspace trust) → the entry is
 * deterministic with a known kind and has no error-level finding → every path resolves inside the
 * workspace (symlinks included) → the sha256 guard (open buffer when open, else the file's bytes) →
 * the effective tier is allowed → lifecycle ops re-verify live git state → the kind's own preconditions.
 *
 * Effective tier: `confirm` when ANY of these says confirm — the recorded safety_tier, deriveSafetyTier
 * on the recorded flags, deriveSafetyTier on the kind's fixed characterization (both with live git
 * state for lifecycle ops). A recorded "auto" is never trusted on its own.
 *
 * Kind decisions:
 * - delete-range / dedupe: remove the anchored lines (1-based, inclusive) with their line breaks.
 * - move-to-archive: the anchored lines go to dest_path (a dest_path ending in "/" means that folder +
 *   the file's name). A missing destination is created (with its folders); an existing one gets the
 *   lines appended (after a line break when it lacks a final one), never overwritten. A whole-file
 *   anchor onto a missing destination is a rename (bytes kept exactly); onto an existing destination
 *   it appends and deletes the emptied source.
 * - insert-frontmatter: `key: value` goes before the closing `---` of an existing frontmatter, or a new
 *   frontmatter is put at the top (after a BOM). A key already present is refused (replacing its value
 *   would lose it), or reported as already applied when the value is the same. Strings that are plain
 *   YAML scalars are written bare, anything else as JSON (valid YAML flow).
 * - replace-text: `match` must occur exactly once within the anchored lines (line breaks included);
 *   zero or several occurrences are refused.
 * - dedupe: the removed span must be byte-identical to the canonical_ref span, checked live.
 * - delete / extract-then-delete: whole files only (a directory aggregate is never deleted by
 *   ToonLens); never through a symlink; live git must say tracked and clean, else the user is asked
 *   (needsConfirmation; only `confirmed` overrides). extract-then-delete does not perform the
 *   extraction: it requires it DONE — for repo-durable, target_ref (a trailing "#fragment" is ignored)
 *   must exist inside the workspace, be another file, and contain the file's text verbatim (surrounding
 *   whitespace and a BOM ignored); a target that exists without the text asks the user, a missing one
 *   refuses. A cross-repo extraction cannot be verified here and always asks.
 */
import * as nodePath from 'node:path';
import type { Finding, WorkspaceReader } from '../../types';
import { staticReportFindings } from '../rules/report';
import { applyTextEdits, type FileChange } from './changes';
import { locateProjectRoot, notARegularFile, resolveInsideRoot, type ReportLocation, type ResolvedPath } from './paths';
import { deriveSafetyTier, type GitState, type SafetyTier } from './safetyTier';
import { KIND_CHARACTERIZATION, LIFECYCLE_KINDS, entriesOf, get, isKind, isObj, lifecycleOfEdit, lineAnchor, str, type ExactEditKind, type Obj } from './shape';
import { checkDedupeSpans, readTargetContent, type TargetContent } from './target';
import { anchorLineCount, anchorLineText, eolOf, isSha256Hex, lineRangeOffsets } from './text';
import { LineIndex } from '../../lineIndex';
import { errorMessage } from '../../errors';

export type TierAllowed = 'auto' | 'confirm' | 'all';

export interface PlanOptions {
  /** Which effective tiers may be applied: auto only, confirm only, or both. */
  tierAllowed: TierAllowed;
  /** Workspace trust: in restricted mode nothing is ever applied. */
  trusted: boolean;
  /** Absolute path of the report document (its folder + scan.project_root is the project root). */
  reportFsPath: string;
  /** The user explicitly confirmed this entry (an editor prompt): allows confirm tier and overrides a "needs confirmation" doubt. Never set by the non-interactive CLI. */
  confirmed?: boolean;
}

/** Why an entry was not planned. Safety refusals make the CLI exit 1; the others are policy skips. */
export type RefusalCode =
  | 'untrusted'
  | 'not-deterministic'
  | 'no-entry'
  | 'invalid-entry'
  | 'unsafe-path'
  | 'missing-target'
  | 'stale'
  | 'tier'
  | 'git'
  | 'extraction'
  | 'mismatch'
  | 'not-applicable'
  | 'already-applied';

const SAFETY_REFUSALS: ReadonlySet<RefusalCode> = new Set(['no-entry', 'invalid-entry', 'unsafe-path', 'missing-target', 'stale', 'git', 'extraction', 'mismatch', 'not-applicable']);

export function isSafetyRefusal(code: RefusalCode): boolean {
  return SAFETY_REFUSALS.has(code);
}

export type PlanResult =
  | {
      ok: true;
      changes: FileChange[];
      summary: string;
      kind: ExactEditKind;
      tier: SafetyTier;
      /** Absolute paths the plan read besides those it writes (canonical_ref, extraction target): a batch must not write them first. */
      reads: string[];
    }
  | { ok: false; reason: string; code: RefusalCode; needsConfirmation?: boolean; kind?: ExactEditKind; tier?: SafetyTier };

const refuse = (code: RefusalCode, reason: string, extra: { needsConfirmation?: boolean; kind?: ExactEditKind; tier?: SafetyTier } = {}): PlanResult => ({
  ok: false,
  code,
  reason,
  ...extra,
});

const staticFindingsCache = new WeakMap<object, Finding[]>();
/** Static findings per parsed report object (lenses plan every entry of one report). */
function cachedStaticFindings(report: unknown): Finding[] {
  if (!isObj(report)) return [];
  let f = staticFindingsCache.get(report);
  if (!f) {
    f = staticReportFindings(report);
    staticFindingsCache.set(report, f);
  }
  return f;
}

/**
 * Plans entry `entryIndex`'s exact_edit, or says why not. Never throws; never plans half an edit.
 * `report` is the parsed report value; do not mutate it between calls (static findings are cached per object).
 */
export function planExactEdit(report: unknown, entryIndex: number, workspace: WorkspaceReader, opts: PlanOptions): PlanResult {
  try {
    return planUnsafe(report, entryIndex, workspace, opts);
  } catch (e) {
    return refuse('invalid-entry', `could not plan the edit: ${errorMessage(e)}`);
  }
}

function planUnsafe(report: unknown, entryIndex: number, workspace: WorkspaceReader, opts: PlanOptions): PlanResult {
  const entry = entriesOf(report)[entryIndex];
  if (!isObj(entry)) return refuse('no-entry', `entries[${entryIndex}] is not an entry`);
  const ee = entry.exact_edit;
  if (entry.op_type !== 'deterministic') return refuse('not-deterministic', 'generative op: no exact_edit, it needs a model at clean time');
  if (!isObj(ee)) return refuse('invalid-entry', 'op_type is deterministic but exact_edit is missing');
  const kind = ee.kind;
  if (!isKind(kind)) return refuse('invalid-entry', 'exact_edit.kind is not one of the seven kinds');
  if (!opts.trusted) return refuse('untrusted', 'Not applied in restricted mode: trust the workspace to apply edits', { kind });

  const errors = cachedStaticFindings(report).filter(
    (f) => f.severity === 'error' && ((f.target.path[0] === 'entries' && f.target.path[1] === entryIndex) || f.target.path[0] === 'scan'),
  );
  if (errors.length > 0) return refuse('invalid-entry', `invalid entry (${errors[0]!.code}): ${errors[0]!.message}`, { kind });

  const located = locateProjectRoot(report, opts.reportFsPath, workspace);
  if (!located.ok) return refuse('unsafe-path', located.reason, { kind });
  const loc = located.loc;
  const rel = str(entry.path);
  if (rel === undefined) return refuse('invalid-entry', 'the entry has no path', { kind });
  if (rel.endsWith('/')) return refuse('not-applicable', `${rel} is a directory aggregate: ToonLens applies edits to files only`, { kind });
  const target = resolveInsideRoot(loc, rel, workspace);
  if (!target.ok) return refuse('unsafe-path', target.reason, { kind });
  if (!isSha256Hex(ee.expected_sha256)) return refuse('invalid-entry', `expected_sha256 ${JSON.stringify(ee.expected_sha256)} is not a sha256 (64 lowercase hex digits); the edit cannot be guarded`, { kind });
  const notFile = notARegularFile(rel, target);
  if (notFile) return refuse('not-applicable', notFile, { kind });
  const content = readTargetContent(workspace, target);
  if (!content) return refuse('missing-target', `${rel} does not exist`, { kind });
  if (content.sha256 !== ee.expected_sha256) return refuse('stale', `${rel} changed since generated_at; re-run the check`, { kind });

  const lifecycle = LIFECYCLE_KINDS.includes(kind) ? lifecycleOfEdit(ee) : undefined;
  let git: GitState | undefined;
  if (lifecycle) git = workspace.gitState(target.realPath ?? target.absPath) ?? undefined;
  const fixed = KIND_CHARACTERIZATION[kind];
  const tiers: SafetyTier[] = [
    entry.safety_tier === 'auto' ? 'auto' : 'confirm',
    deriveSafetyTier(entry.op_type, entry.is_destructive, entry.is_reversible, lifecycle, git),
    deriveSafetyTier(entry.op_type, fixed.isDestructive, fixed.isReversible === 'either' ? entry.is_reversible : fixed.isReversible, lifecycle, git),
  ];
  const tier: SafetyTier = tiers.includes('confirm') ? 'confirm' : 'auto';
  const tierOk = opts.confirmed === true || opts.tierAllowed === 'all' || opts.tierAllowed === tier;
  if (!tierOk) {
    return tier === 'confirm'
      ? refuse('tier', 'confirm tier: needs your confirmation', { needsConfirmation: true, kind, tier })
      : refuse('tier', 'auto tier: not selected (only confirm-tier edits were asked for)', { kind, tier });
  }
  if (lifecycle && opts.confirmed !== true && !(git?.tracked === true && git.clean === true)) {
    const state = !git ? 'its git state is unknown' : !git.tracked ? 'it is not tracked by git' : 'it has uncommitted changes';
    return refuse('git', `${rel}: ${state}, so deleting it could not be undone from git history; confirm to delete anyway`, { needsConfirmation: true, kind, tier });
  }

  const ctx: KindContext = { loc, workspace, rel, target, content, ee, confirmed: opts.confirmed === true };
  const planned = PLANNERS[kind](ctx);
  if (!planned.ok) return { ...planned, kind, tier };
  return { ok: true, changes: planned.changes, summary: planned.summary, kind, tier, reads: planned.reads ?? [] };
}

interface KindContext {
  loc: ReportLocation;
  workspace: WorkspaceReader;
  rel: string;
  target: ResolvedPath;
  content: TargetContent;
  ee: Obj;
  confirmed: boolean;
}

type KindPlan = { ok: true; changes: FileChange[]; summary: string; reads?: string[] } | { ok: false; code: RefusalCode; reason: string; needsConfirmation?: boolean };

const fail = (code: RefusalCode, reason: string, needsConfirmation?: boolean): KindPlan => ({ ok: false, code, reason, ...(needsConfirmation ? { needsConfirmation } : {}) });

function textOf(ctx: KindContext): string | undefined {
  return ctx.content.text;
}

/** The anchored lines' offsets in the target text, or a refusal. */
function anchoredRange(ctx: KindContext): { text: string; start: number; contentEnd: number; next: number; startLine: number; endLine: number; lineCount: number } | KindPlan {
  const text = textOf(ctx);
  if (text === undefined) return fail('not-applicable', `${ctx.rel} is not UTF-8 text`);
  const a = lineAnchor(ctx.ee.anchor);
  if (!a) return fail('invalid-entry', 'anchor has no start_line/end_line');
  const lines = new LineIndex(text);
  const count = anchorLineCount(lines);
  const r = lineRangeOffsets(lines, a.start, a.end);
  if (!r) return fail('mismatch', `anchor lines ${a.start}–${a.end} are outside ${ctx.rel}'s ${count} lines`);
  return { text, ...r, startLine: a.start, endLine: a.end, lineCount: count };
}

function isPlan(v: unknown): v is KindPlan {
  return isObj(v) && typeof v.ok === 'boolean';
}

const editChange = (ctx: KindContext, edits: { start: number; end: number; newText: string }[]): FileChange => editOf(ctx.content, edits);

/** An edit change on a content the plan read; flags a BOM read from disk (see FileChange.diskBom). */
function editOf(content: TargetContent, edits: { start: number; end: number; newText: string }[]): FileChange {
  const diskBom = !content.fromBuffer && content.text !== undefined && content.text.charCodeAt(0) === 0xfeff;
  return { type: 'edit', absPath: content.absPath, edits, baseSha256: content.sha256, ...(diskBom ? { diskBom: true as const } : {}) };
}

const lines = (r: { startLine: number; endLine: number }) => (r.startLine === r.endLine ? `line ${r.startLine}` : `lines ${r.startLine}–${r.endLine}`);

function planDeleteRange(ctx: KindContext): KindPlan {
  const r = anchoredRange(ctx);
  if (isPlan(r)) return r;
  return { ok: true, changes: [editChange(ctx, [{ start: r.start, end: r.next, newText: '' }])], summary: `Delete ${lines(r)} of ${ctx.rel}` };
}

function planMoveToArchive(ctx: KindContext): KindPlan {
  const r = anchoredRange(ctx);
  if (isPlan(r)) return r;
  let destRel = str(ctx.ee.dest_path);
  if (destRel === undefined) return fail('invalid-entry', 'dest_path is missing');
  if (destRel.endsWith('/')) destRel = destRel + nodePath.posix.basename(ctx.rel);
  const dest = resolveInsideRoot(ctx.loc, destRel, ctx.workspace);
  if (!dest.ok) return fail('unsafe-path', dest.reason);
  if (dest.absPath === ctx.target.absPath || (dest.realPath !== undefined && dest.realPath === ctx.target.realPath)) return fail('invalid-entry', 'dest_path is the file itself');
  if (dest.isSymlink) return fail('unsafe-path', `${destRel} is a symlink; not written through`);
  const wholeFile = r.startLine === 1 && r.endLine === r.lineCount && r.next === r.text.length;
  const destContent = dest.realPath !== undefined || ctx.workspace.openText(dest.absPath) !== undefined ? readTargetContent(ctx.workspace, dest) : undefined;
  if (dest.realPath !== undefined && !destContent) return fail('not-applicable', notARegularFile(destRel, dest) ?? `${destRel} exists but is not a readable file`);
  const eol = eolOf(r.text);
  let moved = r.text.slice(r.start, r.next);
  if (!/[\r\n]$/.test(moved)) moved += eol;

  if (!destContent) {
    if (wholeFile && !ctx.content.fromBuffer) {
      if (ctx.target.isSymlink) return fail('unsafe-path', `${ctx.rel} is a symlink; not moved`);
      if (ctx.workspace.isExecutable?.(ctx.content.absPath)) return fail('unsafe-path', `${ctx.rel} is executable; an executable file is never moved`);
      return { ok: true, changes: [{ type: 'rename', from: ctx.content.absPath, to: dest.absPath, baseSha256: ctx.content.sha256 }], summary: `Move ${ctx.rel} to ${destRel}` };
    }
    const changes: FileChange[] = [{ type: 'create', absPath: dest.absPath, text: moved }];
    changes.push(wholeFile ? deleteChange(ctx) : editChange(ctx, [{ start: r.start, end: r.next, newText: '' }]));
    return { ok: true, changes, summary: `Move ${lines(r)} of ${ctx.rel} to ${destRel} (new file)` };
  }
  if (destContent.text === undefined) return fail('not-applicable', `${destRel} is not UTF-8 text`);
  const d = destContent.text;
  const sep = d.length > 0 && !/[\r\n]$/.test(d) ? eolOf(d) : '';
  const changes: FileChange[] = [
    editOf(destContent, [{ start: d.length, end: d.length, newText: sep + moved }]),
  ];
  if (wholeFile) {
    if (ctx.target.isSymlink) return fail('unsafe-path', `${ctx.rel} is a symlink; not deleted`);
    changes.push(deleteChange(ctx));
  } else {
    changes.push(editChange(ctx, [{ start: r.start, end: r.next, newText: '' }]));
  }
  return { ok: true, changes, summary: `Move ${lines(r)} of ${ctx.rel} to the end of ${destRel}` };
}

const deleteChange = (ctx: KindContext): FileChange => ({ type: 'delete', absPath: ctx.content.absPath, baseSha256: ctx.content.sha256 });

const FRONTMATTER_KEY = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const PLAIN_SCALAR = /^[A-Za-z0-9_][A-Za-z0-9_ ./-]*$/;
const YAML_RESERVED = /^(true|false|yes|no|on|off|null|~|y|n)$/i;

/** A JSON value written as a YAML scalar: bare when plain and unambiguous, else JSON (valid YAML flow). */
export function yamlScalar(value: unknown): string | undefined {
  if (typeof value === 'string') {
    const plain = PLAIN_SCALAR.test(value) && !value.endsWith(' ') && !YAML_RESERVED.test(value) && !/^[-+.]?\d/.test(value);
    return plain ? value : JSON.stringify(value);
  }
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean' || value === null) return String(value);
  try {
    const s = JSON.stringify(value);
    return typeof s === 'string' && !/[\r\n]/.test(s) ? s : undefined;
  } catch {
    return undefined;
  }
}

function planInsertFrontmatter(ctx: KindContext): KindPlan {
  const text = textOf(ctx);
  if (text === undefined) return fail('not-applicable', `${ctx.rel} is not UTF-8 text`);
  const key = ctx.ee.key;
  if (typeof key !== 'string' || !FRONTMATTER_KEY.test(key)) return fail('invalid-entry', `frontmatter key ${JSON.stringify(key)} is not a plain YAML key`);
  const value = yamlScalar(ctx.ee.value);
  if (value === undefined) return fail('invalid-entry', 'frontmatter value cannot be written as one YAML line');
  const eol = eolOf(text);
  const bom = text.startsWith('\uFEFF') ? 1 : 0;
  const lines = new LineIndex(text);
  const count = anchorLineCount(lines);
  const lineText = (k: number) => anchorLineText(lines, k); // line 1 starts after a BOM
  if (count > 0 && lineText(0) === '---') {
    let close = -1;
    for (let k = 1; k < count; k++) {
      const t = lineText(k);
      if (t === '---' || t === '...') {
        close = k;
        break;
      }
    }
    if (close < 0) return fail('mismatch', `${ctx.rel} opens a frontmatter that never closes`);
    const keyLine = new RegExp(`^${key.replace(/[.]/g, '\\.')}\\s*:(.*)$`);
    for (let k = 1; k < close; k++) {
      const m = keyLine.exec(lineText(k));
      if (!m) continue;
      if (m[1]!.trim() === value) return fail('already-applied', `${ctx.rel} already has ${key}: ${value}`);
      return fail('mismatch', `${ctx.rel} already has ${key} with another value; replacing it would lose that value`);
    }
    const at = lines.lineStart(close);
    // The line before the closing fence may lack a break only if it is the opening fence, which has one.
    return { ok: true, changes: [editChange(ctx, [{ start: at, end: at, newText: `${key}: ${value}${eol}` }])], summary: `Add ${key}: ${value} to ${ctx.rel}'s frontmatter` };
  }
  return {
    ok: true,
    changes: [editChange(ctx, [{ start: bom, end: bom, newText: `---${eol}${key}: ${value}${eol}---${eol}` }])],
    summary: `Add frontmatter ${key}: ${value} to ${ctx.rel}`,
  };
}

function planReplaceText(ctx: KindContext): KindPlan {
  const r = anchoredRange(ctx);
  if (isPlan(r)) return r;
  const match = ctx.ee.match;
  const replacement = ctx.ee.replacement;
  if (typeof match !== 'string' || match.length === 0 || typeof replacement !== 'string') return fail('invalid-entry', 'replace-text needs a non-empty match and a replacement string');
  const region = r.text.slice(r.start, r.next);
  const first = region.indexOf(match);
  if (first < 0) return fail('mismatch', `match not found within ${lines(r)} of ${ctx.rel}`);
  if (region.indexOf(match, first + match.length) >= 0) return fail('mismatch', `match occurs more than once within ${lines(r)} of ${ctx.rel}; ambiguous`);
  const start = r.start + first;
  return { ok: true, changes: [editChange(ctx, [{ start, end: start + match.length, newText: replacement }])], summary: `Replace text in ${lines(r)} of ${ctx.rel}` };
}

function planDedupe(ctx: KindContext): KindPlan {
  const r = anchoredRange(ctx);
  if (isPlan(r)) return r;
  const ref = ctx.ee.canonical_ref;
  const cRel = get(ref, 'path');
  const cAnchor = lineAnchor(ref);
  if (typeof cRel !== 'string' || !cAnchor) return fail('invalid-entry', 'canonical_ref needs path, start_line and end_line');
  const canonical = resolveInsideRoot(ctx.loc, cRel, ctx.workspace);
  if (!canonical.ok) return fail('unsafe-path', canonical.reason);
  const sameFile = canonical.absPath === ctx.target.absPath || (canonical.realPath !== undefined && canonical.realPath === ctx.target.realPath);
  const cContent = sameFile ? ctx.content : readTargetContent(ctx.workspace, canonical);
  if (!cContent) return fail('missing-target', `canonical_ref ${cRel} does not exist`);
  if (cContent.text === undefined) return fail('not-applicable', `${cRel} is not UTF-8 text`);
  const check = checkDedupeSpans(r.text, { start: r.startLine, end: r.endLine }, cContent.text, cAnchor, sameFile);
  if (!check.ok) return fail('mismatch', `dedupe refused: ${check.reason}`);
  return {
    ok: true,
    changes: [editChange(ctx, [{ start: r.start, end: r.next, newText: '' }])],
    summary: `Remove ${lines(r)} of ${ctx.rel} (a duplicate of ${cRel}:${cAnchor.start}–${cAnchor.end})`,
    reads: sameFile ? [] : [cContent.absPath],
  };
}

function planDelete(ctx: KindContext): KindPlan {
  if (ctx.target.isSymlink) return fail('unsafe-path', `${ctx.rel} is a symlink; not deleted`);
  if (ctx.content.fromBuffer && ctx.target.realPath === undefined) return fail('missing-target', `${ctx.rel} is an unsaved buffer`);
  return { ok: true, changes: [deleteChange(ctx)], summary: `Delete ${ctx.rel}` };
}

/** Whether `haystack` contains the source text verbatim (surrounding whitespace and a BOM ignored). */
function containsVerbatim(haystack: string, source: string): boolean {
  const needle = source.replace(/^\uFEFF/, '').trim();
  return needle.length > 0 && haystack.includes(needle);
}

function planExtractThenDelete(ctx: KindContext): KindPlan {
  const del = planDelete(ctx);
  if (!del.ok) return del;
  if (ctx.ee.extraction_target === 'cross-repo') {
    if (!ctx.confirmed) return fail('extraction', 'cross-repo extraction: ToonLens cannot verify it was done; confirm to delete', true);
    return { ok: true, changes: del.changes, summary: `Delete ${ctx.rel} (extracted to another repository, confirmed)` };
  }
  const targetRef = str(ctx.ee.target_ref);
  if (ctx.ee.extraction_target !== 'repo-durable' || targetRef === undefined) return fail('invalid-entry', 'extraction_target/target_ref missing');
  const refPath = targetRef.replace(/#.*$/, '');
  const target = resolveInsideRoot(ctx.loc, refPath, ctx.workspace);
  if (!target.ok) return fail('unsafe-path', target.reason);
  if (target.absPath === ctx.target.absPath || (target.realPath !== undefined && target.realPath === ctx.target.realPath)) return fail('invalid-entry', 'target_ref is the file itself');
  const tContent = readTargetContent(ctx.workspace, target);
  if (!tContent || tContent.text === undefined) return fail('extraction', `extract first: ${refPath} does not exist`);
  const source = ctx.content.text;
  if (source === undefined || !containsVerbatim(tContent.text, source)) {
    if (!ctx.confirmed) return fail('extraction', `extraction into ${refPath} not proven (it does not contain ${ctx.rel}'s text verbatim); confirm it was done`, true);
  }
  return { ok: true, changes: del.changes, summary: `Delete ${ctx.rel} (content extracted to ${refPath})`, reads: [tContent.absPath] };
}

const PLANNERS: Record<ExactEditKind, (ctx: KindContext) => KindPlan> = {
  'delete-range': planDeleteRange,
  'move-to-archive': planMoveToArchive,
  'insert-frontmatter': planInsertFrontmatter,
  'replace-text': planReplaceText,
  dedupe: planDedupe,
  delete: planDelete,
  'extract-then-delete': planExtractThenDelete,
};

/** The text after a plan's edits to one file (for previews and tests). */
export function previewEdit(text: string, change: FileChange): string | undefined {
  return change.type === 'edit' ? applyTextEdits(text, change.edits) : undefined;
}

/**
 * Cross-field and live rules for docs-hygiene reports (codes in ../shared/design/diagnostics.md).
 * Schema-shape errors belong to the schema; these rules skip whatever has the wrong type.
 *
 * Static rules look at the report alone. Live rules run only with a workspace and the report's path:
 * they resolve each exact_edit target inside the workspace and compare it with what the report claims.
 *
 * Decisions:
 * - entry-not-in-shortlist: an entry counts when its path equals a shortlist path (a leading "./" is
 *   ignored), or lies under a shortlisted directory aggregate ("tmp/" covers "tmp/a.md"): the scanner
 *   surfaced the whole directory, so a per-file entry under it is still scanner-backed.
 * - generated-at: `YYYY-MM-DDTHH:MM:SS[.fraction]` followed by `Z` or `+00:00`, a real calendar date.
 * - Paths: see ../report/paths.ts (absolute, `..`, `\`, drive letters, NUL/control characters, URLs and
 *   percent-encoding are all unsafe; `scan.project_root` alone may use `..` and is checked live).
 *   A cross-repo extraction's target_ref points into another repository and is not checked.
 * - Live anchor and dedupe checks only run on a target whose hash still matches (a stale file gets the
 *   stale-edit warning only: its line numbers mean nothing any more).
 */
import type { Finding, JsonFix, JsonPath, RuleContext, RuleSet, WorkspaceReader } from '../types';
import { deriveSafetyTier, explainSafetyTier } from '../report/safetyTier';
import {
  KIND_CHARACTERIZATION,
  KIND_REQUIRED_FIELDS,
  LIFECYCLE_KINDS,
  SUBTYPES_BY_CLASS,
  entriesOf,
  get,
  gitStateOf,
  has,
  hasClassifierJudgedServedWhen,
  isKind,
  isObj,
  isWholeFileAnchor,
  lifecycleOfEdit,
  lineAnchor,
  shortlistItemPath,
  shortlistOf,
  str,
  type Obj,
} from '../report/shape';
import { locateProjectRoot, resolveInsideRoot, unsafePathReason, type ReportLocation } from '../report/paths';
import { checkDedupeSpans, readTargetContent } from '../report/target';
import { isSha256Hex, lineSpans } from '../report/text';

type ReportRule = (report: Obj) => Finding[];

const err = (code: string, message: string, path: JsonPath, fixes?: JsonFix[]): Finding => ({
  code,
  severity: 'error',
  message,
  target: { path },
  ...(fixes ? { fixes } : {}),
});
const missing = (code: string, message: string, path: JsonPath, property: string): Finding => ({
  code,
  severity: 'error',
  message,
  target: { path, part: 'missing', property },
});

/** Every entry that is an object, with its index. */
function eachEntry(report: Obj): [Obj, number][] {
  const out: [Obj, number][] = [];
  entriesOf(report).forEach((e, i) => {
    if (isObj(e)) out.push([e, i]);
  });
  return out;
}

/** Every entry's exact_edit that is an object with a known kind. */
function eachExactEdit(report: Obj): [Obj, Obj, number][] {
  const out: [Obj, Obj, number][] = [];
  for (const [entry, i] of eachEntry(report)) {
    const ee = get(entry, 'exact_edit');
    if (isObj(ee) && isKind(ee.kind)) out.push([entry, ee, i]);
  }
  return out;
}

/** A path as compared between shortlist, entries and promotion candidates: without "./" prefixes. */
function comparablePath(p: string): string {
  let q = p;
  while (q.startsWith('./')) q = q.slice(2);
  return q;
}

const entryNotInShortlist: ReportRule = (report) => {
  const members = new Set<string>();
  const dirs: string[] = [];
  for (const item of shortlistOf(report)) {
    const p = shortlistItemPath(item);
    if (p === undefined) continue;
    const c = comparablePath(p);
    members.add(c);
    if (c.endsWith('/')) dirs.push(c);
  }
  const out: Finding[] = [];
  for (const [entry, i] of eachEntry(report)) {
    const p = str(entry.path);
    if (p === undefined) continue;
    const c = comparablePath(p);
    if (members.has(c) || dirs.some((d) => c.startsWith(d))) continue;
    const hint = members.has(c + '/') ? ` (the shortlist has the directory "${c}/")` : '';
    out.push(err('report/entry-not-in-shortlist', `"${p}" is not in shortlist: the scanner must surface a file before the AI pass adds an entry${hint}`, ['entries', i, 'path']));
  }
  return out;
};

const exactEditBiconditional: ReportRule = (report) => {
  const out: Finding[] = [];
  for (const [entry, i] of eachEntry(report)) {
    const present = has(entry, 'exact_edit');
    if (entry.op_type === 'deterministic' && !present) {
      out.push(missing('report/exact-edit-biconditional', 'op_type is deterministic but exact_edit is missing', ['entries', i], 'exact_edit'));
    } else if (entry.op_type === 'generative' && present) {
      out.push({
        code: 'report/exact-edit-biconditional',
        severity: 'error',
        message: 'op_type is generative: exact_edit must be omitted',
        target: { path: ['entries', i, 'exact_edit'], part: 'key' },
      });
    }
  }
  return out;
};

/** The lifecycle argument of deriveSafetyTier for an entry: an object for lifecycle kinds, else undefined. */
function lifecycleArgument(entry: Obj) {
  const ee = get(entry, 'exact_edit');
  const kind = get(ee, 'kind');
  return isKind(kind) && LIFECYCLE_KINDS.includes(kind) ? lifecycleOfEdit(ee) : undefined;
}

const safetyTier: ReportRule = (report) => {
  const out: Finding[] = [];
  for (const [entry, i] of eachEntry(report)) {
    const recorded = entry.safety_tier;
    if (recorded !== 'auto' && recorded !== 'confirm') continue;
    const lifecycle = lifecycleArgument(entry);
    const git = gitStateOf(entry.git);
    const derived = deriveSafetyTier(entry.op_type, entry.is_destructive, entry.is_reversible, lifecycle, git);
    if (derived === recorded) continue;
    const why = explainSafetyTier(entry.op_type, entry.is_destructive, entry.is_reversible, lifecycle, git);
    const fix: JsonFix = {
      title: `Set safety_tier to ${derived} — ${why}`,
      edits: [{ path: ['entries', i, 'safety_tier'], value: derived }],
      // Lowering to confirm is always safe unattended; raising to auto deserves a human look.
      fixAll: derived === 'confirm',
    };
    out.push(err('report/safety-tier', `safety_tier is "${recorded}" but derives to "${derived}": ${why}`, ['entries', i, 'safety_tier'], [fix]));
  }
  return out;
};

const kindCharacterization: ReportRule = (report) => {
  const out: Finding[] = [];
  for (const [entry, ee, i] of eachExactEdit(report)) {
    const kind = ee.kind as keyof typeof KIND_CHARACTERIZATION;
    const fixed = KIND_CHARACTERIZATION[kind];
    if (typeof entry.is_destructive === 'boolean' && entry.is_destructive !== fixed.isDestructive) {
      out.push(err('report/kind-characterization', `${kind} is ${fixed.isDestructive ? 'destructive' : 'non-destructive'}: is_destructive must be ${fixed.isDestructive}`, ['entries', i, 'is_destructive']));
    }
    if (fixed.isReversible !== 'either' && typeof entry.is_reversible === 'boolean' && entry.is_reversible !== fixed.isReversible) {
      out.push(err('report/kind-characterization', `${kind} is ${fixed.isReversible ? 'reversible' : 'irreversible'}: is_reversible must be ${fixed.isReversible}`, ['entries', i, 'is_reversible']));
    }
  }
  return out;
};

const category: ReportRule = (report) => {
  const out: Finding[] = [];
  for (const [entry, i] of eachEntry(report)) {
    const cat = entry.category;
    const cls = get(cat, 'class');
    const subtype = get(cat, 'subtype');
    if ((cls !== 'stale' && cls !== 'bloat') || typeof subtype !== 'string') continue;
    const allowed = SUBTYPES_BY_CLASS[cls];
    if (allowed.includes(subtype)) continue;
    const other = cls === 'stale' ? 'bloat' : 'stale';
    const hint = SUBTYPES_BY_CLASS[other].includes(subtype) ? ` ("${subtype}" is a ${other} subtype)` : '';
    out.push(err('report/category', `subtype "${subtype}" is not a ${cls} subtype; expected one of ${allowed.join(', ')}${hint}`, ['entries', i, 'category', 'subtype']));
  }
  return out;
};

const kindFields: ReportRule = (report) => {
  const out: Finding[] = [];
  const code = 'report/kind-fields';
  for (const [, ee, i] of eachExactEdit(report)) {
    const kind = ee.kind as keyof typeof KIND_REQUIRED_FIELDS;
    const at: JsonPath = ['entries', i, 'exact_edit'];
    for (const field of ['expected_sha256', ...KIND_REQUIRED_FIELDS[kind]]) {
      if (!has(ee, field)) out.push(missing(code, `${kind} requires ${field}`, at, field));
    }
    const anchor = ee.anchor;
    if (isObj(anchor)) {
      if (LIFECYCLE_KINDS.includes(kind)) {
        if (!has(anchor, 'whole_file')) out.push(missing(code, `${kind} requires a whole-file anchor { "whole_file": true }`, [...at, 'anchor'], 'whole_file'));
        else if (!isWholeFileAnchor(anchor)) out.push(err(code, `${kind} requires a whole-file anchor: whole_file must be true`, [...at, 'anchor', 'whole_file']));
      } else {
        for (const f of ['start_line', 'end_line']) if (!has(anchor, f)) out.push(missing(code, `${kind} anchor requires ${f}`, [...at, 'anchor'], f));
      }
    }
    if (kind === 'dedupe' && isObj(ee.canonical_ref)) {
      for (const f of ['path', 'start_line', 'end_line']) if (!has(ee.canonical_ref, f)) out.push(missing(code, `canonical_ref requires ${f}`, [...at, 'canonical_ref'], f));
    }
    if (LIFECYCLE_KINDS.includes(kind) && isObj(ee.lifecycle)) {
      for (const f of ['rule_ref', 'lifetime']) if (!has(ee.lifecycle, f)) out.push(missing(code, `lifecycle requires ${f}`, [...at, 'lifecycle'], f));
    }
    if (kind === 'replace-text' && ee.match === '') out.push(err(code, 'match is empty: replace-text needs the text to replace', [...at, 'match']));
    if (kind === 'insert-frontmatter' && ee.key === '') out.push(err(code, 'key is empty: insert-frontmatter needs a frontmatter key', [...at, 'key']));
  }
  return out;
};

/** Every lifecycle object in the report, with its path. */
function eachLifecycle(report: Obj): [Obj, JsonPath][] {
  const out: [Obj, JsonPath][] = [];
  shortlistOf(report).forEach((item, k) => {
    const l = get(item, 'lifecycle');
    if (isObj(l)) out.push([l, ['shortlist', k, 'lifecycle']]);
  });
  for (const [entry, i] of eachEntry(report)) {
    if (isObj(entry.lifecycle)) out.push([entry.lifecycle, ['entries', i, 'lifecycle']]);
    const l = get(entry.exact_edit, 'lifecycle');
    if (isObj(l)) out.push([l, ['entries', i, 'exact_edit', 'lifecycle']]);
  }
  return out;
}

const present = (o: Obj, k: string) => has(o, k) && o[k] !== null && o[k] !== undefined;

const lifecycleServed: ReportRule = (report) => {
  const out: Finding[] = [];
  const code = 'report/lifecycle-served';
  for (const [l, at] of eachLifecycle(report)) {
    const hasPath = present(l, 'served_when_path');
    const hasJudged = present(l, 'served_when');
    if (hasPath && hasJudged) {
      out.push(err(code, 'lifecycle has both served_when_path and served_when: keep exactly one', [...at, 'served_when']));
    } else if (l.lifetime === 'delete-once-served' && !hasPath && !hasJudged) {
      out.push(missing(code, 'delete-once-served needs exactly one of served_when_path (scanner-proven) or served_when (classifier-judged)', at, 'served_when_path'));
    } else if (l.lifetime === 'temporary' && (hasPath || hasJudged)) {
      const f = hasPath ? 'served_when_path' : 'served_when';
      out.push(err(code, `a temporary lifecycle is keyed on age: ${f} must be omitted`, [...at, f]));
    }
  }
  return out;
};

const extractionTarget: ReportRule = (report) => {
  const out: Finding[] = [];
  const code = 'report/extraction-target';
  for (const [, ee, i] of eachExactEdit(report)) {
    if (ee.kind !== 'extract-then-delete') continue;
    const at: JsonPath = ['entries', i, 'exact_edit'];
    if (!present(ee, 'extraction_target')) {
      out.push(missing(code, 'extract-then-delete requires extraction_target (repo-durable or cross-repo)', at, 'extraction_target'));
    } else if (ee.extraction_target === 'repo-durable' && (!present(ee, 'target_ref') || ee.target_ref === '')) {
      out.push(missing(code, 'a repo-durable extraction requires target_ref: the document that receives the content', at, 'target_ref'));
    }
  }
  return out;
};

const promotionCandidate: ReportRule = (report) => {
  const code = 'report/promotion-candidate';
  if (!has(report, 'promotion_candidates')) {
    return [
      {
        code,
        severity: 'warning',
        message: 'promotion_candidates is missing: the spec requires it on every report, empty when no candidate applies',
        target: { path: [], part: 'missing', property: 'promotion_candidates' },
        fixes: [{ title: 'Add promotion_candidates: [] — required on every report, possibly empty', edits: [{ path: ['promotion_candidates'], value: [] }], fixAll: false }],
      },
    ];
  }
  const candidates = report.promotion_candidates;
  if (!Array.isArray(candidates)) return [];
  const judged = new Set<string>();
  for (const [entry] of eachEntry(report)) {
    const p = str(entry.path);
    if (p !== undefined && hasClassifierJudgedServedWhen(entry)) judged.add(comparablePath(p));
  }
  const out: Finding[] = [];
  candidates.forEach((c, k) => {
    const p = str(get(c, 'path'));
    if (p === undefined || judged.has(comparablePath(p))) return;
    out.push({
      code,
      severity: 'warning',
      message: `"${p}" is not an entry with a classifier-judged served_when; promotion candidates apply only to those`,
      target: { path: ['promotion_candidates', k, 'path'] },
    });
  });
  return out;
};

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|\+00:00)$/;

/** Whether a string is an ISO-8601 UTC timestamp with a real calendar date and time. */
export function isIsoUtcTimestamp(s: string): boolean {
  const m = ISO_UTC.exec(s);
  if (!m) return false;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return false;
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= daysInMonth;
}

const generatedAt: ReportRule = (report) => {
  const g = report.generated_at;
  if (typeof g !== 'string' || isIsoUtcTimestamp(g)) return [];
  return [err('report/generated-at', `generated_at "${g}" is not an ISO-8601 UTC timestamp (e.g. 2026-11-29T10:00:00Z)`, ['generated_at'])];
};

const unsafePath: ReportRule = (report) => {
  const out: Finding[] = [];
  const check = (value: unknown, at: JsonPath, allowDotDot = false) => {
    const why = unsafePathReason(value, { allowDotDot });
    if (why) out.push(err('report/unsafe-path', `${JSON.stringify(value)} ${why}; report paths are project-root-relative and never leave it`, at));
  };
  check(get(report.scan, 'project_root'), ['scan', 'project_root'], true);
  shortlistOf(report).forEach((item, k) => {
    if (typeof item === 'string') check(item, ['shortlist', k]);
    else check(get(item, 'path'), ['shortlist', k, 'path']);
  });
  for (const [l, at] of eachLifecycle(report)) check(l.served_when_path, [...at, 'served_when_path']);
  for (const [entry, i] of eachEntry(report)) {
    check(entry.path, ['entries', i, 'path']);
    const ee = entry.exact_edit;
    if (!isObj(ee)) continue;
    check(ee.dest_path, ['entries', i, 'exact_edit', 'dest_path']);
    check(get(ee.canonical_ref, 'path'), ['entries', i, 'exact_edit', 'canonical_ref', 'path']);
    if (ee.extraction_target !== 'cross-repo') check(ee.target_ref, ['entries', i, 'exact_edit', 'target_ref']);
  }
  const candidates = report.promotion_candidates;
  if (Array.isArray(candidates)) candidates.forEach((c, k) => check(get(c, 'path'), ['promotion_candidates', k, 'path']));
  return out;
};

/** Static half of anchor-out-of-range: start_line < 1 or start_line > end_line. */
const anchorOrder: ReportRule = (report) => {
  const out: Finding[] = [];
  for (const [, ee, i] of eachExactEdit(report)) {
    const refs: [unknown, JsonPath][] = [
      [ee.anchor, ['entries', i, 'exact_edit', 'anchor']],
      [ee.canonical_ref, ['entries', i, 'exact_edit', 'canonical_ref']],
    ];
    for (const [ref, at] of refs) {
      const a = lineAnchor(ref);
      if (!a) continue;
      if (a.start < 1) out.push(err('report/anchor-out-of-range', `start_line ${a.start} is before line 1 (lines are 1-based)`, [...at, 'start_line']));
      else if (a.start > a.end) out.push(err('report/anchor-out-of-range', `start_line ${a.start} is after end_line ${a.end}`, [...at, 'start_line']));
    }
  }
  return out;
};

/** The static rules, in a fixed order. Exported for the apply planner (an entry with an error is never applied). */
export const STATIC_REPORT_RULES: readonly ReportRule[] = [
  entryNotInShortlist,
  exactEditBiconditional,
  safetyTier,
  kindCharacterization,
  category,
  kindFields,
  lifecycleServed,
  extractionTarget,
  promotionCandidate,
  generatedAt,
  unsafePath,
  anchorOrder,
];

/** Runs every static rule; a rule that throws on some odd value is skipped rather than failing the check. */
export function staticReportFindings(report: unknown): Finding[] {
  if (!isObj(report)) return [];
  const out: Finding[] = [];
  for (const rule of STATIC_REPORT_RULES) {
    try {
      out.push(...rule(report));
    } catch {
      // never throw on untrusted input
    }
  }
  return out;
}

const warn = (code: string, message: string, path: JsonPath): Finding => ({ code, severity: 'warning', message, target: { path } });

/** The live rules: resolve each exact_edit target in the workspace and compare it with the report. */
export function liveReportFindings(report: unknown, reportFsPath: string, workspace: WorkspaceReader): Finding[] {
  if (!isObj(report) || !workspace.root) return [];
  const located = locateProjectRoot(report, reportFsPath, workspace);
  if (!located.ok) {
    const pr = get(report.scan, 'project_root');
    if (typeof pr !== 'string' || unsafePathReason(pr, { allowDotDot: true })) return [];
    if (/leaves|outside/.test(located.reason)) return [err('report/unsafe-path', `${located.reason}; nothing in this report is applied`, ['scan', 'project_root'])];
    if (/does not exist/.test(located.reason)) return [warn('report/missing-target', located.reason, ['scan', 'project_root'])];
    return [];
  }
  const out: Finding[] = [];
  for (const [entry, ee, i] of eachExactEdit(report)) {
    try {
      out.push(...liveEntryFindings(located.loc, entry, ee, i, workspace));
    } catch {
      // a throwing workspace or an odd value: skip this entry
    }
  }
  return out;
}

function liveEntryFindings(loc: ReportLocation, entry: Obj, ee: Obj, i: number, workspace: WorkspaceReader): Finding[] {
  const out: Finding[] = [];
  const at: JsonPath = ['entries', i, 'exact_edit'];
  const rel = entry.path;
  if (typeof rel !== 'string' || unsafePathReason(rel)) return out;
  const resolved = resolveInsideRoot(loc, rel, workspace);
  if (!resolved.ok) {
    out.push(err('report/unsafe-path', resolved.reason, ['entries', i, 'path']));
    return out;
  }
  // Other paths the edit names must not escape through symlinks either.
  const others: [unknown, JsonPath][] = [
    [ee.dest_path, [...at, 'dest_path']],
    [ee.extraction_target === 'cross-repo' ? undefined : ee.target_ref, [...at, 'target_ref']],
  ];
  for (const [p, pAt] of others) {
    if (typeof p !== 'string' || unsafePathReason(p)) continue;
    const r = resolveInsideRoot(loc, p, workspace);
    if (!r.ok) out.push(err('report/unsafe-path', r.reason, pAt));
  }
  if (rel.endsWith('/')) {
    if (resolved.realPath === undefined) out.push(warn('report/missing-target', `${rel} does not exist`, ['entries', i, 'path']));
    return out; // a directory aggregate has no file hash or lines to compare
  }
  const content = readTargetContent(workspace, resolved);
  if (!content) {
    out.push(warn('report/missing-target', `${rel} does not exist`, ['entries', i, 'path']));
    return out;
  }
  if (isSha256Hex(ee.expected_sha256) && content.sha256 !== ee.expected_sha256) {
    out.push(warn('report/stale-edit', `${rel} changed since generated_at (sha256 now ${content.sha256.slice(0, 12)}…); re-run the check`, [...at, 'expected_sha256']));
    return out;
  }
  if (content.text === undefined) return out;
  const lineCount = lineSpans(content.text).length;
  const anchor = lineAnchor(ee.anchor);
  if (anchor && anchor.start >= 1 && anchor.start <= anchor.end && anchor.end > lineCount) {
    out.push(err('report/anchor-out-of-range', `end_line ${anchor.end} is beyond the last line (${lineCount}) of ${rel}`, [...at, 'anchor', 'end_line']));
    return out;
  }
  if (ee.kind === 'dedupe' && anchor && anchor.start >= 1 && anchor.start <= anchor.end) out.push(...liveDedupeFindings(loc, ee, i, content.text, resolved.realPath, anchor, workspace));
  return out;
}

function liveDedupeFindings(
  loc: ReportLocation,
  ee: Obj,
  i: number,
  text: string,
  realPath: string | undefined,
  anchor: { start: number; end: number },
  workspace: WorkspaceReader,
): Finding[] {
  const at: JsonPath = ['entries', i, 'exact_edit', 'canonical_ref'];
  const ref = ee.canonical_ref;
  const cPath = get(ref, 'path');
  const cAnchor = lineAnchor(ref);
  if (typeof cPath !== 'string' || unsafePathReason(cPath) || !cAnchor || cAnchor.start < 1 || cAnchor.start > cAnchor.end) return [];
  const resolved = resolveInsideRoot(loc, cPath, workspace);
  if (!resolved.ok) return [err('report/unsafe-path', resolved.reason, [...at, 'path'])];
  const content = readTargetContent(workspace, resolved);
  if (!content) return [warn('report/missing-target', `canonical_ref ${cPath} does not exist`, [...at, 'path'])];
  if (content.text === undefined) return [];
  const sameFile = realPath !== undefined && resolved.realPath === realPath;
  const check = checkDedupeSpans(text, anchor, sameFile ? text : content.text, cAnchor, sameFile);
  if (check.ok) return [];
  if (check.code === 'anchor-out-of-range') return [err('report/anchor-out-of-range', `end_line ${cAnchor.end} is beyond the last line of ${cPath}`, [...at, 'end_line'])];
  return [err('report/dedupe-not-duplicate', `dedupe span ${anchor.start}–${anchor.end} is not a duplicate: ${check.reason}`, at)];
}

/** All report rules: static always; live when the context has a workspace and the report's path. */
export const reportRules: RuleSet = (value: unknown, ctx: RuleContext) => {
  const findings = staticReportFindings(value);
  if (ctx.workspace && ctx.fsPath) {
    try {
      findings.push(...liveReportFindings(value, ctx.fsPath, ctx.workspace));
    } catch {
      // live checks are best effort; a throwing workspace never fails the check
    }
  }
  return findings;
};

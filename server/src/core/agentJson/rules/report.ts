/**
 * Cross-field and live rules for docs-hygiene reports (codes in docs/diagnostics.md).
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
import type { Finding, JsonFix, JsonPath, RuleContext, RuleSet, WorkspaceReader } from '../../types';
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
  lineNumber,
  shortlistItemPath,
  shortlistOf,
  str,
  type Obj,
} from '../report/shape';
import { locateProjectRoot, notARegularFile, resolveInsideRoot, unsafePathReason, type ReportLocation } from '../report/paths';
import { checkDedupeSpans, readTargetContent } from '../report/target';
import { anchorLineCount, isSha256Hex } from '../report/text';
import { LineIndex } from '../../lineIndex';
import { ruleCode, type DiagnosticCode } from '../../codes';
import { findingOf, pushFindings, type Rule, type RuleHit } from './rule';
import { pushAll } from '../../arrays';

/**
 * A static rule has the uniform rule shape (../rules/rule.ts: code and severity from the catalogue), but
 * runs in one shared pass over the report: its `check` is called once per report and returns the rule's
 * hooks for it (with whatever state the rule keeps across entries). The runner calls `before`, then `entry`
 * and `entryLate` for every entry that is an object (each with its own list, so a rule reports all its
 * `entry` hits before all its `entryLate` ones), then `after`. A rule's hits are `before`, `entry`,
 * `entryLate`, `after` in that order, exactly as if it had walked the report on its own; the runner adds
 * the rule's code and severity to each.
 */
type StaticRule = Rule<Obj, RuleRun>;

interface RuleRun {
  before?(out: RuleHit[]): void;
  entry?(c: EntryContext, out: RuleHit[]): void;
  entryLate?(c: EntryContext, out: RuleHit[]): void;
  after?(out: RuleHit[]): void;
}

/** What the per-entry hooks see, computed once per entry (valid during the call only: the runner reuses it). */
interface EntryContext {
  readonly entry: Obj;
  readonly i: number;
  /** The entry's own exact_edit when it is an object with a known kind (else undefined). */
  readonly edit: Obj | undefined;
}

/**
 * The one EntryContext of a pass, moved from entry to entry. Reading exact_edit is done once per entry; if
 * it throws (an odd value), `edit` throws the same error to each rule that reads it, so exactly those rules
 * are dropped, as when each rule read exact_edit itself.
 */
class EntryCursor implements EntryContext {
  entry: Obj = {};
  i = 0;
  private known: Obj | undefined;
  private failure: { error: unknown } | undefined;
  get edit(): Obj | undefined {
    if (this.failure) throw this.failure.error;
    return this.known;
  }
  moveTo(entry: Obj, i: number): void {
    this.entry = entry;
    this.i = i;
    try {
      this.known = knownExactEdit(entry);
      this.failure = undefined;
    } catch (error) {
      this.known = undefined;
      this.failure = { error };
    }
  }
}

const err = (message: string, path: JsonPath, fixes?: JsonFix[]): RuleHit => ({
  message,
  target: { path },
  ...(fixes ? { fixes } : {}),
});
const missing = (message: string, path: JsonPath, property: string): RuleHit => ({
  message,
  target: { path, part: 'missing', property },
});

/** The exact_edit of an entry when it is an object with a known kind. */
function knownExactEdit(entry: Obj): Obj | undefined {
  const ee = get(entry, 'exact_edit');
  return isObj(ee) && isKind(ee.kind) ? ee : undefined;
}

/** Every entry's exact_edit that is an object with a known kind (the live rules). */
function eachExactEdit(report: Obj): [Obj, Obj, number][] {
  const out: [Obj, Obj, number][] = [];
  entriesOf(report).forEach((entry, i) => {
    if (!isObj(entry)) return;
    const ee = knownExactEdit(entry);
    if (ee) out.push([entry, ee, i]);
  });
  return out;
}

/** A path as compared between shortlist, entries and promotion candidates: without "./" prefixes. */
function comparablePath(p: string): string {
  let q = p;
  while (q.startsWith('./')) q = q.slice(2);
  return q;
}

const entryNotInShortlist: StaticRule = {
  ...ruleCode('report/entry-not-in-shortlist'),
  check(report) {
    const members = new Set<string>();
    const dirs: string[] = [];
    for (const item of shortlistOf(report)) {
      const p = shortlistItemPath(item);
      if (p === undefined) continue;
      const c = comparablePath(p);
      members.add(c);
      if (c.endsWith('/')) dirs.push(c);
    }
    return {
      entry({ entry, i }, out) {
        const p = str(entry.path);
        if (p === undefined) return;
        const c = comparablePath(p);
        if (members.has(c) || (dirs.length > 0 && dirs.some((d) => c.startsWith(d)))) return;
        const hint = members.has(c + '/') ? ` (the shortlist has the directory "${c}/")` : '';
        out.push(err(`"${p}" is not in shortlist: the scanner must surface a file before the AI pass adds an entry${hint}`, ['entries', i, 'path']));
      },
    };
  },
};

const exactEditBiconditional: StaticRule = {
  ...ruleCode('report/exact-edit-biconditional'),
  check: () => ({
    entry({ entry, i }, out) {
      const present = has(entry, 'exact_edit');
      if (entry.op_type === 'deterministic' && !present) {
        out.push(missing('op_type is deterministic but exact_edit is missing', ['entries', i], 'exact_edit'));
      } else if (entry.op_type === 'generative' && present) {
        out.push({
          message: 'op_type is generative: exact_edit must be omitted',
          target: { path: ['entries', i, 'exact_edit'], part: 'key' },
        });
      }
    },
  }),
};

/** The lifecycle argument of deriveSafetyTier for an entry: an object for lifecycle kinds, else undefined. */
function lifecycleArgument(entry: Obj) {
  const ee = get(entry, 'exact_edit');
  const kind = get(ee, 'kind');
  return isKind(kind) && LIFECYCLE_KINDS.includes(kind) ? lifecycleOfEdit(ee) : undefined;
}

const safetyTier: StaticRule = {
  ...ruleCode('report/safety-tier'),
  check: () => ({
    entry({ entry, i }, out) {
      const recorded = entry.safety_tier;
      if (recorded !== 'auto' && recorded !== 'confirm') return;
      const lifecycle = lifecycleArgument(entry);
      const git = gitStateOf(entry.git);
      const derived = deriveSafetyTier(entry.op_type, entry.is_destructive, entry.is_reversible, lifecycle, git);
      if (derived === recorded) return;
      const why = explainSafetyTier(entry.op_type, entry.is_destructive, entry.is_reversible, lifecycle, git);
      const fix: JsonFix = {
        title: `Set safety_tier to ${derived} — ${why}`,
        edits: [{ path: ['entries', i, 'safety_tier'], value: derived }],
        // Lowering to confirm is always safe unattended; raising to auto deserves a human look.
        fixAll: derived === 'confirm',
      };
      out.push(err(`safety_tier is "${recorded}" but derives to "${derived}": ${why}`, ['entries', i, 'safety_tier'], [fix]));
    },
  }),
};

const kindCharacterization: StaticRule = {
  ...ruleCode('report/kind-characterization'),
  check: () => ({
    entry({ entry, edit: ee, i }, out) {
      if (!ee) return;
      const kind = ee.kind as keyof typeof KIND_CHARACTERIZATION;
      const fixed = KIND_CHARACTERIZATION[kind];
      if (typeof entry.is_destructive === 'boolean' && entry.is_destructive !== fixed.isDestructive) {
        out.push(err(`${kind} is ${fixed.isDestructive ? 'destructive' : 'non-destructive'}: is_destructive must be ${fixed.isDestructive}`, ['entries', i, 'is_destructive']));
      }
      if (fixed.isReversible !== 'either' && typeof entry.is_reversible === 'boolean' && entry.is_reversible !== fixed.isReversible) {
        out.push(err(`${kind} is ${fixed.isReversible ? 'reversible' : 'irreversible'}: is_reversible must be ${fixed.isReversible}`, ['entries', i, 'is_reversible']));
      }
    },
  }),
};

const category: StaticRule = {
  ...ruleCode('report/category'),
  check: () => ({
    entry({ entry, i }, out) {
      const cat = entry.category;
      const cls = get(cat, 'class');
      const subtype = get(cat, 'subtype');
      if ((cls !== 'stale' && cls !== 'bloat') || typeof subtype !== 'string') return;
      const allowed = SUBTYPES_BY_CLASS[cls];
      if (allowed.includes(subtype)) return;
      const other = cls === 'stale' ? 'bloat' : 'stale';
      const belongsToOther = SUBTYPES_BY_CLASS[other].includes(subtype);
      const hint = belongsToOther ? ` ("${subtype}" is a ${other} subtype)` : '';
      // A subtype of the other class says which class the entry is: moving it there is the obvious fix (not
      // unattended: which of the two fields is wrong is the author's call). An unknown subtype has none.
      const fixes: JsonFix[] | undefined = belongsToOther
        ? [{ title: `Set class to "${other}" — "${subtype}" is a ${other} subtype`, edits: [{ path: ['entries', i, 'category', 'class'], value: other }], fixAll: false }]
        : undefined;
      out.push(err(`subtype "${subtype}" is not a ${cls} subtype; expected one of ${allowed.join(', ')}${hint}`, ['entries', i, 'category', 'subtype'], fixes));
    },
  }),
};

const kindFields: StaticRule = {
  ...ruleCode('report/kind-fields'),
  check: () => ({
    entry({ edit: ee, i }, out) {
      if (!ee) return;
      const kind = ee.kind as keyof typeof KIND_REQUIRED_FIELDS;
      const at = (): JsonPath => ['entries', i, 'exact_edit']; // built only for a finding
      if (!has(ee, 'expected_sha256')) out.push(missing(`${kind} requires expected_sha256${FIELD_ROLE.expected_sha256}`, at(), 'expected_sha256'));
      for (const field of KIND_REQUIRED_FIELDS[kind]) {
        if (!has(ee, field)) out.push(missing(`${kind} requires ${field}${FIELD_ROLE[field] ?? ''}`, at(), field));
      }
      const anchor = ee.anchor;
      if (isObj(anchor)) {
        if (LIFECYCLE_KINDS.includes(kind)) {
          if (!has(anchor, 'whole_file')) out.push(missing(`${kind} requires a whole-file anchor { "whole_file": true }`, [...at(), 'anchor'], 'whole_file'));
          else if (!isWholeFileAnchor(anchor)) out.push(err(`${kind} requires a whole-file anchor: whole_file must be true`, [...at(), 'anchor', 'whole_file']));
        } else {
          for (const f of LINE_ANCHOR_FIELDS) if (!has(anchor, f)) out.push(missing(`${kind} anchor requires ${f}`, [...at(), 'anchor'], f));
        }
      }
      if (kind === 'dedupe' && isObj(ee.canonical_ref)) {
        for (const f of CANONICAL_REF_FIELDS) if (!has(ee.canonical_ref, f)) out.push(missing(`canonical_ref requires ${f}`, [...at(), 'canonical_ref'], f));
      }
      if (LIFECYCLE_KINDS.includes(kind) && isObj(ee.lifecycle)) {
        for (const f of LIFECYCLE_FIELDS) if (!has(ee.lifecycle, f)) out.push(missing(`lifecycle requires ${f}`, [...at(), 'lifecycle'], f));
      }
      if (kind === 'replace-text' && ee.match === '') out.push(err('match is empty: replace-text needs the text to replace', [...at(), 'match']));
      if (kind === 'insert-frontmatter' && ee.key === '') out.push(err('key is empty: insert-frontmatter needs a frontmatter key', [...at(), 'key']));
    },
  }),
};
/** What each required exact_edit field is for, so a kind-fields message says what to add. */
const FIELD_ROLE: Record<string, string> = {
  expected_sha256: ': the sha256 of the target file when the report was generated (nothing is applied without it)',
  anchor: ': the lines it applies to',
  dest_path: ': where the archived content goes',
  key: ': the frontmatter key to insert',
  value: ': the frontmatter value to insert',
  match: ': the text to replace',
  replacement: ': the text that replaces match',
  canonical_ref: ': the copy that stays',
  lifecycle: ': the rule and lifetime that make the file removable',
};
const LINE_ANCHOR_FIELDS = ['start_line', 'end_line'] as const;
const CANONICAL_REF_FIELDS = ['path', 'start_line', 'end_line'] as const;
const LIFECYCLE_FIELDS = ['rule_ref', 'lifetime'] as const;

type LifecycleCheck = (out: RuleHit[], l: Obj, at: JsonPath) => void;

/** Checks the lifecycle objects of the shortlist items. */
function shortlistLifecycles(report: Obj, out: RuleHit[], check: LifecycleCheck): void {
  shortlistOf(report).forEach((item, k) => {
    const l = get(item, 'lifecycle');
    if (isObj(l)) check(out, l, ['shortlist', k, 'lifecycle']);
  });
}

/** Checks the lifecycle objects of an entry (its own, then its exact_edit's). */
function entryLifecycles(entry: Obj, i: number, out: RuleHit[], check: LifecycleCheck): void {
  if (isObj(entry.lifecycle)) check(out, entry.lifecycle, ['entries', i, 'lifecycle']);
  const l = get(entry.exact_edit, 'lifecycle');
  if (isObj(l)) check(out, l, ['entries', i, 'exact_edit', 'lifecycle']);
}

const present = (o: Obj, k: string) => has(o, k) && o[k] !== null && o[k] !== undefined;

/** lifecycle-served on one lifecycle object. */
const checkServed: LifecycleCheck = (out, l, at) => {
  const hasPath = present(l, 'served_when_path');
  const hasJudged = present(l, 'served_when');
  if (hasPath && hasJudged) {
    out.push(err('lifecycle has both served_when_path and served_when: keep exactly one', [...at, 'served_when']));
  } else if (l.lifetime === 'delete-once-served' && !hasPath && !hasJudged) {
    out.push(missing('delete-once-served needs exactly one of served_when_path (scanner-proven) or served_when (classifier-judged)', at, 'served_when_path'));
  } else if (l.lifetime === 'temporary' && (hasPath || hasJudged)) {
    const f = hasPath ? 'served_when_path' : 'served_when';
    out.push(err(`a temporary lifecycle is keyed on age: ${f} must be omitted`, [...at, f]));
  }
};

const lifecycleServed: StaticRule = {
  ...ruleCode('report/lifecycle-served'),
  check: (report) => ({
    before: (out) => shortlistLifecycles(report, out, checkServed),
    entry: ({ entry, i }, out) => entryLifecycles(entry, i, out, checkServed),
  }),
};

const extractionTarget: StaticRule = {
  ...ruleCode('report/extraction-target'),
  check: () => ({
    entry({ edit: ee, i }, out) {
      if (!ee || ee.kind !== 'extract-then-delete') return;
      const at: JsonPath = ['entries', i, 'exact_edit'];
      if (!present(ee, 'extraction_target')) {
        // A target_ref already names the document that receives the content: repo-durable is what it says.
        const named = typeof ee.target_ref === 'string' && ee.target_ref !== '';
        const fixes: JsonFix[] | undefined = named
          ? [{ title: `Set extraction_target to "repo-durable" — target_ref names ${JSON.stringify(ee.target_ref)} in this repository`, edits: [{ path: [...at, 'extraction_target'], value: 'repo-durable' }], fixAll: false }]
          : undefined;
        out.push({ ...missing('extract-then-delete requires extraction_target (repo-durable or cross-repo)', at, 'extraction_target'), ...(fixes ? { fixes } : {}) });
      } else if (ee.extraction_target === 'repo-durable' && !present(ee, 'target_ref')) {
        out.push(missing('a repo-durable extraction requires target_ref: the document that receives the content', at, 'target_ref'));
      } else if (ee.extraction_target === 'repo-durable' && ee.target_ref === '') {
        out.push(err('target_ref is empty: a repo-durable extraction requires the document that receives the content', [...at, 'target_ref']));
      }
    },
  }),
};

const promotionCandidate: StaticRule = {
  ...ruleCode('report/promotion-candidate'),
  check(report) {
    if (!has(report, 'promotion_candidates')) {
      return {
        before(out) {
          out.push({
            message: 'promotion_candidates is missing: the spec requires it on every report, empty when no candidate applies',
            target: { path: [], part: 'missing', property: 'promotion_candidates' },
            fixes: [{ title: 'Add promotion_candidates: [] — required on every report, possibly empty', edits: [{ path: ['promotion_candidates'], value: [] }], fixAll: false }],
          });
        },
      };
    }
    const candidates = report.promotion_candidates;
    // Nothing to compare (no candidates): the entries need not be read at all.
    if (!Array.isArray(candidates) || candidates.length === 0) return {};
    const judged = new Set<string>();
    return {
      entry({ entry }) {
        const p = str(entry.path);
        if (p !== undefined && hasClassifierJudgedServedWhen(entry)) judged.add(comparablePath(p));
      },
      after(out) {
        candidates.forEach((c, k) => {
          const p = str(get(c, 'path'));
          if (p === undefined || judged.has(comparablePath(p))) return;
          out.push({
            message: `"${p}" is not an entry with a classifier-judged served_when; promotion candidates apply only to those`,
            target: { path: ['promotion_candidates', k, 'path'] },
          });
        });
      },
    };
  },
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

const generatedAt: StaticRule = {
  ...ruleCode('report/generated-at'),
  check: (report) => ({
    before(out) {
      const g = report.generated_at;
      if (typeof g !== 'string' || isIsoUtcTimestamp(g)) return;
      out.push(err(`generated_at "${g}" is not an ISO-8601 UTC timestamp (e.g. 2026-11-29T10:00:00Z)`, ['generated_at']));
    },
  }),
};

/** The unsafe-path finding for `value` when it is an unsafe path; `at` is only called then (no garbage per safe path). */
function checkPath(out: RuleHit[], value: unknown, at: (a?: string | number, b?: string) => JsonPath, a?: string | number, b?: string, allowDotDot = false): void {
  const why = unsafePathReason(value, allowDotDot ? ALLOW_DOT_DOT : NO_DOT_DOT);
  if (why) out.push(err(`${JSON.stringify(value)} ${why}; report paths are project-root-relative and never leave it`, at(a, b)));
}
const ALLOW_DOT_DOT = { allowDotDot: true } as const;
const NO_DOT_DOT = { allowDotDot: false } as const;
const fixedPath = (...segments: (string | number)[]) => (): JsonPath => segments;
const shortlistPath = (k?: string | number, field?: string): JsonPath => (field === undefined ? ['shortlist', k!] : ['shortlist', k!, field]);
const entryPath = (i?: string | number): JsonPath => ['entries', i!, 'path'];
const editPath = (i?: string | number, field?: string): JsonPath => (field === 'canonical_ref' ? ['entries', i!, 'exact_edit', 'canonical_ref', 'path'] : ['entries', i!, 'exact_edit', field!]);
const checkServedWhenPath: LifecycleCheck = (out, l, at) => checkPath(out, l.served_when_path, () => [...at, 'served_when_path']);

const unsafePath: StaticRule = {
  ...ruleCode('report/unsafe-path'),
  check: (report) => ({
    before(out) {
      checkPath(out, get(report.scan, 'project_root'), fixedPath('scan', 'project_root'), undefined, undefined, true);
      shortlistOf(report).forEach((item, k) => {
        if (typeof item === 'string') checkPath(out, item, shortlistPath, k);
        else checkPath(out, get(item, 'path'), shortlistPath, k, 'path');
      });
      shortlistLifecycles(report, out, checkServedWhenPath);
    },
    // All the lifecycles' served_when_path first, then the entries' own paths (the order of the findings).
    entry: ({ entry, i }, out) => entryLifecycles(entry, i, out, checkServedWhenPath),
    entryLate({ entry, i }, out) {
      checkPath(out, entry.path, entryPath, i);
      const ee = entry.exact_edit;
      if (!isObj(ee)) return;
      checkPath(out, ee.dest_path, editPath, i, 'dest_path');
      checkPath(out, get(ee.canonical_ref, 'path'), editPath, i, 'canonical_ref');
      if (ee.extraction_target !== 'cross-repo') checkPath(out, ee.target_ref, editPath, i, 'target_ref');
    },
    after(out) {
      const candidates = report.promotion_candidates;
      if (Array.isArray(candidates)) candidates.forEach((c, k) => checkPath(out, get(c, 'path'), (n) => ['promotion_candidates', n!, 'path'], k));
    },
  }),
};

/** Static half of anchor-out-of-range: start_line < 1 or start_line > end_line. */
const anchorOrder: StaticRule = {
  ...ruleCode('report/anchor-out-of-range'),
  check: () => ({
    entry({ edit: ee, i }, out) {
      if (!ee) return;
      checkAnchorOrder(out, ee.anchor, i, 'anchor');
      checkAnchorOrder(out, ee.canonical_ref, i, 'canonical_ref');
    },
  }),
};

/** anchor-order on one `{start_line, end_line}` (as lineAnchor reads it, without building it). */
function checkAnchorOrder(out: RuleHit[], ref: unknown, i: number, field: string): void {
  const start = lineNumber(get(ref, 'start_line'));
  const end = lineNumber(get(ref, 'end_line'));
  if (start === undefined || end === undefined) return;
  if (start < 1) out.push(err(`start_line ${start} is before line 1 (lines are 1-based)`, ['entries', i, 'exact_edit', field, 'start_line']));
  else if (start > end) out.push(err(`start_line ${start} is after end_line ${end}`, ['entries', i, 'exact_edit', field, 'start_line']));
}

/** The static rules, in a fixed order (the order of their findings). */
export const STATIC_REPORT_RULES: readonly StaticRule[] = [
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

/** One rule's run: its hooks and its findings, one list per phase; `failed` once any hook threw. */
interface Running {
  rule: StaticRule;
  run: RuleRun;
  before: RuleHit[];
  entry: RuleHit[];
  entryLate: RuleHit[];
  after: RuleHit[];
  failed: boolean;
}

/**
 * Runs every static rule in one pass over the entries (each entry's context is computed once and handed to
 * every rule). A rule that throws on some odd value is skipped — all of its findings dropped — rather than
 * failing the check, as if it had run alone.
 */
export function staticReportFindings(report: unknown): Finding[] {
  if (!isObj(report)) return [];
  const runs: Running[] = [];
  for (const rule of STATIC_REPORT_RULES) {
    const r: Running = { rule, run: {}, before: [], entry: [], entryLate: [], after: [], failed: false };
    try {
      r.run = rule.check(report);
      r.run.before?.(r.before);
    } catch {
      r.failed = true;
    }
    runs.push(r);
  }
  // Every per-entry hook with the list it writes to, in rule order (each rule's entry and entryLate findings
  // go to separate lists, so calling one rule's entryLate before the next rule's entry changes no order).
  type Hook = { r: Running; fn: (c: EntryContext, out: RuleHit[]) => void; out: RuleHit[] };
  let hooks: Hook[] = [];
  for (const r of runs) {
    if (r.failed) continue;
    if (r.run.entry) hooks.push({ r, fn: r.run.entry, out: r.entry });
    if (r.run.entryLate) hooks.push({ r, fn: r.run.entryLate, out: r.entryLate });
  }
  // Reading the entries themselves failing (an odd value) fails every rule that walks them, as it would alone.
  const failAll = () => {
    for (const hook of hooks) hook.r.failed = true;
    hooks = [];
  };
  let entries: unknown[] = [];
  try {
    entries = entriesOf(report);
  } catch {
    failAll();
  }
  // One context, moved from entry to entry (hooks read it and never keep it): no garbage per entry.
  const c = new EntryCursor();
  for (let i = 0; i < entries.length && hooks.length > 0; i++) {
    let entry: unknown;
    try {
      entry = entries[i]; // a hole reads undefined: skipped, as forEach skips it
    } catch {
      failAll();
      break;
    }
    if (!isObj(entry)) continue;
    c.moveTo(entry, i);
    for (let h = 0; h < hooks.length; h++) {
      const hook = hooks[h]!;
      try {
        hook.fn(c, hook.out);
      } catch {
        // The rule is out: drop its hooks, and go on with the hook that followed this one.
        hook.r.failed = true;
        const done = hooks.slice(0, h).filter((x) => !x.r.failed).length;
        hooks = hooks.filter((x) => !x.r.failed);
        h = done - 1;
      }
    }
  }
  const out: Finding[] = [];
  for (const r of runs) {
    if (r.failed) continue;
    try {
      r.run.after?.(r.after);
    } catch {
      continue;
    }
    for (const list of [r.before, r.entry, r.entryLate, r.after]) pushFindings(out, r.rule, list);
  }
  return out;
}

/** A live finding of `code` at its catalogue severity. */
const live = (code: DiagnosticCode, message: string, path: JsonPath): Finding => findingOf(code, { message, target: { path } });

/** The live rules: resolve each exact_edit target in the workspace and compare it with the report. */
export function liveReportFindings(report: unknown, reportFsPath: string, workspace: WorkspaceReader): Finding[] {
  if (!isObj(report) || !workspace.root) return [];
  const located = locateProjectRoot(report, reportFsPath, workspace);
  if (!located.ok) {
    const pr = get(report.scan, 'project_root');
    if (typeof pr !== 'string' || unsafePathReason(pr, { allowDotDot: true })) return [];
    if (/leaves|outside|inside \.git|git directory|hooks run|dangling|cannot be resolved/.test(located.reason)) return [live('report/unsafe-path', `${located.reason}; nothing in this report is applied`, ['scan', 'project_root'])];
    if (/does not exist/.test(located.reason)) return [live('report/missing-target', located.reason, ['scan', 'project_root'])];
    return [];
  }
  const out: Finding[] = [];
  for (const [entry, ee, i] of eachExactEdit(report)) {
    try {
      pushAll(out, liveEntryFindings(located.loc, entry, ee, i, workspace));
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
    out.push(live('report/unsafe-path', resolved.reason, ['entries', i, 'path']));
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
    if (!r.ok) out.push(live('report/unsafe-path', r.reason, pAt));
  }
  if (rel.endsWith('/')) {
    if (resolved.realPath === undefined) out.push(live('report/missing-target', `${rel} does not exist`, ['entries', i, 'path']));
    return out; // a directory aggregate has no file hash or lines to compare
  }
  const content = readTargetContent(workspace, resolved);
  if (!content) {
    out.push(live('report/missing-target', notARegularFile(rel, resolved) ?? `${rel} does not exist`, ['entries', i, 'path']));
    return out;
  }
  if (isSha256Hex(ee.expected_sha256) && content.sha256 !== ee.expected_sha256) {
    out.push(live('report/stale-edit', `${rel} changed since generated_at (sha256 now ${content.sha256.slice(0, 12)}…); re-run the check`, [...at, 'expected_sha256']));
    return out;
  }
  if (content.text === undefined) return out;
  const lineCount = anchorLineCount(new LineIndex(content.text));
  const anchor = lineAnchor(ee.anchor);
  if (anchor && anchor.start >= 1 && anchor.start <= anchor.end && anchor.end > lineCount) {
    out.push(live('report/anchor-out-of-range', `end_line ${anchor.end} is beyond the last line (${lineCount}) of ${rel}`, [...at, 'anchor', 'end_line']));
    return out;
  }
  if (ee.kind === 'dedupe' && anchor && anchor.start >= 1 && anchor.start <= anchor.end) pushAll(out, liveDedupeFindings(loc, ee, i, content.text, resolved.realPath, anchor, workspace));
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
  if (!resolved.ok) return [live('report/unsafe-path', resolved.reason, [...at, 'path'])];
  const content = readTargetContent(workspace, resolved);
  if (!content) return [live('report/missing-target', `canonical_ref ${cPath} does not exist`, [...at, 'path'])];
  if (content.text === undefined) return [];
  const sameFile = realPath !== undefined && resolved.realPath === realPath;
  const check = checkDedupeSpans(text, anchor, sameFile ? text : content.text, cAnchor, sameFile);
  if (check.ok) return [];
  if (check.code === 'anchor-out-of-range') return [live('report/anchor-out-of-range', `end_line ${cAnchor.end} is beyond the last line of ${cPath}`, [...at, 'end_line'])];
  return [live('report/dedupe-not-duplicate', `dedupe span ${anchor.start}–${anchor.end} is not a duplicate: ${check.reason}`, at)];
}

/** All report rules: static always; live when the context has a workspace and the report's path. */
export const reportRules: RuleSet = (value: unknown, ctx: RuleContext) => {
  const findings = staticReportFindings(value);
  if (ctx.workspace && ctx.fsPath) {
    try {
      pushAll(findings, liveReportFindings(value, ctx.fsPath, ctx.workspace));
    } catch {
      // live checks are best effort; a throwing workspace never fails the check
    }
  }
  return findings;
};

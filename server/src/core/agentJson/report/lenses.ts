/**
 * Code-lens data for a report document and the "apply all auto" batch. Plain data: the LSP layer maps
 * each lens onto the exact_edit's range and each plan onto one WorkspaceEdit.
 */
import type { JsonPath, WorkspaceReader } from '../../types';
import { writtenPaths, type FileChange } from './changes';
import { planExactEdit, isSafetyRefusal, type PlanResult, type RefusalCode } from './exactEdit';
import { entriesOf, get, isObj } from './shape';
import { memoizeWorkspace } from '../workspaceMemo';
import { locateProjectRoot } from './paths';
import { displayPath } from './preview';
import * as nodePath from 'node:path';
import { JsonLocator } from '../../json/locate';

export const APPLY_EDIT_COMMAND = 'toonlens.applyEdit';

/** Arguments of the `toonlens.applyEdit` command (one object). */
export interface ApplyEditArgs {
  reportFsPath: string;
  entryIndex: number;
  /** The tier the lens showed; the command asks the user first when it is confirm. */
  tier: 'auto' | 'confirm';
}

export interface ReportLens {
  entryIndex: number;
  /** Path of the entry's exact_edit (put the lens on its range). */
  path: JsonPath;
  title: string;
  /** What the lens means and what a click does (the target named as in the title). */
  tooltip: string;
  /** The target file as every title names it: relative to the workspace folder. */
  file: string;
  command?: { id: typeof APPLY_EDIT_COMMAND; args: [ApplyEditArgs] };
}

/**
 * One lens per entry that has an exact_edit object:
 * `Apply <kind> to <file> (auto)` / `Apply <kind> to <file> (confirm)` with the apply command;
 * `Stale — <file> changed, re-run check`; `Not applied in restricted mode: <file>` (untrusted workspace);
 * `Cannot apply to <file> — <reason>` otherwise. Every title names the target file one way, relative to the
 * workspace folder (the entry's `path` is relative to the report's project root), and every lens has a tooltip.
 */
export function reportLenses(report: unknown, reader: WorkspaceReader, trusted: boolean, reportFsPath: string): ReportLens[] {
  const lenses: ReportLens[] = [];
  // One memo for the whole pass (the apply commands plan again, unmemoized, when the user clicks).
  const workspace = memoizeWorkspace(reader);
  const located = locateProjectRoot(report, reportFsPath, workspace);
  /** The entry's path as the workspace names it (as written when the project root is not known). */
  const shown = (rel: string): string => (located.ok ? displayPath(nodePath.resolve(located.loc.projectRoot, rel.replace(/\/+$/, '') || '.'), reader.root) : rel);
  entriesOf(report).forEach((entry, entryIndex) => {
    const ee = get(entry, 'exact_edit');
    if (!isObj(ee)) return;
    const path: JsonPath = ['entries', entryIndex, 'exact_edit'];
    const kind = typeof ee.kind === 'string' ? ee.kind : 'edit';
    const rel = get(entry, 'path');
    const file = typeof rel === 'string' ? shown(rel) : 'its file';
    const n = entryIndex + 1;
    if (!trusted) {
      lenses.push({ entryIndex, path, file, title: `Not applied in restricted mode: ${file}`, tooltip: `Entry ${n}: restricted mode. ToonLens never edits files in an untrusted workspace; trust the workspace to apply this ${kind}.` });
      return;
    }
    const plan = planExactEdit(report, entryIndex, workspace, { tierAllowed: 'all', trusted: true, reportFsPath });
    if (plan.ok || plan.needsConfirmation) {
      // A git or extraction doubt still offers the command: the editor asks before applying.
      const tier = plan.ok ? plan.tier : 'confirm';
      const how = tier === 'auto' ? 'Auto tier: applied at once, without asking' : 'Confirm tier: ToonLens shows the file, the lines and what changes, and asks first';
      lenses.push({
        entryIndex,
        path,
        file,
        title: `Apply ${kind} to ${file} (${tier})`,
        tooltip: `Entry ${n}: ${kind} on ${file}. ${how}. One change: Edit › Undo reverts it.`,
        command: { id: APPLY_EDIT_COMMAND, args: [{ reportFsPath, entryIndex, tier }] },
      });
    } else if (plan.code === 'stale') {
      lenses.push({ entryIndex, path, file, title: `Stale — ${file} changed, re-run check`, tooltip: `Entry ${n}: ${file} no longer has the bytes the report was made from (expected_sha256), so the edit is not applied. Re-run the check for a fresh report.` });
    } else {
      lenses.push({ entryIndex, path, file, title: `Cannot apply to ${file} — ${plan.reason}`, tooltip: `Entry ${n}: not applied: ${plan.reason}.` });
    }
  });
  return lenses;
}

/** A lens with the offset (in the document text, a BOM counted) of its exact_edit's property key. */
export interface LocatedReportLens {
  lens: ReportLens;
  offset: number;
}

/** {@link reportLenses} of a report text's parsed value, each at its exact_edit key (one scan for all). */
export function locatedReportLenses(text: string, report: unknown, workspace: WorkspaceReader, trusted: boolean, reportFsPath: string): LocatedReportLens[] {
  const lenses = reportLenses(report, workspace, trusted, reportFsPath);
  if (lenses.length === 0) return [];
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const locator = new JsonLocator(bom ? text.slice(1) : text, bom, lenses.map((l) => ({ path: l.path })));
  return lenses.map((lens) => ({ lens, offset: locator.rangeOf({ path: lens.path, part: 'key' }).start }));
}

export interface BatchApplied {
  entryIndex: number;
  changes: FileChange[];
  summary: string;
}

export interface BatchSkipped {
  entryIndex: number;
  reason: string;
  code: RefusalCode | 'conflict';
  /** True for refusals on safety grounds (stale, unsafe path, git doubt …); false for policy skips. */
  refusedForSafety: boolean;
}

export interface BatchPlan {
  applied: BatchApplied[];
  skipped: BatchSkipped[];
  /** Every applied change, in entry order: one WorkspaceEdit. */
  changes: FileChange[];
}

/**
 * Plans a batch of entries. Entries whose files overlap an earlier planned entry (written, or read as a
 * canonical_ref / extraction target) are skipped: their hash was taken before the earlier edit.
 */
export function planBatch(report: unknown, planOne: (entryIndex: number) => PlanResult): BatchPlan {
  const applied: BatchApplied[] = [];
  const skipped: BatchSkipped[] = [];
  const written = new Set<string>();
  const read = new Set<string>();
  entriesOf(report).forEach((_entry, entryIndex) => {
    const plan = planOne(entryIndex);
    if (!plan.ok) {
      skipped.push({ entryIndex, reason: plan.reason, code: plan.code, refusedForSafety: isSafetyRefusal(plan.code) });
      return;
    }
    const writes = writtenPaths(plan.changes);
    if (writes.some((p) => written.has(p) || read.has(p)) || plan.reads.some((p) => written.has(p))) {
      skipped.push({ entryIndex, reason: 'an earlier entry in this batch touches the same file; re-run the check', code: 'conflict', refusedForSafety: false });
      return;
    }
    writes.forEach((p) => written.add(p));
    plan.reads.forEach((p) => read.add(p));
    applied.push({ entryIndex, changes: plan.changes, summary: plan.summary });
  });
  return { applied, skipped, changes: applied.flatMap((a) => a.changes) };
}

/** "Apply all auto": every auto-tier entry that plans cleanly; everything else skipped with its reason. */
export function planApplyAllAuto(report: unknown, workspace: WorkspaceReader, reportFsPath: string, trusted = true): BatchPlan {
  return planBatch(report, (i) => planExactEdit(report, i, workspace, { tierAllowed: 'auto', trusted, reportFsPath }));
}

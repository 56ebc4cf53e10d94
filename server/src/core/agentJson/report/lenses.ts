/**
 * Code-lens data for a report document and the "apply all auto" batch. Plain data: the LSP layer maps
 * each lens onto the exact_edit's range and each plan onto one WorkspaceEdit.
 */
import type { JsonPath, WorkspaceReader } from '../../types';
import { writtenPaths, type FileChange } from './changes';
import { planExactEdit, isSafetyRefusal, type PlanResult, type RefusalCode } from './exactEdit';
import { entriesOf, get, isObj } from './shape';
import { memoizeWorkspace } from '../workspaceMemo';
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
  command?: { id: typeof APPLY_EDIT_COMMAND; args: [ApplyEditArgs] };
}

/**
 * One lens per entry that has an exact_edit object:
 * `Apply <kind> to <file> (auto)` / `Apply <kind> to <file> (confirm)` with the apply command;
 * `Stale — <file> changed, re-run check`; `Not applied in restricted mode: <file>` (untrusted workspace);
 * `Cannot apply to <file> — <reason>` otherwise. Every title names the target file (the entry's path).
 */
export function reportLenses(report: unknown, reader: WorkspaceReader, trusted: boolean, reportFsPath: string): ReportLens[] {
  const lenses: ReportLens[] = [];
  // One memo for the whole pass (the apply commands plan again, unmemoized, when the user clicks).
  const workspace = memoizeWorkspace(reader);
  entriesOf(report).forEach((entry, entryIndex) => {
    const ee = get(entry, 'exact_edit');
    if (!isObj(ee)) return;
    const path: JsonPath = ['entries', entryIndex, 'exact_edit'];
    const kind = typeof ee.kind === 'string' ? ee.kind : 'edit';
    const file = typeof get(entry, 'path') === 'string' ? (get(entry, 'path') as string) : 'its file';
    if (!trusted) {
      lenses.push({ entryIndex, path, title: `Not applied in restricted mode: ${file}` });
      return;
    }
    const plan = planExactEdit(report, entryIndex, workspace, { tierAllowed: 'all', trusted: true, reportFsPath });
    if (plan.ok || plan.needsConfirmation) {
      // A git or extraction doubt still offers the command: the editor asks before applying.
      const tier = plan.ok ? plan.tier : 'confirm';
      lenses.push({
        entryIndex,
        path,
        title: `Apply ${kind} to ${file} (${tier})`,
        command: { id: APPLY_EDIT_COMMAND, args: [{ reportFsPath, entryIndex, tier }] },
      });
    } else if (plan.code === 'stale') {
      lenses.push({ entryIndex, path, title: `Stale — ${file} changed, re-run check` });
    } else {
      lenses.push({ entryIndex, path, title: `Cannot apply to ${file} — ${plan.reason}` });
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

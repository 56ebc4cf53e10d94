/**
 * Docs-hygiene reports in the editor: a lens above each exact_edit (`Apply <kind> (auto)` / `(confirm)` /
 * `Stale — <file> changed, re-run check` / why not; every title names the target file), the `toonlens.applyEdit` command (one entry; confirm-tier asks first)
 * and `toonlens.applyAllAuto` (every auto-tier, non-stale edit; says what it skipped and why).
 * The core plans every change under the sha256 guard and workspace containment; this module only turns
 * the plan into one WorkspaceEdit, which the client applies, so Undo reverts it.
 */
import { pathToFileURL } from 'node:url';
import {
  CreateFile,
  DeleteFile,
  FileChangeType,
  MessageType,
  RenameFile,
  TextDocumentEdit,
  type CodeLens,
  type TextEdit as LspTextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { getLocation } from 'jsonc-parser';
import { locatedReportLenses, planApplyAllAuto, planExactEdit, type ApplyEditArgs, type FileChange, type LocatedReportLens, type PlanResult } from '../../core/agentJson/report';
import type { CheckResult } from '../../core/agentJson/check';
import { displayPath, previewChanges } from '../../core/agentJson/report/preview';
import { missingFolders, pathExists, removeEmptyFolders } from '../../node/createdFolders';
import { onePerServer, type FeatureContext, type FeatureModule } from '../../lsp/feature';
import { isJsonDocument, jsonAnalyzer, OFF_THREAD_MIN_CHARS, type JsonAnalyzer } from './documents';
import { CHANGE_DELAY_MS } from '../../lsp/diagnostics';
import { contentModified, untilCancelled } from '../../lsp/timeSlice';
import type { ToonLensSettings } from '../../lsp/settings';
import { COMMANDS, type ConfirmParams } from '../../protocol/commands';
import { isExecutableFile, readRegularFile, readRegularText } from '../../node/files';
import { realRoot, verifyWriteTarget } from '../../node/safeWrite';
import { sha256Hex } from '../../core/agentJson/report/text';
import { serverWork } from '../../lsp/idle';
import { RESOLVE_LENSES_ABOVE, UnresolvedLensSets } from '../../lsp/lensResolve';
import { errorMessage } from '../../core/errors';

/** The `data` tag of report lenses sent unresolved. */
const REPORT_LENS_TAG = 'report';

/** What the apply commands answer (the client shows the message when nothing was applied). */
export interface ApplyOutcome {
  applied: boolean;
  message: string;
  /** Entries not applied: `entryIndex` 0-based (data), `entry` 1-based (as shown). */
  skipped?: { entryIndex: number; entry: number; reason: string }[];
}

function showMessage(ctx: FeatureContext, params: { type: MessageType; message: string }): void {
  ctx.showMessage(params.type, params.message);
}

/** The text an edit's offsets point into, as the editor will see the file (VS Code and Neovim hide a BOM). */
function editorTextOf(ctx: FeatureContext, absPath: string, verifiedReal: string, baseSha256: string): { doc: TextDocument; version: number | null } | string {
  const open = ctx.documents.all().find((d) => ctx.fsPathOf(d.uri) === absPath || ctx.fsPathOf(d.uri) === verifiedReal);
  if (open) return { doc: open, version: open.version };
  const read = readRegularFile(verifiedReal);
  if (!read.ok) return `${absPath} ${read.reason}`;
  if (sha256Hex(read.bytes) !== baseSha256) return `${absPath} changed since the edit was planned; re-run the check`;
  const text = read.bytes.toString('utf8');
  // An unopened file's BOM is not a character in the editor's model: positions are computed without it.
  const shown = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  return { doc: TextDocument.create(pathToFileURL(verifiedReal).toString(), 'plaintext', 0, shown), version: null };
}

/** The plan's file changes as one WorkspaceEdit (documentChanges, in order), after the write-time safety re-check. */
export function toWorkspaceEdit(ctx: FeatureContext, changes: readonly FileChange[]): WorkspaceEdit | string {
  const verified = verifyWorkspaceEditTargets(ctx, changes);
  if (typeof verified === 'string') return verified;
  const uriOf = (p: string) => pathToFileURL(verified.get(p) ?? p).toString();
  const documentChanges: WorkspaceEdit['documentChanges'] = [];
  for (const c of changes) {
    switch (c.type) {
      case 'edit': {
        const target = editorTextOf(ctx, c.absPath, verified.get(c.absPath) ?? c.absPath, c.baseSha256);
        if (typeof target === 'string') return target;
        // Offsets count a disk BOM as U+FEFF at 0; the editor's text (open, or as built above) does not have it.
        const bomShift = c.diskBom && target.doc.getText().charCodeAt(0) !== 0xfeff ? 1 : 0;
        const edits: LspTextEdit[] = c.edits.map((e) => ({
          range: { start: target.doc.positionAt(e.start - bomShift), end: target.doc.positionAt(e.end - bomShift) },
          newText: e.newText,
        }));
        documentChanges.push(TextDocumentEdit.create({ uri: target.doc.uri, version: target.version }, edits));
        break;
      }
      case 'create': {
        const uri = uriOf(c.absPath);
        // CreateFile carries no content: the text follows as an edit of the new, empty file.
        documentChanges.push(CreateFile.create(uri, { overwrite: false, ignoreIfExists: false }));
        if (c.text) documentChanges.push(TextDocumentEdit.create({ uri, version: null }, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: c.text }]));
        break;
      }
      case 'delete':
        documentChanges.push(DeleteFile.create(uriOf(c.absPath), { recursive: false, ignoreIfNotExists: false }));
        break;
      case 'rename':
        documentChanges.push(RenameFile.create(uriOf(c.from), uriOf(c.to), { overwrite: false, ignoreIfExists: false }));
        break;
    }
  }
  return { documentChanges };
}

// ───────────── write-time safety re-check ─────────────

/**
 * Re-checks, at the moment the WorkspaceEdit is built, every path it will write: the real location (every
 * component resolved) inside the workspace folder holding it, outside every git directory, never through
 * a dangling symlink; creates and rename destinations must not exist (not even as a dangling symlink);
 * deleted and moved files must be regular files, not symlinks; nothing read-only, and no edit of a file with
 * several hard links (what the CLI's writer refuses). Returns each path's verified real path
 * (what the edit then addresses), or the first reason to send nothing at all.
 */
export function verifyWorkspaceEditTargets(ctx: FeatureContext, changes: readonly FileChange[]): Map<string, string> | string {
  const out = new Map<string, string>();
  const check = (absPath: string, opts: { mustNotExist?: boolean; followFinalSymlink?: boolean; replacesContent?: boolean }): string | undefined => {
    const root = ctx.workspaceRootOf(pathToFileURL(absPath).toString());
    const rootReal = root ? realRoot(root) : undefined;
    if (!rootReal) return `${absPath} is not inside a workspace folder; nothing applied`;
    const v = verifyWriteTarget(rootReal, absPath, opts);
    if (!v.ok) return `${v.reason}; nothing applied`;
    out.set(absPath, v.real);
    return undefined;
  };
  for (const c of changes) {
    const why =
      c.type === 'edit'
        ? check(c.absPath, { followFinalSymlink: true, replacesContent: true })
        : c.type === 'create'
          ? check(c.absPath, { mustNotExist: true })
          : c.type === 'delete'
            ? check(c.absPath, {})
            : (check(c.from, {}) ?? (isExecutableFile(c.from) ? `${c.from} is executable; an executable file is never moved; nothing applied` : undefined) ?? check(c.to, { mustNotExist: true }));
    if (why) return why;
  }
  return out;
}

function reportContext(ctx: FeatureContext, reportFsPath: string) {
  const doc = ctx.documents.all().find((d) => ctx.fsPathOf(d.uri) === reportFsPath);
  const uri = doc?.uri ?? pathToFileURL(reportFsPath).toString();
  const workspace = ctx.getWorkspaceReader(uri);
  let text: string | undefined = doc?.getText();
  if (text === undefined) {
    const read = readRegularText(reportFsPath);
    if (!read.ok) return undefined;
    text = read.text;
  }
  let report: unknown;
  try {
    report = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
  return workspace ? { report, workspace } : undefined;
}

/**
 * From the command palette the client sends the active editor and cursor: the entry whose object holds
 * the cursor is the one to apply (lenses pass `{ reportFsPath, entryIndex }` themselves).
 */
function entryAtCursor(ctx: FeatureContext, arg: unknown): ApplyEditArgs | undefined {
  const a = arg as { uri?: unknown; position?: { line: number; character: number } } | undefined;
  if (!a || typeof a.uri !== 'string' || !a.position) return undefined;
  const doc = ctx.documents.get(a.uri);
  const reportFsPath = ctx.fsPathOf(a.uri);
  if (!doc || !reportFsPath) return undefined;
  const path = getLocation(doc.getText(), doc.offsetAt(a.position)).path;
  if (path[0] !== 'entries' || typeof path[1] !== 'number') return undefined;
  return { reportFsPath, entryIndex: path[1], tier: 'confirm' };
}

/** Entries are shown to people counting from 1 ("Entry 1", "#1"); the data keeps 0-based indexes. */
const entryNumber = (entryIndex: number) => entryIndex + 1;

/** The text a planned change's offsets point into (open buffer first, else the file as the editor shows it). */
function textForPreview(ctx: FeatureContext, absPath: string): string | undefined {
  const open = ctx.documents.all().find((d) => ctx.fsPathOf(d.uri) === absPath);
  if (open) return open.getText();
  const read = readRegularText(absPath); // the disk text as planned (offsets count a BOM), regular files only
  return read.ok ? read.text : undefined;
}

// ───────────── entries applied in this session ─────────────

/** What one applied entry left: each written path's text right after (sha256, a BOM aside), or null for a path that went. */
type AppliedState = { absPath: string; sha: string | null }[];

/** The entries this server applied, per report path and entry index (an entry applied again replaces its state). */
const appliedEntries = onePerServer(() => new Map<string, Map<number, AppliedState>>());

const withoutBom = (t: string): string => (t.charCodeAt(0) === 0xfeff ? t.slice(1) : t);

/** A path's text now as the editor has it (open buffer first, else the disk); null when nothing is there; undefined when unreadable. */
function currentText(ctx: FeatureContext, absPath: string): string | null | undefined {
  const open = ctx.documents.all().find((d) => ctx.fsPathOf(d.uri) === absPath);
  if (open) return open.getText();
  const read = readRegularText(absPath);
  if (read.ok) return read.text;
  return read.code === 'missing' ? null : undefined;
}

/** What the planned changes will leave behind, read before they are applied (undefined when a base text cannot be read). */
function stateAfter(ctx: FeatureContext, changes: readonly FileChange[]): AppliedState | undefined {
  const out: AppliedState = [];
  for (const c of changes) {
    if (c.type === 'edit') {
      const now = currentText(ctx, c.absPath);
      if (typeof now !== 'string') return undefined;
      // The offsets count a disk BOM; an open buffer has none.
      let text = c.diskBom && now.charCodeAt(0) !== 0xfeff ? '\ufeff' + now : now;
      for (const e of [...c.edits].sort((a, b) => b.start - a.start)) text = text.slice(0, e.start) + e.newText + text.slice(e.end);
      out.push({ absPath: c.absPath, sha: sha256Hex(withoutBom(text)) });
    } else if (c.type === 'create') out.push({ absPath: c.absPath, sha: sha256Hex(withoutBom(c.text ?? '')) });
    else if (c.type === 'delete') out.push({ absPath: c.absPath, sha: null });
    else {
      const moved = currentText(ctx, c.from);
      if (typeof moved !== 'string') return undefined;
      out.push({ absPath: c.from, sha: null }, { absPath: c.to, sha: sha256Hex(withoutBom(moved)) });
    }
  }
  return out;
}

/** Whether every path an applied entry wrote still is as the entry left it. */
function stillApplied(ctx: FeatureContext, state: AppliedState): boolean {
  return state.every(({ absPath, sha }) => {
    const now = currentText(ctx, absPath);
    return now === undefined ? false : now === null ? sha === null : sha !== null && sha256Hex(withoutBom(now)) === sha;
  });
}

/** The entry of `reportFsPath` applied in this session whose result is still in place, if any. */
function appliedHere(ctx: FeatureContext, reportFsPath: string, entryIndex: number): boolean {
  const state = appliedEntries(ctx).get(reportFsPath)?.get(entryIndex);
  return state !== undefined && stillApplied(ctx, state);
}

function rememberApplied(ctx: FeatureContext, reportFsPath: string, entries: readonly { entryIndex: number; state: AppliedState | undefined }[]): void {
  const all = appliedEntries(ctx);
  let m = all.get(reportFsPath);
  if (!m) all.set(reportFsPath, (m = new Map()));
  for (const e of entries) {
    if (e.state) m.set(e.entryIndex, e.state);
    else m.delete(e.entryIndex);
  }
}

/** The confirm dialog of one entry: file, line range and a preview of what changes, and how to undo it. */
export function confirmParamsFor(ctx: FeatureContext, root: string | undefined, entryIndex: number, reason: string, kind: string | undefined, preview: PlanResult): ConfirmParams {
  const n = entryNumber(entryIndex);
  if (!preview.ok) {
    return { message: `Apply this ${kind ?? 'exact_edit'} (entry ${n} of the report)?`, detail: `${reason}

Entry ${n} of the report. It is applied as one change (Edit › Undo reverts it).`, confirmLabel: 'Apply', entry: n };
  }
  const files = previewChanges(preview.changes, root, (p) => textForPreview(ctx, p));
  const main = files[0];
  const where = main ? `${main.file} (${main.lines})` : 'the workspace';
  const blocks = files.map((f) => [`${f.file} — ${f.lines}: ${f.action}`, f.preview].filter(Boolean).join('\n'));
  return {
    message: `Apply ${preview.kind} to ${where}?`,
    detail: [`${reason}.`, `Entry ${n} of the report: ${preview.summary}.`, ...blocks, 'Applied as one change: Edit › Undo (Ctrl+Z / ⌘Z) reverts it.'].join('\n\n'),
    confirmLabel: 'Apply',
    entry: n,
    ...(main ? { file: main.file, lines: main.lines, preview: main.preview } : {}),
  };
}

/** Where to show what changed after an apply: the first edited file at its first touched line, else the created or renamed file. */
function revealTarget(changes: readonly FileChange[], root: string | undefined, ctx: FeatureContext): { uri: string; line: number; file: string } | undefined {
  const previews = previewChanges(changes, root, (p) => textForPreview(ctx, p));
  const order = ['edit', 'create', 'rename'] as const;
  for (const type of order) {
    const i = changes.findIndex((c) => c.type === type);
    if (i < 0) continue;
    const c = changes[i]!;
    const abs = c.type === 'rename' ? c.to : c.type === 'delete' ? undefined : c.absPath;
    if (!abs) continue;
    return { uri: pathToFileURL(abs).toString(), line: previews[i]?.revealLine ?? 0, file: displayPath(abs, root) };
  }
  return undefined;
}

export function reportCommands(ctx: FeatureContext, folders: CreatedFolders) {
  /** Applies the plan as one WorkspaceEdit; on success reveals what changed and says so (with `extra`, e.g. what was skipped). */
  async function applyChanges(changes: readonly FileChange[], label: string, done: string, root: string | undefined, extra = '', applied?: { reportFsPath: string; entries: readonly { entryIndex: number; changes: readonly FileChange[] }[] }): Promise<ApplyOutcome> {
    const edit = toWorkspaceEdit(ctx, changes);
    if (typeof edit === 'string') return { applied: false, message: edit };
    const created = root ? folders.before(changes, root) : [];
    // What each entry will leave, read before the edit: its lens then says "Applied" while that is still so.
    const states = applied?.entries.map((e) => ({ entryIndex: e.entryIndex, state: stateAfter(ctx, e.changes) }));
    const r = await ctx.applyEdit(label, edit);
    if (!r.applied) return { applied: false, message: `${label}: not applied${r.failureReason ? ` (${r.failureReason})` : ''}` };
    if (applied && states) rememberApplied(ctx, applied.reportFsPath, states);
    folders.after(created);
    const shown = revealTarget(changes, root, ctx);
    if (shown) await revealChange(ctx, shown.uri, shown.line);
    const undo = `Undo: Edit › Undo (Ctrl+Z / ⌘Z)${shown ? ` in ${shown.file}` : ''} reverts the whole change.`;
    showMessage(ctx, { type: MessageType.Info, message: `ToonLens: ${done}. ${undo}${extra}` });
    return { applied: true, message: `${done}. ${undo}${extra}` };
  }

  return {
    async [COMMANDS.applyEdit](args: unknown[]): Promise<ApplyOutcome> {
      const a = (entryAtCursor(ctx, args[0]) ?? args[0]) as ApplyEditArgs | undefined;
      if (!a || typeof a.reportFsPath !== 'string' || typeof a.entryIndex !== 'number') return { applied: false, message: 'put the cursor inside a report entry, or use its lens' };
      if (!ctx.isTrusted()) return { applied: false, message: 'Not applied in restricted mode: trust the workspace to apply report edits.' };
      const rc = reportContext(ctx, a.reportFsPath);
      if (!rc) return { applied: false, message: 'the report is not readable JSON inside a workspace folder' };
      const opts = { trusted: true, reportFsPath: a.reportFsPath };
      const root = rc.workspace.root;
      let plan = planExactEdit(rc.report, a.entryIndex, rc.workspace, { ...opts, tierAllowed: 'auto' });
      if (!plan.ok && (plan.needsConfirmation || plan.code === 'tier')) {
        // What it would do once confirmed: the dialog shows that (file, lines, preview); it is planned again after the answer.
        const preview = planExactEdit(rc.report, a.entryIndex, rc.workspace, { ...opts, tierAllowed: 'all', confirmed: true });
        const ok = await ctx.confirm(confirmParamsFor(ctx, root, a.entryIndex, plan.reason, plan.kind, preview));
        if (!ok) return { applied: false, message: 'cancelled' };
        plan = planExactEdit(rc.report, a.entryIndex, rc.workspace, { ...opts, tierAllowed: 'all', confirmed: true });
      }
      if (!plan.ok) {
        showMessage(ctx, { type: MessageType.Warning, message: `ToonLens: entry ${entryNumber(a.entryIndex)} not applied — ${plan.reason}` });
        return { applied: false, message: plan.reason };
      }
      const what = `entry ${entryNumber(a.entryIndex)}: ${plan.summary}`;
      return applyChanges(plan.changes, `ToonLens: ${what}`, `Applied ${what}`, root, '', { reportFsPath: a.reportFsPath, entries: [{ entryIndex: a.entryIndex, changes: plan.changes }] });
    },

    async [COMMANDS.applyAllAuto](args: unknown[]): Promise<ApplyOutcome> {
      const a = args[0] as { uri?: string; reportFsPath?: string } | undefined;
      const reportFsPath = a?.reportFsPath ?? (a?.uri ? ctx.fsPathOf(a.uri) : undefined);
      if (!reportFsPath) return { applied: false, message: 'no report given' };
      if (!ctx.isTrusted()) return { applied: false, message: 'Not applied in restricted mode: trust the workspace to apply report edits.' };
      const rc = reportContext(ctx, reportFsPath);
      if (!rc) return { applied: false, message: 'the report is not readable JSON inside a workspace folder' };
      const batch = planApplyAllAuto(rc.report, rc.workspace, reportFsPath, true);
      const skipped = batch.skipped.map((s) => ({ entryIndex: s.entryIndex, entry: entryNumber(s.entryIndex), reason: s.reason }));
      const skippedText = skipped.length ? ` Skipped ${skipped.length}: ${skipped.map((s) => `#${s.entry}/#${batch.applied.length + skipped.length} ${s.reason}`).join('; ')}` : '';
      if (batch.changes.length === 0) {
        const message = `No auto-tier edit to apply.${skippedText}`;
        showMessage(ctx, { type: MessageType.Info, message: `ToonLens: ${message}` });
        return { applied: false, message, skipped };
      }
      const count = batch.applied.length;
      const edits = `${count} auto-tier edit${count === 1 ? '' : 's'}`;
      const out = await applyChanges(batch.changes, `ToonLens: apply ${edits}`, `Applied ${edits}`, rc.workspace.root, skippedText, { reportFsPath, entries: batch.applied });
      if (!out.applied) showMessage(ctx, { type: MessageType.Warning, message: `ToonLens: ${out.message}${skippedText}` });
      return { ...out, message: out.applied ? out.message : `${out.message}${skippedText}`, skipped };
    },
  };
}

/** Opens (or reveals) the changed file at the changed line, when the client can show documents. */
async function revealChange(ctx: FeatureContext, uri: string, line: number): Promise<void> {
  if (!ctx.clientCapabilities.window?.showDocument?.support) return;
  const at = { line, character: 0 };
  try {
    await ctx.showDocument({ uri, takeFocus: true, selection: { start: at, end: at } });
  } catch (err) {
    ctx.log.warn(`showDocument failed for ${uri}: ${errorMessage(err)}`);
  }
}

/**
 * Folders created for a CreateFile/RenameFile of an applied edit. Editors create a missing parent folder
 * but Undo only removes the file: once a file we created is reported deleted (a watched-file event),
 * the folders made for it are removed again while empty (never recursively), so no empty `docs/archive/`
 * is left behind.
 */
export class CreatedFolders {
  private readonly byFile = new Map<string, string[]>();

  constructor(private readonly log: (m: string) => void) {}

  /** Before applying: the missing folders of each created or renamed-to file. */
  before(changes: readonly FileChange[], root: string): { file: string; dirs: string[] }[] {
    return changes.flatMap((c) => {
      const file = c.type === 'create' ? c.absPath : c.type === 'rename' ? c.to : undefined;
      const dirs = file ? missingFolders(file, root) : [];
      return file && dirs.length ? [{ file, dirs }] : [];
    });
  }

  /** After the client applied the edit: remember the folders it was to create (only empty ones are ever removed). */
  after(created: readonly { file: string; dirs: string[] }[]): void {
    for (const c of created) this.byFile.set(c.file, c.dirs);
  }

  /** A file was deleted (or moved back by an undo): its folders go when empty. */
  deleted(absPath: string): void {
    const dirs = this.byFile.get(absPath);
    if (!dirs || pathExists(absPath)) return;
    this.byFile.delete(absPath);
    const removed = removeEmptyFolders(dirs);
    if (removed.length) this.log(`removed ${removed.length} empty folder(s) created for ${absPath}: ${removed.join(', ')}`);
  }
}

/** A report version's lenses, planned once: what a codeLens request answers, and what resolve fills in. */
export interface ReportLensSet {
  /** Names this set in the `data` of its unresolved lenses (features/lensResolve.ts). */
  id: number;
  uri: string;
  version: number;
  /** Every lens with its command. */
  full: CodeLens[];
  /** The answer to `textDocument/codeLens`, the same array for every request of this version: `full`, or unresolved lenses. */
  sent: CodeLens[];
  /** What the lenses show (lines, titles, commands), to tell whether a refresh would change anything. */
  signature: string;
}

/** What a lens set counts, for the test-only counters command. */
interface LensCounters {
  /** Lens plans (a report's lenses computed). */
  computations: number;
  /** Lens sets built (answers serialized into their sent form and signature). */
  builds: number;
  /** codeLens/resolve answers. */
  resolves: number;
}

/**
 * A report's lenses for the document's current version, computed once per (version, settings, trust) and kept
 * with the analyzer's check (dropped with it: an edit, another open document or a watched file changing, a
 * close), together with the answer a request gets and its signature, so a later request for the same version
 * builds nothing. A large report is checked and its lenses planned on the JSON worker thread.
 */
async function reportLensesFor(ctx: FeatureContext, analyzer: JsonAnalyzer, current: TextDocument, settings: ToonLensSettings, counters: LensCounters): Promise<ReportLensSet | undefined> {
  const checked = await analyzer.analyzeAsync(current, settings);
  if (checked.kind !== 'report' || current.version !== ctx.documents.get(current.uri)?.version) return undefined;
  const version = current.version;
  return analyzer.derived(current, settings, `report-lenses:${ctx.isTrusted()}`, async (result) => {
    const full = await planReportLenses(ctx, analyzer, current, result, counters);
    counters.builds++;
    // Many lenses: ranges now, each title and command when its lens is shown (features/lensResolve.ts).
    const { id, lenses } = full.length > RESOLVE_LENSES_ABOVE ? UnresolvedLensSets.unresolved(REPORT_LENS_TAG, full.map((l) => l.range)) : { id: 0, lenses: full };
    return { id, uri: current.uri, version, full, sent: lenses, signature: lensSignature(full) };
  });
}

/** Plans a report's lenses: on the JSON worker for a large report, else (or when the worker is gone) in-thread. */
async function planReportLenses(ctx: FeatureContext, analyzer: JsonAnalyzer, current: TextDocument, result: CheckResult, counters: LensCounters): Promise<CodeLens[]> {
  counters.computations++;
  const fsPath = ctx.fsPathOf(current.uri);
  const workspace = analyzer.workerWorkspace(current.uri);
  if (fsPath && workspace && current.getText().length > OFF_THREAD_MIN_CHARS) {
    const version = current.version;
    const reply = await serverWork.track(analyzer.worker.run({ op: 'lenses', text: current.getText(), fsPath, workspace }, () => ctx.documents.get(current.uri)?.version === version, analyzer.progressHooks(current.uri, 'planning lenses of')));
    if (reply?.ok && reply.lenses) return toCodeLenses(ctx, current, reply.lenses, fsPath);
    if (reply && !reply.ok) ctx.log.error(`JSON worker failed planning lenses for ${current.uri}: ${reply.error}`);
    if (ctx.documents.get(current.uri)?.version !== version) return [];
  }
  return ctx.guard('report lenses', current.uri, () => reportCodeLenses(ctx, current, result), []);
}

/** The lenses of a report document's check result, planned in-thread (none for other kinds). */
function reportCodeLenses(ctx: FeatureContext, current: TextDocument, result: CheckResult): CodeLens[] {
  const fsPath = ctx.fsPathOf(current.uri);
  const workspace = ctx.getWorkspaceReader(current.uri);
  if (result.kind !== 'report' || result.value === undefined || !fsPath || !workspace) return [];
  return toCodeLenses(ctx, current, locatedReportLenses(current.getText(), result.value, workspace, ctx.isTrusted(), fsPath), fsPath);
}

/**
 * Located report lenses as LSP code lenses, each with its tooltip, and "Apply all N auto-tier edits" on top when
 * N > 1. An entry this session applied, whose files are still as it left them, says "Applied" (its target no
 * longer has the planned bytes, which would otherwise read as stale).
 */
function toCodeLenses(ctx: FeatureContext, current: TextDocument, located: readonly LocatedReportLens[], fsPath: string): CodeLens[] {
  if (located.length === 0) return [];
  const out: CodeLens[] = located.map(({ lens: l, offset }) => {
    const pos = current.positionAt(offset);
    const range = { start: pos, end: pos };
    if (l.command) return { range, command: { title: l.title, tooltip: l.tooltip, command: l.command.id, arguments: l.command.args } };
    if (ctx.isTrusted() && appliedHere(ctx, fsPath, l.entryIndex)) {
      const tooltip = `Entry ${entryNumber(l.entryIndex)} was applied in this session and ${l.file} still holds the change: Edit › Undo there reverts it. Re-run the check for a fresh report.`;
      return { range, command: { title: `Applied — ${l.file}`, tooltip, command: '', arguments: [] } };
    }
    // (A lens command's tooltip is kept by VS Code only with arguments.)
    return { range, command: { title: l.title, tooltip: l.tooltip, command: '', arguments: [] } };
  });
  const auto = located.filter(({ lens: l }) => l.command && l.command.args[0].tier === 'auto').length;
  if (auto > 1) {
    const top = { line: 0, character: 0 };
    out.unshift({ range: { start: top, end: top }, command: { title: `Apply all ${auto} auto-tier edits`, tooltip: `Apply the ${auto} auto-tier entries of this report as one change (Edit › Undo reverts it); entries that are stale or need confirmation are skipped, and the message says why.`, command: COMMANDS.applyAllAuto, arguments: [{ uri: current.uri, reportFsPath: fsPath }] } });
  }
  return out;
}

const lensSignature = (lenses: readonly CodeLens[]) => JSON.stringify(lenses.map((l) => [l.range.start.line, l.command?.title, l.command?.command]));

/**
 * Keeps report lenses in step with their targets. A client re-requests a document's lenses only when that
 * document changes, so a report whose target changed (an open buffer, or the disk) kept saying "Apply"
 * while its stale-edit diagnostic was already there. After any other document or watched file changes
 * (debounced like the diagnostics), every report whose lenses were served is planned again, and when
 * what it would show differs, the client is asked to refresh (`workspace/codeLens/refresh`).
 */
function keepReportLensesFresh(ctx: FeatureContext, served: Map<string, string>, lensesOf: (doc: TextDocument) => Promise<ReportLensSet | undefined>): { onDidChangeWatchedFiles(): void; dispose(): void } {
  let timer: NodeJS.Timeout | undefined;
  let endPending: (() => void) | undefined;
  const check = async () => {
    timer = undefined;
    let changed = false;
    for (const [uri, signature] of [...served]) {
      const doc = ctx.documents.get(uri);
      if (!doc) {
        served.delete(uri);
        continue;
      }
      const now = (await lensesOf(doc))?.signature ?? '[]';
      if (now !== signature) {
        served.set(uri, now);
        changed = true;
      }
    }
    if (changed) ctx.refreshCodeLenses();
  };
  const schedule = () => {
    if (served.size === 0) return;
    if (timer) clearTimeout(timer);
    endPending?.();
    const end = (endPending = serverWork.begin());
    timer = setTimeout(
      () =>
        void check()
          .catch((err: unknown) => ctx.log.error(`report lens refresh failed: ${errorMessage(err)}`))
          .finally(end),
      CHANGE_DELAY_MS,
    );
  };
  ctx.documents.onDidChangeContent((e) => {
    if (!served.has(e.document.uri)) schedule(); // a report's own edit: the client asks for its lenses itself
  });
  ctx.documents.onDidClose((e) => {
    if (served.delete(e.document.uri)) return;
    schedule();
  });
  return {
    onDidChangeWatchedFiles: schedule,
    dispose: () => {
      if (timer) clearTimeout(timer);
      endPending?.();
    },
  };
}

export const reportEditsFeature: FeatureModule = {
  name: 'report-edits',
  create(ctx) {
    const analyzer = jsonAnalyzer(ctx);
    const served = new Map<string, string>();
    /** The lens set last sent unresolved per report, for codeLens/resolve. */
    const sentSets = new UnresolvedLensSets<ReportLensSet>(REPORT_LENS_TAG, (set, i) => set.full[i]?.command, 'Report changed: updating lenses…');
    const counters: LensCounters = { computations: 0, builds: 0, resolves: 0 };
    ctx.exposeTestCounter('reportLensComputations', () => counters.computations);
    ctx.exposeTestCounter('reportLensCounters', () => ({ ...counters }));
    const lensesOf = async (doc: TextDocument): Promise<ReportLensSet | undefined> => {
      if (!isJsonDocument(doc)) return undefined;
      const settings = await ctx.settings.forDocument(doc.uri);
      const current = ctx.documents.get(doc.uri) ?? doc;
      return reportLensesFor(ctx, analyzer, current, settings, counters);
    };
    const fresh = keepReportLensesFresh(ctx, served, lensesOf);
    ctx.documents.onDidClose((e) => sentSets.forget(e.document.uri));
    const folders = new CreatedFolders((m) => ctx.log.info(m));
    const commands = reportCommands(ctx, folders);
    // An applied edit changes the files the lenses were planned against: check the open reports again.
    const forgetAfter = (name: keyof typeof commands) => {
      const run = commands[name];
      return async (args: unknown[]) => {
        const out = await run(args);
        if (!out.applied) return out;
        for (const d of ctx.documents.all()) {
          if (analyzer.lastKind(d.uri) !== 'report') continue;
          analyzer.forget(d.uri);
          ctx.refreshDiagnostics(d.uri); // checked again, so it is known as a report for later refreshes
        }
        return out;
      };
    };
    return {
      commands: {
        ...commands,
        [COMMANDS.applyEdit]: forgetAfter(COMMANDS.applyEdit),
        [COMMANDS.applyAllAuto]: forgetAfter(COMMANDS.applyAllAuto),
      },
      async codeLenses(doc, _params, token) {
        if (!isJsonDocument(doc)) return [];
        // A request waiting on the worker: $/cancelRequest answers RequestCancelled at once, a new
        // version meanwhile ContentModified (the client asks again).
        const version = doc.version;
        const set = await untilCancelled(lensesOf(doc), token);
        if (ctx.documents.get(doc.uri)?.version !== version) throw contentModified();
        if (!set || set.full.length === 0) {
          served.delete(doc.uri);
          sentSets.forget(doc.uri);
          return [];
        }
        served.set(doc.uri, set.signature);
        if (set.sent === set.full) sentSets.forget(doc.uri);
        else sentSets.remember(doc.uri, set.id, set);
        return set.sent;
      },
      resolveCodeLens(lens) {
        const out = sentSets.resolve(lens);
        if (out) counters.resolves++;
        return out;
      },
      onDidChangeWatchedFiles(changes) {
        fresh.onDidChangeWatchedFiles();
        for (const c of changes) {
          if (c.type !== FileChangeType.Deleted) continue;
          const p = ctx.fsPathOf(c.uri);
          if (p) folders.deleted(p);
        }
      },
      dispose: fresh.dispose,
    };
  },
};

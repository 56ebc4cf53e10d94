/**
 * "ToonLens: Check Workspace": every agent JSON and markdown file of the workspace folders, open or not,
 * checked by the same diagnostic providers as an open document, into the Problems panel.
 *
 * - Files: `.json`, `.md`, `.markdown`, `.mdc` (an unrelated JSON file gets no diagnostics, as in the
 *   editor); regular files only (no symlink is followed); `node_modules`, `.git`, `.hg`, `.svn` never
 *   entered; at most {@link MAX_FILES} files and {@link MAX_ENTRIES} directory entries per run; files
 *   over `toonlens.maxFileSizeMB` are counted, not read.
 * - Progress: on the client's own token when the request carries one (`workDoneToken`: VS Code's client shows
 *   it as a notification whose Cancel cancels the request), else `window/workDoneProgress/create` + `$/progress`
 *   (begin, report with percentage, end), cancellable from the client; cancelling (the request or the progress,
 *   or running the command again) stops the run between files.
 * - Problems: published for files that are not open (an open file keeps its live diagnostics). When such a
 *   file is opened, its live diagnostics replace them; when it is closed again, or changes on disk, it is
 *   checked again from disk; deleted, its problems are cleared. A new run clears files that became clean.
 */
import { TextDocument } from 'vscode-languageserver-textdocument';
import { FileChangeType, MessageType, type CancellationToken, type Diagnostic, type WorkDoneProgressReporter } from 'vscode-languageserver/node';
import { pathToFileURL } from 'node:url';
import * as nodePath from 'node:path';
import { decodeUtf8 } from '../../core/agentJson/report/text';
import { workspaceFiles } from '../../node/workspaceFiles';
import type { FeatureModule } from '../../lsp/feature';
import { jsonAnalyzer } from '../json/documents';
import { markdownPlans } from '../markdown/plans';
import { COMMANDS } from '../../protocol/commands';
import { serverWork } from '../../lsp/idle';
import { fileRole } from '../../core/files';

/** At most this many files are checked per run. */
export const MAX_FILES = 5000;
/** At most this many directory entries are visited per run. */
export const MAX_ENTRIES = 200_000;
/** How often progress is reported, at most. */
const REPORT_EVERY_MS = 100;


/** What the command answers (and says in a message). */
export interface WorkspaceCheckOutcome {
  checked: number;
  /** Files found to check (bounded by MAX_FILES). */
  files: number;
  /** Files with at least one problem, and the problems. */
  filesWithProblems: number;
  problems: number;
  /** Skipped: open in the editor (live diagnostics), over the size limit, unreadable. */
  skippedOpen: number;
  skippedTooLarge: number;
  truncated: boolean;
  cancelled: boolean;
  message: string;
}

/** The language id a file from disk is checked as (what an editor would open it as). */
const languageOf = (p: string): string => {
  const role = fileRole(p);
  return role === 'markdown' ? 'markdown' : role === 'toon' ? 'toon' : 'json';
};

export const workspaceCheckFeature: FeatureModule = {
  name: 'workspace-check',
  create(ctx) {
    /** URIs whose problems this feature published (files not open when checked). */
    const published = new Set<string>();
    let running: { cancel(): void } | undefined;

    const isOpen = (uri: string) => ctx.documents.get(uri) !== undefined;

    /** Checks one file from disk; undefined when it was not read (too large, unreadable, not UTF-8). */
    async function checkFile(absPath: string): Promise<{ uri: string; diagnostics: Diagnostic[] | undefined } | 'too-large' | undefined> {
      const uri = pathToFileURL(absPath).toString();
      const reader = ctx.getWorkspaceReader(uri);
      if (!reader) return undefined;
      // The folder's settings (one pull per folder) with this file's .toonlens.json merged in.
      const settings = await ctx.settings.forFileInScope(uri, pathToFileURL(reader.root ?? nodePath.dirname(absPath)).toString());
      const bytes = reader.readFile(absPath);
      if (!bytes) return undefined;
      if (bytes.length > settings.maxFileSizeMB * 1024 * 1024) return 'too-large';
      const text = decodeUtf8(bytes);
      if (text === undefined) return undefined;
      const doc = TextDocument.create(uri, languageOf(absPath), 0, text);
      try {
        return { uri, diagnostics: await ctx.diagnose(doc, settings) };
      } finally {
        // Nothing of an unopened file stays in the open-document caches.
        jsonAnalyzer(ctx).forget(uri);
        markdownPlans(ctx).forget(uri);
      }
    }

    function publish(uri: string, diagnostics: Diagnostic[]): void {
      if (diagnostics.length > 0) published.add(uri);
      else published.delete(uri);
      ctx.publishDiagnostics(uri, diagnostics);
    }

    /** Re-checks one previously published, unopened file from disk (after a close or a change). */
    async function recheck(uri: string): Promise<void> {
      const abs = ctx.fsPathOf(uri);
      if (!abs || isOpen(uri)) return;
      const r = await checkFile(abs);
      if (isOpen(uri)) return;
      publish(uri, r && r !== 'too-large' ? (r.diagnostics ?? []) : []);
    }

    async function run(token: CancellationToken, attached?: WorkDoneProgressReporter): Promise<WorkspaceCheckOutcome> {
      running?.cancel();
      let stop = false;
      const self = { cancel: () => (stop = true) };
      running = self;
      // The client's own progress (VS Code: a notification whose Cancel cancels the request), else one the server creates.
      const own = attached ? undefined : await ctx.createWorkDoneProgress();
      const progress: WorkDoneProgressReporter = attached ?? own!;
      const cancelled = () => stop || token.isCancellationRequested || own?.token.isCancellationRequested === true;
      progress.begin('ToonLens: Check Workspace', 0, 'Finding files…', true);
      const outcome: WorkspaceCheckOutcome = { checked: 0, files: 0, filesWithProblems: 0, problems: 0, skippedOpen: 0, skippedTooLarge: 0, truncated: false, cancelled: false, message: '' };
      try {
        const files: string[] = [];
        for (const root of ctx.workspaceRoots()) {
          const walk = await workspaceFiles(root, { wanted: (rel) => fileRole(rel) !== undefined, maxFiles: MAX_FILES - files.length, maxEntries: MAX_ENTRIES, cancelled });
          files.push(...walk.files);
          outcome.truncated ||= walk.truncated;
          if (walk.cancelled) break;
        }
        outcome.files = files.length;
        const seen = new Set<string>();
        let lastReport = Date.now();
        for (const abs of files) {
          if (cancelled()) break;
          const uri = pathToFileURL(abs).toString();
          seen.add(uri);
          if (isOpen(uri)) {
            outcome.skippedOpen++;
            continue;
          }
          const r = await checkFile(abs);
          if (r === 'too-large') outcome.skippedTooLarge++;
          else if (r && !isOpen(uri) && (r.diagnostics !== undefined || published.has(uri))) {
            const ds = r.diagnostics ?? [];
            if (ds.length > 0 || published.has(uri)) publish(uri, ds);
            if (ds.length > 0) {
              outcome.filesWithProblems++;
              outcome.problems += ds.length;
            }
          }
          outcome.checked++;
          if (Date.now() - lastReport >= REPORT_EVERY_MS || outcome.checked === 1) {
            lastReport = Date.now();
            progress.report(Math.floor((outcome.checked * 100) / files.length), `${outcome.checked}/${files.length} files · ${outcome.problems} problems`);
          }
          // Let cancellation, edits and other requests in between files.
          await new Promise((resolve) => setImmediate(resolve));
        }
        outcome.cancelled = cancelled();
        // A complete run: files published before that are gone now lose their problems.
        if (!outcome.cancelled && !outcome.truncated) {
          for (const uri of [...published]) if (!seen.has(uri) && !isOpen(uri)) publish(uri, []);
        }
      } finally {
        progress.done();
        if (running === self) running = undefined;
      }
      const found = `${outcome.problems} problem${outcome.problems === 1 ? '' : 's'} in ${outcome.filesWithProblems} file${outcome.filesWithProblems === 1 ? '' : 's'}`;
      const extra = [
        outcome.skippedOpen ? `${outcome.skippedOpen} open in the editor (checked live)` : '',
        outcome.skippedTooLarge ? `${outcome.skippedTooLarge} over toonlens.maxFileSizeMB (not checked)` : '',
        outcome.truncated ? `stopped at the limit of ${MAX_FILES} files / ${MAX_ENTRIES} entries` : '',
      ].filter(Boolean);
      outcome.message = outcome.cancelled
        ? `Check Workspace cancelled after ${outcome.checked} of ${outcome.files} files: ${found} so far.`
        : `Checked ${outcome.checked} file${outcome.checked === 1 ? '' : 's'}: ${found}.${extra.length ? ` ${extra.join('; ')}.` : ''}`;
      ctx.showMessage(MessageType.Info, `ToonLens: ${outcome.message}`);
      return outcome;
    }

    // Closing a checked file: the disk counts again (the scheduler has just cleared its live diagnostics).
    ctx.documents.onDidClose((e) => {
      if (published.has(e.document.uri)) void serverWork.track(recheck(e.document.uri)).catch((err: unknown) => ctx.log.error(`workspace check: ${String(err)}`));
    });

    return {
      commands: {
        [COMMANDS.checkWorkspace]: (_args, token, workDone) => run(token, workDone),
      },
      onDidChangeWatchedFiles(changes) {
        for (const c of changes) {
          if (!published.has(c.uri) || isOpen(c.uri)) continue;
          if (c.type === FileChangeType.Deleted) publish(c.uri, []);
          else void serverWork.track(recheck(c.uri)).catch((err: unknown) => ctx.log.error(`workspace check: ${String(err)}`));
        }
      },
      dispose() {
        running?.cancel();
      },
    };
  },
};


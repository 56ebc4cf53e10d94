/**
 * Agent-JSON documents: which open documents are JSON, and their check result, computed at most once
 * per (document version, settings) and shared by diagnostics, code actions and hovers.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { checkDocument, type CheckOptions, type CheckResult } from '../core/check';
import type { WorkspaceReader } from '../core/types';
import type { FeatureContext, FeatureModule } from './feature';
import type { ToonLensSettings } from './settings';
import { toLspDiagnostic } from './diagnostics';

const JSON_LANGUAGES = new Set(['json', 'jsonc']);

/** JSON by language id, or by a `.json` path whatever the language id says. */
export function isJsonDocument(doc: TextDocument): boolean {
  if (JSON_LANGUAGES.has(doc.languageId)) return true;
  const path = doc.uri.replace(/[?#].*$/, '');
  return /\.json$/i.test(path);
}

interface Memo {
  version: number;
  settings: ToonLensSettings;
  workspace: WorkspaceReader | undefined;
  result: CheckResult;
}

/** Memoized `checkDocument` for the open documents of one server. */
export class JsonAnalyzer {
  private readonly memo = new Map<string, Memo>();

  constructor(private readonly ctx: FeatureContext) {}

  /** The options `checkDocument` (and `hoverAt`) get for this document. */
  optionsFor(doc: TextDocument, settings: ToonLensSettings): CheckOptions {
    return {
      fsPath: this.ctx.fsPathOf(doc.uri),
      settings: { documentKinds: settings.documentKinds, maxFileSizeMB: settings.maxFileSizeMB },
      workspace: this.ctx.getWorkspaceReader(doc.uri),
    };
  }

  /** The check result of the document's current version. */
  analyze(doc: TextDocument, settings: ToonLensSettings): CheckResult {
    const opts = this.optionsFor(doc, settings);
    const m = this.memo.get(doc.uri);
    if (m && m.version === doc.version && m.settings === settings && m.workspace === opts.workspace) return m.result;
    const result = checkDocument(doc.getText(), opts);
    this.memo.set(doc.uri, { version: doc.version, settings, workspace: opts.workspace, result });
    return result;
  }

  /** The kind found at the last check, if any. */
  lastKind(uri: string): CheckResult['kind'] {
    return this.memo.get(uri)?.result.kind;
  }

  /** Drops memoized results that may depend on other files (report targets) or on a closed document. */
  forget(uri?: string): void {
    if (uri === undefined) this.memo.clear();
    else this.memo.delete(uri);
  }
}

const analyzers = new WeakMap<FeatureContext, JsonAnalyzer>();

/** The one analyzer of a server (shared by the JSON features). */
export function jsonAnalyzer(ctx: FeatureContext): JsonAnalyzer {
  let a = analyzers.get(ctx);
  if (!a) {
    a = new JsonAnalyzer(ctx);
    analyzers.set(ctx, a);
  }
  return a;
}

/** Diagnostics for agent JSON; watched-file changes re-check open reports (their exact_edits point at other files). */
export const jsonDiagnosticsFeature: FeatureModule = {
  name: 'json-diagnostics',
  create(ctx) {
    const analyzer = jsonAnalyzer(ctx);

    // A report's exact_edits read their targets from open buffers first: an edit to another open
    // document may make a report's stale-edit findings right or wrong.
    const refreshReportsExcept = (uri: string) => {
      const reports = ctx.documents.all().filter((d) => d.uri !== uri && analyzer.lastKind(d.uri) === 'report');
      if (reports.length === 0) return;
      for (const d of reports) analyzer.forget(d.uri);
      ctx.refreshDiagnostics(undefined, (d) => reports.includes(d));
    };
    ctx.documents.onDidChangeContent((e) => refreshReportsExcept(e.document.uri));
    // Closing a buffer makes the disk authoritative again (unsaved edits are gone).
    ctx.documents.onDidClose((e) => {
      analyzer.forget(e.document.uri);
      refreshReportsExcept(e.document.uri);
    });
    return {
      diagnostics: {
        appliesTo: isJsonDocument,
        provide(doc, settings) {
          return analyzer.analyze(doc, settings).diagnostics.map((d) => toLspDiagnostic(doc, d));
        },
      },
      onDidChangeWatchedFiles() {
        refreshReportsExcept('');
      },
    };
  },
};

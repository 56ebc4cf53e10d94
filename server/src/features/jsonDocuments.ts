/**
 * Agent-JSON documents: which open documents are JSON, and their check result, computed at most once
 * per (document version, settings) and shared by diagnostics, code actions and hovers.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { checkDocument, type CheckOptions, type CheckResult } from '../core/check';
import type { WorkspaceReader } from '../core/types';
import { onePerServer, type FeatureContext, type FeatureModule } from './feature';
import type { ToonLensSettings } from './settings';
import { toLspDiagnostic } from './diagnostics';
import type { KnownDocument } from '../core/hover';
import { TokenIndex } from '../core/json/locate';

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
  /** For a large document: kind and diagnostics only (no `value`, no `text`). */
  result: CheckResult;
  /** Whether `JSON.parse` accepted the text (the result had a value), so it can be parsed again on demand. */
  parsed: boolean;
  /** Hover scan checkpoints for this version, built by the first hover. */
  checkpoints?: TokenIndex;
}

/**
 * Documents over this many characters keep only their kind and diagnostics between requests: the parsed
 * value (≈ 0.8× the text in heap) is parsed again when a hover or a lens needs it, and then kept only
 * for {@link VALUE_TTL_MS}.
 */
export const RETAIN_VALUE_MAX_CHARS = 2 * 1024 * 1024;
/** How long a value parsed on demand for a large document stays cached (hovers come in bursts). */
export const VALUE_TTL_MS = 10_000;

/** Memoized `checkDocument` for the open documents of one server. */
export class JsonAnalyzer {
  private readonly memo = new Map<string, Memo>();
  /** The one value parsed on demand for a large document, dropped after {@link VALUE_TTL_MS}. */
  private onDemand: { uri: string; version: number; value: unknown; timer: NodeJS.Timeout } | undefined;

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
    const m = this.current(doc, settings) ?? this.check(doc, settings);
    return m.result.value !== undefined || !m.parsed ? m.result : this.withLazyValue(doc, m.result);
  }

  /**
   * What the memoized check of the document's current version knows, without checking (undefined when
   * there is no such check yet, or its text was not JSON). `value()` may parse the text again (large documents).
   */
  known(doc: TextDocument, settings: ToonLensSettings): KnownDocument | undefined {
    const m = this.current(doc, settings);
    if (!m || !m.parsed) return undefined;
    const { result } = m;
    m.checkpoints ??= new TokenIndex();
    return { kind: result.kind, value: () => (result.value !== undefined ? result.value : this.valueOf(doc)), checkpoints: m.checkpoints };
  }

  private current(doc: TextDocument, settings: ToonLensSettings): Memo | undefined {
    const m = this.memo.get(doc.uri);
    if (m && m.version === doc.version && m.settings === settings && m.workspace === this.ctx.getWorkspaceReader(doc.uri)) return m;
    return undefined;
  }

  private check(doc: TextDocument, settings: ToonLensSettings): Memo {
    const opts = this.optionsFor(doc, settings);
    const text = doc.getText();
    const full = checkDocument(text, opts);
    const parsed = full.value !== undefined;
    // The memo never holds the text (the document does; an older version's text must not outlive it), and
    // for a large document not the parsed value either: only what was published.
    const result: CheckResult = text.length > RETAIN_VALUE_MAX_CHARS || !parsed ? { kind: full.kind, diagnostics: full.diagnostics } : { kind: full.kind, diagnostics: full.diagnostics, value: full.value };
    const m: Memo = { version: doc.version, settings, workspace: opts.workspace, result, parsed };
    this.memo.set(doc.uri, m);
    if (this.onDemand?.uri === doc.uri) this.dropOnDemand();
    return m;
  }

  /** A view of a large document's result whose `value` is parsed when (and only if) a caller reads it. */
  private withLazyValue(doc: TextDocument, result: CheckResult): CheckResult {
    const view: CheckResult = { kind: result.kind, diagnostics: result.diagnostics };
    Object.defineProperty(view, 'value', { enumerable: true, get: () => this.valueOf(doc) });
    return view;
  }

  /** The parsed value of a (large) document's current version, cached for {@link VALUE_TTL_MS}. */
  private valueOf(doc: TextDocument): unknown {
    const c = this.onDemand;
    if (c && c.uri === doc.uri && c.version === doc.version) {
      c.timer.refresh();
      return c.value;
    }
    const text = doc.getText();
    let value: unknown;
    try {
      value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    } catch {
      return undefined;
    }
    this.dropOnDemand();
    const timer = setTimeout(() => this.dropOnDemand(), VALUE_TTL_MS);
    timer.unref?.();
    this.onDemand = { uri: doc.uri, version: doc.version, value, timer };
    return value;
  }

  private dropOnDemand(): void {
    if (this.onDemand) clearTimeout(this.onDemand.timer);
    this.onDemand = undefined;
  }

  /** The kind found at the last check, if any. */
  lastKind(uri: string): CheckResult['kind'] {
    return this.memo.get(uri)?.result.kind;
  }

  /** The document has a new version: a value parsed on demand for an older one is garbage now. */
  changed(uri: string): void {
    if (this.onDemand?.uri === uri) this.dropOnDemand();
  }

  /** Drops memoized results that may depend on other files (report targets) or on a closed document. */
  forget(uri?: string): void {
    if (uri === undefined) this.memo.clear();
    else this.memo.delete(uri);
    if (uri === undefined || this.onDemand?.uri === uri) this.dropOnDemand();
  }
}

/** The one analyzer of a server (shared by the JSON features). */
export const jsonAnalyzer = onePerServer((ctx) => new JsonAnalyzer(ctx));

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
    ctx.documents.onDidChangeContent((e) => {
      analyzer.changed(e.document.uri);
      refreshReportsExcept(e.document.uri);
    });
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

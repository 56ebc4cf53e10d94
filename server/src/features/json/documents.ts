/**
 * Agent-JSON documents: which open documents are JSON, and their check result, computed at most once
 * per (document version, settings) and shared by diagnostics, code actions and hovers.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { checkDocument, type CheckOptions, type CheckResult } from '../../core/agentJson/check';
import { kindFromTextPrefix } from '../../core/agentJson/kinds';
import type { CoreDiagnostic, WorkspaceReader } from '../../core/types';
import type { Diagnostic } from 'vscode-languageserver/node';
import { onePerServer, type FeatureContext, type FeatureModule } from '../../lsp/feature';
import type { ToonLensSettings } from '../../lsp/settings';
import { toLspDiagnostic } from '../../lsp/diagnostics';
import type { KnownDocument } from '../../core/agentJson/hover';
import { TokenIndex } from '../../core/json/locate';
import { hintedPositions, type LineHints } from '../../core/lineIndex';
import { JsonWorkerClient, type JobHooks } from '../../node/jsonWorkerClient';
import { beginBackgroundProgress, shortName } from '../../lsp/progress';
import type { WorkerWorkspace } from '../../node/jsonWorkerProtocol';
import { serverWork } from '../../lsp/idle';
import { memoryMark } from '../../testing/memoryTrace';
import { collectGarbage, fullGcStats } from '../../node/fullGc';

/** Documents from this size on get marks in the test-only memory trace (node/memoryTrace.ts). */
const TRACE_CHARS = 1 << 20;

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
  /** What features derived from this check (e.g. a report's code lenses), dropped with the memo. */
  derived?: Map<string, unknown>;
}

/**
 * Documents over this many characters keep only their kind and diagnostics between requests: the parsed
 * value (≈ 0.8× the text in heap) is parsed again when a hover or a lens needs it, and then kept only
 * for {@link VALUE_TTL_MS}.
 */
export const RETAIN_VALUE_MAX_CHARS = 2 * 1024 * 1024;
/** How long a value parsed on demand for a large document stays cached (hovers come in bursts). */
export const VALUE_TTL_MS = 10_000;

/**
 * Reports over this many characters are checked (and their lenses planned) on the JSON worker thread when
 * it is available: their live rules resolve, hash and git-check every entry's target, seconds for a large
 * report, and the server keeps answering meanwhile.
 */
export const OFF_THREAD_MIN_CHARS = RETAIN_VALUE_MAX_CHARS;
/**
 * Any other kind goes off-thread only above this size: its check is JSON.parse plus in-memory rules (fast
 * enough in-thread even with many findings), and a worker would hold a second copy of the text
 * and of the parsed value, raising the server's peak memory by more than the file's size.
 */
export const OFF_THREAD_ANY_KIND_MIN_CHARS = 24 * 1024 * 1024;
/**
 * After an in-thread check of a document this large, one full collection before anything else runs: the
 * check leaves more garbage (its parse, ajv's errors, the locator's scan: more than the file's own size) than the rest of the heap holds, and the publish would otherwise stack on it; the collection is small beside the check.
 */
export const COLLECT_AFTER_CHECK_CHARS = 8 * 1024 * 1024;

/** Memoized `checkDocument` for the open documents of one server. */
export class JsonAnalyzer {
  private readonly memo = new Map<string, Memo>();
  /** The URIs whose memoized check found a report (so an edit elsewhere asks only them, not every open document). */
  private readonly reportUris = new Set<string>();
  /** Off-thread checks in flight, per document: shared by every caller asking for that version. */
  private readonly pending = new Map<string, { version: number; settings: ToonLensSettings; promise: Promise<CheckResult> }>();
  readonly worker: JsonWorkerClient;
  /** The one value parsed on demand for a large document, dropped after {@link VALUE_TTL_MS}. */
  private onDemand: { uri: string; version: number; value: unknown; timer: NodeJS.Timeout } | undefined;

  constructor(private readonly ctx: FeatureContext) {
    this.worker = new JsonWorkerClient(undefined, (m) => ctx.log.info(m));
  }

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
    let m = this.current(doc, settings);
    if (!m) {
      m = this.check(doc, settings);
      // Here, not in check(): its frame (which held the parsed value) is gone, so the collection frees it.
      if (doc.getText().length >= COLLECT_AFTER_CHECK_CHARS) {
        collectGarbage();
        memoryMark(`json: collected after the check (${fullGcStats.collections} collections, ${fullGcStats.ms.toFixed(1)} ms in all)`);
      }
    }
    return m.result.value !== undefined || !m.parsed ? m.result : this.withLazyValue(doc, m.result);
  }

  /**
   * The check result of the document's current version, computed on the worker thread for a large document
   * (in-thread when the worker is unavailable). A result for a version that was superseded while it waited
   * has no diagnostics: the newer version has its own run.
   */
  async analyzeAsync(doc: TextDocument, settings: ToonLensSettings): Promise<CheckResult> {
    if (this.current(doc, settings) || !this.offThread(doc, settings)) return this.analyze(doc, settings);
    const p = this.pending.get(doc.uri);
    if (p && p.version === doc.version && p.settings === settings) return p.promise;
    const promise = this.checkOffThread(doc, settings).finally(() => {
      if (this.pending.get(doc.uri)?.promise === promise) this.pending.delete(doc.uri);
    });
    this.pending.set(doc.uri, { version: doc.version, settings, promise });
    return promise;
  }

  /** Whether this document's check goes to the worker (see {@link OFF_THREAD_MIN_CHARS}). */
  offThread(doc: TextDocument, settings: ToonLensSettings): boolean {
    const text = doc.getText();
    if (text.length <= OFF_THREAD_MIN_CHARS || !this.worker.available) return false;
    // Only open documents: a job is dropped once its document's version is no longer the open one.
    if (this.ctx.documents.get(doc.uri)?.version !== doc.version) return false;
    if (text.length > OFF_THREAD_ANY_KIND_MIN_CHARS) return true;
    const opts = this.optionsFor(doc, settings);
    return kindFromTextPrefix(text, { fsPath: opts.fsPath, settings: opts.settings, root: opts.workspace?.root }) === 'report';
  }

  private async checkOffThread(doc: TextDocument, settings: ToonLensSettings): Promise<CheckResult> {
    const opts = this.optionsFor(doc, settings);
    const version = doc.version;
    memoryMark('json: worker job posted');
    const reply = await serverWork.track(
      this.worker.run(
        { op: 'check', text: doc.getText(), fsPath: opts.fsPath, settings: opts.settings, workspace: this.workerWorkspace(doc.uri) },
        () => this.ctx.documents.get(doc.uri)?.version === version,
        this.progressHooks(doc.uri, 'checking'),
      ),
    );
    memoryMark('json: worker replied');
    const live = this.ctx.documents.get(doc.uri);
    if (!live || live.version !== version) return { kind: this.lastKind(doc.uri), diagnostics: [] };
    if (!reply) return this.analyze(live, settings); // the worker is gone: in-thread
    if (!reply.ok || !reply.check) {
      this.ctx.log.error(`JSON worker failed for ${doc.uri}: ${reply.ok ? 'no result' : reply.error}`);
      return this.analyze(live, settings);
    }
    const result: CheckResult = { kind: reply.check.kind, diagnostics: reply.check.diagnostics, lineHints: reply.check.lineHints };
    const m: Memo = { version, settings, workspace: opts.workspace, result, parsed: reply.check.parsed };
    this.remember(doc.uri, m);
    if (this.onDemand?.uri === doc.uri) this.dropOnDemand();
    return this.analyze(live, settings);
  }

  /**
   * The hooks of a worker job for a document: past the worker's LONG_JOB_MS (a second) it shows `$/progress`
   * (`ToonLens: checking big.report.json`) until the job ends, is cancelled or fails.
   */
  progressHooks(uri: string, what: string): JobHooks {
    return {
      label: `${what} ${shortName(uri)}`,
      onLong: () => {
        const p = beginBackgroundProgress(this.ctx, `ToonLens: ${what} ${shortName(uri)}`, 'on the JSON worker');
        return () => p?.done();
      },
    };
  }

  /** The workspace view a worker job gets: the folder, trust, and the other open buffers (each within the buffer size limit). */
  workerWorkspace(uri: string): WorkerWorkspace | undefined {
    const root = this.ctx.getWorkspaceReader(uri)?.root;
    if (!root) return undefined;
    const openTexts: [string, string][] = [];
    for (const d of this.ctx.documents.all()) {
      const p = d.uri === uri ? undefined : this.ctx.fsPathOf(d.uri);
      if (p && d.getText().length <= RETAIN_VALUE_MAX_CHARS) openTexts.push([p, d.getText()]);
    }
    return { root, trusted: this.ctx.isTrusted(), openTexts };
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

  /**
   * A value derived from the check of the document's current version (a report's code lenses), computed
   * at most once per version, settings and `key`, and forgotten with the check (an edit, a change to another
   * open document or to a watched file, a close).
   */
  derived<T>(doc: TextDocument, settings: ToonLensSettings, key: string, compute: (result: CheckResult) => T): T {
    const result = this.analyze(doc, settings);
    const m = this.current(doc, settings);
    if (!m) return compute(result);
    m.derived ??= new Map();
    if (m.derived.has(key)) return m.derived.get(key) as T;
    const value = compute(result);
    m.derived.set(key, value);
    return value;
  }

  private current(doc: TextDocument, settings: ToonLensSettings): Memo | undefined {
    const m = this.memo.get(doc.uri);
    if (m && m.version === doc.version && m.settings === settings && m.workspace === this.ctx.getWorkspaceReader(doc.uri)) return m;
    return undefined;
  }

  private check(doc: TextDocument, settings: ToonLensSettings): Memo {
    const opts = this.optionsFor(doc, settings);
    const text = doc.getText();
    const traced = text.length >= TRACE_CHARS;
    if (traced) memoryMark('json: check start');
    const full = checkDocument(text, opts);
    if (traced) memoryMark('json: check done');
    const parsed = full.value !== undefined;
    // The memo never holds the text (the document does; an older version's text must not outlive it), and
    // for a large document not the parsed value either: only what was published.
    const result: CheckResult = { kind: full.kind, diagnostics: full.diagnostics, lineHints: full.lineHints };
    if (text.length <= RETAIN_VALUE_MAX_CHARS && parsed) result.value = full.value;
    const m: Memo = { version: doc.version, settings, workspace: opts.workspace, result, parsed };
    this.remember(doc.uri, m);
    if (this.onDemand?.uri === doc.uri) this.dropOnDemand();
    return m;
  }

  /** A view of a large document's result whose `value` is parsed when (and only if) a caller reads it. */
  private withLazyValue(doc: TextDocument, result: CheckResult): CheckResult {
    const view: CheckResult = { kind: result.kind, diagnostics: result.diagnostics, lineHints: result.lineHints };
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

  /** The kind the memoized check of the document's current version found (undefined: none, or not checked yet). */
  currentKind(doc: TextDocument, settings: ToonLensSettings): CheckResult['kind'] {
    return this.current(doc, settings)?.result.kind;
  }

  /** The kind found at the last check, if any. */
  lastKind(uri: string): CheckResult['kind'] {
    return this.memo.get(uri)?.result.kind;
  }

  /** The documents whose last check found a docs-hygiene report. */
  reports(): ReadonlySet<string> {
    return this.reportUris;
  }

  private remember(uri: string, m: Memo): void {
    this.memo.set(uri, m);
    if (m.result.kind === 'report') this.reportUris.add(uri);
    else this.reportUris.delete(uri);
  }

  /** The document has a new version: a value parsed on demand for an older one is garbage now. */
  changed(uri: string): void {
    if (this.onDemand?.uri === uri) this.dropOnDemand();
  }

  /** Drops memoized results that may depend on other files (report targets) or on a closed document. */
  forget(uri?: string): void {
    if (uri === undefined) {
      this.memo.clear();
      this.reportUris.clear();
    } else {
      this.memo.delete(uri);
      this.reportUris.delete(uri);
    }
    if (uri === undefined || this.onDemand?.uri === uri) this.dropOnDemand();
  }
}

/**
 * Core diagnostics as LSP diagnostics. Their positions come from the lines the check's locator counted
 * (`lineHints`), else from one sweep over the line breaks with the native indexOf, so a large document
 * never builds its whole line table (time and memory linear in its lines) just to publish its findings.
 * A BOM counts as a column of the first line (the text as the client sent it).
 */
export function lspDiagnostics(doc: TextDocument, diags: readonly CoreDiagnostic[], lineHints?: LineHints): Diagnostic[] {
  if (diags.length === 0) return [];
  const text = doc.getText();
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const inBody = hintedPositions(bom ? text.slice(1) : text, lineHints);
  const at = (offset: number) => {
    let o = Math.max(0, Math.min(offset, text.length));
    // Inside a "\r\n", TextDocument.positionAt answers the end of the line's text: so does this.
    if (text.charCodeAt(o) === 10 && text.charCodeAt(o - 1) === 13) o--;
    if (o < bom) return { line: 0, character: o };
    const p = inBody(o - bom);
    return p.line === 0 ? { line: 0, character: p.character + bom } : p;
  };
  return diags.map((d) => toLspDiagnostic(doc, d, { start: at(d.range.start), end: at(Math.max(d.range.start, d.range.end)) }));
}

/** The one analyzer of a server (shared by the JSON features). */
export const jsonAnalyzer = onePerServer((ctx) => new JsonAnalyzer(ctx));

/** Diagnostics for agent JSON; watched-file changes re-check open reports (their exact_edits point at other files). */
export const jsonDiagnosticsFeature: FeatureModule = {
  name: 'json-diagnostics',
  create(ctx) {
    const analyzer = jsonAnalyzer(ctx);
    ctx.exposeTestCounter('jsonWorkerCounters', () => ({ ...analyzer.worker.counters }));

    // A report's exact_edits read their targets from open buffers first: an edit to another open
    // document may make a report's stale-edit findings right or wrong.
    // Only the reports are visited (never every open document: thousands of them opened at once would make each
    // open cost as much as all the others).
    const refreshReportsExcept = (uri: string) => {
      if (analyzer.reports().size === 0) return;
      const reports = [...analyzer.reports()].filter((r) => r !== uri && ctx.documents.get(r) !== undefined);
      for (const r of reports) {
        analyzer.forget(r);
        ctx.refreshDiagnostics(r);
      }
    };
    // A new version or a close cancels the worker's job for the old one (the worker is stopped mid-check).
    ctx.documents.onDidChangeContent((e) => {
      analyzer.changed(e.document.uri);
      analyzer.worker.cancelUnwanted();
      refreshReportsExcept(e.document.uri);
    });
    // Closing a buffer makes the disk authoritative again (unsaved edits are gone).
    ctx.documents.onDidOpen((e) => {
      if (e.document.getText().length >= TRACE_CHARS) memoryMark('json: document opened');
    });
    ctx.documents.onDidClose((e) => {
      analyzer.forget(e.document.uri);
      analyzer.worker.cancelUnwanted();
      refreshReportsExcept(e.document.uri);
    });
    return {
      diagnostics: {
        appliesTo: isJsonDocument,
        provide(doc, settings) {
          return analyzer.analyzeAsync(doc, settings).then((r) => {
            const diagnostics = lspDiagnostics(doc, r.diagnostics, r.lineHints);
            if (doc.getText().length >= TRACE_CHARS) memoryMark('json: diagnostics mapped');
            return diagnostics;
          });
        },
      },
      onDidChangeWatchedFiles() {
        refreshReportsExcept('');
      },
      dispose() {
        analyzer.worker.dispose();
      },
    };
  },
};

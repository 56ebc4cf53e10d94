// A FeatureContext double: a feature's own create() runs in the test process, on real open documents (the
// server's TextDocuments) and real settings, and every request it makes of the client is recorded. For tests of
// what a feature maps core results to (hovers, actions, diagnostics); the protocol itself is tested through
// the spawned server (harness.ts).
import { CancellationToken, TextDocuments, type ClientCapabilities, type CodeAction, type Diagnostic, type Disposable, type Range, type WorkspaceEdit } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { FeatureContext, FeatureInstance, FeatureModule } from '../../server/src/lsp/feature';
import { SettingsStore } from '../../server/src/lsp/settings';
import { serverTextDocuments } from '../../server/src/lsp/textDocument';
import { fsPathOf } from '../../server/src/lsp/workspaceFolders';
import { createNodeWorkspace } from '../../server/src/node/workspace';
import { isInside } from '../../server/src/core/agentJson/report/paths';
import type { TestCounterName, TestCounterReader } from '../../server/src/testing/hooks';
import { errorMessage } from '../../server/src/core/errors';
import type { ToonLensInitializationOptions } from '../../server/src/protocol/commands';

export const NO_CANCEL = CancellationToken.None;

/** A feature's code actions for `range` with `diagnostics` in the request's context (`only` as a client sends it). */
export async function codeActionsOf(feature: FeatureInstance, doc: TextDocument, range: Range, diagnostics: Diagnostic[] = [], only?: string[]): Promise<CodeAction[]> {
  return ((await feature.codeActions!(doc, { textDocument: { uri: doc.uri }, range, context: { diagnostics, ...(only ? { only } : {}) } }, NO_CANCEL)) ?? []) as CodeAction[];
}

export interface ContextOptions {
  /** The client's toonlens settings (as the server would receive them in initializationOptions). */
  settings?: unknown;
  trusted?: boolean;
  /** Workspace folders (absolute paths). */
  roots?: string[];
  clientCapabilities?: ClientCapabilities;
  /** What a confirmation answers. */
  confirm?: boolean;
  /** What the client sends in `initialize` (`initializationOptions`). */
  initializationOptions?: ToonLensInitializationOptions;
}

type Handler = (event: unknown) => void;

/** The context, the documents the test opens, and what the features asked of the client. */
export class ContextDouble {
  readonly ctx: FeatureContext;
  readonly logs: { level: 'info' | 'warn' | 'error'; message: string }[] = [];
  readonly published = new Map<string, Diagnostic[]>();
  readonly applied: { label: string; edit: WorkspaceEdit }[] = [];
  readonly refreshed: (string | undefined)[] = [];
  readonly counters = new Map<TestCounterName, TestCounterReader>();
  private readonly handlers = new Map<string, Handler>();
  private readonly instances: FeatureInstance[] = [];

  constructor(options: ContextOptions = {}) {
    const documents = new TextDocuments<TextDocument>(serverTextDocuments);
    const on = (name: string) => (h: Handler): Disposable => {
      this.handlers.set(name, h);
      return { dispose: () => this.handlers.delete(name) };
    };
    const connection = {
      onDidOpenTextDocument: on('open'),
      onDidChangeTextDocument: on('change'),
      onDidCloseTextDocument: on('close'),
      onWillSaveTextDocument: on('willSave'),
      onWillSaveTextDocumentWaitUntil: on('willSaveWaitUntil'),
      onDidSaveTextDocument: on('save'),
    };
    documents.listen(connection as unknown as Parameters<TextDocuments<TextDocument>['listen']>[0]);
    const log = (level: 'info' | 'warn' | 'error') => (message: string) => void this.logs.push({ level, message });
    // No workspace/configuration pull: the settings are the ones given, as for a client that pushes them.
    const settings = new SettingsStore(undefined as never, false, options.settings, log('warn'));
    const roots = options.roots ?? [];
    const rootOf = (uri: string): string | undefined => {
      const p = fsPathOf(uri);
      return p === undefined ? undefined : roots.find((r) => isInside(r, p));
    };
    this.ctx = {
      documents,
      settings,
      log: { info: log('info'), warn: log('warn'), error: log('error') },
      clientCapabilities: options.clientCapabilities ?? {},
      initializationOptions: options.initializationOptions ?? {},
      isTrusted: () => options.trusted !== false,
      fsPathOf,
      workspaceRoots: () => roots,
      diagnose: async () => undefined,
      workspaceRootOf: rootOf,
      getWorkspaceReader: (uri) => {
        const root = rootOf(uri);
        return root === undefined ? undefined : createNodeWorkspace(root);
      },
      refreshDiagnostics: (uri) => void this.refreshed.push(uri),
      refreshCodeLenses: () => undefined,
      confirm: async () => options.confirm ?? false,
      setStatus: () => undefined,
      applyEdit: async (label, edit) => {
        this.applied.push({ label, edit });
        return { applied: true };
      },
      showMessage: () => undefined,
      publishDiagnostics: (uri, diagnostics) => void this.published.set(uri, diagnostics),
      createWorkDoneProgress: () => Promise.reject(new Error('no work-done progress in the context double')),
      showDocument: async () => ({ success: true }),
      guard: (what, uri, fn, fallback) => {
        try {
          return fn();
        } catch (err) {
          this.logs.push({ level: 'error', message: `${what} failed for ${uri}: ${errorMessage(err)}` });
          return fallback;
        }
      },
      exposeTestCounter: (name, read) => void this.counters.set(name, read),
    };
  }

  /** The feature's instance on this context (disposed by {@link dispose}). */
  create(feature: FeatureModule): FeatureInstance {
    const instance = feature.create(this.ctx);
    this.instances.push(instance);
    return instance;
  }

  /** Opens a document as the client would (`textDocument/didOpen`); returns it. */
  /** What a diagnostics feature publishes for `doc`, with the document's settings. */
  async diagnose(feature: FeatureInstance, doc: TextDocument): Promise<Diagnostic[]> {
    return feature.diagnostics!.provide(doc, await this.ctx.settings.forDocument(doc.uri));
  }

  open(uri: string, languageId: string, text: string, version = 1): TextDocument {
    this.handlers.get('open')!({ textDocument: { uri, languageId, version, text } });
    return this.ctx.documents.get(uri)!;
  }

  /** Replaces a document's whole text (`textDocument/didChange`); returns the new version. */
  change(uri: string, text: string): TextDocument {
    const version = this.ctx.documents.get(uri)!.version + 1;
    this.handlers.get('change')!({ textDocument: { uri, version }, contentChanges: [{ text }] });
    return this.ctx.documents.get(uri)!;
  }

  close(uri: string): void {
    this.handlers.get('close')!({ textDocument: { uri } });
  }

  dispose(): void {
    for (const i of this.instances.splice(0)) i.dispose?.();
  }
}

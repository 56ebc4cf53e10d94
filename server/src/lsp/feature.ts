/**
 * What a feature module is, and what it gets to work with. A feature is one module under
 * `server/src/features/` exporting a {@link FeatureModule}; `server.ts` lists the modules, merges their
 * capabilities and routes the LSP requests to the providers they return. Several features may provide
 * the same request (diagnostics, hovers, code actions, code lenses): the results are combined.
 */
import type {
  CancellationToken,
  ClientCapabilities,
  CodeAction,
  CodeActionParams,
  CodeLens,
  CodeLensParams,
  Command,
  CompletionItem,
  CompletionList,
  CompletionParams,
  Diagnostic,
  FileEvent,
  Hover,
  HoverParams,
  MessageType,
  ServerCapabilities,
  ShowDocumentParams,
  TextDocuments,
  WorkDoneProgressReporter,
  WorkDoneProgressServerReporter,
  WorkspaceEdit,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { WorkspaceReader } from '../core/types';
import type { SettingsStore, ToonLensSettings } from './settings';
import type { ConfirmParams, StatusParams, ToonLensInitializationOptions } from '../protocol/commands';
import type { TestCounterName, TestCounterReader } from '../testing/hooks';

export type Awaitable<T> = T | Promise<T>;

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Produces a document's diagnostics. Called at most once per document version, after the debounce. */
export interface DiagnosticProvider {
  /** Whether this provider looks at the document at all (cheap: language id or path). */
  appliesTo(doc: TextDocument): boolean;
  /** The diagnostics; a throw is logged and counts as none (isolated to this document and provider). */
  provide(doc: TextDocument, settings: ToonLensSettings): Awaitable<Diagnostic[]>;
}

/**
 * A command handler: its arguments, the request's cancellation, and the progress the client attached to the
 * request (`workDoneToken`: its own UI, e.g. a cancellable notification), when it attached one.
 */
export type CommandHandler = (args: unknown[], token: CancellationToken, workDone?: WorkDoneProgressReporter) => Awaitable<unknown>;

/** The providers one feature contributes. All optional. */
export interface FeatureInstance {
  diagnostics?: DiagnosticProvider;
  hover?(doc: TextDocument, params: HoverParams, token: CancellationToken): Awaitable<Hover | null | undefined>;
  codeActions?(doc: TextDocument, params: CodeActionParams, token: CancellationToken): Awaitable<(CodeAction | Command)[] | null | undefined>;
  codeLenses?(doc: TextDocument, params: CodeLensParams, token: CancellationToken): Awaitable<CodeLens[] | null | undefined>;
  /**
   * `codeLens/resolve` for the lenses this feature sent without a command: returns the lens with its command,
   * or undefined when the lens is not this feature's (the next feature is asked).
   */
  resolveCodeLens?(lens: CodeLens, token: CancellationToken): Awaitable<CodeLens | undefined>;
  /** Completion items; every feature's items are combined (a label offered by an earlier feature is not repeated). */
  completion?(doc: TextDocument, params: CompletionParams, token: CancellationToken): Awaitable<CompletionItem[] | CompletionList | null | undefined>;
  /** `workspace/executeCommand` handlers by command id (they are advertised unless the client registers them itself). */
  commands?: Record<string, CommandHandler>;
  /** Files changed on disk (the client watches `**∕*.{json,md,toon}`). */
  onDidChangeWatchedFiles?(changes: FileEvent[]): void;
  dispose?(): void;
}

export interface FeatureModule {
  readonly name: string;
  /** Capabilities beyond what the providers imply (the provider capabilities are derived by server.ts). */
  capabilities?(client: ClientCapabilities): ServerCapabilities;
  create(ctx: FeatureContext): FeatureInstance;
}

/**
 * Everything a feature may use; built by server.ts once the client has initialized. Features never see the
 * connection: what they may ask of the client is named here, and every request they serve is a slot of
 * {@link FeatureInstance} that server.ts routes with fault isolation.
 */
export interface FeatureContext {
  readonly documents: TextDocuments<TextDocument>;
  readonly settings: SettingsStore;
  readonly log: Logger;
  readonly clientCapabilities: ClientCapabilities;
  /**
   * What the client sent in `initialize` (`initializationOptions`; `{}` when it sent none), as given: a feature
   * checks the fields it reads (the markdown language ids, the originals' storage folder).
   */
  readonly initializationOptions: ToonLensInitializationOptions;
  /** Whether the workspace is trusted (an untrusted workspace gets diagnostics and hovers, never edits to other files). */
  isTrusted(): boolean;
  /** Absolute file-system path of a `file:` URI; undefined for other schemes. */
  fsPathOf(uri: string): string | undefined;
  /** The workspace folders (absolute paths). */
  workspaceRoots(): readonly string[];
  /**
   * Every diagnostic provider's result for a document that need not be open (e.g. a file read from disk
   * by a workspace check), exactly as an open document would get them; undefined when none applies.
   */
  diagnose(doc: TextDocument, settings: ToonLensSettings): Promise<Diagnostic[] | undefined>;
  /** The workspace folder (absolute path) holding a document, if any. */
  workspaceRootOf(uri: string): string | undefined;
  /** Read access to the workspace a document lives in, for rules that look at other files. */
  getWorkspaceReader(uri: string): WorkspaceReader | undefined;
  /** Re-runs the diagnostics of one open document (debounced), or of every open document the filter accepts. */
  refreshDiagnostics(uri?: string, filter?: (doc: TextDocument) => boolean): void;
  /** Asks the client to re-request code lenses (when it supports workspace/codeLens/refresh). */
  refreshCodeLenses(): void;
  /** Asks the user (modal). Resolves false when the client cannot ask or the request fails. */
  confirm(params: ConfirmParams): Promise<boolean>;
  /** Sets the status-bar text. */
  setStatus(params: StatusParams): void;
  /** Asks the client to apply a workspace edit (`workspace/applyEdit`); a failed request resolves not applied. */
  applyEdit(label: string, edit: WorkspaceEdit): Promise<{ applied: boolean; failureReason?: string }>;
  /** Shows a message to the user (`window/showMessage`). */
  showMessage(type: MessageType, message: string): void;
  /** Publishes diagnostics for a file that is not an open document (open documents get theirs from the providers). */
  publishDiagnostics(uri: string, diagnostics: Diagnostic[]): void;
  /** A server-initiated work-done progress (`window/workDoneProgress/create`). */
  createWorkDoneProgress(): Promise<WorkDoneProgressServerReporter>;
  /** Asks the client to show a document (`window/showDocument`; check `clientCapabilities` first); rejects when the request fails. */
  showDocument(params: ShowDocumentParams): Promise<unknown>;
  /** Runs `fn`; a throw is logged with the feature and document and `fallback` returned. */
  guard<T>(what: string, uri: string, fn: () => T, fallback: T): T;
  /**
   * Offers `read` as the answer of the test-only command for counter `name` (testing/hooks.ts); does nothing
   * unless the test hooks are on. A feature's only tie to the test commands.
   */
  exposeTestCounter(name: TestCounterName, read: TestCounterReader): void;
}

/**
 * One instance per server of something features share (an analyzer, a cache, a service), made on first
 * use from the server's FeatureContext: `const analyzerOf = onePerServer((ctx) => new Analyzer(ctx))`.
 */
export function onePerServer<T>(make: (ctx: FeatureContext) => T): (ctx: FeatureContext) => T {
  const made = new WeakMap<FeatureContext, T>();
  return (ctx) => {
    let v = made.get(ctx);
    if (v === undefined) {
      v = make(ctx);
      made.set(ctx, v);
    }
    return v;
  };
}

/**
 * The ToonLens language server: wires the connection to the feature modules and nothing else.
 * Transports: `--stdio` (our reader, node/stdioTransport.ts), `--node-ipc`, `--socket=N` (vscode-languageserver's).
 * To add a feature: write `features/<name>.ts` exporting a FeatureModule and list it in FEATURES.
 */
import {
  CodeLensRefreshRequest,
  createConnection,
  DidChangeConfigurationNotification,
  ProposedFeatures,
  ResponseError,
  ErrorCodes,
  ExecuteCommandRequest,
  ShowDocumentRequest,
  ShowMessageNotification,
  ExitNotification,
  InitializeRequest,
  Message,
  ShutdownRequest,
  type RequestMessage,
  TextDocuments,
  TextDocumentSyncKind,
  type ClientCapabilities,
  type ConnectionOptions,
  type CodeAction,
  type CancellationToken,
  type CodeLens,
  type CompletionItem,
  type CompletionList,
  type Hover,
  type Command,
  type InitializeParams,
  type InitializeResult,
  type ServerCapabilities,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { serverTextDocuments } from './lsp/textDocument';
import type { WorkspaceReader } from './core/types';
import { createNodeWorkspace } from './node/workspace';
import { routeConsole, stdioStreams } from './node/stdioTransport';
import type { FeatureContext, FeatureInstance, FeatureModule, Logger } from './lsp/feature';
import { SettingsStore, errorText } from './lsp/settings';
import { CHANGE_DELAY_MS, DiagnosticsScheduler, OPEN_DELAY_MS } from './lsp/diagnostics';
import { WorkspaceFolders, fsPathOf } from './lsp/workspaceFolders';
import { jsonDiagnosticsFeature } from './features/json/documents';
import { codeActionsFeature } from './features/json/codeActions';
import { jsonHoverFeature } from './features/json/hover';
import { faultInjectionFeature } from './testing/faultInjection';
import { FAULT_MARKER, TEST_HOOKS_ON } from './testing/hooks';
import { TestCounters, testCommandsFeature } from './testing/commands';
import { serverWork } from './lsp/idle';
import { startIdleCollector } from './node/idleGc';
import { mergeCapabilities } from './lsp/capabilities';
import {
  CONFIRM_REQUEST,
  FORWARDED_COMMANDS,
  STATUS_NOTIFICATION,
  TRUST_GRANTED_NOTIFICATION,
  type ToonLensInitializationOptions,
} from './protocol/commands';
import { VERSION } from './version';
import { serverUsage } from './protocol/launch';
import { markdownLensesFeature } from './features/markdown/lenses';
import { markdownHoverFeature } from './features/markdown/hover';
import { markdownConvertFeature } from './features/markdown/convert';
import { markdownDiagnosticsFeature } from './features/markdown/diagnostics';
import { markdownSuppressFeature } from './features/markdown/suppress';
import { schemaDriftFeature } from './features/json/schemaDrift';
import { reportEditsFeature } from './features/json/reportEdits';
import { recipeCompletionFeature } from './features/json/recipeCompletion';
import { projectConfigFeature } from './features/project/projectConfig';
import { jsonCompletionFeature } from './features/json/completion';
import { workspaceCheckFeature } from './features/project/workspaceCheck';
import { agentContextFeature } from './features/project/agentContext';
import { pushAll } from './core/arrays';
import { isCancellation, requestCancelled } from './lsp/timeSlice';
import { commandArgsProblem } from './lsp/commandArgs';
import { errorMessage } from './core/errors';

/** The feature modules, in the order their results are combined. */
const FEATURES: FeatureModule[] = [
  projectConfigFeature,
  jsonDiagnosticsFeature,
  codeActionsFeature,
  jsonHoverFeature,
  markdownDiagnosticsFeature,
  markdownLensesFeature,
  markdownHoverFeature,
  markdownConvertFeature,
  markdownSuppressFeature,
  schemaDriftFeature,
  reportEditsFeature,
  recipeCompletionFeature,
  jsonCompletionFeature,
  workspaceCheckFeature,
  agentContextFeature,
];
// Tests only (testing/hooks.ts): a feature that throws on documents containing a marker (proves failures stay
// isolated), and the `toonlens.test.*` commands, serving the counters the features expose through their context.
if (FAULT_MARKER !== undefined) FEATURES.push(faultInjectionFeature(FAULT_MARKER));
const testCounters = TEST_HOOKS_ON ? new TestCounters() : undefined;
if (testCounters) FEATURES.push(testCommandsFeature(testCounters));
// A major GC when the server goes idle after work that left much garbage (node/idleGc.ts).
startIdleCollector(serverWork);

/**
 * LSP lifecycle, enforced before any handler runs: a request before `initialize` gets
 * ServerNotInitialized (-32002), one after `shutdown` InvalidRequest (-32600), and notifications in
 * those states are dropped (`exit` always exits: 0 after shutdown, 1 otherwise). A `$/cancelRequest`
 * for a request still queued answers it with RequestCancelled (-32800) at once; a running request
 * sees its token fire (the handlers below and the time-sliced markdown analysis watch it).
 */
let lifecycle: 'new' | 'running' | 'shutdown' = 'new';
const REJECT_METHOD = '$/toonlens/rejected';
function rejected(message: RequestMessage, code: number, text: string): RequestMessage {
  return { jsonrpc: message.jsonrpc, id: message.id, method: REJECT_METHOD, params: { code, message: `${text} (${message.method})` } };
}
const connectionOptions: ConnectionOptions = {
  messageStrategy: {
    handleMessage(message, next) {
      if (Message.isRequest(message)) {
        if (message.method === InitializeRequest.method) {
          if (lifecycle === 'new') lifecycle = 'running';
          else return next(rejected(message, ErrorCodes.InvalidRequest, 'initialize was already received'));
        } else if (lifecycle === 'new') return next(rejected(message, ErrorCodes.ServerNotInitialized, 'The server is not initialized yet'));
        else if (lifecycle === 'shutdown') return next(rejected(message, ErrorCodes.InvalidRequest, 'The server is shutting down'));
        else if (message.method === ShutdownRequest.method) lifecycle = 'shutdown';
      } else if (Message.isNotification(message) && message.method !== ExitNotification.method && lifecycle !== 'running') return;
      next(message);
    },
  },
  connectionStrategy: {
    cancelUndispatched: (message) => ({ jsonrpc: message.jsonrpc, id: Message.isRequest(message) ? message.id : null, error: requestCancelled().toJson() }),
  },
};
const usage = serverUsage(process.argv.slice(2), VERSION);
if (usage) {
  (usage.code === 0 ? process.stdout : process.stderr).write(usage.text);
  process.exit(usage.code);
}
const stdio = process.argv.includes('--stdio') ? stdioStreams((line) => safeLog(line)) : undefined;
const connection = stdio ? createConnection(ProposedFeatures.all, stdio.reader, stdio.writer, connectionOptions) : createConnection(ProposedFeatures.all, connectionOptions);
if (stdio) {
  routeConsole(connection.console);
  stdio.reader.onClose(() => process.exit(lifecycle === 'shutdown' ? 0 : 1));
}
connection.onRequest(REJECT_METHOD, (p: { code: number; message: string }) => new ResponseError(p.code, p.message));
const documents = new TextDocuments<TextDocument>(serverTextDocuments);

const log: Logger = {
  info: (m) => connection.console.info(`[toonlens] ${m}`),
  warn: (m) => connection.console.warn(`[toonlens] ${m}`),
  error: (m) => connection.console.error(`[toonlens] ${m}`),
};

// Last line of defence: a bug in a timer or a promise chain is logged, never a crash.
process.on('uncaughtException', (err) => safeLog(`uncaught exception: ${errorText(err)}`));
process.on('unhandledRejection', (err) => safeLog(`unhandled rejection: ${errorText(err)}`));
function safeLog(message: string): void {
  try {
    log.error(message);
  } catch {
    // the connection itself is gone; nothing left to tell
  }
}

let instances: { name: string; feature: FeatureInstance }[] = [];
let scheduler: DiagnosticsScheduler | undefined;
let settings: SettingsStore;
let folders: WorkspaceFolders;
let clientCapabilities: ClientCapabilities = {};
let trusted = true;

const readers = new Map<string, WorkspaceReader>();
/**
 * Read access to the workspace folder holding a document (for rules that look at other files).
 * Open buffers win over the disk. In an untrusted workspace git is never run.
 */
function getWorkspaceReader(uri: string): WorkspaceReader | undefined {
  const root = folders?.rootOf(uri);
  if (!root) return undefined;
  const key = `${trusted ? 't' : 'u'}:${root}`;
  let reader = readers.get(key);
  if (!reader) {
    const node = createNodeWorkspace(root, openBufferText);
    reader = trusted ? node : { ...node, root: node.root, gitState: () => undefined, hookDirs: () => [] };
    readers.set(key, reader);
  }
  return reader;
}

/** The text of the open document at an absolute path, if any. */
function openBufferText(absPath: string): string | undefined {
  for (const doc of documents.all()) {
    if (fsPathOf(doc.uri) === absPath) return doc.getText();
  }
  return undefined;
}

connection.onInitialize((params: InitializeParams): InitializeResult => {
  clientCapabilities = params.capabilities;
  const raw: unknown = params.initializationOptions;
  const init = (raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as ToonLensInitializationOptions;
  trusted = init.trusted !== false;
  folders = new WorkspaceFolders(params);
  settings = new SettingsStore(connection, !!params.capabilities.workspace?.configuration, init.settings, log.warn);

  const ctx: FeatureContext = {
    documents,
    settings,
    log,
    clientCapabilities,
    initializationOptions: init,
    isTrusted: () => trusted,
    fsPathOf,
    workspaceRoots: () => folders.all(),
    diagnose: async (doc, s) => scheduler?.diagnose(doc, s),
    workspaceRootOf: (uri) => folders.rootOf(uri),
    getWorkspaceReader,
    refreshDiagnostics: (uri, filter) => {
      if (uri) scheduler?.schedule(uri, CHANGE_DELAY_MS);
      else scheduler?.scheduleAll(CHANGE_DELAY_MS, filter);
    },
    refreshCodeLenses,
    confirm: async (p) => {
      try {
        return (await connection.sendRequest(CONFIRM_REQUEST, p)) === true;
      } catch (err) {
        log.warn(`${CONFIRM_REQUEST} failed: ${errorText(err)}`);
        return false;
      }
    },
    setStatus: (p) => void connection.sendNotification(STATUS_NOTIFICATION, p).catch(() => undefined),
    applyEdit: async (label, edit) => {
      try {
        return await connection.workspace.applyEdit({ label, edit });
      } catch (err) {
        log.warn(`workspace/applyEdit failed: ${errorText(err)}`);
        return { applied: false, failureReason: errorText(err) };
      }
    },
    publishDiagnostics: (uri, diagnostics) => void connection.sendDiagnostics({ uri, diagnostics }).catch(() => undefined),
    createWorkDoneProgress: () => connection.window.createWorkDoneProgress(),
    showDocument: (p) => connection.sendRequest(ShowDocumentRequest.type, p),
    showMessage: (type, message) => void connection.sendNotification(ShowMessageNotification.type, { type, message }).catch(() => undefined),
    guard: (what, uri, fn, fallback) => {
      try {
        return fn();
      } catch (err) {
        log.error(`${what} failed for ${uri}: ${errorText(err)}`);
        return fallback;
      }
    },
    exposeTestCounter: (name, read) => testCounters?.expose(name, read),
  };

  instances = [];
  const caps: ServerCapabilities[] = [];
  for (const m of FEATURES) {
    try {
      instances.push({ name: m.name, feature: m.create(ctx) });
      if (m.capabilities) caps.push(m.capabilities(params.capabilities));
    } catch (err) {
      log.error(`feature ${m.name} failed to start: ${errorText(err)}`);
    }
  }
  scheduler = new DiagnosticsScheduler(
    connection,
    documents,
    settings,
    () => instances.flatMap(({ name, feature }) => (feature.diagnostics ? [{ name, provider: feature.diagnostics }] : [])),
    log,
  );

  const commands = instances.flatMap(({ feature }) => Object.keys(feature.commands ?? {}));
  const advertised = init.clientRegistersCommands ? commands.filter((c) => !FORWARDED_COMMANDS.includes(c)) : commands;
  const derived: ServerCapabilities = {
    textDocumentSync: TextDocumentSyncKind.Incremental,
    workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
  };
  if (instances.some(({ feature }) => feature.hover)) derived.hoverProvider = true;
  if (instances.some(({ feature }) => feature.codeLenses)) derived.codeLensProvider = { resolveProvider: instances.some(({ feature }) => feature.resolveCodeLens) };
  if (instances.some(({ feature }) => feature.codeActions)) derived.codeActionProvider = true;
  if (instances.some(({ feature }) => feature.completion)) derived.completionProvider = { triggerCharacters: ['"', ':'] };
  if (advertised.length) derived.executeCommandProvider = { commands: advertised };

  return {
    capabilities: mergeCapabilities(derived, ...caps),
    serverInfo: { name: 'toonlens', version: VERSION },
  };
});

connection.onInitialized(() => {
  if (clientCapabilities.workspace?.didChangeConfiguration?.dynamicRegistration) {
    connection.client.register(DidChangeConfigurationNotification.type, { section: 'toonlens' }).catch(() => undefined);
  }
  if (clientCapabilities.workspace?.workspaceFolders) {
    connection.workspace.onDidChangeWorkspaceFolders((e) => {
      readers.clear();
      for (const f of e.removed) folders.remove(f.uri);
      for (const f of e.added) folders.add(f.uri);
      scheduler?.scheduleAll(OPEN_DELAY_MS);
    });
  }
  log.info(`ToonLens ${VERSION} ready (${trusted ? 'trusted' : 'untrusted'} workspace, ${folders.all().length} folder(s))`);
});

function refreshCodeLenses(): void {
  if (!clientCapabilities.workspace?.codeLens?.refreshSupport) return;
  connection.sendRequest(CodeLensRefreshRequest.type).catch((err: unknown) => log.warn(`codeLens/refresh failed: ${errorText(err)}`));
}

connection.onDidChangeConfiguration((change) => {
  settings?.changed(change.settings);
  scheduler?.scheduleAll(OPEN_DELAY_MS);
  refreshCodeLenses();
});

connection.onNotification(TRUST_GRANTED_NOTIFICATION, () => {
  trusted = true;
  scheduler?.scheduleAll(OPEN_DELAY_MS);
  refreshCodeLenses();
});

const opened = new Set<string>();
documents.onDidChangeContent((e) => {
  const uri = e.document.uri;
  // TextDocuments reports an open as a content change too: check an opened document at once, debounce edits.
  scheduler?.schedule(uri, opened.has(uri) ? CHANGE_DELAY_MS : OPEN_DELAY_MS);
  opened.add(uri);
});
documents.onDidClose((e) => {
  opened.delete(e.document.uri);
  scheduler?.close(e.document.uri);
  settings?.forget(e.document.uri);
});

connection.onDidChangeWatchedFiles((params) => {
  for (const { name, feature } of instances) {
    if (!feature.onDidChangeWatchedFiles) continue;
    try {
      feature.onDidChangeWatchedFiles(params.changes);
    } catch (err) {
      log.error(`${name}: watched-file handling failed: ${errorText(err)}`);
    }
  }
});

/**
 * Runs one provider of every feature that has it; a failing provider is logged and skipped. A
 * cancelled request (or one whose document changed meanwhile) rejects with RequestCancelled /
 * ContentModified, which the connection sends as the response.
 */
async function collect<T>(what: string, uri: string, token: CancellationToken, run: (f: FeatureInstance) => unknown): Promise<T[]> {
  const out: T[] = [];
  for (const { name, feature } of instances) {
    if (token.isCancellationRequested) throw requestCancelled();
    try {
      const r = (await run(feature)) as T | T[] | null | undefined;
      if (r === null || r === undefined) continue;
      if (Array.isArray(r)) pushAll(out, r);
      else out.push(r);
    } catch (err) {
      if (isCancellation(err)) throw err;
      log.error(`${name}: ${what} failed for ${uri}: ${errorText(err)}`);
    }
  }
  if (token.isCancellationRequested) throw requestCancelled();
  return out;
}

connection.onHover(async (params, token) => {
  const doc = documents.get(params.textDocument.uri);
  if (!doc) return null;
  const hovers = await collect<Hover>('hover', doc.uri, token, (f) => f.hover?.(doc, params, token));
  if (hovers.length === 0) return null;
  if (hovers.length === 1) return hovers[0]!;
  // Several features explain the same spot: stack their markdown, keep the first range.
  const value = hovers.map((h) => hoverMarkdown(h)).join('\n\n---\n\n');
  return { contents: { kind: 'markdown', value }, range: hovers[0]!.range };
});

function hoverMarkdown(h: Hover): string {
  const c = h.contents;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((m) => (typeof m === 'string' ? m : '```' + m.language + '\n' + m.value + '\n```')).join('\n\n');
  return 'kind' in c ? c.value : '```' + c.language + '\n' + c.value + '\n```';
}

connection.onCodeAction(async (params, token) => {
  const doc = documents.get(params.textDocument.uri);
  if (!doc) return null;
  return collect<CodeAction | Command>('code actions', doc.uri, token, (f) => f.codeActions?.(doc, params, token));
});

connection.onCodeLens(async (params, token) => {
  const doc = documents.get(params.textDocument.uri);
  if (!doc) return null;
  return collect<CodeLens>('code lenses', doc.uri, token, (f) => f.codeLenses?.(doc, params, token));
});

connection.onCodeLensResolve(async (lens, token) => {
  const resolved = await collect<CodeLens>('code lens resolve', 'codeLens/resolve', token, (f) => f.resolveCodeLens?.(lens, token));
  return resolved[0] ?? lens;
});

connection.onCompletion(async (params, token): Promise<CompletionList | null> => {
  const doc = documents.get(params.textDocument.uri);
  if (!doc) return null;
  const lists = await collect<CompletionItem[] | CompletionList>('completion', doc.uri, token, async (f) => {
    const r = await f.completion?.(doc, params, token);
    return r ? [r] : r; // keep each feature's answer whole (a list may say it is incomplete)
  });
  const items: CompletionItem[] = [];
  const labels = new Set<string>();
  let isIncomplete = false;
  for (const r of lists) {
    const list = Array.isArray(r) ? r : r.items;
    if (!Array.isArray(r) && r.isIncomplete) isIncomplete = true;
    for (const item of list) {
      // The same value offered by two features ("op" as `begin_chunk` and as `"begin_chunk"`) is shown once.
      const key = item.label.replace(/^"(.*)"$/, '$1');
      if (labels.has(key)) continue;
      labels.add(key);
      items.push(item);
    }
  }
  return { isIncomplete, items };
});

// (As a plain request: the connection's onExecuteCommand takes the workDoneToken off the params before the handler runs.)
connection.onRequest(ExecuteCommandRequest.type, async (params, token) => {
  const problem = commandArgsProblem(params.arguments);
  if (problem) return new ResponseError(ErrorCodes.InvalidParams, `${params.command}: ${problem}`);
  for (const { name, feature } of instances) {
    const handler = feature.commands?.[params.command];
    if (!handler) continue;
    try {
      // The progress the client attached to the request, if any (VS Code: the notification Check Workspace runs under).
      const workDone = params.workDoneToken !== undefined ? connection.window.attachWorkDoneProgress(params.workDoneToken) : undefined;
      return await handler(params.arguments ?? [], token, workDone);
    } catch (err) {
      if (isCancellation(err)) return err as ResponseError<void>;
      log.error(`${name}: command ${params.command} failed: ${errorText(err)}`);
      return new ResponseError(ErrorCodes.InternalError, `${params.command} failed: ${errorMessage(err)}`);
    }
  }
  return new ResponseError(ErrorCodes.MethodNotFound, `ToonLens has no command ${params.command}`);
});

connection.onShutdown(() => {
  scheduler?.dispose();
  for (const { feature } of instances) {
    try {
      feature.dispose?.();
    } catch {
      // shutting down anyway
    }
  }
});

documents.listen(connection);
connection.listen();

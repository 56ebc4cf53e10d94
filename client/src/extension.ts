// Thin client: starts the ToonLens language server and gives it a UI. Commands forward to
// workspace/executeCommand; the server asks for confirmations and sends the status-bar text per document.
// No rule, measurement, hashing or format knowledge lives here.
import * as path from 'node:path';
import * as vscode from 'vscode';
import { commands, EventEmitter, Position, ProgressLocation, Selection, StatusBarAlignment, Uri, ViewColumn, window, workspace, type ExtensionContext, type StatusBarItem } from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  TransportKind,
  type CancellationToken,
  type MessageSignature,
  WorkDoneProgress,
  type DocumentSelector,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import {
  AGENT_CONTEXT_COMMAND,
  AGENT_CONTEXT_VIEW,
  AGENT_STATUS_COMMAND,
  CLIENT_COMMANDS,
  COMMANDS,
  CONFIRM_REQUEST,
  DEFAULT_MARKDOWN_LANGUAGES,
  FORWARDED_COMMANDS,
  MARKDOWN_FILE_PATTERNS,
  PLAN_VIEW_SCHEME,
  WATCH_GLOB,
  STATUS_NOTIFICATION,
  TRUST_GRANTED_NOTIFICATION,
  type ActiveEditorArg,
  type AgentContextAnswer,
  type AgentStatusAnswer,
  type ConfirmParams,
  type PlanSummary,
  type StatusParams,
  type ToonLensInitializationOptions,
} from '../../server/src/protocol/commands';
import { SERVER_EXEC_ARGV, serverEnvAdditions } from '../../server/src/protocol/launch';
import { MCP_PROVIDER_ID, MCP_SERVER_LABEL, mcpServerLaunch } from '../../server/src/protocol/mcp';
import { AgentContextView, type ShownRow } from './agentContextView';

/**
 * The language client, told when it is being stopped for good (a restart or the window closing). A request the
 * editor made just before that can still fail inside the client library while it stops: sent after the shutdown
 * (the server answers InvalidRequest, as the protocol says), on a closed connection, or before its connection is
 * gone. Nobody waits for that answer, so it ends as an empty one, as the library does for requests a disposed
 * connection rejects; an error in the log or a notification would report a failure that is not one.
 */
class ToonLensClient extends LanguageClient {
  private retiring = false;

  retire(timeoutMs?: number): Promise<void> {
    this.retiring = true;
    return this.stop(timeoutMs);
  }

  override handleFailedRequest<T>(type: MessageSignature, token: CancellationToken | undefined, error: unknown, defaultValue: T, showNotification?: boolean, throwOnCancel?: boolean): T {
    if (this.retiring) return defaultValue;
    return super.handleFailedRequest(type, token, error, defaultValue, showNotification, throwOnCancel);
  }
}

let client: ToonLensClient | undefined;
/** The server's latest status per document URI (shown only while that document is active). */
const statusByUri = new Map<string, StatusParams>();

/** `toonlens.markdownLanguages`: extra language ids served as markdown. */
function extraMarkdownLanguages(): string[] {
  const v = workspace.getConfiguration('toonlens').get<unknown>('markdownLanguages');
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string' && x !== '') : [];
}

function documentSelector(markdownLanguages: string[]): DocumentSelector {
  const byLanguage = ['json', 'jsonc', 'toon', ...markdownLanguages].flatMap((language) => ['file', 'untitled'].map((scheme) => ({ scheme, language })));
  return [...byLanguage, ...MARKDOWN_FILE_PATTERNS.map((pattern) => ({ scheme: 'file', pattern }))];
}

function showStatus(status: StatusBarItem): void {
  const uri = window.activeTextEditor?.document.uri.toString();
  const p = uri ? statusByUri.get(uri) : undefined;
  statusVisible = !!p?.text;
  if (!p || !p.text) {
    status.hide();
    return;
  }
  status.text = p.text;
  status.tooltip = p.tooltip;
  status.command = p.command;
  status.show();
}

function createClient(context: ExtensionContext, status: StatusBarItem): ToonLensClient {
  const serverModule = context.asAbsolutePath(path.join('dist', 'server.js'));
  // The server is spoken to over stdio, where it reads with its own message reader (server/src/node/
  // stdioTransport.ts: the body decoded as one-byte ASCII JSON). Over node IPC, Node's own channel decodes every
  // message and the server cannot replace that, so a large didOpen costs more CPU and peak memory over IPC
  // (docs/performance.md has the transport rows).
  // Node/V8 options and glibc settings shared with the test harness and the bench (server/src/protocol/launch.ts).
  const execArgv = [...SERVER_EXEC_ARGV];
  const env = serverEnvAdditions();
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.stdio, options: { execArgv, env } },
    debug: { module: serverModule, transport: TransportKind.stdio, options: { execArgv: [...execArgv, '--nolazy', '--inspect=6009'], env } },
  };
  const extra = extraMarkdownLanguages();
  // The global storage folder, the same for every window: the server keeps each workspace folder's originals
  // there by the folder's real path (a per-window storageUri changes when a folder is reopened in a new window).
  const storage = context.globalStorageUri;
  const initializationOptions: ToonLensInitializationOptions = {
    trusted: workspace.isTrusted,
    clientRegistersCommands: true,
    markdownLanguages: extra,
    storagePath: storage.scheme === 'file' ? storage.fsPath : undefined,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: documentSelector([...new Set([...DEFAULT_MARKDOWN_LANGUAGES, ...extra])]),
    synchronize: { fileEvents: workspace.createFileSystemWatcher(WATCH_GLOB) },
    initializationOptions,
  };
  const c = new ToonLensClient('toonlens', 'ToonLens', serverOptions, clientOptions);
  c.onNotification(STATUS_NOTIFICATION, (p: StatusParams) => {
    if (stopping) return; // the status item is being disposed with the window
    if (p.uri) statusByUri.set(p.uri, p);
    else for (const uri of [...statusByUri.keys()]) statusByUri.set(uri, p);
    showStatus(status);
  });
  c.onRequest(CONFIRM_REQUEST, async (p: ConfirmParams) => {
    const confirm = p.confirmLabel ?? 'Continue';
    return (await window.showWarningMessage(p.message, { modal: true, detail: p.detail }, confirm)) === confirm;
  });
  return c;
}

async function restart(context: ExtensionContext, status: StatusBarItem): Promise<void> {
  const old = client;
  client = undefined;
  statusByUri.clear();
  showStatus(status);
  if (old) await old.retire().catch(() => undefined);
  client = createClient(context, status);
  await client.start();
}

/** The part of VS Code's MCP API (1.101 and later) the extension uses; older versions have none of it. */
interface McpApi {
  lm?: { registerMcpServerDefinitionProvider?(id: string, provider: { provideMcpServerDefinitions(): unknown[] }): { dispose(): void } };
  McpStdioServerDefinition?: new (label: string, command: string, args: string[], env: Record<string, string>, version?: string) => unknown;
}

/** Registers `toonlens mcp` for agent mode where VS Code has the API; elsewhere .vscode/mcp.json does it (docs/mcp.md). */
function registerMcpServer(context: ExtensionContext): boolean {
  const api = vscode as unknown as McpApi;
  const Definition = api.McpStdioServerDefinition;
  if (typeof api.lm?.registerMcpServerDefinitionProvider !== 'function' || typeof Definition !== 'function') return false;
  const launch = mcpServerLaunch(context.extensionPath, process.execPath);
  const version = String((context.extension.packageJSON as { version?: unknown }).version ?? '');
  context.subscriptions.push(api.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, { provideMcpServerDefinitions: () => [new Definition(MCP_SERVER_LABEL, launch.command, launch.args, launch.env, version)] }));
  return true;
}

/**
 * The second status-bar item: which agents load the active file, in the server's words (toonlens.agentStatus);
 * hidden for files no agent loads. Asked again when the active editor changes, after an edit settles and on save.
 */
class AgentStatusItem {
  readonly item: StatusBarItem;
  visible = false;
  private asked = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    this.item = window.createStatusBarItem('toonlens.agentContext', StatusBarAlignment.Right, 99);
    this.item.name = 'ToonLens Agent Context';
    this.item.command = CLIENT_COMMANDS.showAgentContext;
  }

  /** Asks soon (edits come in bursts; the answer for the last one is what counts). */
  later(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.update(), 300);
  }

  async update(): Promise<void> {
    const uri = window.activeTextEditor?.document.uri.toString();
    const ask = ++this.asked;
    const answer = uri && client ? ((await client.sendRequest(ExecuteCommandRequest.type, { command: AGENT_STATUS_COMMAND, arguments: [{ uri }] }).catch(() => null)) as AgentStatusAnswer | null) : null;
    // A newer question (another editor, a later edit) was asked meanwhile: its answer wins.
    if (ask !== this.asked) return;
    this.visible = !!answer?.text;
    if (!answer?.text) {
      this.item.hide();
      return;
    }
    this.item.text = answer.text;
    this.item.tooltip = answer.tooltip;
    this.item.show();
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.item.dispose();
  }
}

/** What the extension exports (for tests and other extensions): the status-bar items as shown. */
export interface ToonLensApi {
  status(): { text: string; tooltip: string | undefined; visible: boolean };
  /** The agent-context item (which agents load the active file). */
  agentStatus(): { text: string; tooltip: string | undefined; visible: boolean };
  /** The Agent Context view: whether it is visible, its rows as last shown, and how many times it was read. */
  agentContextView(): { visible: boolean; reads: number; rows: ShownRow[] };
  /** Whether the MCP server was registered for agent mode (this VS Code has the API). */
  mcpRegistered: boolean;
}

/**
 * Check Workspace under a notification with a Cancel button (the language client shows server-made progress in the
 * status bar, where it cannot be cancelled): the request carries the notification's token, the server reports on
 * it, and Cancel cancels the request, which the server honours between files.
 */
function checkWorkspaceWithProgress(): Thenable<unknown> {
  return window.withProgress({ location: ProgressLocation.Notification, title: 'ToonLens: Check Workspace', cancellable: true }, async (progress, cancel) => {
    const c = client;
    if (!c) return undefined;
    const token = `toonlens-check-workspace-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    let last = 0;
    const sub = c.onProgress(WorkDoneProgress.type, token, (v) => {
      if (v.kind === 'end') return;
      const pct = typeof v.percentage === 'number' ? v.percentage : last;
      progress.report({ message: v.message, increment: Math.max(0, pct - last) });
      last = Math.max(last, pct);
    });
    try {
      return await c.sendRequest(ExecuteCommandRequest.type, { command: COMMANDS.checkWorkspace, arguments: [], workDoneToken: token }, cancel);
    } catch (err) {
      // Cancelled from the notification: the server stopped the run (its message says how far it got).
      if (cancel.isCancellationRequested) return undefined;
      throw err;
    } finally {
      sub.dispose();
    }
  });
}

let statusVisible = false;
/** Fired when a plan view is asked for again, so VS Code re-reads its content. */
const planViewChanged = new EventEmitter<Uri>();

export async function activate(context: ExtensionContext): Promise<ToonLensApi> {
  const status = window.createStatusBarItem('toonlens.status', StatusBarAlignment.Right, 100);
  status.name = 'ToonLens';
  context.subscriptions.push(status);
  context.subscriptions.push(window.onDidChangeActiveTextEditor(() => showStatus(status)));
  context.subscriptions.push(workspace.onDidCloseTextDocument((d) => statusByUri.delete(d.uri.toString())));
  // Context key for the palette's `when` clauses: the language ids served as markdown.
  const setLanguagesContext = () => void commands.executeCommand('setContext', 'toonlens.markdownLanguages', [...new Set([...DEFAULT_MARKDOWN_LANGUAGES, ...extraMarkdownLanguages()])]);
  setLanguagesContext();

  for (const command of FORWARDED_COMMANDS) {
    if (command === COMMANDS.showVerdict || command === COMMANDS.showPlan) continue;
    context.subscriptions.push(
      commands.registerCommand(command, async (...args: unknown[]) => {
        // Check Workspace needs no editor; the others act on the active editor's cursor.
        if (args.length === 0 && command !== COMMANDS.checkWorkspace) {
          const editor = window.activeTextEditor;
          if (!editor) return undefined;
          const { line, character } = editor.selection.active;
          const arg: ActiveEditorArg = { uri: editor.document.uri.toString(), position: { line, character } };
          args = [arg];
        }
        const outcome = (command === COMMANDS.checkWorkspace ? await checkWorkspaceWithProgress() : await client?.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as { applied?: boolean; message?: string } | undefined;
        if (outcome?.message && (outcome.applied === false || command === COMMANDS.revertSection)) void window.showInformationMessage(`ToonLens: ${outcome.message}`);
        return outcome;
      }),
    );
  }
  // UI only: put the cursor on the section's heading and open its verdict hover (the server renders it).
  context.subscriptions.push(
    commands.registerCommand(COMMANDS.showVerdict, async (arg?: ActiveEditorArg) => {
      if (arg?.uri) {
        const editor = await window.showTextDocument(Uri.parse(arg.uri));
        const pos = new Position(arg.position.line, arg.position.character);
        editor.selection = new Selection(pos, pos);
      }
      await commands.executeCommand('editor.action.showHover');
    }),
    commands.registerCommand(COMMANDS.showPlan, async (arg?: { uri?: string }) => {
      const uri = arg?.uri ?? window.activeTextEditor?.document.uri.toString();
      if (!uri) return;
      const name = Uri.parse(uri).path.split('/').pop() ?? 'document';
      const view = Uri.from({ scheme: PLAN_VIEW_SCHEME, path: `/${name} (TOON plan).md`, query: uri });
      planViewChanged.fire(view);
      await window.showTextDocument(await workspace.openTextDocument(view), { viewColumn: ViewColumn.Beside, preview: true, preserveFocus: true });
    }),
    workspace.registerTextDocumentContentProvider(PLAN_VIEW_SCHEME, {
      onDidChange: planViewChanged.event,
      async provideTextDocumentContent(view) {
        // UI only: the server renders the plan; the view shows its answer.
        const summary = await ask<PlanSummary | null>(ExecuteCommandRequest.method, { command: COMMANDS.showPlan, arguments: [{ uri: view.query }] });
        return summary?.markdown ?? 'ToonLens has no plan for this document (it is closed, too large, or not markdown).\n';
      },
    }),
    planViewChanged,
    commands.registerCommand(CLIENT_COMMANDS.showOutput, () => client?.outputChannel.show(true)),
    commands.registerCommand(CLIENT_COMMANDS.restartServer, () => restart(context, status)),
  );
  // The Agent Context view: the server's model of the active document's folder, refreshed on save and on demand.
  const view = new AgentContextView(async () => {
    const uri = window.activeTextEditor?.document.uri.toString();
    return ask<AgentContextAnswer>(ExecuteCommandRequest.method, { command: AGENT_CONTEXT_COMMAND, arguments: uri ? [{ uri }] : [] });
  });
  const treeView = window.createTreeView(AGENT_CONTEXT_VIEW, { treeDataProvider: view });
  const agentStatus = new AgentStatusItem();
  context.subscriptions.push(
    treeView,
    commands.registerCommand(CLIENT_COMMANDS.refreshAgentContext, () => view.refresh()),
    commands.registerCommand(CLIENT_COMMANDS.showAgentContext, () => commands.executeCommand(`${AGENT_CONTEXT_VIEW}.focus`)),
    workspace.onDidSaveTextDocument(() => {
      view.refresh();
      agentStatus.later();
    }),
    agentStatus,
    window.onDidChangeActiveTextEditor(() => void agentStatus.update()),
    workspace.onDidChangeTextDocument((e) => {
      if (e.document === window.activeTextEditor?.document) agentStatus.later();
    }),
  );
  context.subscriptions.push(workspace.onDidGrantWorkspaceTrust(() => void client?.sendNotification(TRUST_GRANTED_NOTIFICATION)));
  // The document selector is fixed when the client starts: a new language list restarts the server.
  context.subscriptions.push(
    workspace.onDidChangeConfiguration((e) => {
      if (!e.affectsConfiguration('toonlens.markdownLanguages')) return;
      setLanguagesContext();
      void restart(context, status);
    }),
  );

  const mcpRegistered = registerMcpServer(context);

  client = createClient(context, status);
  await client.start();
  void agentStatus.update();
  return {
    status: () => ({ text: status.text, tooltip: typeof status.tooltip === 'string' ? status.tooltip : undefined, visible: statusVisible }),
    agentStatus: () => ({ text: agentStatus.item.text, tooltip: typeof agentStatus.item.tooltip === 'string' ? agentStatus.item.tooltip : undefined, visible: agentStatus.visible }),
    agentContextView: () => ({ visible: treeView.visible, ...view.shown() }),
    mcpRegistered,
  };
}

/** Set once the window closes (or the extension is disabled): late answers and failures are nobody's business then. */
let stopping = false;

/**
 * A request to the server from the UI (views, the plan view): undefined instead of an error when the client is
 * not running or stops meanwhile (a window closing rejects every pending request with "connection disposed").
 */
async function ask<T>(method: string, params: unknown): Promise<T | undefined> {
  const c = client;
  if (!c || stopping || !c.isRunning()) return undefined;
  try {
    return (await c.sendRequest(method, params)) as T;
  } catch (err) {
    if (stopping || !c.isRunning()) return undefined;
    throw err;
  }
}

export function deactivate(): Thenable<void> | undefined {
  stopping = true;
  const c = client;
  client = undefined;
  // Shutdown, then exit, bounded: an error at window close helps nobody (the server exits with its stdin anyway).
  return c?.retire(2000).catch(() => undefined);
}

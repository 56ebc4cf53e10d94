/**
 * A real LSP client for tests: spawns the bundled server (`node dist/server.js --stdio`, so run
 * `npm run build` first), speaks JSON-RPC to it with vscode-languageserver-protocol, answers the
 * server's requests (workspace/configuration, toonlens/confirm, workspace/applyEdit, registrations)
 * and records what it publishes. Shared by every LSP test:
 *
 *   const lsp = await LspHarness.start({ settings: { maxFileSizeMB: 1 } });
 *   const uri = lsp.open('a.verdict.json', text);
 *   const diags = await lsp.waitForDiagnostics(uri, (d) => d.length > 0);
 *   await lsp.shutdown();
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { SERVER_EXEC_ARGV, serverEnvAdditions } from '../../server/src/protocol/launch';
import {
  ApplyWorkspaceEditRequest,
  CodeLensRefreshRequest,
  CodeActionRequest,
  CodeLensRequest,
  ConfigurationRequest,
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidChangeTextDocumentNotification,
  DidChangeWatchedFilesNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExecuteCommandRequest,
  ExitNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  LogMessageNotification,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  UnregistrationRequest,
  WorkDoneProgressCreateRequest,
  type ApplyWorkspaceEditParams,
  type ClientCapabilities,
  type CodeAction,
  type CodeLens,
  type Command,
  type Diagnostic,
  type FileEvent,
  type Hover,
  type InitializeResult,
  type LogMessageParams,
  type Position,
  type ProtocolConnection,
  type PublishDiagnosticsParams,
  type Range,
  type TextDocumentContentChangeEvent,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver-protocol/node';
import { IDLE_COMMAND, PING_COMMAND } from '../../server/src/testing/hooks';
import { errorMessage } from '../../server/src/core/errors';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SERVER_PATH = join(REPO_ROOT, 'dist', 'server.js');

export interface HarnessOptions {
  /** The `toonlens` settings section the harness answers workspace/configuration with (mutable later via setSettings). */
  settings?: Record<string, unknown>;
  /** Whether the client advertises workspace/configuration (false: a Neovim-like client). Default true. */
  configurationCapability?: boolean;
  initializationOptions?: unknown;
  /** Extra environment variables for the server process (TOONLENS_TEST_COUNTERS=1 is set by default: waitIdle needs it). */
  env?: Record<string, string>;
  /** The workspace folder; default a fresh temporary directory (removed by shutdown). */
  workspaceDir?: string;
  /** Answer of toonlens/confirm requests. Default true. */
  confirmAnswer?: boolean | ((params: unknown) => boolean);
  /** Whether workspace/applyEdit requests succeed. Default true. */
  applyEditResult?: boolean;
  serverPath?: string;
  /** Extra client capabilities, merged over the defaults. */
  capabilities?: ClientCapabilities;
  /** Whether the client says it resolves code lens commands (`textDocument.codeLens.resolveSupport`, as VS Code's client does). Default false. */
  resolvesLenses?: boolean;
}

/** What the server published for a document, in order. */
export interface PublishedDiagnostics {
  version?: number;
  diagnostics: Diagnostic[];
}

type Waiter = () => void;

export class LspHarness {
  readonly connection: ProtocolConnection;
  readonly process: ChildProcess;
  readonly workspaceDir: string;
  readonly workspaceUri: string;
  /** The `toonlens` section answered to workspace/configuration. */
  settings: Record<string, unknown>;
  initializeResult: InitializeResult | undefined;
  /** Every publishDiagnostics, per URI, in arrival order. */
  readonly published = new Map<string, PublishedDiagnostics[]>();
  /** window/logMessage notifications (the server's connection.console). */
  readonly logs: LogMessageParams[] = [];
  /** Server stderr. */
  stderr = '';
  readonly confirmRequests: unknown[] = [];
  readonly statusNotifications: unknown[] = [];
  readonly appliedEdits: ApplyWorkspaceEditParams[] = [];
  readonly configurationRequests: unknown[] = [];
  /** How many workspace/codeLens/refresh requests the server sent. */
  codeLensRefreshes = 0;
  /** window/workDoneProgress/create tokens, and every $/progress notification in order. */
  readonly progressTokens: (string | number)[] = [];
  readonly progress: { token: string | number; value: { kind: string; title?: string; message?: string; percentage?: number; cancellable?: boolean } }[] = [];
  /** window/showDocument requests. */
  readonly shownDocuments: { uri: string; selection?: Range; takeFocus?: boolean }[] = [];
  /** window/showMessage notifications. */
  readonly messages: { type: number; message: string }[] = [];
  /** Resolves with the exit code once the server process has exited. */
  readonly exited: Promise<number | null>;

  private readonly versions = new Map<string, number>();
  private readonly texts = new Map<string, string>();
  private waiters: Waiter[] = [];
  private ownsWorkspace: boolean;
  private exitCode: number | null | undefined;

  private constructor(private readonly opts: HarnessOptions) {
    this.ownsWorkspace = !opts.workspaceDir;
    this.workspaceDir = opts.workspaceDir ?? mkdtempSync(join(tmpdir(), 'toonlens-lsp-'));
    this.workspaceUri = pathToFileURL(this.workspaceDir).toString();
    this.settings = { ...(opts.settings ?? {}) };

    // Started as the VS Code client starts it (server/src/protocol/launch.ts): what the tests and the bench run is what users run.
    this.process = spawn(process.execPath, [...SERVER_EXEC_ARGV, opts.serverPath ?? SERVER_PATH, '--stdio'], {
      cwd: REPO_ROOT,
      env: { ...process.env, ...serverEnvAdditions(), TOONLENS_TEST_COUNTERS: '1', ...(opts.env ?? {}) },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.exited = new Promise((resolve) => {
      this.process.on('exit', (code) => {
        this.exitCode = code;
        resolve(code);
        this.notify();
      });
    });
    this.process.stderr!.setEncoding('utf8');
    this.process.stderr!.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    const reader = new StreamMessageReader(this.process.stdout!);
    this.connection = createProtocolConnection(reader, new StreamMessageWriter(this.process.stdin!));
    // A server killed in the middle of writing a message leaves the reader a partial message, whose
    // warning timer re-arms itself every 10 s forever and keeps the test process from exiting: once every
    // stdio stream of the server is closed, nothing more can arrive, so stop it.
    this.process.on('close', () => {
      reader.partialMessageTimeout = 0;
      (reader as unknown as { clearPartialMessageTimer?: () => void }).clearPartialMessageTimer?.();
    });
    this.wire();
    this.connection.listen();
  }

  /** Spawns the server and completes initialize/initialized. */
  static async start(opts: HarnessOptions = {}): Promise<LspHarness> {
    const h = new LspHarness(opts);
    try {
      await h.initialize();
    } catch (err) {
      h.kill();
      throw new Error(`server did not initialize: ${errorMessage(err)}\nstderr:\n${h.stderr}`, { cause: err });
    }
    return h;
  }

  /** Whether the server process is still running. */
  get alive(): boolean {
    return this.exitCode === undefined;
  }

  private wire(): void {
    const c = this.connection;
    c.onNotification(PublishDiagnosticsNotification.type, (p: PublishDiagnosticsParams) => {
      const list = this.published.get(p.uri) ?? [];
      list.push({ version: p.version, diagnostics: p.diagnostics });
      this.published.set(p.uri, list);
      this.notify();
    });
    c.onNotification(LogMessageNotification.type, (p) => {
      this.logs.push(p);
      this.notify();
    });
    c.onNotification('toonlens/status', (p: unknown) => {
      this.statusNotifications.push(p);
      this.notify();
    });
    c.onRequest(ConfigurationRequest.type, (p) => {
      this.configurationRequests.push(p);
      return p.items.map((item) => (item.section === 'toonlens' || item.section === undefined ? this.settings : null));
    });
    c.onRequest('toonlens/confirm', (p: unknown) => {
      this.confirmRequests.push(p);
      const a = this.opts.confirmAnswer ?? true;
      return typeof a === 'function' ? a(p) : a;
    });
    c.onRequest(ApplyWorkspaceEditRequest.type, (p) => {
      this.appliedEdits.push(p);
      this.notify();
      return { applied: this.opts.applyEditResult ?? true };
    });
    c.onRequest(RegistrationRequest.type, () => undefined);
    c.onRequest(UnregistrationRequest.type, () => undefined);
    c.onRequest(WorkDoneProgressCreateRequest.type, (p) => {
      this.progressTokens.push(p.token);
      this.notify();
    });
    c.onNotification('$/progress', (p: LspHarness['progress'][number]) => {
      this.progress.push(p);
      this.notify();
    });
    c.onRequest(CodeLensRefreshRequest.type, () => {
      this.codeLensRefreshes++;
      this.notify();
    });
    c.onRequest('window/showDocument', (p: LspHarness['shownDocuments'][number]) => {
      this.shownDocuments.push(p);
      this.notify();
      return { success: true };
    });
    c.onNotification('window/showMessage', (p: { type: number; message: string }) => {
      this.messages.push(p);
      this.notify();
    });
    c.onError(() => undefined);
    c.onClose(() => this.notify());
  }

  private async initialize(): Promise<void> {
    const configuration = this.opts.configurationCapability ?? true;
    const capabilities: ClientCapabilities = {
      workspace: {
        configuration,
        workspaceFolders: true,
        applyEdit: true,
        workspaceEdit: { documentChanges: true },
        didChangeConfiguration: { dynamicRegistration: false },
        didChangeWatchedFiles: { dynamicRegistration: false },
        codeLens: { refreshSupport: true },
      },
      textDocument: {
        synchronization: { dynamicRegistration: false },
        publishDiagnostics: { versionSupport: true, relatedInformation: true },
        hover: { contentFormat: ['markdown', 'plaintext'] },
        codeAction: {
          codeActionLiteralSupport: { codeActionKind: { valueSet: ['', 'quickfix', 'refactor', 'source', 'source.fixAll'] } },
          isPreferredSupport: true,
          dataSupport: true,
        },
        codeLens: this.opts.resolvesLenses ? { resolveSupport: { properties: ['command'] } } : {},
      },
      window: { workDoneProgress: true, showDocument: { support: true } },
      ...(this.opts.capabilities ?? {}),
    };
    this.initializeResult = await withTimeout(
      this.connection.sendRequest(InitializeRequest.type, {
        processId: process.pid,
        rootUri: this.workspaceUri,
        workspaceFolders: [{ uri: this.workspaceUri, name: 'workspace' }],
        capabilities,
        initializationOptions: this.opts.initializationOptions,
      }),
      busy(10_000),
      'initialize',
    );
    await this.connection.sendNotification(InitializedNotification.type, {});
  }

  /** The file URI of a workspace-relative path. */
  uri(relPath: string): string {
    return pathToFileURL(join(this.workspaceDir, relPath)).toString();
  }

  /** Writes a file into the workspace (creating folders); returns its URI. */
  writeFile(relPath: string, text: string | Uint8Array): string {
    const abs = join(this.workspaceDir, relPath);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, text);
    return this.uri(relPath);
  }

  /** didOpen. `target` is a workspace-relative path or a full URI. Returns the URI. */
  open(target: string, text: string, languageId?: string): string {
    const uri = /^[a-z][a-z0-9+.-]*:/i.test(target) ? target : this.uri(target);
    const lang = languageId ?? guessLanguage(uri);
    this.versions.set(uri, 1);
    this.texts.set(uri, text);
    void this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: lang, version: 1, text } });
    return uri;
  }

  /** Writes the file to disk (report rules resolve paths against it) and opens it. */
  openFile(relPath: string, text: string, languageId?: string): string {
    this.writeFile(relPath, text);
    return this.open(relPath, text, languageId);
  }

  /** didChange with the whole new text (or explicit incremental changes). Returns the new version. */
  change(uri: string, change: string | TextDocumentContentChangeEvent[]): number {
    const version = (this.versions.get(uri) ?? 0) + 1;
    this.versions.set(uri, version);
    const contentChanges = typeof change === 'string' ? [{ text: change }] : change;
    if (typeof change === 'string') this.texts.set(uri, change);
    else this.texts.set(uri, applyContentChanges(this.texts.get(uri) ?? '', change));
    void this.connection.sendNotification(DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges });
    return version;
  }

  close(uri: string): void {
    this.versions.delete(uri);
    this.texts.delete(uri);
    void this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  /** The text the harness believes the server has for an open document. */
  text(uri: string): string | undefined {
    return this.texts.get(uri);
  }

  version(uri: string): number | undefined {
    return this.versions.get(uri);
  }

  /** Replaces the settings and sends workspace/didChangeConfiguration (with the values, for push-only clients). */
  async setSettings(settings: Record<string, unknown>): Promise<void> {
    this.settings = { ...settings };
    await this.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: { toonlens: this.settings } });
  }

  async fileEvents(changes: FileEvent[]): Promise<void> {
    await this.connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes });
  }

  /** The most recent diagnostics published for a URI (undefined: none yet). */
  latestDiagnostics(uri: string): Diagnostic[] | undefined {
    const list = this.published.get(uri);
    return list?.[list.length - 1]?.diagnostics;
  }

  /**
   * Waits until the latest diagnostics published for `uri` satisfy `predicate` (checked on what is
   * already there, then on every new publish). Rejects after `timeoutMs` with what was last seen.
   */
  waitForDiagnostics(uri: string, predicate: (diagnostics: Diagnostic[], version?: number) => boolean = () => true, timeoutMs = busy(15_000)): Promise<Diagnostic[]> {
    return this.waitFor(
      () => {
        const list = this.published.get(uri);
        const last = list?.[list.length - 1];
        return last && predicate(last.diagnostics, last.version) ? last.diagnostics : undefined;
      },
      timeoutMs,
      () => `diagnostics for ${uri}; last published: ${JSON.stringify(this.latestDiagnostics(uri)?.map((d) => `${d.code}@${d.range.start.line}:${d.range.start.character}`))}`,
    );
  }

  /** Waits until the latest status-bar notification for `uri` satisfies `predicate`. */
  waitForStatus(uri: string, predicate: (p: { text: string; tooltip?: string }) => boolean, timeoutMs = busy(15_000)): Promise<{ text: string; tooltip?: string }> {
    const latest = () => (this.statusNotifications as { uri?: string; text: string; tooltip?: string }[]).filter((p) => p.uri === uri).at(-1);
    return this.waitFor(() => {
      const p = latest();
      return p && predicate(p) ? p : undefined;
    }, timeoutMs, () => `a status for ${uri}; last: ${JSON.stringify(latest())}`);
  }

  /** Waits until the server logged a message matching `re`. */
  waitForLog(re: RegExp, timeoutMs = busy(5000)): Promise<LogMessageParams> {
    return this.waitFor(() => this.logs.find((l) => re.test(l.message)), timeoutMs, () => `a log matching ${re}; logs: ${this.logs.map((l) => l.message).join(' | ')}`);
  }

  /** Generic wait for a condition re-evaluated on every message from the server. */
  waitFor<T>(probe: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): boolean => {
        const v = probe();
        if (v !== undefined) {
          finish();
          resolve(v);
          return true;
        }
        if (!this.alive) {
          finish();
          reject(new Error(`server exited while waiting for ${describe()}\nstderr:\n${this.stderr}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${describe()}`));
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
      };
      const waiter: Waiter = () => void check();
      if (check()) return;
      this.waiters.push(waiter);
    });
  }

  /**
   * Resolves once the server is idle: every debounce timer has fired, every diagnostics run, time-sliced
   * markdown analysis, JSON worker job and lens refresh has finished, and what they published has arrived
   * (the server answers after writing it). Use it to assert that nothing more arrives — never a sleep.
   * Needs TOONLENS_TEST_COUNTERS in the server's environment, which the harness sets unless told otherwise.
   */
  async waitIdle(timeoutMs = busy(30_000)): Promise<void> {
    await withTimeout(this.connection.sendRequest(ExecuteCommandRequest.type, { command: IDLE_COMMAND, arguments: [] }), timeoutMs, 'toonlens.test.idle');
  }

  /** A round trip: resolves once the server has handled every message sent before it (paces a client like an editor's keystrokes). */
  async roundTrip(): Promise<void> {
    await withTimeout(this.connection.sendRequest(ExecuteCommandRequest.type, { command: PING_COMMAND, arguments: [] }), busy(10_000), 'toonlens.test.ping');
  }

  hover(uri: string, position: Position): Promise<Hover | null> {
    return withTimeout(this.connection.sendRequest(HoverRequest.type, { textDocument: { uri }, position }), busy(10_000), 'hover');
  }

  codeActions(uri: string, range: Range, opts: { only?: string[]; diagnostics?: Diagnostic[] } = {}): Promise<(CodeAction | Command)[] | null> {
    return withTimeout(
      this.connection.sendRequest(CodeActionRequest.type, {
        textDocument: { uri },
        range,
        context: { diagnostics: opts.diagnostics ?? [], only: opts.only },
      }),
      busy(10_000),
      'codeAction',
    );
  }

  codeLenses(uri: string): Promise<CodeLens[] | null> {
    return withTimeout(this.connection.sendRequest(CodeLensRequest.type, { textDocument: { uri } }), busy(10_000), 'codeLens');
  }

  /** workspace/executeCommand; `timeoutMs` for commands whose work grows with the workspace (Check Workspace). */
  executeCommand(command: string, args: unknown[] = [], timeoutMs = busy(10_000)): Promise<unknown> {
    return withTimeout(this.connection.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }), timeoutMs, `executeCommand ${command}`);
  }

  /** The text edits a workspace edit makes to one document (changes or documentChanges form). */
  static editsFor(edit: WorkspaceEdit | undefined, uri: string): TextEdit[] {
    if (!edit) return [];
    const out: TextEdit[] = [];
    if (edit.changes?.[uri]) out.push(...edit.changes[uri]!);
    for (const dc of edit.documentChanges ?? []) {
      if ('textDocument' in dc && dc.textDocument.uri === uri) out.push(...(dc.edits as TextEdit[]));
    }
    return out;
  }

  /** shutdown + exit, then waits for the process to end (killed after a timeout); removes the temp workspace. */
  async shutdown(timeoutMs = busy(5000)): Promise<number | null> {
    try {
      if (this.alive) {
        await withTimeout(this.connection.sendRequest(ShutdownRequest.type), timeoutMs, 'shutdown');
        await this.connection.sendNotification(ExitNotification.type);
      }
      const code = await withTimeout(this.exited, timeoutMs, 'process exit');
      return code;
    } catch (err) {
      this.kill();
      throw err;
    } finally {
      this.connection.dispose();
      if (this.ownsWorkspace) rmSync(this.workspaceDir, { recursive: true, force: true });
    }
  }

  /** Kills the server (for failed tests); the temp workspace it owns is removed once the process has exited. */
  kill(): void {
    if (this.alive) this.process.kill('SIGKILL');
    if (this.ownsWorkspace) void this.exited.then(() => rmSync(this.workspaceDir, { recursive: true, force: true }));
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }
}

function guessLanguage(uri: string): string {
  if (/\.jsonc$/i.test(uri)) return 'jsonc';
  if (/\.json$/i.test(uri)) return 'json';
  if (/\.(md|markdown)$/i.test(uri)) return 'markdown';
  if (/\.toon$/i.test(uri)) return 'toon';
  return 'plaintext';
}

/**
 * Offset of an LSP position in a text, as an editor computes it: UTF-16, and "\n", "\r\n" and a lone "\r"
 * each end a line (the LSP base protocol), through the same TextDocument model VS Code's servers use.
 */
export function offsetAt(text: string, pos: Position): number {
  return TextDocument.create('inmemory://offsets', 'plaintext', 0, text).offsetAt(pos);
}

/** The LSP position of an offset in a text (line breaks as in {@link offsetAt}). */
export function positionAt(text: string, offset: number): Position {
  return TextDocument.create('inmemory://offsets', 'plaintext', 0, text).positionAt(offset);
}

/** Applies non-overlapping text edits (as a client would). */
export function applyTextEdits(text: string, edits: TextEdit[]): string {
  const doc = TextDocument.create('inmemory://edits', 'plaintext', 0, text);
  const spans = edits
    .map((e) => ({ start: doc.offsetAt(e.range.start), end: doc.offsetAt(e.range.end), newText: e.newText }))
    .sort((a, b) => b.start - a.start || b.end - a.end);
  let out = text;
  let lastStart = Infinity;
  for (const s of spans) {
    if (s.end > lastStart) throw new Error('overlapping text edits');
    out = out.slice(0, s.start) + s.newText + out.slice(s.end);
    lastStart = s.start;
  }
  return out;
}

function applyContentChanges(text: string, changes: TextDocumentContentChangeEvent[]): string {
  let out = text;
  for (const c of changes) {
    if ('range' in c && c.range) out = applyTextEdits(out, [{ range: c.range, newText: c.text }]);
    else out = c.text;
  }
  return out;
}

/**
 * A default timeout stretched by how busy the machine is (the one-minute load per core, 1× to 8×). A timeout
 * here only turns a hang into a failure; on a loaded machine an answer that is merely slow must not fail the
 * test. Timeouts a test passes explicitly are used as given.
 */
export function busy(ms: number): number {
  const perCore = loadavg()[0]! / Math.max(1, cpus().length);
  return Math.round(ms * Math.min(8, Math.max(1, perCore)));
}

/** `p`, or a rejection `<what> timed out after <ms> ms`. */
export function withTimeout<T>(p: Promise<T> | Thenable<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    Promise.resolve(p).finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]);
}

/** The CLI's severity words, by LSP DiagnosticSeverity (1 error … 4 hint). */
export const SEVERITY_WORDS = ['', 'error', 'warning', 'info', 'hint'];

/** Published diagnostics in the shape `toonlens check --format json` reports them (editor = CLI comparisons). */
export function asCliDiagnostics(ds: Diagnostic[]) {
  return ds.map((d) => ({
    code: d.code,
    severity: SEVERITY_WORDS[d.severity ?? 1],
    message: d.message,
    range: d.range,
    ...(d.relatedInformation ? { related: d.relatedInformation.map((r) => ({ message: r.message, range: r.location.range })) } : {}),
  }));
}

/**
 * A minimal LSP client over stdio for the benchmarks: spawns a server (ours, or vscode-json-language-server
 * as the anchor), initializes it, answers the requests servers send (configuration, registrations), and
 * times round trips: didOpen → the first publishDiagnostics of that URI, and plain requests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { SERVER_EXEC_ARGV, serverEnvAdditions } from '../server/src/protocol/launch';
import {
  createProtocolConnection,
  DidChangeConfigurationNotification,
  DidCloseTextDocumentNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type Diagnostic,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';

/**
 * `node` with the options and environment the VS Code client starts ToonLens's server with (server/src/node/
 * launch.ts), for ToonLens's server and the bench servers that stand in for its parts; then `args` (the script first).
 */
export function launched(args: string[], env?: Record<string, string>): Pick<ClientOptions, 'command' | 'args' | 'env'> {
  return { command: process.execPath, args: [...SERVER_EXEC_ARGV, ...args], env: { ...serverEnvAdditions(), ...(env ?? {}) } };
}

export interface ClientOptions {
  command: string;
  args: string[];
  workspaceDir: string;
  /** Answer of workspace/configuration (per section name) and the didChangeConfiguration push. */
  settings: Record<string, unknown>;
  initializationOptions?: unknown;
  env?: Record<string, string>;
}

export class BenchClient {
  readonly process: ChildProcess;
  readonly connection: ProtocolConnection;
  private readonly waiters = new Map<string, (d: Diagnostic[]) => void>();

  private constructor(opts: ClientOptions) {
    this.process = spawn(opts.command, opts.args, { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, ...(opts.env ?? {}) } });
    this.connection = createProtocolConnection(new StreamMessageReader(this.process.stdout!), new StreamMessageWriter(this.process.stdin!));
    this.connection.onRequest('workspace/configuration', (p: { items: { section?: string }[] }) => p.items.map((i) => (i.section ? (opts.settings[i.section] ?? null) : opts.settings)));
    this.connection.onRequest('client/registerCapability', () => null);
    this.connection.onRequest('window/workDoneProgress/create', () => null);
    this.connection.onRequest('workspace/codeLens/refresh', () => null);
    this.connection.onNotification(PublishDiagnosticsNotification.type, (p) => {
      const w = this.waiters.get(p.uri);
      if (w) {
        this.waiters.delete(p.uri);
        w(p.diagnostics);
      }
    });
    this.connection.onUnhandledNotification(() => undefined);
    this.connection.listen();
  }

  static async start(opts: ClientOptions): Promise<BenchClient> {
    const c = new BenchClient(opts);
    const rootUri = pathToFileURL(opts.workspaceDir).toString();
    await c.connection.sendRequest(InitializeRequest.type, {
      processId: process.pid,
      rootUri,
      workspaceFolders: [{ uri: rootUri, name: 'bench' }],
      initializationOptions: opts.initializationOptions,
      capabilities: {
        workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: false } },
        textDocument: { publishDiagnostics: { relatedInformation: false }, codeLens: {}, hover: { contentFormat: ['markdown'] }, synchronization: { dynamicRegistration: false } },
      },
    });
    await c.connection.sendNotification(InitializedNotification.type, {});
    await c.connection.sendNotification(DidChangeConfigurationNotification.type, { settings: opts.settings });
    return c;
  }

  /** Opens a document and resolves with its first published diagnostics and the time that took (ms). */
  async openAndWait(uri: string, text: string, languageId = 'json', timeoutMs = 300_000): Promise<{ ms: number; diagnostics: Diagnostic[] }> {
    const got = new Promise<Diagnostic[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no diagnostics for ${uri} in ${timeoutMs} ms`)), timeoutMs);
      this.waiters.set(uri, (d) => {
        clearTimeout(timer);
        resolve(d);
      });
    });
    const t0 = performance.now();
    await this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } });
    const diagnostics = await got;
    return { ms: performance.now() - t0, diagnostics };
  }

  /** Opens a document without waiting. */
  open(uri: string, text: string, languageId = 'json'): Promise<void> {
    return this.connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId, version: 1, text } });
  }

  close(uri: string): Promise<void> {
    return this.connection.sendNotification(DidCloseTextDocumentNotification.type, { textDocument: { uri } });
  }

  /** A request's round trip (ms) and result. */
  async timed<T>(method: string, params: unknown): Promise<{ ms: number; result: T }> {
    const t0 = performance.now();
    const result = (await this.connection.sendRequest(method, params)) as T;
    return { ms: performance.now() - t0, result };
  }

  /** Peak resident set (VmHWM) of the server process, bytes. */
  peakRss(): number {
    const m = /^VmHWM:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${this.process.pid}/status`, 'utf8'));
    if (!m) throw new Error('no VmHWM in /proc/<pid>/status');
    return Number(m[1]) * 1024;
  }

  async stop(): Promise<void> {
    try {
      await Promise.race([this.connection.sendRequest(ShutdownRequest.type), new Promise((r) => setTimeout(r, 30_000))]);
      await this.connection.sendNotification(ExitNotification.type);
    } catch {
      // already gone
    }
    const exited = new Promise((r) => this.process.once('exit', r));
    const timer = setTimeout(() => this.process.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
    this.connection.dispose();
  }
}

/**
 * The JSON worker thread (dist/jsonWorker.js): checks a large agent-JSON document, plans a large report's
 * lenses and strict-decodes a large `.toon` file off the server's request thread, so hovers, completions and other documents stay
 * answered meanwhile. It runs the same core functions as the in-thread path, over a workspace view
 * rebuilt from the job (the real file system, the server's open buffers as of the job).
 */
import { parentPort } from 'node:worker_threads';
import { checkDocument } from '../core/agentJson/check';
import { locatedReportLenses } from '../core/agentJson/report/lenses';
import { toonFileDiagnostics } from '../core/toon/fences';
import type { WorkspaceReader } from '../core/types';
import { createNodeWorkspace } from './workspace';
import type { WorkerJob, WorkerReply, WorkerWorkspace } from './jsonWorkerProtocol';
import { errorMessage } from '../core/errors';

// A worker thread's stdout is the process's stdout, which under `--stdio` is the JSON-RPC channel: anything
// printed here (ajv's logger, a library's warning) would corrupt it. Everything goes to stderr instead, which
// the client shows in the server's output.
if (parentPort) {
  const toStderr = (...args: unknown[]) => console.error(...args);
  console.log = console.info = console.debug = toStderr;
  process.stdout.write = process.stderr.write.bind(process.stderr) as typeof process.stdout.write;
}

function workspaceOf(w: WorkerWorkspace | undefined): WorkspaceReader | undefined {
  if (!w) return undefined;
  const open = new Map(w.openTexts);
  const node = createNodeWorkspace(w.root, (p) => open.get(p));
  return w.trusted ? node : { ...node, root: node.root, gitState: () => undefined, hookDirs: () => [] };
}

function run(job: WorkerJob): WorkerReply {
  if (job.op === 'toon') return { id: job.id, ok: true, toon: toonFileDiagnostics(job.text) };
  if (job.op === 'check') {
    const r = checkDocument(job.text, { fsPath: job.fsPath, settings: job.settings, kind: job.kind, workspace: workspaceOf(job.workspace) });
    return { id: job.id, ok: true, check: { kind: r.kind, diagnostics: r.diagnostics, lineHints: r.lineHints, parsed: r.value !== undefined } };
  }
  const text = job.text;
  let report: unknown;
  try {
    report = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return { id: job.id, ok: true, lenses: [] };
  }
  return { id: job.id, ok: true, lenses: locatedReportLenses(text, report, workspaceOf(job.workspace)!, job.workspace.trusted, job.fsPath) };
}

parentPort?.on('message', (job: WorkerJob) => {
  let reply: WorkerReply;
  try {
    reply = run(job);
  } catch (err) {
    reply = { id: job.id, ok: false, error: errorMessage(err) };
  }
  parentPort!.postMessage(reply);
});

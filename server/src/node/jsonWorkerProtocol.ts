/** Messages between the language server and its JSON worker thread (plain, structured-clonable data). */
import type { CheckSettings } from '../core/agentJson/check';
import type { CoreDiagnostic, DocumentKind } from '../core/types';
import type { LocatedReportLens } from '../core/agentJson/report/lenses';
import type { LineHints } from '../core/lineIndex';

/** What the worker needs to rebuild the document's workspace view. */
export interface WorkerWorkspace {
  root: string;
  /** Whether git may run (an untrusted workspace never runs it). */
  trusted: boolean;
  /** The open editor buffers other than the document itself: [absolute path, text]. */
  openTexts: [string, string][];
}

export type WorkerJob =
  | { id: number; op: 'check'; text: string; fsPath?: string; settings?: CheckSettings; kind?: DocumentKind; workspace?: WorkerWorkspace }
  | { id: number; op: 'lenses'; text: string; fsPath: string; workspace: WorkerWorkspace }
  /** A `.toon` file's strict decode (`toon/fence-decode`): seconds for a file of megabytes, one synchronous call. */
  | { id: number; op: 'toon'; text: string };

export type WorkerReply =
  | { id: number; ok: true; check?: { kind: DocumentKind | undefined; diagnostics: CoreDiagnostic[]; lineHints?: LineHints; parsed: boolean }; lenses?: LocatedReportLens[]; toon?: CoreDiagnostic[] }
  | { id: number; ok: false; error: string };

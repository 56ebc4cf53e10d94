/**
 * Publishing diagnostics: a per-document debounce where a newer version supersedes pending work for
 * older ones (there is never a queue of stale checks), providers isolated from each other, and the
 * last diagnostics of a closed document cleared.
 */
import { DiagnosticSeverity, type Connection, type Diagnostic, type TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { CoreDiagnostic, Severity } from '../core/types';
import { applyRuleLevels, type RuleLevel } from '../core/config';
import type { DiagnosticProvider, Logger } from './feature';
import type { SettingsStore, ToonLensSettings } from './settings';
import { errorText } from './settings';
import { offsetRangeToLsp } from './positions';
import { pushAll } from '../core/arrays';
import { isCancellation } from './timeSlice';
import { serverWork } from './idle';

export const DIAGNOSTIC_SOURCE = 'toonlens';

/** Debounce after an edit; an open is checked (almost) at once. */
export const CHANGE_DELAY_MS = 200;
export const OPEN_DELAY_MS = 0;

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  info: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/** What a published diagnostic carries for code actions (they recompute fixes from the current text; this only helps matching). */
export interface ToonLensDiagnosticData {
  /** Document version the diagnostic was computed for. */
  version: number;
  /** JSON path the finding is about. */
  path?: (string | number)[];
  /** How many quick fixes the finding had. */
  fixes: number;
}

/** The LSP form of a core diagnostic (`range`: its range already converted, else converted here). */
export function toLspDiagnostic(doc: TextDocument, d: CoreDiagnostic, range?: Diagnostic['range']): Diagnostic {
  const data: ToonLensDiagnosticData = { version: doc.version, fixes: d.fixes?.length ?? 0 };
  if (d.path) data.path = [...d.path];
  return {
    range: range ?? offsetRangeToLsp(doc, d.range),
    severity: SEVERITY[d.severity] ?? DiagnosticSeverity.Error,
    code: d.code,
    source: DIAGNOSTIC_SOURCE,
    message: d.message,
    data,
    ...(d.related?.length ? { relatedInformation: d.related.map((r) => ({ location: { uri: doc.uri, range: offsetRangeToLsp(doc, r.range) }, message: r.message })) } : {}),
  };
}

const LEVEL_OF: Partial<Record<DiagnosticSeverity, Severity>> = {
  [DiagnosticSeverity.Error]: 'error',
  [DiagnosticSeverity.Warning]: 'warning',
  [DiagnosticSeverity.Information]: 'info',
  [DiagnosticSeverity.Hint]: 'hint',
};

/** LSP diagnostics with the rule levels applied (`off` removes, another level replaces the severity), as the CLI does on core diagnostics. */
export function applyRuleLevelsToLsp(diagnostics: Diagnostic[], rules: Readonly<Record<string, RuleLevel>>): Diagnostic[] {
  if (Object.keys(rules).length === 0) return diagnostics;
  const tagged = diagnostics.map((d) => ({ d, code: typeof d.code === 'string' ? d.code : String(d.code ?? ''), severity: LEVEL_OF[d.severity ?? DiagnosticSeverity.Error] ?? 'error' }));
  return applyRuleLevels(tagged, rules).map((t) => (t.severity === LEVEL_OF[t.d.severity ?? DiagnosticSeverity.Error] ? t.d : { ...t.d, severity: SEVERITY[t.severity] }));
}

interface Pending {
  timer: NodeJS.Timeout | undefined;
  /** Ends this check's registration as pending server work (the timer, then the run it starts). */
  end: () => void;
}

export class DiagnosticsScheduler {
  /** Bumped on every schedule and close; work started for an older generation is dropped. */
  private readonly generation = new Map<string, number>();
  private readonly pending = new Map<string, Pending>();
  /** Documents we published something for (so a document that stops qualifying still gets cleared). */
  private readonly published = new Set<string>();

  constructor(
    private readonly connection: Connection,
    private readonly documents: TextDocuments<TextDocument>,
    private readonly settings: SettingsStore,
    private readonly providers: () => readonly { name: string; provider: DiagnosticProvider }[],
    private readonly log: Logger,
  ) {}

  /** Schedules a check of the document's current version after `delayMs`, cancelling any pending one. */
  schedule(uri: string, delayMs: number): void {
    const gen = this.bump(uri);
    const end = serverWork.begin();
    const timer = setTimeout(() => {
      this.pending.delete(uri);
      this.run(uri, gen)
        .catch((err) => this.log.error(`diagnostics failed for ${uri}: ${errorText(err)}`))
        .finally(end);
    }, delayMs);
    this.pending.set(uri, { timer, end });
  }

  /** Re-checks every open document (optionally only those `filter` accepts). */
  scheduleAll(delayMs: number, filter?: (doc: TextDocument) => boolean): void {
    for (const doc of this.documents.all()) {
      let take = true;
      if (filter) {
        try {
          take = filter(doc);
        } catch (err) {
          this.log.error(`diagnostics filter failed for ${doc.uri}: ${errorText(err)}`);
          take = false;
        }
      }
      if (take) this.schedule(doc.uri, delayMs);
    }
  }

  /** The document closed: cancel pending work and clear what was published. */
  close(uri: string): void {
    this.bump(uri);
    this.generation.delete(uri);
    this.published.delete(uri);
    this.connection.sendDiagnostics({ uri, diagnostics: [] }).catch(() => undefined);
  }

  dispose(): void {
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.end();
    }
    this.pending.clear();
  }

  private bump(uri: string): number {
    const p = this.pending.get(uri);
    if (p) {
      clearTimeout(p.timer);
      p.end();
      this.pending.delete(uri);
    }
    const gen = (this.generation.get(uri) ?? 0) + 1;
    this.generation.set(uri, gen);
    return gen;
  }

  /**
   * Every applicable provider's diagnostics for a document that need not be open (a workspace check of a
   * file on disk); providers are isolated as for open documents. Undefined when no provider applies.
   */
  async diagnose(doc: TextDocument, settings: ToonLensSettings): Promise<Diagnostic[] | undefined> {
    const applicable = this.providers().filter(({ name, provider }) => {
      try {
        return provider.appliesTo(doc);
      } catch (err) {
        this.log.error(`${name}: appliesTo failed for ${doc.uri}: ${errorText(err)}`);
        return false;
      }
    });
    if (applicable.length === 0) return undefined;
    const diagnostics: Diagnostic[] = [];
    for (const { name, provider } of applicable) {
      try {
        pushAll(diagnostics, await provider.provide(doc, settings));
      } catch (err) {
        this.log.error(`${name}: diagnostics failed for ${doc.uri}: ${errorText(err)}`);
      }
    }
    // As for open documents: the project's ignore globs and the rule levels apply.
    return settings.project?.ignored ? [] : applyRuleLevelsToLsp(diagnostics, settings.rules);
  }

  private async run(uri: string, gen: number): Promise<void> {
    if (this.generation.get(uri) !== gen) return;
    const first = this.documents.get(uri);
    if (!first) return;
    const applicable = this.providers().filter(({ name, provider }) => {
      try {
        return provider.appliesTo(first);
      } catch (err) {
        this.log.error(`${name}: appliesTo failed for ${uri}: ${errorText(err)}`);
        return false;
      }
    });
    if (applicable.length === 0 && !this.published.has(uri)) return;

    const settings = await this.settings.forDocument(uri); // cached; bounded by a timeout
    if (this.generation.get(uri) !== gen) return; // a newer version (or a close) superseded this run
    const doc = this.documents.get(uri);
    if (!doc) return;

    const diagnostics: Diagnostic[] = [];
    for (const { name, provider } of applicable) {
      try {
        // A provider may work off-thread (large JSON): other requests are answered meanwhile.
        pushAll(diagnostics, await provider.provide(doc, settings));
      } catch (err) {
        // A newer version superseded this one while it was measured: its own run publishes.
        if (isCancellation(err)) return;
        this.log.error(`${name}: diagnostics failed for ${uri} (version ${doc.version}): ${errorText(err)}`);
      }
    }
    if (this.generation.get(uri) !== gen) return;
    if (diagnostics.length === 0 && applicable.length === 0) this.published.delete(uri);
    else this.published.add(uri);
    // The project's ignore globs and the rule levels (.toonlens.json + toonlens.rules) apply to every provider alike.
    const shown = settings.project?.ignored ? [] : applyRuleLevelsToLsp(diagnostics, settings.rules);
    await this.connection.sendDiagnostics({ uri, version: doc.version, diagnostics: shown });
  }
}

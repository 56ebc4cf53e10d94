/**
 * Publishing diagnostics: a per-document debounce where a newer version supersedes pending work for
 * older ones (there is never a queue of stale checks), providers isolated from each other, and the
 * last diagnostics of a closed document cleared.
 */
import { formatInt } from '../core/format';
import { DiagnosticSeverity, type Connection, type Diagnostic, type TextDocuments } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { CoreDiagnostic, Severity } from '../core/types';
import { applyRuleLevels, type RuleLevel } from '../core/config';
import type { DiagnosticProvider, Logger } from './feature';
import type { SettingsStore, ToonLensSettings } from './settings';
import { errorText } from './settings';
import { offsetRangeToLsp } from './positions';
import { pushAll } from '../core/arrays';
import { codeDocumentationUrl } from '../core/codes';
import { isCancellation, nextTurn } from './timeSlice';
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

/** The most diagnostics published for one document; the rest are summed up in one more (`limits/too-many-diagnostics`). */
export const MAX_DIAGNOSTICS_PER_DOCUMENT = 1000;

/**
 * Checks in flight at once. Each publishes when done, and the connection writes its messages in order: with
 * thousands of checks started at once, the answer to a hover would be written after all their diagnostics.
 */
const MAX_IN_FLIGHT = 4;
/** After this long a check still running (time-sliced, or on the JSON worker) no longer holds its slot. */
const SLOT_MS = 100;

export const TOO_MANY_DIAGNOSTICS_CODE = 'limits/too-many-diagnostics';

const RANK: Record<DiagnosticSeverity, number> = {
  [DiagnosticSeverity.Error]: 0,
  [DiagnosticSeverity.Warning]: 1,
  [DiagnosticSeverity.Information]: 2,
  [DiagnosticSeverity.Hint]: 3,
};

/**
 * At most `max` of a document's diagnostics, as the Problems panel can use them: the most severe ones (errors,
 * then warnings, information, hints; by position within a severity, in the order they came), kept in the order
 * they came, and one information diagnostic on the first line saying how many more there are. Linear in the count
 * (a counting pass per severity, no sort of the whole list).
 */
export function capDiagnostics(diagnostics: Diagnostic[], max = MAX_DIAGNOSTICS_PER_DOCUMENT): Diagnostic[] {
  if (diagnostics.length <= max) return diagnostics;
  const perRank = [0, 0, 0, 0];
  for (const d of diagnostics) perRank[RANK[d.severity ?? DiagnosticSeverity.Error] ?? 0]!++;
  // The least severe rank kept, and how many of that rank fit.
  let room = max;
  let last = 0;
  while (last < 3 && perRank[last]! < room) room -= perRank[last++]!;
  const kept: Diagnostic[] = [];
  for (const d of diagnostics) {
    const r = RANK[d.severity ?? DiagnosticSeverity.Error] ?? 0;
    if (r < last) kept.push(d);
    else if (r === last && room > 0) {
      room--;
      kept.push(d);
    }
  }
  const more = diagnostics.length - kept.length;
  kept.unshift({
    range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    severity: DiagnosticSeverity.Information,
    code: TOO_MANY_DIAGNOSTICS_CODE,
    source: DIAGNOSTIC_SOURCE,
    message: `${formatInt(more)} more ${more === 1 ? 'diagnostic is' : 'diagnostics are'} not shown: at most ${formatInt(max)} per document, the most severe first (toonlens check lists them all)`,
  });
  return kept;
}

/**
 * Diagnostics as they are published: each ToonLens code links its documentation (`codeDescription.href`, its row
 * in docs/diagnostics.md; VS Code shows the code as that link in the hover and the Problems panel).
 */
export function withCodeDescriptions(diagnostics: Diagnostic[]): Diagnostic[] {
  for (let i = 0; i < diagnostics.length; i++) {
    const d = diagnostics[i]!;
    if (d.codeDescription || typeof d.code !== 'string') continue;
    const href = codeDocumentationUrl(d.code);
    if (href) diagnostics[i] = { ...d, codeDescription: { href } };
  }
  return diagnostics;
}

/** What is published of a document's diagnostics: none when the project ignores it; else the rule levels applied, capped, linked. */
export function shownDiagnostics(diagnostics: Diagnostic[], settings: ToonLensSettings): Diagnostic[] {
  return settings.project?.ignored ? [] : withCodeDescriptions(capDiagnostics(applyRuleLevelsToLsp(diagnostics, settings.rules)));
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

  /**
   * Checks whose delay is over, in the order they became due, waiting for their turn: one starts per turn of the
   * event loop, so a burst (a workspace of thousands of documents opened at once, a settings change re-checking
   * all of them) never holds the thread from reading and answering the requests that arrive meanwhile (a hover, a
   * completion): between two starts the connection reads and dispatches what came in.
   */
  private readonly due = new Map<string, { gen: number; end: () => void }>();
  private pumping = false;
  /**
   * A document was opened or changed since the pump's last turn: messages are arriving (the client's queue of
   * opens and the requests sent after them), and the pump lets the connection read on before it starts a check.
   */
  private traffic = false;
  /** Checks started and not finished (nor running longer than {@link SLOT_MS}), at most {@link MAX_IN_FLIGHT}. */
  private inFlight = 0;
  private slotFreed: (() => void) | undefined;

  /** Schedules a check of the document's current version after `delayMs`, cancelling any pending one. */
  schedule(uri: string, delayMs: number): void {
    this.traffic = true;
    const gen = this.bump(uri);
    const end = serverWork.begin();
    const timer = setTimeout(() => {
      this.pending.delete(uri);
      this.due.set(uri, { gen, end });
      if (!this.pumping) void this.pump();
    }, delayMs);
    this.pending.set(uri, { timer, end });
  }

  private async pump(): Promise<void> {
    this.pumping = true;
    try {
      for (;;) {
        if (this.traffic) {
          // Opens and edits are still coming in: what the client sent after them (a hover) is answered first.
          this.traffic = false;
          await nextTurn();
          continue;
        }
        if (this.inFlight >= MAX_IN_FLIGHT) {
          await new Promise<void>((resolve) => (this.slotFreed = resolve));
          continue;
        }
        const next = this.due.entries().next();
        if (next.done) return;
        const [uri, { gen, end }] = next.value;
        this.due.delete(uri);
        this.inFlight++;
        let held = true;
        let slotTimer: NodeJS.Timeout | undefined = undefined;
        const release = () => {
          if (!held) return;
          held = false;
          clearTimeout(slotTimer);
          this.inFlight--;
          const wake = this.slotFreed;
          this.slotFreed = undefined;
          wake?.();
        };
        // A long check (a large document, time-sliced or on the worker) gives its slot back after a while.
        slotTimer = setTimeout(release, SLOT_MS);
        slotTimer.unref?.();
        this.run(uri, gen)
          .catch((err) => this.log.error(`diagnostics failed for ${uri}: ${errorText(err)}`))
          .finally(() => {
            release();
            end();
          });
        await nextTurn();
      }
    } finally {
      this.pumping = false;
    }
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
    for (const d of this.due.values()) d.end();
    this.due.clear();
  }

  private bump(uri: string): number {
    const p = this.pending.get(uri);
    if (p) {
      clearTimeout(p.timer);
      p.end();
      this.pending.delete(uri);
    }
    const d = this.due.get(uri);
    if (d) {
      d.end();
      this.due.delete(uri);
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
    return shownDiagnostics(diagnostics, settings);
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
    const shown = shownDiagnostics(diagnostics, settings);
    await this.connection.sendDiagnostics({ uri, version: doc.version, diagnostics: shown });
  }
}

/**
 * Markdown documents: which open documents are markdown, and their section plan, computed at most once
 * per document version and shared by lenses, hovers, diagnostics and the convert commands. The engine's
 * cache memoizes each slice by its text, so after a keystroke only the edited section is measured again.
 */
import { formatInt, formatPercent } from '../../core/format';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { CancellationToken } from 'vscode-languageserver/node';
import { beginBackgroundProgress, shortName, type ProgressContext } from '../../lsp/progress';
import { EngineCache, planTextTokens, runSteps, toonFenceDiagnosticSteps, type EngineOptions, type PlanProgress, type PlanResult, type SectionResult, type TokenFigures } from '../../core/markdown/engine';
import type { CoreDiagnostic } from '../../core/types';
import { BACKGROUND_PAUSE_TURNS, contentModified, isCancellation, runSliced, untilCancelled } from '../../lsp/timeSlice';
import { serverWork } from '../../lsp/idle';
import { onePerServer, type FeatureContext } from '../../lsp/feature';
import { DEFAULT_SETTINGS, type ToonLensSettings } from '../../lsp/settings';
import { DEFAULT_MARKDOWN_LANGUAGES, type ToonLensInitializationOptions } from '../../protocol/commands';
import { markdownFences } from './fences';
import { addIdleTask, releasedHeap } from '../../node/idleGc';
import { ServerTextDocument } from '../../lsp/textDocument';
import { forgetLastMatch } from '../../core/markdown/text';
import { isMarkdownPath, isToonPath } from '../../core/files';
import type { TokenizerName } from '../../core/tokens';
import { errorMessage } from '../../core/errors';

/**
 * Heap bytes a markdown document's plan and cache hold per character of its text, on the high side: closing a document
 * reports this much garbage to the idle collector, which collects when that pays, so a high estimate only
 * makes the collection after a close come sooner.
 */
const HELD_PER_CHAR = 8;

/**
 * Documents at least this long have their text held compactly once idle (see {@link MarkdownPlans.compactIdle}):
 * below it the saving (at most a byte a character) is not worth a task.
 */
export const COMPACT_MIN_CHARS = 256 * 1024;

/** The settings a markdown plan depends on. */
export type PlanSettings = Pick<ToonLensSettings, 'tokenizer' | 'minTokenSavings' | 'minTokenSavingsPct'>;

/** Engine options from the settings (tokenizer, token gate and floor). */
export function planOptions(settings: PlanSettings = DEFAULT_SETTINGS): EngineOptions {
  return { tokenizer: settings.tokenizer, minTokenSavings: settings.minTokenSavings, minTokenSavingsPct: settings.minTokenSavingsPct };
}

/**
 * The language ids served as markdown: VS Code's markdown and agent-file languages, plus the client's
 * `toonlens.markdownLanguages` (from initializationOptions, or its `settings` for clients without the setting UI).
 */
export function markdownLanguagesOf(init: ToonLensInitializationOptions | undefined): ReadonlySet<string> {
  const extra: unknown[] = [];
  if (Array.isArray(init?.markdownLanguages)) extra.push(...init.markdownLanguages);
  const fromSettings = (init?.settings as { markdownLanguages?: unknown } | undefined)?.markdownLanguages;
  if (Array.isArray(fromSettings)) extra.push(...fromSettings);
  return new Set([...DEFAULT_MARKDOWN_LANGUAGES, ...extra.filter((x): x is string => typeof x === 'string' && x !== '')]);
}

/** The markdown language ids of a server, read once from what its client sent in `initialize`. */
const serverMarkdownLanguages = onePerServer((ctx) => markdownLanguagesOf(ctx.initializationOptions));

/** Markdown by language id (see {@link markdownLanguagesOf}), or by its path (core/files.ts) whatever the language id says. */
export function isMarkdownDocument(ctx: FeatureContext, doc: TextDocument): boolean {
  return serverMarkdownLanguages(ctx).has(doc.languageId) || isMarkdownPath(doc.uri);
}

/** `.toon` files. */
export function isToonDocument(doc: TextDocument): boolean {
  return doc.languageId === 'toon' || isToonPath(doc.uri);
}

/** Whether a document is over the `toonlens.maxFileSizeMB` limit (UTF-16 length is a lower bound of its bytes). */
export function overSizeLimit(doc: TextDocument, settings: ToonLensSettings): boolean {
  return doc.getText().length > settings.maxFileSizeMB * 1024 * 1024;
}

const optionsKeyOf = (opts: EngineOptions): string => `${opts.tokenizer}\0${opts.minTokenSavings}\0${opts.minTokenSavingsPct}`;

/** After this long, a plan still being computed shows `$/progress` (when the client supports it). */
export const PROGRESS_AFTER_MS = 1000;

interface Run {
  version: number;
  /** The options the run measures with (tokenizer, token gate). */
  key: string;
  steps: Generator<PlanProgress, PlanResult, void>;
  promise: Promise<PlanResult>;
  /** Set when a newer version (or a close) made this run pointless: it stops at its next turn. */
  superseded?: Error;
  /** Set when a synchronous caller finished the steps itself. */
  drained?: PlanResult;
  failed?: unknown;
}

interface DocState {
  /** The document's own engine cache (one per open document, dropped on close). */
  engine: EngineCache;
  /** The outcome for one version: its plan, or the error it failed with (a failure is not recomputed). */
  done?: { version: number; key: string; plan?: PlanResult; error?: unknown };
  run?: Run;
  /** A large document's plan completed since its text was last held compactly (see MarkdownPlans.compactIdle). */
  compact?: boolean;
  /** How many times its text was held compactly (tests). */
  compactions?: number;
}

function settled(d: { plan?: PlanResult; error?: unknown }): PlanResult {
  if (d.plan) return d.plan;
  throw d.error;
}

/**
 * Section plans of the open markdown documents of one server: one engine cache per document (sized
 * by it, dropped when it closes), each version measured once (its plan or its failure memoized).
 * `planAsync` measures in time-sliced turns so the server keeps answering other requests while a
 * large document is analysed, reports `$/progress` when that takes longer than a second, and stops
 * as soon as a newer version supersedes the one being measured.
 */
export class MarkdownPlans {
  private readonly docs = new Map<string, DocState>();

  constructor(private readonly ctx?: Pick<FeatureContext, 'createWorkDoneProgress' | 'clientCapabilities' | 'log'>) {}

  private state(uri: string): DocState {
    let st = this.docs.get(uri);
    if (!st) this.docs.set(uri, (st = { engine: new EngineCache() }));
    return st;
  }

  /**
   * The plan of the document's current version, counted with the settings' tokenizer, computed here and
   * now when it is not known yet. Without settings (a caller that only needs the sections) any plan of the
   * current version will do.
   */
  planFor(doc: TextDocument, settings?: PlanSettings): PlanResult {
    const st = this.state(doc.uri);
    const opts = planOptions(settings);
    const key = optionsKeyOf(opts);
    if (st.done?.version === doc.version && (st.done.key === key || settings === undefined)) return settled(st.done);
    let plan: PlanResult;
    try {
      const run = st.run;
      if (run?.version === doc.version && (run.key === key || settings === undefined)) {
        // A time-sliced run of this version is under way: finish it now.
        plan = runSteps(run.steps);
        run.drained = plan;
      } else {
        if (run) run.superseded = contentModified();
        st.run = undefined;
        plan = st.engine.plan(doc.getText(), opts);
      }
    } catch (err) {
      if (st.run?.version === doc.version) st.run.failed = err;
      st.done = { version: doc.version, key, error: err };
      throw err;
    }
    st.done = { version: doc.version, key, plan };
    st.compact = doc.getText().length >= COMPACT_MIN_CHARS;
    return plan;
  }

  /**
   * The plan of `doc`'s version, measured in time-sliced turns (shared by every caller waiting for the
   * same version). Rejects with RequestCancelled when `token` fires, with ContentModified when a newer
   * version or a close superseded it, or with the error the analysis failed with.
   */
  planAsync(doc: TextDocument, token?: CancellationToken, settings?: PlanSettings): Promise<PlanResult> {
    const st = this.state(doc.uri);
    const opts = planOptions(settings);
    const key = optionsKeyOf(opts);
    if (st.done?.version === doc.version && (st.done.key === key || settings === undefined)) {
      try {
        return Promise.resolve(settled(st.done));
      } catch (err) {
        return Promise.reject(err);
      }
    }
    if (!(st.run?.version === doc.version && (st.run.key === key || settings === undefined))) this.start(st, doc, opts, key);
    return untilCancelled(st.run!.promise, token);
  }

  /**
   * Resolves once the outcome for `doc`'s version is known, so `planFor(doc)` then answers at once
   * (with the plan, or by throwing the failure, which was logged when it happened). Rejects only
   * with RequestCancelled / ContentModified.
   */
  async ready(doc: TextDocument, token?: CancellationToken, settings?: PlanSettings): Promise<void> {
    await this.planOrNone(doc, token, settings);
  }

  /** The plan of `doc`'s version, or undefined when its analysis failed (logged once, when it failed). */
  async planOrNone(doc: TextDocument, token?: CancellationToken, settings?: PlanSettings): Promise<PlanResult | undefined> {
    try {
      return await this.planAsync(doc, token, settings);
    } catch (err) {
      if (isCancellation(err)) throw err;
      return undefined;
    }
  }

  private start(st: DocState, doc: TextDocument, opts: EngineOptions, key: string): void {
    if (st.run) st.run.superseded = contentModified();
    const { uri, version } = doc;
    const large = doc.getText().length >= COMPACT_MIN_CHARS;
    const steps = st.engine.planSteps(doc.getText(), opts);
    const run: Run = { version, key, steps, promise: Promise.resolve(null as unknown as PlanResult) };
    const began = performance.now();
    let progress: Progress | undefined;
    const stop = () => run.superseded ?? (this.docs.get(uri) !== st ? contentModified() : undefined);
    const onTurn = (p: PlanProgress) => {
      if (!progress && performance.now() - began > PROGRESS_AFTER_MS) progress = beginProgress(this.ctx, `ToonLens: measuring ${shortName(uri)}`);
      progress?.report(p.done, p.total);
    };
    run.promise = runSliced(steps, stop, onTurn).then(
      (value) => {
        progress?.done();
        if (run.failed !== undefined) throw run.failed;
        const plan = run.drained ?? value;
        if (st.run === run) st.run = undefined;
        if (!run.superseded) {
          st.done = { version, key, plan };
          st.compact = large;
        }
        return plan;
      },
      (err: unknown) => {
        progress?.done();
        if (st.run === run) st.run = undefined;
        if (!run.superseded && !isCancellation(err)) {
          st.done = { version, key, error: err };
          this.ctx?.log.error(`markdown analysis failed for ${uri} (version ${version}): ${errorMessage(err)}`);
        }
        throw err;
      },
    );
    // Nobody may be waiting (a superseded run): never an unhandled rejection.
    serverWork.track(run.promise).catch(() => undefined);
    st.run = run;
  }

  /**
   * The token count of `doc`'s current text under `tokenizer`, read off its plan when that plan is known (or, with
   * `waitForRun`, being made: awaited then) and stands for the whole text (planTextTokens); undefined when there is
   * none, it failed or was superseded, or it counted with another tokenizer. Never starts a plan.
   */
  async textTokens(doc: TextDocument, tokenizer: TokenizerName, waitForRun: boolean): Promise<number | undefined> {
    const st = this.docs.get(doc.uri);
    const version = doc.version;
    if (!st) return undefined;
    let plan = st.done?.version === version ? st.done.plan : undefined;
    if (!plan && waitForRun && st.run?.version === version) plan = await st.run.promise.catch(() => undefined);
    if (!plan || plan.tokenizer !== tokenizer || this.docs.get(doc.uri) !== st || doc.version !== version) return undefined;
    return planTextTokens(plan, doc.getText());
  }

  /** `toon/fence-decode` diagnostics of the document's version, from its plan's slices (time-sliced). */
  async fenceDiagnostics(doc: TextDocument, plan: PlanResult): Promise<CoreDiagnostic[]> {
    const st = this.state(doc.uri);
    const version = doc.version;
    return serverWork.track(runSliced(toonFenceDiagnosticSteps(plan), () => (this.docs.get(doc.uri) !== st || (st.done && st.done.version !== version) ? contentModified() : undefined), undefined, BACKGROUND_PAUSE_TURNS));
  }

  /** Whether a document's text waits to be held compactly ({@link compactIdle}). */
  compactionPending(): boolean {
    for (const st of this.docs.values()) if (st.compact) return true;
    return false;
  }

  /**
   * Holds the text of each large document whose plan completed since as the pieces its analyses read
   * (EngineCache.compactText): an idle document then costs about a byte a character for its text instead of
   * two as soon as it has one character beyond Latin-1. Only a document whose plan is of its current version
   * and that is not being measured; `get` gives the open document of a URI. Returns the heap bytes let go of
   * (the flat text, two bytes a character), for the idle collector that runs this.
   */
  compactIdle(get: (uri: string) => TextDocument | undefined): number {
    let released = 0;
    for (const [uri, st] of this.docs) {
      if (!st.compact) continue;
      st.compact = false;
      const doc = get(uri);
      if (st.run || !st.done?.plan || !(doc instanceof ServerTextDocument) || doc.version !== st.done.version) continue;
      const text = doc.getText();
      const rope = st.engine.compactText(text);
      if (rope !== undefined && doc.holdAs(rope)) {
        released += 2 * text.length;
        st.compactions = (st.compactions ?? 0) + 1;
      }
    }
    // A regular expression's last match keeps its subject alive (a flat text scanned by a parse).
    if (released > 0) forgetLastMatch();
    return released;
  }

  /** The document closed: its engine cache, plans and any run in progress go. */
  forget(uri: string): void {
    const st = this.docs.get(uri);
    if (st?.run) st.run.superseded = contentModified();
    this.docs.delete(uri);
  }

  /** Slice analyses held for a document (tests and the bench). */
  cacheSize(uri: string): number {
    return this.docs.get(uri)?.engine.size ?? 0;
  }

  /**
   * A document's engine cache in figures: slices analysed so far, analyses held, slices looked up by their
   * text (the others were carried over by position from the previous version), and how many times its text was
   * held compactly once idle; null when it has none (closed).
   */
  cacheCounters(uri: string): { analysed: number; held: number; lookedUp: number; compacted: number } | null {
    const st = this.docs.get(uri);
    return st ? { analysed: st.engine.analysed, held: st.engine.size, lookedUp: st.engine.lookedUp, compacted: st.compactions ?? 0 } : null;
  }
}

interface Progress {
  report(done: number, total: number): void;
  done(): void;
}

/** A `$/progress` (window/workDoneProgress) for long work, or nothing when the client has no progress support. */
function beginProgress(ctx: ProgressContext | undefined, title: string): Progress | undefined {
  const p = beginBackgroundProgress(ctx, title);
  if (!p) return undefined;
  return {
    report(done, total) {
      p.report(total > 0 ? (100 * done) / total : 0, `${fmtInt(Math.ceil(done / 2))} of ${fmtInt(Math.ceil(total / 2))} sections`);
    },
    done: () => p.done(),
  };
}

const plans = new WeakMap<FeatureContext, MarkdownPlans>();

/** The one plan cache of a server (shared by the markdown features); a document's entry goes when it closes. */
export function markdownPlans(ctx: FeatureContext): MarkdownPlans {
  let p = plans.get(ctx);
  if (!p) {
    const created = new MarkdownPlans(ctx);
    p = created;
    plans.set(ctx, p);
    // Weakly: a task never keeps a server's plans (or its documents) alive.
    const plansRef = new WeakRef(created);
    const docsRef = new WeakRef(ctx.documents);
    addIdleTask({
      pending: () => plansRef.deref()?.compactionPending() ?? false,
      run: () => {
        const docs = docsRef.deref();
        return docs ? (plansRef.deref()?.compactIdle((uri) => docs.get(uri)) ?? 0) : 0;
      },
    });
    const fences = markdownFences(ctx);
    ctx.documents.onDidClose((e) => {
      const held = created.cacheSize(e.document.uri) > 0;
      created.forget(e.document.uri);
      fences.forget(e.document.uri);
      // What the document's analyses held is garbage now: a collection at the next idle moment gives it back
      // (nothing else would run one while the server sits idle).
      if (held) releasedHeap(HELD_PER_CHAR * e.document.getText().length);
    });
  }
  return p;
}

/**
 * Whether a section is measured (has a verdict: all but frontmatter), asked without reading the verdict (a
 * section after an edit shifts its verdict's warnings on first read).
 */
export const isMeasured = (s: SectionResult): boolean => s.slice.kind !== 'frontmatter';

/** The measured section (not frontmatter) containing `offset`, if any. */
export function sectionAtOffset(plan: PlanResult, offset: number): SectionResult | undefined {
  return plan.sections.find((s) => isMeasured(s) && offset >= s.slice.charStart && (offset < s.slice.charEnd || (offset === s.slice.charEnd && s === plan.sections[plan.sections.length - 1])));
}

/** The section whose slice starts at `charStart` (how lenses and code actions name a section). */
export function sectionStartingAt(plan: PlanResult, charStart: number): SectionResult | undefined {
  return plan.sections.find((s) => s.slice.charStart === charStart && isMeasured(s));
}

// ---- formatting shared by lenses and hovers ----

/** 1,204 */
export const fmtInt = formatInt;

/**
 * The one sign convention of lenses, hovers, status bar and messages: "saves N tokens" / "costs N tokens"
 * (a positive savings figure saves, as in the CLI's savings column).
 */
export function savesOrCosts(savings: number, unit: 'token' | 'char'): string {
  const n = Math.abs(savings);
  const units = `${fmtInt(n)} ${unit}${n === 1 ? '' : 's'}`;
  if (savings > 0) return `saves ${units}`;
  if (savings < 0) return `costs ${units}`;
  return `saves no ${unit}s`;
}

/** Characters before → after with the change in words: "465 → 406 chars (12.7% fewer)". */
export function charsChange(mc: { source: number; toon: number; savings_pct: number }): string {
  const pct = formatPercent(Math.abs(mc.savings_pct));
  const how = mc.savings_pct > 0 ? `${pct} fewer` : mc.savings_pct < 0 ? `${pct} more` : 'same length';
  return `${fmtInt(mc.source)} → ${fmtInt(mc.toon)} chars (${how})`;
}

/** A savings percentage as the CLI prints it: "+12.7%" saves, "-2.0%" costs. */
export function fmtSavingsPct(savingsPct: number): string {
  return formatPercent(savingsPct, { signed: true });
}

/** Token savings of the sections the plan converts. */
export function planTokenSavings(plan: PlanResult): number {
  return plan.sections.reduce((n, s) => n + (s.action === 'convert' && s.tokens ? s.tokens.savings : 0), 0);
}

/** `duplicate_rule` → "duplicate rule". */
export const humanCode = (code: string): string => code.replace(/_/g, ' ');

/** A heading as one line of text (setext headings may span lines). */
export const headingText = (s: SectionResult): string =>
  s.slice.kind === 'preamble' ? '(preamble)' : (s.slice.heading ?? '').replace(/\s*\n\s*/g, ' ') || '(untitled)';

/**
 * A section's real token saving in the one sign convention ("saves 263 tokens", "costs 12 tokens"), from
 * the plan's token figures (counted with `toonlens.tokenizer` on the text Convert writes). Only the
 * `estimate` tokenizer's figures read as estimates ("saves ~263 tokens").
 */
export function fmtTokenSavings(t: Pick<TokenFigures, 'tokenizer' | 'savings'>): string {
  const s = savesOrCosts(t.savings, 'token');
  return t.tokenizer === 'estimate' ? s.replace(/^(saves|costs) (?=\d)/, '$1 ~') : s;
}

/** What the plan lens and the status bar both say of a plan: one reading, so they never disagree. */
export function planState(plan: PlanResult, fences = 0): { converting: number; measured: number; words: string } {
  const cp = plan.contextPlan;
  const measured = plan.sections.filter(isMeasured).length;
  const converting = plan.sections.filter((s) => s.action === 'convert').length;
  const words = converting === 0 && fences > 0 ? 'converted' : cp.recommend_hybrid ? (cp.safe_to_auto_apply ? 'safe to auto-apply' : 'review before converting') : 'keep markdown';
  return { converting, measured, words };
}

/**
 * The plan lens title, short enough to leave room for the Convert all lens on the same line, e.g.
 * `TOON plan: saves 53 tokens · 2 of 4 sections convert · safe to auto-apply`; once every recommended section
 * is TOON, `TOON plan: 3 sections are TOON · nothing left to convert`.
 */
export function planLensTitle(plan: PlanResult, fences = 0): string {
  const { converting, measured, words } = planState(plan, fences);
  if (converting === 0 && fences > 0) return `TOON plan: ${fences} ${fences === 1 ? 'section is' : 'sections are'} TOON · nothing left to convert`;
  return `TOON plan: ${converting ? `${savesOrCosts(planTokenSavings(plan), 'token')} · ` : ''}${converting} of ${measured} sections convert · ${words}`;
}

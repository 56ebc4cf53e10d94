/**
 * Markdown documents: which open documents are markdown, and their section plan, computed at most once
 * per document version and shared by lenses, hovers, diagnostics and the convert commands. The engine's
 * cache memoizes each slice by its text, so after a keystroke only the edited section is measured again.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { EngineCache, type EngineOptions, type PlanResult, type SectionResult, type TokenFigures } from '../core/markdown/engine';
import type { FeatureContext } from './feature';
import { DEFAULT_SETTINGS, type ToonLensSettings } from './settings';
import { DEFAULT_MARKDOWN_LANGUAGES, type ToonLensInitializationOptions } from './protocol';

/** The settings a markdown plan depends on. */
export type PlanSettings = Pick<ToonLensSettings, 'tokenizer' | 'minTokenSavings'>;

/** Engine options from the settings (tokenizer and token gate). */
export function planOptions(settings: PlanSettings = DEFAULT_SETTINGS): EngineOptions {
  return { tokenizer: settings.tokenizer, minTokenSavings: settings.minTokenSavings };
}

let markdownLanguages = new Set<string>(DEFAULT_MARKDOWN_LANGUAGES);

/**
 * The language ids served as markdown: VS Code's markdown and agent-file languages, plus the client's
 * `toonlens.markdownLanguages` (from initializationOptions, or its `settings` for clients without the setting UI).
 */
export function configureMarkdownLanguages(init: ToonLensInitializationOptions | undefined): void {
  const extra: unknown[] = [];
  if (Array.isArray(init?.markdownLanguages)) extra.push(...init.markdownLanguages);
  const fromSettings = (init?.settings as { markdownLanguages?: unknown } | undefined)?.markdownLanguages;
  if (Array.isArray(fromSettings)) extra.push(...fromSettings);
  markdownLanguages = new Set([...DEFAULT_MARKDOWN_LANGUAGES, ...extra.filter((x): x is string => typeof x === 'string' && x !== '')]);
}

/** Markdown by language id (see {@link configureMarkdownLanguages}), or by a `.md`/`.markdown`/`.mdc` path whatever the language id says. */
export function isMarkdownDocument(doc: TextDocument): boolean {
  if (markdownLanguages.has(doc.languageId)) return true;
  return /\.(md|markdown|mdown|mkd|mdc)$/i.test(doc.uri.replace(/[?#].*$/, ''));
}

/** `.toon` files. */
export function isToonDocument(doc: TextDocument): boolean {
  return doc.languageId === 'toon' || /\.toon$/i.test(doc.uri.replace(/[?#].*$/, ''));
}

/** Whether a document is over the `toonlens.maxFileSizeMB` limit (UTF-16 length is a lower bound of its bytes). */
export function overSizeLimit(doc: TextDocument, settings: ToonLensSettings): boolean {
  return doc.getText().length > settings.maxFileSizeMB * 1024 * 1024;
}

interface Memo {
  version: number;
  key: string;
  plan: PlanResult;
}

/** Memoized section plans for the open markdown documents of one server. */
export class MarkdownPlans {
  private readonly engine = new EngineCache();
  private readonly memo = new Map<string, Memo>();

  /**
   * The plan of the document's current version, counted with the settings' tokenizer. Without settings
   * (a caller that only needs the sections) any plan of the current version will do.
   */
  planFor(doc: TextDocument, settings?: PlanSettings): PlanResult {
    const opts = planOptions(settings);
    const key = `${opts.tokenizer}\0${opts.minTokenSavings}`;
    const m = this.memo.get(doc.uri);
    if (m && m.version === doc.version && (m.key === key || settings === undefined)) return m.plan;
    const plan = this.engine.plan(doc.getText(), opts);
    this.memo.set(doc.uri, { version: doc.version, key, plan });
    return plan;
  }

  forget(uri: string): void {
    this.memo.delete(uri);
  }
}

const plans = new WeakMap<FeatureContext, MarkdownPlans>();

/** The one plan cache of a server (shared by the markdown features). */
export function markdownPlans(ctx: FeatureContext): MarkdownPlans {
  let p = plans.get(ctx);
  if (!p) {
    p = new MarkdownPlans();
    plans.set(ctx, p);
  }
  return p;
}

/** The measured section (not frontmatter) containing `offset`, if any. */
export function sectionAtOffset(plan: PlanResult, offset: number): SectionResult | undefined {
  return plan.sections.find((s) => s.verdict && offset >= s.slice.charStart && (offset < s.slice.charEnd || (offset === s.slice.charEnd && s === plan.sections[plan.sections.length - 1])));
}

/** The section whose slice starts at `charStart` (how lenses and code actions name a section). */
export function sectionStartingAt(plan: PlanResult, charStart: number): SectionResult | undefined {
  return plan.sections.find((s) => s.slice.charStart === charStart && s.verdict);
}

// ---- formatting shared by lenses and hovers ----

const nf = new Intl.NumberFormat('en-US');
/** 1,204 */
export const fmtInt = (n: number): string => nf.format(n);

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
  const pct = Math.abs(mc.savings_pct).toFixed(1);
  const how = mc.savings_pct > 0 ? `${pct}% fewer` : mc.savings_pct < 0 ? `${pct}% more` : 'same length';
  return `${fmtInt(mc.source)} → ${fmtInt(mc.toon)} chars (${how})`;
}

/** A savings percentage as the CLI prints it: "+12.7%" saves, "-2.0%" costs. */
export function fmtSavingsPct(savingsPct: number): string {
  if (savingsPct === 0) return '0%';
  return `${savingsPct > 0 ? '+' : '-'}${Math.abs(savingsPct).toFixed(1)}%`;
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
 * the plan's token figures (#13: counted with `toonlens.tokenizer` on the text Convert writes). Only the
 * `estimate` tokenizer's figures read as estimates ("saves ~263 tokens").
 */
export function fmtTokenSavings(t: Pick<TokenFigures, 'tokenizer' | 'savings'>): string {
  const s = savesOrCosts(t.savings, 'token');
  return t.tokenizer === 'estimate' ? s.replace(/^(saves|costs) (?=\d)/, '$1 ~') : s;
}

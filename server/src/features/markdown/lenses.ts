/**
 * Code lenses on markdown, each a verdict or an action, never both, each with a tooltip:
 * - above every measured section (heading or preamble) the verdict: `TOON saves 30 tokens · 465 → 406 chars
 *   (12.7% fewer) · convert`, and next to it the action **Convert to TOON** when the verdict converts;
 * - on the first line the plan (net savings of the hybrid, how many sections convert) and **Convert all
 *   recommended sections** when the plan is safe to auto-apply;
 * - on a ```toon fence what it saves against its markdown and **Revert to Markdown** (a converted section
 *   gets these instead of a verdict: it is TOON already).
 * No lens for a section whose body has fewer than {@link MIN_LENS_BODY_CHARS} non-blank characters (an empty
 * heading, a blank preamble: nothing to convert). By default (`toonlens.codeLens.sections: "convert"`) only
 * sections whose verdict converts get lenses — a lens per section where TOON does not help is clutter, and every
 * heading keeps its verdict hover; `"all"` shows one per section. `toonlens.codeLens.minSavingsPct` hides verdict
 * lenses below a threshold (0, the default, shows all). Display only: verdicts never change.
 * The plan lens opens the whole-document plan (`toonlens.showPlan`: a read-only markdown view in VS Code; other
 * clients get the same markdown as the command's answer). In an untrusted
 * workspace the action lenses say that Convert/Revert need trust, and open the trust editor.
 * A document with more than RESOLVE_LENSES_ABOVE lenses is answered unresolved (ranges and `data`) to a
 * client that declares `textDocument.codeLens.resolveSupport` for `command`; `codeLens/resolve` then makes
 * each shown lens's command exactly as the complete answer would (docs/markdown-editor.md).
 */
import type { CancellationToken, ClientCapabilities, CodeLens, Command, Range } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { sectionMeasurement, type PlanResult, type SectionResult } from '../../core/markdown/engine';
import type { SliceAnalysis } from '../../core/markdown/analysis';
import { revertDescription } from '../../core/markdown/revert';
import { KEEP_CODES } from '../../core/markdown/rules';
import type { FeatureModule } from '../../lsp/feature';
import type { TokenizerName } from '../../core/tokens';
import type { LensSections } from '../../lsp/settings';
import { COMMANDS, type PlanSummary } from '../../protocol/commands';
import { planSummaryMarkdown } from './hover';
import { charsChange, fmtInt, fmtTokenSavings, headingText, humanCode, isMarkdownDocument, isMeasured, markdownPlans, overSizeLimit, planLensTitle, savesOrCosts } from './plans';
import { conversionWhat, convertsWithoutAsking } from './convert';
import { convertedFenceOf, fencesWithOwners, markdownFences, MarkdownFences, type FenceAt } from './fences';
import { RESOLVE_LENSES_ABOVE, UnresolvedLensSets } from '../../lsp/lensResolve';
import { contentModified, requestCancelled, runSliced } from '../../lsp/timeSlice';

/** Sections whose body (after the heading line) has fewer non-blank characters than this get no lens. */
export const MIN_LENS_BODY_CHARS = 20;

/** The VS Code command that opens the workspace trust editor (what an action lens runs in restricted mode). */
export const MANAGE_TRUST_COMMAND = 'workbench.trust.manage';
const RESTRICTED_TOOLTIP = 'Restricted mode: ToonLens never edits files in an untrusted workspace. Click to manage workspace trust.';

/** Whether a section has enough body to be worth a lens. */
export function lensWorthy(text: string, s: SectionResult): boolean {
  let n = 0;
  for (let i = s.slice.headingEnd; i < s.slice.charEnd; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && ++n >= MIN_LENS_BODY_CHARS) return true;
  }
  return false;
}

const VERDICT_WORDS: Record<string, string> = { convert: 'convert', keep_markdown: 'keep markdown', review: 'review first', split_first: 'split first', refused: 'refused' };

/** The verdict lens title of one section, e.g. `TOON saves 30 tokens · 465 → 406 chars (12.7% fewer) · convert`. */
export function sectionLensTitle(s: SectionResult): string {
  const v = s.verdict!;
  const figures = `TOON ${s.tokens ? fmtTokenSavings(s.tokens) : savesOrCosts(v.token_estimates.savings, 'token')} · ${charsChange(v.measured_chars)}`;
  switch (v.verdict) {
    case 'review': {
      const w = v.warnings[0];
      return `${figures} · review first: ${w ? humanCode(w.code) : 'warnings'}`;
    }
    case 'split_first': {
      const w = v.warnings.find((x) => x.code === 'long_section' || x.code === 'split_candidate') ?? v.warnings[0];
      return `${figures} · split first: ${w ? humanCode(w.code) : 'mixed concerns'}`;
    }
    case 'refused':
      return `${figures} · refused: budget not reachable losslessly`;
    default:
      return `${figures} · ${VERDICT_WORDS[v.verdict] ?? v.verdict}`;
  }
}

/** The verdict lens tooltip: what the verdict means and where the figures come from. */
export function sectionLensTooltip(s: SectionResult): string {
  const v = s.verdict!;
  const te = v.token_estimates;
  const why: Record<string, string> = {
    convert: 'Converting this section to a ```toon fence is recommended: it is shorter and decodes back to the same content.',
    keep_markdown: 'Keep this section as markdown: TOON would not save enough to be worth it.',
    review: 'Review first: the section carries warnings a conversion would hide.',
    split_first: 'Split first: the section is long or mixes concerns; split it before converting.',
    refused: 'Refused: the requested budget cannot be reached losslessly.',
  };
  // Kept whatever it saves (a keep marker, markdown a fence would not keep as written): the warning says why.
  const keep = v.verdict === 'keep_markdown' ? v.warnings.find((w) => KEEP_CODES.includes(w.code)) : undefined;
  const byBlock = s.blockSummary ? ` By block: ${conversionWhat(s)} → \`\`\`toon fences in place; the prose stays markdown.` : '';
  // Converting although its characters save under 5 %: the warning that records the token decision says so.
  const byTokens = v.verdict === 'convert' ? v.warnings.find((w) => w.code === 'token_savings') : undefined;
  return `${keep ? keep.message : (why[v.verdict] ?? v.verdict)}${byBlock}${byTokens ? ` ${byTokens.message}` : ''} Tokens: ${fmtInt(te.source)} → ${fmtInt(te.toon)} (${te.estimator}). Click for the whole verdict.`;
}

export { planLensTitle } from './plans';

/** The plan lens tooltip: the hybrid's figures and what a click does. */
export function planLensTooltip(plan: PlanResult): string {
  const cp = plan.contextPlan;
  const net = { source: cp.net.source, toon: cp.net.hybrid, savings_pct: cp.net.savings_pct };
  return `The per-section plan: which sections convert to TOON and what the hybrid document saves (${charsChange(net)}). Click to open the whole plan.`;
}

function action(trusted: boolean, title: string, tooltip: string, command: string, args: unknown[]): Command {
  // The argument is ignored by the trust editor; VS Code keeps a lens command's tooltip only when it has arguments.
  if (!trusted) return { title: `${title} — needs a trusted workspace`, tooltip: RESTRICTED_TOOLTIP, command: MANAGE_TRUST_COMMAND, arguments: [{ restricted: true }] };
  return { title, tooltip, command, arguments: args };
}

function fenceLenses(fences: MarkdownFences, doc: TextDocument, at: FenceAt, trusted: boolean, tok: TokenizerName, owner: SectionResult | undefined): CodeLens[] {
  const text = doc.getText();
  const pos = doc.positionAt(at.start);
  const range = { start: pos, end: pos };
  const measured = fences.fenceFigures(doc.uri, text, at, owner, tok);
  if (!measured) return []; // does not decode: toon/fence-decode says why
  const against = measured.exactOriginal ? 'its original markdown' : 'its markdown rendering';
  const info: CodeLens = {
    range,
    command: {
      title: `TOON fence ${savesOrCosts(measured.tokens.savings, 'token')} · ${charsChange(measured.chars)} vs ${against}`,
      tooltip: `This section is TOON already (measured against ${against}: ${fmtInt(measured.tokens.source)} → ${fmtInt(measured.tokens.toon)} tokens).`,
      command: COMMANDS.showVerdict,
      arguments: [{ uri: doc.uri, position: pos }],
    },
  };
  const revert: CodeLens = {
    range,
    command: action(trusted, 'Revert to Markdown', `Revert ${revertDescription(measured.kind)}.`, COMMANDS.revertSection, [{ uri: doc.uri, version: doc.version, sectionStart: at.start }]),
  };
  return [info, revert];
}

/**
 * A section's verdict lens title and tooltip, remembered with its slice analysis: they depend only on the
 * section's standalone measurement (the same record while the slice's text and the options are unchanged,
 * through the position shifts of the plan: `sectionMeasurement`), so after an edit only the edited section's
 * strings are built again.
 */
const verdictLensText = new WeakMap<SliceAnalysis, { measured: object; title: string; tooltip: string }>();

function verdictLens(s: SectionResult): { title: string; tooltip: string } {
  // (the engine builds a section's verdict on each read: its measurement record is what stays the same)
  const measured = sectionMeasurement(s) ?? s.verdict!.measured_chars;
  const hit = verdictLensText.get(s.analysis);
  if (hit && hit.measured === measured) return hit;
  const made = { measured, title: sectionLensTitle(s), tooltip: sectionLensTooltip(s) };
  verdictLensText.set(s.analysis, made);
  return made;
}

/**
 * A plan's lenses in line order, before their commands are made, as compact data: `codes[i]` ≥ 0 is a
 * section's lens, `(index into plan.sections) << 1`, plus 1 for its Convert action (0: its verdict), made from
 * the section only when sent complete or when the client resolves that lens; `codes[i]` < 0 is a lens that
 * carries its command, `commands[-codes[i] - 1]` (the plan lenses, the fence lenses: a handful). What
 * `codeLens/resolve` needs of a set sent unresolved is this and the plan, which the plan cache holds for the
 * document's version anyway: about 4 bytes a lens instead of a lens-shaped object with its range.
 */
interface PlanLenses {
  plan: PlanResult;
  codes: Int32Array;
  commands: Command[];
  /** Each lens's range (what a codeLens answer sends; not kept for resolve: a section's is its line). */
  ranges: Range[];
}

interface LensTarget {
  uri: string;
  version: number;
  trusted: boolean;
}

/** The range of a section's lenses: its first line (a slice starts a line, its lineStart counts lines as LSP does). */
function sectionRange(s: SectionResult): Range {
  const pos = { line: s.slice.lineStart - 1, character: 0 };
  return { start: pos, end: pos };
}

function sectionCommand(s: SectionResult, convert: boolean, doc: LensTarget): Command {
  if (convert) {
    const arg = [{ uri: doc.uri, version: doc.version, sectionStart: s.slice.charStart }];
    if (s.blockSummary) {
      const what = conversionWhat(s);
      const tooltip = `Replace ${what} of “${headingText(s)}” with \`\`\`toon fences in place; the prose stays markdown as it is (one undoable edit; Revert to Markdown on a fence gives its exact original back).`;
      return action(doc.trusted, `Convert ${what} to TOON`, tooltip, COMMANDS.convertSection, arg);
    }
    return action(doc.trusted, 'Convert to TOON', `Replace “${headingText(s)}” with its \`\`\`toon fence (one undoable edit; Revert to Markdown gives the exact original back).`, COMMANDS.convertSection, arg);
  }
  const { title, tooltip } = verdictLens(s);
  return { title, tooltip, command: COMMANDS.showVerdict, arguments: [{ uri: doc.uri, position: sectionRange(s).start }] };
}

/** The command of lens `i`, or undefined when there is no such lens. */
function commandAt(lenses: Omit<PlanLenses, 'ranges'>, i: number, doc: LensTarget): Command | undefined {
  if (!(i >= 0 && i < lenses.codes.length)) return undefined;
  const code = lenses.codes[i]!;
  return code < 0 ? lenses.commands[-code - 1] : sectionCommand(lenses.plan.sections[code >> 1]!, (code & 1) === 1, doc);
}

/** The plan's lenses in line order, the section lenses without their commands yet. */
/** What decides which section lenses are shown (display only). */
export interface LensOptions {
  minSavingsPct: number;
  sections: LensSections;
}

function lensEntries(memo: MarkdownFences, doc: TextDocument, plan: PlanResult, opts: LensOptions, trusted: boolean): PlanLenses {
  const text = doc.getText();
  const codes: number[] = [];
  const ranges: Range[] = [];
  const commands: Command[] = [];
  const carried = (range: Range, command: Command) => {
    commands.push(command);
    codes.push(-commands.length);
    ranges.push(range);
  };
  const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  const fences = memo.toonFencesOf(doc, plan);
  carried(top, { title: planLensTitle(plan, fences.length), tooltip: planLensTooltip(plan), command: COMMANDS.showPlan, arguments: [{ uri: doc.uri }] });
  if (plan.contextPlan.safe_to_auto_apply) {
    carried(top, action(trusted, 'Convert all recommended sections', 'Convert every section whose verdict is convert, in one undoable edit.', COMMANDS.convertAll, [{ uri: doc.uri, version: doc.version }]));
  }
  plan.sections.forEach((s, index) => {
    if (!isMeasured(s)) return; // frontmatter is never measured
    const fence = convertedFenceOf(text, s, fences);
    if (fence) return; // TOON already: the fence's own lenses below
    if (!lensWorthy(text, s)) return;
    // A split_first section whose tables and lists convert by block offers that (the hybrid leaves it out).
    const offers = convertsWithoutAsking(s);
    if (opts.sections === 'convert' && !offers) return;
    // 0 (the default) shows every lens; any other value hides sections saving less than it.
    if (opts.minSavingsPct !== 0 && s.verdict!.measured_chars.savings_pct < opts.minSavingsPct) return;
    const range = sectionRange(s);
    codes.push(index << 1);
    ranges.push(range);
    if (offers) {
      codes.push((index << 1) | 1);
      ranges.push(range);
    }
  });
  if (fences.length > 0) {
    // The slice holding each fence: its analysis keeps the fence's figures.
    for (const [f, owner] of fencesWithOwners(plan, fences)) for (const l of fenceLenses(memo, doc, f, trusted, plan.tokenizer, owner)) carried(l.range, l.command!);
    // In line order (a stable sort: lenses of one line keep theirs).
    const order = ranges.map((_, i) => i).sort((a, b) => ranges[a]!.start.line - ranges[b]!.start.line);
    return { plan, codes: Int32Array.from(order, (i) => codes[i]!), commands, ranges: order.map((i) => ranges[i]!) };
  }
  return { plan, codes: Int32Array.from(codes), commands, ranges };
}

/** Every lens of the set with its command. */
function completeLenses(lenses: PlanLenses, target: LensTarget): CodeLens[] {
  return lenses.ranges.map((range, i) => ({ range, command: commandAt(lenses, i, target)! }));
}

/** A document's lenses, complete; `fences` is the memo and originals a server keeps (a session-only one by default). */
export function markdownCodeLenses(doc: TextDocument, plan: PlanResult, opts: LensOptions, trusted = true, fences: MarkdownFences = new MarkdownFences()): CodeLens[] {
  return completeLenses(lensEntries(fences, doc, plan, opts, trusted), { uri: doc.uri, version: doc.version, trusted });
}

/** A document version's lenses as sent unresolved, kept until the next answer for the document (or its close). */
interface SentLensSet extends LensTarget, Omit<PlanLenses, 'ranges'> {}

/** The `data` tag of markdown lenses sent unresolved. */
const MARKDOWN_LENS_TAG = 'md';

/** Whether the client said it resolves a lens's command lazily (LSP 3.18 `textDocument.codeLens.resolveSupport`; vscode-languageclient 10+ does). */
export function clientResolvesLensCommands(caps: ClientCapabilities): boolean {
  return caps.textDocument?.codeLens?.resolveSupport?.properties?.includes('command') === true;
}

/** What the lens feature counts, for the test-only counters command. */
interface MarkdownLensCounters {
  /** codeLens answers sent unresolved. */
  unresolved: number;
  /** codeLens/resolve answers. */
  resolves: number;
}

export const markdownLensesFeature: FeatureModule = {
  name: 'markdown-lenses',
  create(ctx) {
    const plans = markdownPlans(ctx);
    const fences = markdownFences(ctx);
    const resolves = clientResolvesLensCommands(ctx.clientCapabilities);
    /** The unresolved lens set last sent per document. */
    const sent = new UnresolvedLensSets<SentLensSet>(
      MARKDOWN_LENS_TAG,
      (set, i) => (i >= 0 && i < set.codes.length ? ctx.guard('markdown code lens resolve', set.uri, () => commandAt(set, i, set)!, { title: 'ToonLens: this lens failed (see the output)', command: '' }) : undefined),
      'Document changed: updating lenses…',
    );
    ctx.documents.onDidClose((e) => sent.forget(e.document.uri));
    const counters: MarkdownLensCounters = { unresolved: 0, resolves: 0 };
    // `[uri]` → slices analysed so far, analyses held, slices looked up by their text (null once closed).
    ctx.exposeTestCounter('markdownCache', (args) => plans.cacheCounters(String(args[0])));
    ctx.exposeTestCounter('markdownLensCounters', () => ({ ...counters }));
    /** `toonlens.showPlan` `[{ uri }]`: the open markdown document's plan as markdown, or null. */
    async function showPlan(args: unknown[], token?: CancellationToken): Promise<PlanSummary | null> {
      const uri = (args[0] as { uri?: unknown } | undefined)?.uri;
      const doc = typeof uri === 'string' ? ctx.documents.get(uri) : undefined;
      if (!doc || !isMarkdownDocument(ctx, doc)) return null;
      const settings = await ctx.settings.forDocument(doc.uri);
      if (overSizeLimit(doc, settings)) return null;
      const version = doc.version;
      const plan = await plans.planOrNone(doc, token, settings);
      if (doc.version !== version) return showPlan(args, token);
      return plan ? ctx.guard('markdown plan summary', doc.uri, () => planSummaryMarkdown(fences, doc, plan), null) : null;
    }
    return {
      commands: { [COMMANDS.showPlan]: showPlan },
      resolveCodeLens(lens) {
        if (!sent.owns(lens)) return undefined;
        counters.resolves++;
        return sent.resolve(lens);
      },
      async codeLenses(doc, _params, token) {
        if (!isMarkdownDocument(ctx, doc)) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        if (!settings.codeLens.enabled || overSizeLimit(doc, settings) || token.isCancellationRequested) return [];
        const current = ctx.documents.get(doc.uri) ?? doc;
        // The document object is updated in place: a plan that arrives after an edit is of the version asked for,
        // and lenses made from it on the newer text would carry the new version with the old offsets.
        const version = current.version;
        // Measured in time-sliced turns; a failed analysis was logged once and shows no lenses.
        const plan = await plans.planOrNone(current, token, settings);
        if (!plan) return [];
        if (current.version !== version) throw contentModified();
        // The fences' figures first, time-sliced (a no-op when they are memoized); the document must not move meanwhile.
        await runSliced(fences.fenceFigureSteps(current, plan), () => (token.isCancellationRequested ? requestCancelled() : current.version !== version ? contentModified() : undefined));
        const trusted = ctx.isTrusted();
        const entries = ctx.guard('markdown code lenses', doc.uri, () => lensEntries(fences, current, plan, settings.codeLens, trusted), undefined);
        if (!entries) return [];
        const target = { uri: current.uri, version: current.version, trusted };
        // Many lenses, and a client that resolves them: ranges now, each command when its lens is shown.
        if (resolves && entries.codes.length > RESOLVE_LENSES_ABOVE) {
          const { id, lenses } = UnresolvedLensSets.unresolved(MARKDOWN_LENS_TAG, entries.ranges);
          sent.remember(current.uri, id, { ...target, plan, codes: entries.codes, commands: entries.commands });
          counters.unresolved++;
          return lenses;
        }
        sent.forget(current.uri);
        return ctx.guard('markdown code lenses', doc.uri, () => completeLenses(entries, target), []);
      },
    };
  },
};

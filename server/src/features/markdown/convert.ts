/**
 * Convert / Revert on markdown, as commands (lenses, palette) and as `refactor.rewrite` code actions (with
 * "Compact table" beside Convert on a table: padding dropped, markdown and its rendering kept):
 * - Convert section to TOON: the section becomes exactly its hybrid segment (docs/engine.md#plan-and-hybrid) (heading line, fenced
 *   candidate), only when the candidate strictly decodes; one versioned edit, so Undo restores the bytes.
 * - Revert to Markdown: a ```toon fence gives back the exact markdown ToonLens converted (in this session or
 *   an earlier one of the same workspace folder: originals are kept per folder by the fence's content hash, in
 *   memory and under the client's global storage directory); a fence ToonLens did not convert (or that was edited
 *   since, or converted in another folder) becomes the canonical markdown rendering of its decoded model, and the
 *   outcome says so.
 * - Originals are recorded only on Convert's own path: after the server's own edit is applied, or when a Convert
 *   code action's follow-up command names, by its nonce, a conversion the server offered (never from arguments).
 * - In an untrusted workspace nothing is converted or reverted (the lenses say why).
 * - Converting a section whose verdict is not convert (from the palette or a code action) asks first,
 *   with what it would really cost or save.
 * - Convert all recommended sections: the plan's verified hybrid, as one edit of every converted section.
 */
import { randomBytes } from 'node:crypto';
import { CodeActionKind, TextDocumentEdit, type CancellationToken, type CodeAction, type TextEdit, type WorkspaceEdit } from 'vscode-languageserver/node';
import { KEEP_MARKER_CODE } from '../../core/markdown/policy';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { sectionConvertEdit, type PlanResult, type SectionResult } from '../../core/markdown/engine';
import { blockRecordsFor, originalRecordFor, revertDescription, revertEdit, type OriginalRecord } from '../../core/markdown/revert';
import { blocksConvertDespiteSplit, blocksLabel } from '../../core/markdown/blockConvert';
import type { FeatureContext, FeatureModule } from '../../lsp/feature';
import { trustedEdits } from '../../lsp/codeActions';
import { COMMANDS, REMEMBER_ORIGINALS_COMMAND } from '../../protocol/commands';
import { charsChange, fmtSavingsPct, headingText, isMarkdownDocument, markdownPlans, overSizeLimit, savesOrCosts, sectionAtOffset, sectionStartingAt } from './plans';
import { convertedFenceOf, fenceAtOffset, markdownFences, type FenceAt, type MarkdownFences } from './fences';
import { contentModified, isCancellation, requestCancelled, runSliced } from '../../lsp/timeSlice';
import { compactTables } from '../../core/markdown/compactTable';
import { tokenizer } from '../../core/tokens';
import { errorMessage } from '../../core/errors';

/** What a convert/revert command answers (also shown by the client when not applied). */
export interface CommandOutcome {
  applied: boolean;
  message: string;
  /** Revert only: whether the exact original came back (else canonical markdown). */
  exact?: boolean;
}

interface SectionArg {
  uri: string;
  version?: number;
  sectionStart?: number;
  position?: { line: number; character: number };
}

function asArg(args: unknown[]): SectionArg | undefined {
  const a = args[0] as SectionArg | undefined;
  return a && typeof a === 'object' && typeof a.uri === 'string' ? a : undefined;
}

/**
 * A section may be converted when its candidate exists and strictly decoded (flags.valid), or it converts by block,
 * and it does not say `<!-- toonlens: keep -->`.
 */
export function convertible(s: SectionResult | undefined): s is SectionResult {
  return !!s && convertibleVerdict(s.verdict) && (typeof s.candidate === 'string' || s.blockSummary !== null);
}

/** What converting the section is called: "section" for its whole body, "the table", "2 tables and a list" by block. */
export function conversionWhat(s: SectionResult): string {
  return s.blockSummary ? blocksLabel(s.blockSummary) : 'section';
}

/**
 * Whether Convert on the section needs no confirmation: its action is convert, or it is a `split_first` section whose
 * tables and lists convert by block with nothing else against it (splitting concerns the prose, which stays).
 */
export function convertsWithoutAsking(s: SectionResult): boolean {
  return s.action === 'convert' || (s.blockSummary !== null && !!s.verdict && blocksConvertDespiteSplit(s.verdict));
}

/** The verdict's part of {@link convertible}: it strictly decoded and does not say `<!-- toonlens: keep -->`. */
function convertibleVerdict(v: SectionResult['verdict']): boolean {
  return !!v && v.flags.valid && !saysKeep(v);
}

/** Whether the verdict carries the `<!-- toonlens: keep -->` warning. */
function saysKeep(v: SectionResult['verdict']): boolean {
  return !!v?.warnings.some((w) => w.code === KEEP_MARKER_CODE);
}

/** Whether the section carries `<!-- toonlens: keep -->` (it is never converted, not even on request). */
export function keptByMarker(s: SectionResult): boolean {
  return saysKeep(s.verdict);
}

function lspEdit(doc: TextDocument, start: number, end: number, newText: string): TextEdit {
  return { range: { start: doc.positionAt(start), end: doc.positionAt(end) }, newText };
}

function versioned(doc: TextDocument, edits: TextEdit[]): WorkspaceEdit {
  return { documentChanges: [TextDocumentEdit.create({ uri: doc.uri, version: doc.version }, edits)] };
}

/** What converting a section needs: where it is, exactly what is written there, and the originals to remember. */
export interface Converting {
  slice: SectionResult['slice'];
  /** The segment Convert writes in place of the slice (whole body or by block). */
  newText: string;
  records: { key: string; record: OriginalRecord }[];
}

/** Reads a section's conversion once (its segment and its blocks are rebuilt from the slice text on each read). */
export function converting(text: string, s: SectionResult): Converting | null {
  const blocks = s.blockSummary ? s.blocks : null;
  if (blocks) return { slice: s.slice, newText: s.segment(), records: blockRecordsFor(blocks) };
  const candidate = s.candidate;
  if (typeof candidate !== 'string') return null;
  return { slice: s.slice, newText: sectionConvertEdit(s).newText, records: [originalRecordFor(text.slice(s.slice.charStart, s.slice.charEnd), s.slice.headingEnd - s.slice.charStart, candidate)] };
}

/** The edit converting one section. */
function convertingWorkspaceEdit(doc: TextDocument, c: Converting): WorkspaceEdit {
  return versioned(doc, [lspEdit(doc, c.slice.charStart, c.slice.charEnd, c.newText)]);
}

/**
 * The sections of the plan's hybrid (action convert and {@link convertible}), each with its candidate, one step a
 * section (the command runs the steps time-sliced). A section's verdict and candidate are rebuilt from its slice
 * text on every read: read once here (reading them several times a section made Convert all slow on large documents).
 */
export function* convertingSteps(plan: PlanResult, text: string): Generator<undefined, Converting[], void> {
  const out: Converting[] = [];
  for (const s of plan.sections) {
    if (s.action !== 'convert') continue;
    const c = convertibleVerdict(s.verdict) ? converting(text, s) : null;
    if (c) out.push(c);
    yield;
  }
  return out;
}

/** The edits turning the document into the plan's hybrid: one per converted section, in one WorkspaceEdit. */
export function convertAllWorkspaceEdit(doc: TextDocument, sections: readonly Converting[]): WorkspaceEdit | undefined {
  const edits = sections.map((s) => lspEdit(doc, s.slice.charStart, s.slice.charEnd, s.newText));
  return edits.length ? versioned(doc, edits) : undefined;
}

/** The fence whose extent contains `offset` (`plan`: the document's plan of this version). */
export function fenceAt(fences: MarkdownFences, doc: TextDocument, offset: number, plan: PlanResult): FenceAt | undefined {
  return fenceAtOffset(fences.toonFencesOf(doc, plan), offset);
}

/** What Convert remembers for exact Revert: one record per converted section. */
export interface RememberOriginalsArg {
  records: { key: string; record: OriginalRecord }[];
}

function originalsFor(sections: readonly Converting[]): RememberOriginalsArg {
  return { records: sections.flatMap((s) => s.records) };
}

/** Records the originals of a conversion this server made in the document `uri` (its workspace folder's store). */
function remember(fences: MarkdownFences, uri: string, arg: RememberOriginalsArg): void {
  const store = fences.originals(uri);
  for (const { key, record } of arg.records) store.put(key, record);
}

/** The argument of {@link REMEMBER_ORIGINALS_COMMAND}: the random name of a Convert code action the server offered. */
export interface RememberOriginalsNonce {
  nonce: string;
}

interface PendingConvert {
  uri: string;
  /** The section's text after Convert (heading line and fence): found in the document once the action is applied. */
  converted: string;
  memo: RememberOriginalsArg;
  chars: number;
}

/**
 * The originals of Convert code actions offered and not yet applied. A code action's edit is applied by the client,
 * which then runs the action's command: that command names the conversion by a random nonce, and the server records
 * the original it computed itself, once the converted text is in the document. Nothing the command's arguments say
 * becomes an original, so a command link in a document (or any other caller) cannot plant one.
 */
export class PendingConverts {
  private readonly byNonce = new Map<string, PendingConvert>();
  private readonly bySpot = new Map<string, string>();
  private chars = 0;
  constructor(
    private readonly maxEntries = 64,
    private readonly maxChars = 8 * 1024 * 1024,
  ) {}

  /** The nonce of converting the section at `sectionStart` of this version (the same one for a repeated request). */
  offer(uri: string, version: number, sectionStart: number, converted: string, memo: () => RememberOriginalsArg): string {
    const spot = `${version}\0${sectionStart}\0${uri}`;
    const known = this.bySpot.get(spot);
    if (known && this.byNonce.has(known)) return known;
    const m = memo();
    const chars = converted.length + m.records.reduce((a, r) => a + r.record.heading.length + r.record.original.length, 0);
    const nonce = randomBytes(16).toString('hex');
    this.byNonce.set(nonce, { uri, converted, memo: m, chars });
    this.bySpot.set(spot, nonce);
    this.chars += chars;
    for (const [n, p] of this.byNonce) {
      if (this.byNonce.size <= 1 || (this.byNonce.size <= this.maxEntries && this.chars <= this.maxChars)) break;
      this.byNonce.delete(n);
      this.chars -= p.chars;
    }
    if (this.bySpot.size > this.maxEntries * 4) for (const [k, n] of this.bySpot) if (!this.byNonce.has(n)) this.bySpot.delete(k);
    return nonce;
  }

  /** The conversion named by `nonce` (undefined: not offered by this server, or taken already). */
  get(nonce: unknown): PendingConvert | undefined {
    return typeof nonce === 'string' ? this.byNonce.get(nonce) : undefined;
  }

  /** The conversion named by `nonce` is recorded: it is not offered again. */
  done(nonce: string): void {
    const p = this.byNonce.get(nonce);
    if (!p) return;
    this.byNonce.delete(nonce);
    this.chars -= p.chars;
  }
}

/** The confirmation asked before converting a section whose verdict is not convert: its real cost. */
export function convertAnywayQuestion(s: SectionResult): { message: string; detail: string } {
  const v = s.verdict!;
  return {
    message: `Convert “${headingText(s)}” to TOON? Its verdict is ${v.verdict.replace(/_/g, ' ')}.`,
    detail: `TOON ${savesOrCosts(v.token_estimates.savings, 'token')} (${v.token_estimates.estimator}) · ${charsChange(v.measured_chars)}.${v.warnings.length ? ` Warnings: ${v.warnings.map((w) => w.code.replace(/_/g, ' ')).join(', ')}.` : ''}`,
  };
}

const RESTRICTED = 'restricted mode: ToonLens does not edit files in an untrusted workspace (trust the workspace to convert or revert)';

/** The fence a converted section consists of, when `offset` is in that section (on its heading, say). */
function convertedFenceAtHeading(memo: MarkdownFences, doc: TextDocument, offset: number, plan: PlanResult): FenceAt | undefined {
  const fences = memo.toonFencesOf(doc, plan);
  if (!fences.length) return undefined;
  const s = sectionAtOffset(plan, offset);
  return s ? convertedFenceOf(doc.getText(), s, fences) : undefined;
}

function sectionFromArg(doc: TextDocument, plan: PlanResult, a: SectionArg): SectionResult | undefined {
  if (typeof a.sectionStart === 'number') return sectionStartingAt(plan, a.sectionStart);
  if (a.position) return sectionAtOffset(plan, doc.offsetAt(a.position));
  return undefined;
}

export function markdownConvertCommands(ctx: FeatureContext, pending: PendingConverts) {
  const plans = markdownPlans(ctx);
  const fences = markdownFences(ctx);

  async function apply(edit: WorkspaceEdit, label: string): Promise<CommandOutcome> {
    const r = await ctx.applyEdit(label, edit);
    return r.applied ? { applied: true, message: label } : { applied: false, message: `${label}: not applied${r.failureReason ? ` (${r.failureReason})` : ''}` };
  }

  function docFor(a: SectionArg | undefined): TextDocument | string {
    if (!a) return 'no document given';
    if (!ctx.isTrusted()) return RESTRICTED;
    const doc = ctx.documents.get(a.uri);
    if (!doc || !isMarkdownDocument(ctx, doc)) return 'the markdown document is not open';
    if (typeof a.version === 'number' && a.version !== doc.version) return 'the document changed since the lens was computed; try again';
    return doc;
  }

  /** The document a command names with its plan measured (time-sliced), or why there is none. */
  async function measured(a: SectionArg | undefined, token: CancellationToken | undefined): Promise<{ doc: TextDocument; plan: PlanResult } | string> {
    // Settings first: the version check in docFor and the edit then see the same document.
    const settings = a ? await ctx.settings.forDocument(a.uri) : undefined;
    const doc = docFor(a);
    if (typeof doc === 'string') return doc;
    await plans.ready(doc, token, settings);
    return { doc, plan: plans.planFor(doc, settings) };
  }

  return {
    async [COMMANDS.convertSection](args: unknown[], token?: CancellationToken): Promise<CommandOutcome> {
      const a = asArg(args);
      const m = await measured(a, token);
      if (typeof m === 'string') return { applied: false, message: m };
      const { doc } = m;
      const s = sectionFromArg(doc, m.plan, a!);
      if (!s) return { applied: false, message: 'no measured section here' };
      if (convertedFenceOf(doc.getText(), s, fences.toonFencesOf(doc, m.plan))) return { applied: false, message: `“${headingText(s)}” is TOON already (a \`\`\`toon fence): Revert to Markdown goes back` };
      if (keptByMarker(s)) return { applied: false, message: `“${headingText(s)}” says <!-- toonlens: keep -->: it stays markdown` };
      const c = convertible(s) ? converting(doc.getText(), s) : null;
      if (!c) return { applied: false, message: `“${headingText(s)}” has no TOON candidate that decodes` };
      if (!convertsWithoutAsking(s)) {
        const ok = await ctx.confirm({ ...convertAnywayQuestion(s), confirmLabel: 'Convert anyway' });
        if (!ok) return { applied: false, message: 'cancelled' };
      }
      const memo = originalsFor([c]);
      const label = s.blockSummary ? `Convert ${conversionWhat(s)} of “${headingText(s)}” to TOON` : `Convert “${headingText(s)}” to TOON`;
      const outcome = await apply(convertingWorkspaceEdit(doc, c), label);
      if (outcome.applied) remember(fences, doc.uri, memo);
      return outcome;
    },
    async [COMMANDS.revertSection](args: unknown[]): Promise<CommandOutcome> {
      const a = asArg(args);
      const doc = docFor(a);
      if (typeof doc === 'string') return { applied: false, message: doc };
      const text = doc.getText();
      const offset = typeof a!.sectionStart === 'number' ? a!.sectionStart : a!.position ? doc.offsetAt(a!.position) : -1;
      const plan = plans.planFor(doc);
      const at = fenceAt(fences, doc, offset, plan) ?? convertedFenceAtHeading(fences, doc, offset, plan);
      if (!at) return { applied: false, message: 'the cursor is not in a ```toon fence' };
      let e;
      try {
        e = revertEdit(text, at, fences.originals(doc.uri));
      } catch (err) {
        return { applied: false, message: errorMessage(err) };
      }
      const outcome = await apply(versioned(doc, [lspEdit(doc, e.start, e.end, e.newText)]), 'Revert TOON to Markdown');
      return outcome.applied ? { applied: true, message: `Reverted to Markdown: ${revertDescription(e.kind)}`, exact: e.kind !== 'canonical' } : outcome;
    },
    async [COMMANDS.convertAll](args: unknown[], token?: CancellationToken): Promise<CommandOutcome> {
      const m = await measured(asArg(args), token);
      if (typeof m === 'string') return { applied: false, message: m };
      const { doc, plan } = m;
      const cp = plan.contextPlan;
      if (!cp.reassembly_verified) return { applied: false, message: 'the hybrid did not verify; nothing converted' };
      if (!cp.recommend_hybrid) return { applied: false, message: `the plan does not recommend converting (net ${fmtSavingsPct(cp.net.savings_pct)} chars)` };
      if (!cp.safe_to_auto_apply) {
        const ok = await ctx.confirm({ message: 'Convert every recommended section to TOON?', detail: 'The plan is not safe to auto-apply: some converted sections carry warnings.', confirmLabel: 'Convert' });
        if (!ok) return { applied: false, message: 'cancelled' };
      }
      // Time-sliced (converting thousands of sections takes long enough to be noticed): other requests are answered
      // meanwhile, a cancel stops it, and an edit meanwhile converts nothing.
      // (The TextDocument object is updated in place by an edit: its version is read now.)
      const version = doc.version;
      let converting: Converting[];
      try {
        converting = await runSliced(convertingSteps(plan, doc.getText()), () =>
          token?.isCancellationRequested ? requestCancelled() : ctx.documents.get(doc.uri)?.version !== version ? contentModified() : undefined,
        );
      } catch (err) {
        if (!isCancellation(err)) throw err;
        return { applied: false, message: token?.isCancellationRequested ? 'cancelled' : 'the document changed while it was being converted; nothing converted' };
      }
      const edit = convertAllWorkspaceEdit(doc, converting);
      if (!edit) return { applied: false, message: 'no section converts' };
      const memo = originalsFor(converting);
      const outcome = await apply(edit, `Convert ${plan.sections.filter((s) => s.action === 'convert').length} sections to TOON`);
      if (outcome.applied) remember(fences, doc.uri, memo);
      return outcome;
    },
    [REMEMBER_ORIGINALS_COMMAND](args: unknown[]): { remembered: number; message?: string } {
      // Only a Convert code action this server offered, applied in a trusted workspace, is recorded.
      if (!ctx.isTrusted()) return { remembered: 0, message: RESTRICTED };
      const a = args[0] as Partial<RememberOriginalsNonce> | undefined;
      const nonce = a && typeof a === 'object' ? a.nonce : undefined;
      const p = pending.get(nonce);
      if (!p) return { remembered: 0, message: 'not a conversion this server offered' };
      const doc = ctx.documents.get(p.uri);
      if (!doc || !doc.getText().includes(p.converted)) return { remembered: 0, message: 'the conversion is not in the document' };
      pending.done(nonce as string);
      remember(fences, p.uri, p.memo);
      return { remembered: p.memo.records.length };
    },
  };
}

export const markdownConvertFeature: FeatureModule = {
  name: 'markdown-convert',
  // Declared, or clients that filter providers by kind (VS Code does) never ask for these actions.
  capabilities: () => ({ codeActionProvider: { codeActionKinds: [CodeActionKind.RefactorRewrite] } }),
  create(ctx) {
    const plans = markdownPlans(ctx);
    const fences = markdownFences(ctx);
    const pending = new PendingConverts();
    return {
      commands: markdownConvertCommands(ctx, pending),
      // Shutting down: the originals Convert put are on disk before the process exits.
      dispose: () => fences.flush(),
      async codeActions(doc, params, token) {
        if (!isMarkdownDocument(ctx, doc)) return undefined;
        const only = params.context.only;
        if (only && !only.some((k) => CodeActionKind.RefactorRewrite.startsWith(k) || k.startsWith(CodeActionKind.Refactor))) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        const current = ctx.documents.get(doc.uri) ?? doc;
        if (overSizeLimit(current, settings)) return undefined;
        await plans.ready(current, token, settings); // time-sliced; then planFor answers at once
        return ctx.guard('markdown convert actions', doc.uri, () => {
          const actions: CodeAction[] = [];
          const offset = current.offsetAt(params.range.start);
          const text = current.getText();
          const trusted = ctx.isTrusted();
          const disabled = (title: string): CodeAction[] => trustedEdits(ctx, [{ title, kind: CodeActionKind.RefactorRewrite }], RESTRICTED);
          const plan = plans.planFor(current, settings);
          const at = fenceAt(fences, current, offset, plan) ?? convertedFenceAtHeading(fences, current, offset, plan);
          if (at) {
            if (!trusted) return disabled('Revert to Markdown');
            try {
              const e = revertEdit(text, at, fences.originals(current.uri));
              actions.push({
                title: e.kind === 'canonical' ? 'Revert to Markdown (canonical rendering: original not known)' : 'Revert to Markdown',
                kind: CodeActionKind.RefactorRewrite,
                edit: versioned(current, [lspEdit(current, e.start, e.end, e.newText)]),
              });
            } catch {
              // A fence that does not decode has a toon/fence-decode diagnostic instead.
            }
            return actions;
          }
          const s = sectionAtOffset(plan, offset);
          const c = convertible(s) ? converting(text, s) : null;
          if (s && c) {
            const v = s.verdict!;
            const title = `Convert ${conversionWhat(s)} to TOON (${savesOrCosts(v.token_estimates.savings, 'token')}, verdict ${v.verdict.replace(/_/g, ' ')})`;
            if (!trusted) return disabled(title);
            const arg = { uri: current.uri, version: current.version, sectionStart: s.slice.charStart };
            // The follow-up command names this conversion by a nonce; the server keeps what it records.
            const remembering = (): RememberOriginalsNonce => ({
              nonce: pending.offer(current.uri, current.version, s.slice.charStart, c.newText, () => originalsFor([c])),
            });
            actions.push(
              convertsWithoutAsking(s)
                ? {
                    title,
                    kind: CodeActionKind.RefactorRewrite,
                    isPreferred: true,
                    edit: convertingWorkspaceEdit(current, c),
                    command: { title: 'Remember the original for Revert', command: REMEMBER_ORIGINALS_COMMAND, arguments: [remembering()] },
                  }
                : // Not recommended: the command asks first, with the real cost.
                  { title, kind: CodeActionKind.RefactorRewrite, command: { title, command: COMMANDS.convertSection, arguments: [arg] } },
            );
          }
          // Compact table, beside Convert: the table under the cursor keeps markdown (and its HTML), without padding.
          if (s && trusted) {
            const base = s.slice.charStart;
            const section = text.slice(base, s.slice.charEnd);
            const table = compactTables(section).edits.find((e) => offset >= base + e.start && offset <= base + e.end);
            if (table) {
              const tok = tokenizer(settings.tokenizer);
              const before = section.slice(table.start, table.end);
              const saved = tok.count(before) - tok.count(table.text);
              actions.push({
                title: `Compact table (keeps markdown and its rendering; ${savesOrCosts(saved, 'token')})`,
                kind: CodeActionKind.RefactorRewrite,
                edit: versioned(current, [lspEdit(current, base + table.start, base + table.end, table.text)]),
              });
            }
          }
          return actions;
        }, []);
      },
    };
  },
};

/**
 * Convert / Revert on markdown, as commands (lenses, palette) and as `refactor.rewrite` code actions:
 * - Convert section to TOON: the section becomes exactly its §7 hybrid segment (heading line, fenced
 *   candidate), only when the candidate strictly decodes; one versioned edit, so Undo restores the bytes.
 * - Revert to Markdown: a ```toon fence (with the heading line in front of it, when the model names that
 *   heading) becomes the markdown rendering of the decoded model.
 * - Convert all recommended sections: the plan's verified hybrid, as one edit of every converted section.
 */
import { CodeActionKind, TextDocumentEdit, type CodeAction, type TextEdit, type WorkspaceEdit } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { convertSectionEdit, renderToonAsMarkdown, type PlanResult, type SectionResult } from '../core/markdown/engine';
import { findToonFences, type ToonFence } from '../core/toon/fences';
import type { FeatureContext, FeatureModule } from './feature';
import { COMMANDS } from './protocol';
import { fmtChange, headingText, isMarkdownDocument, markdownPlans, overSizeLimit, sectionAtOffset, sectionStartingAt } from './markdownPlans';

/** What a convert/revert command answers (also shown by the client when not applied). */
export interface CommandOutcome {
  applied: boolean;
  message: string;
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

/** A section may be converted when its candidate exists and strictly decoded (flags.valid). */
export function convertible(s: SectionResult | undefined): s is SectionResult & { candidate: string } {
  return !!s && !!s.verdict && s.verdict.flags.valid && typeof s.candidate === 'string';
}

function lspEdit(doc: TextDocument, start: number, end: number, newText: string): TextEdit {
  return { range: { start: doc.positionAt(start), end: doc.positionAt(end) }, newText };
}

function versioned(doc: TextDocument, edits: TextEdit[]): WorkspaceEdit {
  return { documentChanges: [TextDocumentEdit.create({ uri: doc.uri, version: doc.version }, edits)] };
}

/** The edit converting one section. */
export function convertSectionWorkspaceEdit(doc: TextDocument, s: SectionResult & { candidate: string }): WorkspaceEdit {
  const e = convertSectionEdit(doc.getText(), s.slice, s.candidate);
  return versioned(doc, [lspEdit(doc, e.start, e.end, e.newText)]);
}

/** The edits turning the document into the plan's hybrid: one per converted section, in one WorkspaceEdit. */
export function convertAllWorkspaceEdit(doc: TextDocument, plan: PlanResult): WorkspaceEdit | undefined {
  const text = doc.getText();
  const edits = plan.sections
    .filter((s): s is SectionResult & { candidate: string } => s.action === 'convert' && convertible(s))
    .map((s) => {
      const e = convertSectionEdit(text, s.slice, s.candidate);
      return lspEdit(doc, e.start, e.end, e.newText);
    });
  return edits.length ? versioned(doc, edits) : undefined;
}

/** Offsets of a fence's whole extent: from its opening line's start to the end of its closing line (before the line break). */
function fenceExtent(text: string, f: ToonFence): { start: number; end: number } {
  const start = text.lastIndexOf('\n', f.infoStart - 1) + 1;
  let end = f.contentEnd;
  if (f.closed) {
    while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
  }
  return { start, end };
}

/** The fence whose extent contains `offset`. */
export function fenceAt(text: string, offset: number): { fence: ToonFence; start: number; end: number } | undefined {
  for (const fence of findToonFences(text)) {
    const { start, end } = fenceExtent(text, fence);
    if (offset >= start && offset <= end) return { fence, start, end };
  }
  return undefined;
}

/**
 * The revert edit of a fence: the decoded model rendered as markdown. When the rendering starts with the
 * heading line that stands right before the fence (as Convert leaves it), that line is replaced too.
 * Throws an Error with the decoder's message when the fence does not decode.
 */
export function revertEdit(text: string, at: { fence: ToonFence; start: number; end: number }): { start: number; end: number; newText: string } {
  let rendered = renderToonAsMarkdown(at.fence.content).replace(/(\r?\n)+$/, '');
  let start = at.start;
  const prevEnd = start - 1;
  if (prevEnd > 0) {
    const prevStart = text.lastIndexOf('\n', prevEnd - 1) + 1;
    const prevLine = text.slice(prevStart, prevEnd).replace(/\r$/, '');
    const firstRendered = rendered.split('\n', 1)[0]!;
    if (/^#{1,6}(\s|$)/.test(prevLine) && prevLine.trim() === firstRendered.trim()) start = prevStart;
  }
  if (text.slice(0, at.end).includes('\r\n')) rendered = rendered.replace(/\r?\n/g, '\r\n');
  return { start, end: at.end, newText: rendered };
}

function sectionFromArg(doc: TextDocument, plan: PlanResult, a: SectionArg): SectionResult | undefined {
  if (typeof a.sectionStart === 'number') return sectionStartingAt(plan, a.sectionStart);
  if (a.position) return sectionAtOffset(plan, doc.offsetAt(a.position));
  return undefined;
}

export function markdownConvertCommands(ctx: FeatureContext) {
  const plans = markdownPlans(ctx);

  async function apply(edit: WorkspaceEdit, label: string): Promise<CommandOutcome> {
    const r = await ctx.connection.workspace.applyEdit({ label, edit });
    return r.applied ? { applied: true, message: label } : { applied: false, message: `${label}: not applied${r.failureReason ? ` (${r.failureReason})` : ''}` };
  }

  function docFor(a: SectionArg | undefined): TextDocument | string {
    if (!a) return 'no document given';
    const doc = ctx.documents.get(a.uri);
    if (!doc || !isMarkdownDocument(doc)) return 'the markdown document is not open';
    if (typeof a.version === 'number' && a.version !== doc.version) return 'the document changed since the lens was computed; try again';
    return doc;
  }

  return {
    async [COMMANDS.convertSection](args: unknown[]): Promise<CommandOutcome> {
      const a = asArg(args);
      const doc = docFor(a);
      if (typeof doc === 'string') return { applied: false, message: doc };
      const s = sectionFromArg(doc, plans.planFor(doc), a!);
      if (!s) return { applied: false, message: 'no measured section here' };
      if (!convertible(s)) return { applied: false, message: `“${headingText(s)}” has no TOON candidate that decodes` };
      return apply(convertSectionWorkspaceEdit(doc, s), `Convert “${headingText(s)}” to TOON`);
    },
    async [COMMANDS.revertSection](args: unknown[]): Promise<CommandOutcome> {
      const a = asArg(args);
      const doc = docFor(a);
      if (typeof doc === 'string') return { applied: false, message: doc };
      const text = doc.getText();
      const offset = typeof a!.sectionStart === 'number' ? a!.sectionStart : a!.position ? doc.offsetAt(a!.position) : -1;
      const at = fenceAt(text, offset);
      if (!at) return { applied: false, message: 'the cursor is not in a ```toon fence' };
      let e;
      try {
        e = revertEdit(text, at);
      } catch (err) {
        return { applied: false, message: err instanceof Error ? err.message : String(err) };
      }
      return apply(versioned(doc, [lspEdit(doc, e.start, e.end, e.newText)]), 'Revert TOON to Markdown');
    },
    async [COMMANDS.convertAll](args: unknown[]): Promise<CommandOutcome> {
      const a = asArg(args);
      const doc = docFor(a);
      if (typeof doc === 'string') return { applied: false, message: doc };
      const plan = plans.planFor(doc);
      const cp = plan.verdict.context_plan!;
      if (!cp.reassembly_verified) return { applied: false, message: 'the hybrid did not verify; nothing converted' };
      if (!cp.recommend_hybrid) return { applied: false, message: `the plan does not recommend converting (net ${fmtChange(cp.net.savings_pct)})` };
      if (!cp.safe_to_auto_apply) {
        const ok = await ctx.confirm({ message: 'Convert every recommended section to TOON?', detail: 'The plan is not safe to auto-apply: some converted sections carry warnings.', confirmLabel: 'Convert' });
        if (!ok) return { applied: false, message: 'cancelled' };
      }
      const edit = convertAllWorkspaceEdit(doc, plan);
      if (!edit) return { applied: false, message: 'no section converts' };
      return apply(edit, `Convert ${plan.sections.filter((s) => s.action === 'convert').length} sections to TOON`);
    },
  };
}

export const markdownConvertFeature: FeatureModule = {
  name: 'markdown-convert',
  // Declared, or clients that filter providers by kind (VS Code does) never ask for these actions.
  capabilities: () => ({ codeActionProvider: { codeActionKinds: [CodeActionKind.RefactorRewrite] } }),
  create(ctx) {
    const plans = markdownPlans(ctx);
    return {
      commands: markdownConvertCommands(ctx),
      async codeActions(doc, params) {
        if (!isMarkdownDocument(doc)) return undefined;
        const only = params.context.only;
        if (only && !only.some((k) => CodeActionKind.RefactorRewrite.startsWith(k) || k.startsWith(CodeActionKind.Refactor))) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        const current = ctx.documents.get(doc.uri) ?? doc;
        if (overSizeLimit(current, settings)) return undefined;
        return ctx.guard('markdown convert actions', doc.uri, () => {
          const actions: CodeAction[] = [];
          const offset = current.offsetAt(params.range.start);
          const text = current.getText();
          const at = fenceAt(text, offset);
          if (at) {
            try {
              const e = revertEdit(text, at);
              actions.push({ title: 'Revert to Markdown', kind: CodeActionKind.RefactorRewrite, edit: versioned(current, [lspEdit(current, e.start, e.end, e.newText)]) });
            } catch {
              // A fence that does not decode has a toon/fence-decode diagnostic instead.
            }
            return actions;
          }
          const s = sectionAtOffset(plans.planFor(current), offset);
          if (convertible(s)) {
            const v = s.verdict!;
            actions.push({
              title: `Convert section to TOON (${fmtChange(v.measured_chars.savings_pct)}, verdict ${v.verdict})`,
              kind: CodeActionKind.RefactorRewrite,
              isPreferred: s.action === 'convert',
              edit: convertSectionWorkspaceEdit(current, s),
            });
          }
          return actions;
        }, []);
      },
    };
  },
};

/**
 * Quick fixes that switch a markdown diagnostic off where it stands, as markdownlint and ESLint users know them:
 * "Disable toon/<rule> for this line" writes `<!-- toonlens-disable-next-line CODE -->` before the line (or adds
 * the code to such a comment already there), "… for this file" writes `<!-- toonlens-disable CODE -->` at the
 * top, after the frontmatter (or adds the code to the disable comment already there). Offered on every `toon/*`
 * diagnostic of a markdown document (what inline comments can disable: core/markdown/inlineControl.ts); the line
 * fix only where the comment leaves the markdown's blocks as they were (not inside a table, a fence or the middle
 * of a paragraph). In restricted mode they are shown disabled, as Convert is.
 */
import { CodeActionKind, TextDocumentEdit, type CodeAction, type Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { disableFileEdit, disableLineEdit, type DisableEdit } from '../../core/markdown/inlineControl';
import type { PlanResult } from '../../core/markdown/engine';
import type { FeatureModule } from '../../lsp/feature';
import { DIAGNOSTIC_SOURCE } from '../../lsp/diagnostics';
import { isMarkdownDocument, markdownPlans, overSizeLimit, sectionAtOffset } from './plans';
import { trustedEdits, wantsKind } from '../../lsp/codeActions';

/** Whether inline comments can disable a published diagnostic: a ToonLens `toon/*` code. */
export function inlineDisableable(d: Diagnostic): d is Diagnostic & { code: string } {
  return d.source === DIAGNOSTIC_SOURCE && typeof d.code === 'string' && d.code.startsWith('toon/');
}

/** The two disable fixes of one diagnostic (the line one only where it is safe), against the document's current text. */
export function disableActions(doc: TextDocument, plan: PlanResult, d: Diagnostic & { code: string }): CodeAction[] {
  const text = doc.getText();
  const edit = (title: string, e: DisableEdit): CodeAction => ({
    title,
    kind: CodeActionKind.QuickFix,
    diagnostics: [d],
    edit: { documentChanges: [TextDocumentEdit.create({ uri: doc.uri, version: doc.version }, [{ range: { start: doc.positionAt(e.start), end: doc.positionAt(e.end) }, newText: e.newText }])] },
  });
  const out: CodeAction[] = [];
  const line = d.range.start.line;
  const s = sectionAtOffset(plan, doc.offsetAt({ line, character: 0 }));
  if (s) {
    const e = disableLineEdit(text.slice(s.slice.charStart, s.slice.charEnd), line - (s.slice.lineStart - 1), d.code);
    if (e) out.push(edit(`Disable ${d.code} for this line`, { ...e, start: e.start + s.slice.charStart, end: e.end + s.slice.charStart }));
  }
  const first = plan.sections[0];
  const bodyStart = first && first.slice.kind === 'frontmatter' ? first.slice.charEnd : 0;
  const f = disableFileEdit(text, bodyStart, d.code);
  if (f) out.push(edit(`Disable ${d.code} for this file`, f));
  return out;
}

export const markdownSuppressFeature: FeatureModule = {
  name: 'markdown-suppress',
  create(ctx) {
    const plans = markdownPlans(ctx);
    return {
      async codeActions(doc, params, token) {
        if (!isMarkdownDocument(ctx, doc) || !wantsKind(params.context.only, CodeActionKind.QuickFix)) return undefined;
        const ds = params.context.diagnostics.filter(inlineDisableable);
        if (ds.length === 0) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        const current = ctx.documents.get(doc.uri) ?? doc;
        if (overSizeLimit(current, settings)) return undefined;
        await plans.ready(current, token, settings);
        if (token.isCancellationRequested) return undefined;
        return ctx.guard('markdown disable fixes', doc.uri, () => {
          const plan = plans.planFor(current, settings);
          const seen = new Set<string>();
          const out: CodeAction[] = [];
          for (const d of ds) {
            for (const a of disableActions(current, plan, d)) {
              if (seen.has(a.title)) continue; // two diagnostics of one code on the line: one fix each way
              seen.add(a.title);
              out.push(a);
            }
          }
          return trustedEdits(ctx, out);
        }, []);
      },
    };
  },
};

/**
 * Quick fixes for the diagnostics under the cursor, and `source.fixAll.toonlens` (usable from
 * `editor.codeActionsOnSave`). Fixes are always recomputed from the document's current text; the data
 * of a published diagnostic may be stale.
 */
import {
  CodeActionKind,
  type CodeAction,
  type CodeActionParams,
  type Diagnostic,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { checkDocument } from '../../core/agentJson/check';
import type { CoreDiagnostic, JsonFix } from '../../core/types';
import type { FeatureContext, FeatureModule } from '../../lsp/feature';
import { FIX_ALL_KIND } from '../../protocol/commands';
import { applyFixesToText, fixToLspEdits, lspRangeToOffsets, minimalReplaceEdit } from '../../lsp/positions';
import { toLspDiagnostic } from '../../lsp/diagnostics';
import { contentModified, untilCancelled } from '../../lsp/timeSlice';
import { isJsonDocument, jsonAnalyzer } from './documents';
import type { ToonLensSettings } from '../../lsp/settings';
import { pushAll } from '../../core/arrays';
import { trustedEdits, wantsKind } from '../../lsp/codeActions';

/** Fix-all re-checks after each round (a fixed field can make a derived one checkable); bounded. */
const MAX_FIX_ALL_ROUNDS = 4;

/** The fixes `source.fixAll` applies for one set of diagnostics: the first unattended fix of each. */
export function fixAllFixes(diagnostics: CoreDiagnostic[]): JsonFix[] {
  const fixes: JsonFix[] = [];
  for (const d of diagnostics) {
    const f = d.fixes?.find((x) => x.fixAll);
    if (f) fixes.push(f);
  }
  return fixes;
}

/** The text after repeatedly applying every unattended fix until none is left (bounded). */
export function fixAllText(text: string, check: (text: string) => CoreDiagnostic[]): string {
  let current = text;
  for (let round = 0; round < MAX_FIX_ALL_ROUNDS; round++) {
    const fixes = fixAllFixes(check(current));
    if (fixes.length === 0) break;
    const next = applyFixesToText(current, fixes);
    if (next === current) break;
    current = next;
  }
  return current;
}

function workspaceEdit(ctx: FeatureContext, doc: TextDocument, edits: TextEdit[]): WorkspaceEdit {
  if (ctx.clientCapabilities.workspace?.workspaceEdit?.documentChanges) {
    return { documentChanges: [{ textDocument: { uri: doc.uri, version: doc.version }, edits }] };
  }
  return { changes: { [doc.uri]: edits } };
}

function quickFixes(ctx: FeatureContext, doc: TextDocument, settings: ToonLensSettings, params: CodeActionParams): CodeAction[] {
  const result = jsonAnalyzer(ctx).analyze(doc, settings);
  const want = lspRangeToOffsets(doc, params.range);
  const actions: CodeAction[] = [];
  for (const d of result.diagnostics) {
    if (!d.fixes?.length) continue;
    if (d.range.start > want.end || d.range.end < want.start) continue;
    let lsp: Diagnostic | undefined;
    d.fixes.forEach((fix, i) => {
      const edits = fixToLspEdits(doc, fix);
      if (edits.length === 0) return;
      lsp ??= toLspDiagnostic(doc, d);
      actions.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [lsp],
        isPreferred: i === 0,
        edit: workspaceEdit(ctx, doc, edits),
      });
    });
  }
  return actions;
}

function fixAllAction(ctx: FeatureContext, doc: TextDocument, settings: ToonLensSettings): CodeAction | undefined {
  const analyzer = jsonAnalyzer(ctx);
  const text = doc.getText();
  const first = analyzer.analyze(doc, settings);
  if (fixAllFixes(first.diagnostics).length === 0) return undefined;
  const opts = { ...analyzer.optionsFor(doc, settings), kind: first.kind };
  let round = 0;
  const next = fixAllText(text, (t) => (round++ === 0 ? first.diagnostics : checkDocument(t, opts).diagnostics));
  const edit = minimalReplaceEdit(doc, next);
  if (!edit) return undefined;
  return { title: 'Fix all auto-fixable ToonLens problems', kind: FIX_ALL_KIND, edit: workspaceEdit(ctx, doc, [edit]) };
}

export const codeActionsFeature: FeatureModule = {
  name: 'code-actions',
  capabilities: () => ({ codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix, FIX_ALL_KIND] } }),
  create(ctx) {
    return {
      async codeActions(doc, params, token) {
        if (!isJsonDocument(doc)) return undefined;
        const only = params.context.only;
        const quick = wantsKind(only, CodeActionKind.QuickFix);
        // The fix-all action is a source action: offered when asked for (save, Source Action menu).
        const all = wantsKind(only, FIX_ALL_KIND);
        if (!quick && !all) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        const version = doc.version;
        // A large report is checked on the JSON worker: wait for that check (cancellable) rather than
        // checking it a second time in-thread; a new version meanwhile answers ContentModified.
        await untilCancelled(jsonAnalyzer(ctx).analyzeAsync(ctx.documents.get(doc.uri) ?? doc, settings), token);
        const current = ctx.documents.get(doc.uri) ?? doc;
        if (current.version !== version) throw contentModified();
        const actions: CodeAction[] = [];
        if (quick) pushAll(actions, ctx.guard('quick fixes', doc.uri, () => quickFixes(ctx, current, settings, params), []));
        if (all) {
          const a = ctx.guard('fix all', doc.uri, () => fixAllAction(ctx, current, settings), undefined);
          if (a) actions.push(a);
        }
        return trustedEdits(ctx, actions);
      },
    };
  },
};

/**
 * Completion in update_recipe_build arguments: the `op` values, a whole op skeleton inside `ops`, and the
 * fields the chosen op requires — all derived from the input schema by the core, nothing hand-listed.
 * Works on text that does not parse yet (a tolerant parse gives the partial value).
 */
import { getLocation, parse } from 'jsonc-parser';
import { CompletionItemKind, InsertTextFormat, type CompletionItem, type CompletionParams } from 'vscode-languageserver/node';
import { recipeCompletions } from '../../core/agentJson/rules/recipe';
import type { JsonPath } from '../../core/types';
import type { FeatureModule } from '../../lsp/feature';
import { isJsonDocument, jsonAnalyzer } from './documents';

/** Maps the cursor's JSON location to the path `recipeCompletions` expects. */
export function completionPath(text: string, offset: number): { path: JsonPath; replace?: { start: number; end: number } } {
  const loc = getLocation(text, offset);
  const path = loc.path as (string | number)[];
  const prev = loc.previousNode;
  const replace = prev && prev.type === 'string' && offset >= prev.offset && offset <= prev.offset + prev.length ? { start: prev.offset, end: prev.offset + prev.length } : undefined;
  if (loc.isAtPropertyKey) return { path: path.slice(0, -1), replace };
  if (typeof path[path.length - 1] === 'number' && !replace) return { path: path.slice(0, -1) };
  return { path, replace };
}

export const recipeCompletionFeature: FeatureModule = {
  name: 'recipe-completion',
  create(ctx) {
    const analyzer = jsonAnalyzer(ctx);
    return {
      async completion(doc, params: CompletionParams): Promise<CompletionItem[]> {
        if (!isJsonDocument(doc)) return [];
        const settings = await ctx.settings.forDocument(doc.uri);
        const current = ctx.documents.get(doc.uri) ?? doc;
        const kind = analyzer.analyze(current, settings).kind ?? analyzer.lastKind(doc.uri);
        if (kind !== 'recipe-input') return [];
        const text = current.getText();
        const offset = current.offsetAt(params.position);
        const value = parse(text, [], { allowTrailingComma: true });
        const { path, replace } = completionPath(text, offset);
        return recipeCompletions(value, path).map((c, i) => {
          const item: CompletionItem = { label: c.label, detail: c.detail, kind: CompletionItemKind.Value, sortText: String(i).padStart(4, '0') };
          if (c.insertText !== undefined) {
            if (replace) item.textEdit = { range: { start: current.positionAt(replace.start), end: current.positionAt(replace.end) }, newText: c.insertText };
            else item.insertText = c.insertText;
            item.insertTextFormat = InsertTextFormat.PlainText;
          }
          return item;
        });
      },
    };
  },
};

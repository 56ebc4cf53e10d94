/**
 * Completion from our schemas on every ToonLens JSON kind (verdict, report, critique, recipe input and
 * output): enum values, property names with their descriptions, and "required fields" snippets, through
 * vscode-json-languageservice (see jsonLanguageService.ts). The document's kind comes from the core's
 * detection, so the files VS Code's JSON support does not validate (the manifest hands it none of our schemas,
 * only one that proposes nothing for the file-name conventions) get completion once, from this server, in every
 * LSP client.
 */
import type { CompletionList } from 'vscode-languageserver/node';
import { SCHEMAS } from '../../core/json/schema';
import { onePerServer, type FeatureModule } from '../../lsp/feature';
import { isJsonDocument, jsonAnalyzer } from './documents';
import { JsonSchemaHelp } from './languageService';

/** The one schema service of a server (shared by completion and hover). */
export const schemaHelp = onePerServer(() => new JsonSchemaHelp(SCHEMAS));

export const jsonCompletionFeature: FeatureModule = {
  name: 'json-completion',
  create(ctx) {
    const analyzer = jsonAnalyzer(ctx);
    const help = schemaHelp(ctx);
    return {
      async completion(doc, params, token): Promise<CompletionList | null> {
        if (!isJsonDocument(doc)) return null;
        const settings = await ctx.settings.forDocument(doc.uri);
        const current = ctx.documents.get(doc.uri) ?? doc;
        if (token.isCancellationRequested) return null;
        // The text being typed rarely parses: the memoized check still knows the kind from the last version.
        const kind = analyzer.analyze(current, settings).kind ?? analyzer.lastKind(doc.uri);
        if (!kind) return null;
        return help.complete(current, kind, params.position);
      },
    };
  },
};

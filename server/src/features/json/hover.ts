/**
 * Hovers on agent JSON, one per spot (never the same text twice): a kind's explainer wins where it
 * applies (a derived field's recorded and derived values, cross-field rules); elsewhere the schema's
 * hover from vscode-json-languageservice (the same text VS Code's JSON support would show); the core's
 * own schema description only where the language service has nothing (or the document is too large).
 */
import { MarkupKind } from 'vscode-languageserver/node';
import { hoverAt } from '../../core/agentJson/hover';
import type { FeatureModule } from '../../lsp/feature';
import { offsetRangeToLsp } from '../../lsp/positions';
import { isJsonDocument, jsonAnalyzer } from './documents';
import { schemaHelp } from './completion';
import { errorMessage } from '../../core/errors';

export const jsonHoverFeature: FeatureModule = {
  name: 'json-hover',
  create(ctx) {
    const analyzer = jsonAnalyzer(ctx);
    const help = schemaHelp(ctx);
    return {
      async hover(doc, params) {
        if (!isJsonDocument(doc)) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        const current = ctx.documents.get(doc.uri) ?? doc;
        const core = ctx.guard('hover', doc.uri, () => {
          // The memoized check of this version (kind, and the value — parsed again only for a large document)
          // spares the hover a parse and a kind detection; without one (not checked yet) it parses itself.
          const known = analyzer.known(current, settings);
          const h = hoverAt(current.getText(), current.offsetAt(params.position), analyzer.optionsFor(current, settings), known);
          return { h, kind: h ? (known?.kind ?? analyzer.analyze(current, settings).kind) : undefined };
        }, { h: undefined, kind: undefined });
        const h = core.h;
        if (!h || !h.markdown) return undefined;
        const coreHover = { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: offsetRangeToLsp(current, h.range) };
        if (h.source === 'explainer' || !core.kind) return coreHover;
        try {
          const fromSchema = await help.hover(current, core.kind, params.position);
          if (fromSchema) return { contents: { kind: MarkupKind.Markdown, value: fromSchema.markdown }, range: fromSchema.range ?? coreHover.range };
        } catch (err) {
          ctx.log.error(`schema hover failed for ${doc.uri}: ${errorMessage(err)}`);
        }
        return coreHover;
      },
    };
  },
};

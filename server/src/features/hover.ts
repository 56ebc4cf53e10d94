/** Hovers on agent JSON: the core's explanation of the value under the cursor, as markdown. */
import { MarkupKind } from 'vscode-languageserver/node';
import { hoverAt } from '../core/hover';
import type { FeatureModule } from './feature';
import { offsetRangeToLsp } from './convert';
import { isJsonDocument, jsonAnalyzer } from './jsonDocuments';

export const jsonHoverFeature: FeatureModule = {
  name: 'json-hover',
  create(ctx) {
    const analyzer = jsonAnalyzer(ctx);
    return {
      async hover(doc, params) {
        if (!isJsonDocument(doc)) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        const current = ctx.documents.get(doc.uri) ?? doc;
        return ctx.guard('hover', doc.uri, () => {
          // The memoized check of this version (kind, and the value — parsed again only for a large document)
          // spares the hover a parse and a kind detection; without one (not checked yet) it parses itself.
          const known = analyzer.known(current, settings);
          const h = hoverAt(current.getText(), current.offsetAt(params.position), analyzer.optionsFor(current, settings), known);
          if (!h || !h.markdown) return undefined;
          return { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: offsetRangeToLsp(current, h.range) };
        }, undefined);
      },
    };
  },
};

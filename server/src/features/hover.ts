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
          const h = hoverAt(current.getText(), current.offsetAt(params.position), analyzer.optionsFor(current, settings));
          if (!h || !h.markdown) return undefined;
          return { contents: { kind: MarkupKind.Markdown, value: h.markdown }, range: offsetRangeToLsp(current, h.range) };
        }, undefined);
      },
    };
  },
};

/**
 * Test support, active only when the server runs with TOONLENS_FAULT_INJECTION=<marker>: every provider
 * of this feature throws on documents whose text contains the marker. The LSP tests use it to prove
 * that a failing feature is isolated to its document and logged, and that the other features still answer.
 */
import type { FeatureModule } from '../lsp/feature';

export function faultInjectionFeature(marker: string): FeatureModule {
  const explode = (uri: string): never => {
    throw new Error(`fault injection: ${uri} contains ${marker}`);
  };
  const hit = (text: string) => text.includes(marker);
  return {
    name: 'fault-injection',
    create() {
      return {
        diagnostics: {
          appliesTo: () => true,
          provide(doc) {
            if (hit(doc.getText())) explode(doc.uri);
            return [];
          },
        },
        hover(doc) {
          if (hit(doc.getText())) explode(doc.uri);
          return undefined;
        },
        codeActions(doc) {
          if (hit(doc.getText())) explode(doc.uri);
          return undefined;
        },
        codeLenses(doc) {
          if (hit(doc.getText())) explode(doc.uri);
          return undefined;
        },
      };
    },
  };
}

/**
 * The project config, `.toonlens.json`: feeds every document's settings (rules, document kinds, ignore globs —
 * through the SettingsStore, see settings.ts for the precedence), reloads when a config file changes on disk,
 * and gives the config file itself diagnostics (core/config.ts), completion and hovers (the shared
 * vscode-json-languageservice adapter on schemas/toonlens-config.v1.json).
 */
import type { CompletionList, Diagnostic, Hover } from 'vscode-languageserver/node';
import { CONFIG_SCHEMA, configDiagnostics } from '../../core/config';
import { fileRole } from '../../core/files';
import { agentFileByConfig, ConfigLoader, ignoredByConfig } from '../../node/config';
import type { FeatureModule } from '../../lsp/feature';
import { toLspDiagnostic } from '../../lsp/diagnostics';
import type { ProjectConfigForDocument } from '../../lsp/settings';
import { JsonSchemaHelp } from '../json/languageService';

/** Whether a document is a `.toonlens.json`. */
export function isConfigDocument(doc: { uri: string }): boolean {
  return fileRole(doc.uri) === 'config';
}

let help: JsonSchemaHelp | undefined;
/** The shared schema adapter (the one agent-JSON completion uses) with the config schema alone. */
const configHelp = (): JsonSchemaHelp => (help ??= new JsonSchemaHelp({ config: CONFIG_SCHEMA }));

export const projectConfigFeature: FeatureModule = {
  name: 'project-config',
  create(ctx) {
    const loader = new ConfigLoader();
    ctx.settings.setProjectConfig((uri): ProjectConfigForDocument | undefined => {
      const fsPath = ctx.fsPathOf(uri);
      if (!fsPath) return undefined;
      const loaded = loader.forFile(fsPath, ctx.workspaceRootOf(uri));
      if (!loaded.file) return undefined;
      const c = loaded.config;
      const out: ProjectConfigForDocument = { file: loaded.file, rules: c.rules, documentKinds: c.documentKinds, ignored: ignoredByConfig(loaded, fsPath) };
      if (c.tokenizer !== undefined) out.tokenizer = c.tokenizer;
      if (c.minTokenSavings !== undefined) out.minTokenSavings = c.minTokenSavings;
      if (c.minTokenSavingsPct !== undefined) out.minTokenSavingsPct = c.minTokenSavingsPct;
      if (c.tokenNotesAsDiagnostics !== undefined) out.tokenNotesAsDiagnostics = c.tokenNotesAsDiagnostics;
      if (agentFileByConfig(loaded, fsPath)) out.agentFile = true;
      return out;
    });
    return {
      diagnostics: {
        appliesTo: isConfigDocument,
        provide: (doc): Diagnostic[] => configDiagnostics(doc.getText()).map((d) => toLspDiagnostic(doc, d)),
      },
      async completion(doc, params): Promise<CompletionList | null> {
        if (!isConfigDocument(doc)) return null;
        return configHelp().complete(doc, 'config', params.position);
      },
      async hover(doc, params): Promise<Hover | null> {
        if (!isConfigDocument(doc)) return null;
        const h = await configHelp().hover(doc, 'config', params.position);
        return h ? { contents: { kind: 'markdown', value: h.markdown }, ...(h.range ? { range: h.range } : {}) } : null;
      },
      onDidChangeWatchedFiles(changes) {
        if (!changes.some((c) => isConfigDocument(c))) return;
        // A config file appeared, changed or went away: every document's settings may differ now.
        loader.clear();
        ctx.settings.changed(undefined);
        ctx.refreshDiagnostics();
        ctx.refreshCodeLenses();
      },
    };
  },
};

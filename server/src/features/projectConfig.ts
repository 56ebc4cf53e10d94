/**
 * The project config, `.toonlens.json`: feeds every document's settings (rules, document kinds, ignore globs —
 * through the SettingsStore, see settings.ts for the precedence), reloads when a config file changes on disk,
 * and gives the config file itself diagnostics (core/config.ts), completion and hovers (vscode-json-languageservice
 * on schemas/toonlens-config.v1.json).
 */
import { getLanguageService, type LanguageService } from 'vscode-json-languageservice';
import type { CompletionItem, Diagnostic, Hover } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { CONFIG_FILE_NAME, CONFIG_SCHEMA, configDiagnostics } from '../core/config';
import { ConfigLoader, ignoredByConfig } from '../node/config';
import type { FeatureModule } from './feature';
import { toLspDiagnostic } from './diagnostics';
import type { ProjectConfigForDocument } from './settings';

const SCHEMA_URI = 'toonlens://schemas/toonlens-config.v1.json';

/** Whether a document is a `.toonlens.json`. */
export function isConfigDocument(doc: { uri: string }): boolean {
  const path = doc.uri.replace(/[?#].*$/, '');
  return path.endsWith(`/${CONFIG_FILE_NAME}`) || path === CONFIG_FILE_NAME;
}

let service: LanguageService | undefined;
function jsonService(): LanguageService {
  if (!service) {
    service = getLanguageService({ clientCapabilities: { textDocument: { hover: { contentFormat: ['markdown', 'plaintext'] }, completion: { completionItem: { documentationFormat: ['markdown', 'plaintext'] } } } } });
    service.configure({ validate: false, allowComments: true, schemas: [{ uri: SCHEMA_URI, fileMatch: [`*/${CONFIG_FILE_NAME}`, CONFIG_FILE_NAME], schema: CONFIG_SCHEMA }] });
  }
  return service;
}

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
      return out;
    });
    const jsonDoc = (doc: TextDocument) => jsonService().parseJSONDocument(doc);
    return {
      diagnostics: {
        appliesTo: isConfigDocument,
        provide: (doc): Diagnostic[] => configDiagnostics(doc.getText()).map((d) => toLspDiagnostic(doc, d)),
      },
      async completion(doc, params): Promise<CompletionItem[]> {
        if (!isConfigDocument(doc)) return [];
        const list = await jsonService().doComplete(doc, params.position, jsonDoc(doc));
        return list?.items ?? [];
      },
      async hover(doc, params): Promise<Hover | null> {
        if (!isConfigDocument(doc)) return null;
        return jsonService().doHover(doc, params.position, jsonDoc(doc));
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

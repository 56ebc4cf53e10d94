/**
 * The `toonlens.*` settings: pulled with `workspace/configuration` per document scope and cached
 * until the client says they changed; for clients without that capability (Neovim, Helix, …) taken
 * from `initializationOptions.settings` and `workspace/didChangeConfiguration`.
 * A pull never blocks a feature for long: after a timeout the defaults (or the last known values) apply.
 */
import type { Connection } from 'vscode-languageserver/node';
import type { DocumentKind } from '../core/types';
import { DOCUMENT_KINDS } from '../core/types';
import { DEFAULT_TOKENIZER, isTokenizerName, type TokenizerName } from '../core/tokens';
import { DEFAULT_MIN_TOKEN_SAVINGS, DEFAULT_MIN_TOKEN_SAVINGS_PCT } from '../core/markdown/policy';
import { normalizeRules, type RuleLevel, type Tokenizer } from '../core/config';
import { isObject } from '../core/json/value';
import { SETTING_RANGES, clampSetting } from '../core/settingRanges';

/** Which sections get a verdict lens: those whose verdict converts (the default), or every measured one. */
export type LensSections = 'convert' | 'all';

export interface ToonLensSettings {
  documentKinds: Record<string, DocumentKind>;
  maxFileSizeMB: number;
  codeLens: { enabled: boolean; minSavingsPct: number; sections: LensSections };
  /** Schema file glob → baseline file (workspace-relative) for schema-drift diagnostics; default: git HEAD. */
  schemaBaselines: Record<string, string>;
  trace: { server: 'off' | 'messages' | 'verbose' };
  /** How markdown plans count tokens; `estimate` turns the token gate off. */
  tokenizer: TokenizerName;
  /** The token gate's minimum saving in real tokens. */
  minTokenSavings: number;
  /** The token floor: the minimum saving as a percentage of the section's real tokens. */
  minTokenSavingsPct: number;
  /** Token notes (`toon/token-regression`) as diagnostics in every markdown document, not only in converted ones. */
  tokenNotesAsDiagnostics: boolean;
  /**
   * Diagnostic code → level: the project's `.toonlens.json` rules with the user's `toonlens.rules` over them
   * (the setting is the editor-only choice and wins per code; docs/config.md).
   */
  rules: Record<string, RuleLevel>;
  /** What the document's `.toonlens.json` says beyond rules and kinds (none: no config file). */
  project?: ProjectSettings;
}

/** The project config as it applies to one document. */
export interface ProjectSettings {
  /** Absolute path of the `.toonlens.json` that applies. */
  file: string;
  /** The document matches one of its ignore globs: no diagnostics. */
  ignored: boolean;
  tokenizer?: Tokenizer;
  minTokenSavings?: number;
  minTokenSavingsPct?: number;
  tokenNotesAsDiagnostics?: boolean;
  /** The config's `agentFiles` globs name the document: it gets the agent-file advice. */
  agentFile?: boolean;
}

/** The part of a project config the settings take (built by the server from node/config's loader). */
export interface ProjectConfigForDocument {
  file: string;
  rules: Record<string, RuleLevel>;
  documentKinds: Record<string, DocumentKind>;
  ignored: boolean;
  tokenizer?: Tokenizer;
  minTokenSavings?: number;
  minTokenSavingsPct?: number;
  tokenNotesAsDiagnostics?: boolean;
  agentFile?: boolean;
}

/**
 * Settings with the project's config merged in: `documentKinds` from the file win per glob over the setting
 * (the project knows its files), `tokenizer`, `minTokenSavings` and `minTokenSavingsPct` from the file win (the project's policy),
 * `rules` from the setting win per code over the file (the user's editor).
 */
export function withProjectConfig(settings: ToonLensSettings, project: ProjectConfigForDocument | undefined): ToonLensSettings {
  if (!project) return settings;
  const p: ProjectSettings = { file: project.file, ignored: project.ignored };
  if (project.tokenizer !== undefined) p.tokenizer = project.tokenizer;
  if (project.minTokenSavings !== undefined) p.minTokenSavings = project.minTokenSavings;
  if (project.minTokenSavingsPct !== undefined) p.minTokenSavingsPct = project.minTokenSavingsPct;
  if (project.tokenNotesAsDiagnostics !== undefined) p.tokenNotesAsDiagnostics = project.tokenNotesAsDiagnostics;
  if (project.agentFile) p.agentFile = true;
  return {
    ...settings,
    documentKinds: { ...settings.documentKinds, ...project.documentKinds },
    rules: { ...project.rules, ...settings.rules },
    // How tokens are counted and the token gate are the project's policy: the file wins, so CI and the editor agree.
    ...(project.tokenizer !== undefined ? { tokenizer: project.tokenizer } : {}),
    ...(project.minTokenSavings !== undefined ? { minTokenSavings: project.minTokenSavings } : {}),
    ...(project.minTokenSavingsPct !== undefined ? { minTokenSavingsPct: project.minTokenSavingsPct } : {}),
    // What check reports is the project's too: the file wins, so CI and the editor show the same findings.
    ...(project.tokenNotesAsDiagnostics !== undefined ? { tokenNotesAsDiagnostics: project.tokenNotesAsDiagnostics } : {}),
    project: p,
  };
}

export const DEFAULT_SETTINGS: Readonly<ToonLensSettings> = Object.freeze<ToonLensSettings>({
  documentKinds: {},
  maxFileSizeMB: SETTING_RANGES.maxFileSizeMB.default,
  codeLens: { enabled: true, minSavingsPct: SETTING_RANGES['codeLens.minSavingsPct'].default, sections: 'convert' },
  schemaBaselines: {},
  trace: { server: 'off' },
  tokenizer: DEFAULT_TOKENIZER,
  minTokenSavings: DEFAULT_MIN_TOKEN_SAVINGS,
  minTokenSavingsPct: DEFAULT_MIN_TOKEN_SAVINGS_PCT,
  tokenNotesAsDiagnostics: false,
  rules: {},
});

/** How long a `workspace/configuration` pull may take before the defaults are used. */
const PULL_TIMEOUT_MS = 2000;

/**
 * Normalizes whatever a client sent for the `toonlens` section: unknown keys are ignored, wrong
 * types fall back to the default, and dotted keys ("codeLens.enabled") are accepted as well as nested objects.
 */
export function normalizeSettings(raw: unknown): ToonLensSettings {
  const o = isObject(raw) ? raw : {};
  const pick = (dotted: string): unknown => {
    if (dotted in o) return o[dotted];
    let cur: unknown = o;
    for (const part of dotted.split('.')) {
      if (!isObject(cur)) return undefined;
      cur = cur[part];
    }
    return cur;
  };
  const kinds: Record<string, DocumentKind> = {};
  const rawKinds = pick('documentKinds');
  if (isObject(rawKinds)) {
    for (const [glob, kind] of Object.entries(rawKinds)) {
      if (typeof kind === 'string' && (DOCUMENT_KINDS as readonly string[]).includes(kind)) kinds[glob] = kind as DocumentKind;
    }
  }
  const baselines: Record<string, string> = {};
  const rawBaselines = pick('schemaBaselines');
  if (isObject(rawBaselines)) {
    for (const [glob, file] of Object.entries(rawBaselines)) if (typeof file === 'string') baselines[glob] = file;
  }
  const maxMB = pick('maxFileSizeMB');
  const lensEnabled = pick('codeLens.enabled');
  const minPct = pick('codeLens.minSavingsPct');
  const lensSections = pick('codeLens.sections');
  const trace = pick('trace.server');
  const tok = pick('tokenizer');
  const minTok = pick('minTokenSavings');
  const minTokPct = pick('minTokenSavingsPct');
  const notes = pick('tokenNotesAsDiagnostics');
  return {
    documentKinds: kinds,
    // Numbers are clamped to their documented range (core/settingRanges.ts): a workspace cannot raise a limit.
    maxFileSizeMB: clampSetting('maxFileSizeMB', maxMB) ?? DEFAULT_SETTINGS.maxFileSizeMB,
    codeLens: {
      enabled: typeof lensEnabled === 'boolean' ? lensEnabled : DEFAULT_SETTINGS.codeLens.enabled,
      minSavingsPct: clampSetting('codeLens.minSavingsPct', minPct) ?? DEFAULT_SETTINGS.codeLens.minSavingsPct,
      sections: lensSections === 'all' || lensSections === 'convert' ? lensSections : DEFAULT_SETTINGS.codeLens.sections,
    },
    schemaBaselines: baselines,
    trace: { server: trace === 'messages' || trace === 'verbose' ? trace : 'off' },
    tokenizer: isTokenizerName(tok) ? tok : DEFAULT_SETTINGS.tokenizer,
    minTokenSavings: clampSetting('minTokenSavings', minTok) ?? DEFAULT_SETTINGS.minTokenSavings,
    minTokenSavingsPct: typeof minTokPct === 'number' && Number.isFinite(minTokPct) && minTokPct >= 0 && minTokPct <= 100 ? minTokPct : DEFAULT_SETTINGS.minTokenSavingsPct,
    tokenNotesAsDiagnostics: typeof notes === 'boolean' ? notes : DEFAULT_SETTINGS.tokenNotesAsDiagnostics,
    rules: normalizeRules(pick('rules')),
  };
}

export class SettingsStore {
  /** Per document: the user's settings with the document's project config merged in. */
  private readonly cache = new Map<string, Promise<ToonLensSettings>>();
  /** Per scope: the user's settings as the client answered. */
  private readonly userCache = new Map<string, Promise<ToonLensSettings>>();
  private pushed: ToonLensSettings;
  private readonly listeners: (() => void)[] = [];
  private project: (uri: string) => ProjectConfigForDocument | undefined = () => undefined;

  constructor(
    private readonly connection: Connection,
    /** Whether the client answers `workspace/configuration`. */
    private readonly canPull: boolean,
    initial: unknown,
    private readonly log: (message: string) => void,
  ) {
    this.pushed = normalizeSettings(initial);
  }

  /** Where the project config of a document comes from (the server plugs in the `.toonlens.json` loader). */
  setProjectConfig(resolve: (uri: string) => ProjectConfigForDocument | undefined): void {
    this.project = resolve;
  }

  /** The settings for a document (its resource scope, its project config merged in); cached until {@link changed}. Never rejects. */
  forDocument(uri: string): Promise<ToonLensSettings> {
    let p = this.cache.get(uri);
    if (!p) {
      p = this.user(uri).then((settings) => withProjectConfig(settings, this.projectOf(uri)));
      this.cache.set(uri, p);
    }
    return p;
  }

  /**
   * The settings of a file that need not be open, with the user's settings pulled once for `scopeUri` (its
   * workspace folder: a workspace check of thousands of files asks the client once) and the file's own project
   * config merged in. Never rejects.
   */
  forFileInScope(uri: string, scopeUri: string): Promise<ToonLensSettings> {
    return this.user(scopeUri).then((settings) => withProjectConfig(settings, this.projectOf(uri)));
  }

  /** The user's settings for a scope (pulled and cached, or the pushed ones). */
  private user(scopeUri: string): Promise<ToonLensSettings> {
    if (!this.canPull) return Promise.resolve(this.pushed);
    let p = this.userCache.get(scopeUri);
    if (!p) {
      p = this.pull(scopeUri);
      this.userCache.set(scopeUri, p);
    }
    return p;
  }

  private projectOf(uri: string): ProjectConfigForDocument | undefined {
    try {
      return this.project(uri);
    } catch (err) {
      this.log(`reading the project config for ${uri} failed: ${errorText(err)}`);
      return undefined;
    }
  }

  /** Forget a closed document's scope. */
  forget(uri: string): void {
    this.cache.delete(uri);
    this.userCache.delete(uri);
  }

  /** `workspace/didChangeConfiguration`: drop the cache (pull clients) or take the pushed values. */
  changed(pushedSettings: unknown): void {
    this.cache.clear();
    this.userCache.clear();
    if (!this.canPull && pushedSettings !== undefined && pushedSettings !== null) {
      const section = isObject(pushedSettings) && 'toonlens' in pushedSettings ? pushedSettings.toonlens : pushedSettings;
      this.pushed = normalizeSettings(section);
    }
    for (const l of this.listeners) {
      try {
        l();
      } catch (err) {
        this.log(`settings listener failed: ${errorText(err)}`);
      }
    }
  }

  /** Runs `listener` after every settings change. */
  onDidChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private async pull(uri: string): Promise<ToonLensSettings> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), PULL_TIMEOUT_MS);
    });
    try {
      const answer = await Promise.race([this.connection.workspace.getConfiguration({ scopeUri: uri, section: 'toonlens' }), timeout]);
      if (answer === 'timeout') {
        this.log(`workspace/configuration did not answer within ${PULL_TIMEOUT_MS} ms; using defaults for ${uri}`);
        this.cache.delete(uri); // try again next time
        this.userCache.delete(uri);
        return this.pushed;
      }
      return normalizeSettings(answer);
    } catch (err) {
      this.log(`workspace/configuration failed for ${uri}: ${errorText(err)}; using defaults`);
      this.cache.delete(uri);
      this.userCache.delete(uri);
      return this.pushed;
    } finally {
      clearTimeout(timer);
    }
  }
}


export function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? err.message;
  return String(err);
}

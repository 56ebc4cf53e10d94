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
import { DEFAULT_MIN_TOKEN_SAVINGS } from '../core/policy';

export interface ToonLensSettings {
  documentKinds: Record<string, DocumentKind>;
  maxFileSizeMB: number;
  codeLens: { enabled: boolean; minSavingsPct: number };
  /** Schema file glob → baseline file (workspace-relative) for schema-drift diagnostics; default: git HEAD. */
  schemaBaselines: Record<string, string>;
  trace: { server: 'off' | 'messages' | 'verbose' };
  /** How markdown plans count tokens (#13); `estimate` turns the token gate off. */
  tokenizer: TokenizerName;
  /** The token gate's minimum saving in real tokens. */
  minTokenSavings: number;
}

export const DEFAULT_SETTINGS: Readonly<ToonLensSettings> = Object.freeze<ToonLensSettings>({
  documentKinds: {},
  maxFileSizeMB: 50,
  codeLens: { enabled: true, minSavingsPct: 0 },
  schemaBaselines: {},
  trace: { server: 'off' },
  tokenizer: DEFAULT_TOKENIZER,
  minTokenSavings: DEFAULT_MIN_TOKEN_SAVINGS,
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
  const trace = pick('trace.server');
  const tok = pick('tokenizer');
  const minTok = pick('minTokenSavings');
  return {
    documentKinds: kinds,
    maxFileSizeMB: typeof maxMB === 'number' && Number.isFinite(maxMB) && maxMB > 0 ? maxMB : DEFAULT_SETTINGS.maxFileSizeMB,
    codeLens: {
      enabled: typeof lensEnabled === 'boolean' ? lensEnabled : DEFAULT_SETTINGS.codeLens.enabled,
      minSavingsPct: typeof minPct === 'number' && Number.isFinite(minPct) ? minPct : DEFAULT_SETTINGS.codeLens.minSavingsPct,
    },
    schemaBaselines: baselines,
    trace: { server: trace === 'messages' || trace === 'verbose' ? trace : 'off' },
    tokenizer: isTokenizerName(tok) ? tok : DEFAULT_SETTINGS.tokenizer,
    minTokenSavings: typeof minTok === 'number' && Number.isFinite(minTok) ? minTok : DEFAULT_SETTINGS.minTokenSavings,
  };
}

export class SettingsStore {
  private readonly cache = new Map<string, Promise<ToonLensSettings>>();
  private pushed: ToonLensSettings;
  private readonly listeners: (() => void)[] = [];

  constructor(
    private readonly connection: Connection,
    /** Whether the client answers `workspace/configuration`. */
    private readonly canPull: boolean,
    initial: unknown,
    private readonly log: (message: string) => void,
  ) {
    this.pushed = normalizeSettings(initial);
  }

  /** The settings for a document (its resource scope); cached until {@link changed}. Never rejects. */
  forDocument(uri: string): Promise<ToonLensSettings> {
    if (!this.canPull) return Promise.resolve(this.pushed);
    let p = this.cache.get(uri);
    if (!p) {
      p = this.pull(uri);
      this.cache.set(uri, p);
    }
    return p;
  }

  /** Forget a closed document's scope. */
  forget(uri: string): void {
    this.cache.delete(uri);
  }

  /** `workspace/didChangeConfiguration`: drop the cache (pull clients) or take the pushed values. */
  changed(pushedSettings: unknown): void {
    this.cache.clear();
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
        return this.pushed;
      }
      return normalizeSettings(answer);
    } catch (err) {
      this.log(`workspace/configuration failed for ${uri}: ${errorText(err)}; using defaults`);
      this.cache.delete(uri);
      return this.pushed;
    } finally {
      clearTimeout(timer);
    }
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.stack ?? err.message;
  return String(err);
}

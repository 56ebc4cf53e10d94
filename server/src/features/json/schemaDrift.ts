/**
 * Schema files under git (or with a baseline in `toonlens.schemaBaselines`) get `schema-drift/breaking`
 * and `schema-drift/additive` diagnostics against that baseline, so a contract change is seen while it is
 * being made. Configured baselines are read only from inside the workspace (real path) and only in a
 * trusted workspace: the diagnostics quote the baseline's property names. Without a configured baseline only JSON Schemas (`*.schema.json`, or a `$schema` naming a
 * meta-schema) are compared with their HEAD version, read by an asynchronous, time-limited git
 * (node/gitBaseline.ts) and only in a trusted workspace.
 */
import { isAbsolute, join, relative } from 'node:path';
import { compileGlob } from '../../core/glob';
import { readRegularText, realpathOrUndefined } from '../../node/files';
import { isInside } from '../../core/agentJson/report/paths';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { isSchemaDocument, schemaDriftDiagnostics } from '../../core/agentJson/schemaDriftCheck';
import { gitHeadText } from '../../node/gitBaseline';
import type { FeatureContext, FeatureModule } from '../../lsp/feature';
import { toLspDiagnostic } from '../../lsp/diagnostics';
import { serverWork } from '../../lsp/idle';
import { isJsonDocument, jsonAnalyzer } from './documents';
import type { ToonLensSettings } from '../../lsp/settings';

const HEAD_TTL_MS = 5000;

/**
 * The baseline a `toonlens.schemaBaselines` glob assigns to a file: its text, `undefined` when the glob
 * matches but the baseline cannot be read or is refused, `null` when no glob matches (or the workspace is
 * untrusted: a repository's own settings never choose which files are read). A baseline is read only
 * when its real path (every symlink resolved) lies inside the real workspace folder: an absolute path
 * outside it, a `..` that leaves it, or a symlink pointing out of it is refused and `refused` is told why.
 */
export function configuredBaseline(
  fsPath: string,
  root: string | undefined,
  baselines: Record<string, string>,
  opts: { trusted?: boolean; refused?: (reason: string) => void } = {},
): string | undefined | null {
  if (opts.trusted === false) return null;
  const rel = root ? relative(root, fsPath).split('\\').join('/') : undefined;
  for (const [glob, baseline] of Object.entries(baselines)) {
    if (typeof baseline !== 'string') continue;
    const hit = (rel !== undefined && compileGlob(glob)(rel)) || compileGlob(glob, { matchBase: true })(fsPath.split('\\').join('/'));
    if (!hit) continue;
    const why = (reason: string) => {
      opts.refused?.(`toonlens.schemaBaselines: the baseline ${JSON.stringify(baseline)} for ${JSON.stringify(glob)} ${reason}; not read`);
      return undefined;
    };
    if (!root) return why('has no workspace folder to stay inside');
    const rootReal = realpathOrUndefined(root);
    const file = isAbsolute(baseline) ? baseline : join(root, baseline);
    if (rootReal === undefined || !(isInside(root, file) || isInside(rootReal, file))) return why('is outside the workspace folder');
    const fileReal = realpathOrUndefined(file);
    if (fileReal === undefined) return why('does not exist');
    if (!isInside(rootReal, fileReal)) return why('resolves outside the workspace folder through a symlink');
    const read = readRegularText(fileReal); // a regular file within the limit only (never a FIFO or a device)
    return read.ok ? read.text : why(read.reason);
  }
  return null;
}

interface HeadCache {
  texts: Map<string, { at: number; text: string | undefined }>;
  pending: Set<string>;
}

/**
 * The file's git HEAD text as last read (cached briefly: a keystroke pause should not spawn git every time).
 * git runs asynchronously: a missing or expired entry starts one read and answers what is cached now; when
 * the read brings a different text, the document's diagnostics are refreshed. Never in an untrusted
 * workspace (git would read that folder's own config and hooks settings).
 */
function cachedHead(ctx: FeatureContext, uri: string, fsPath: string, cache: HeadCache): string | undefined {
  if (!ctx.isTrusted()) return undefined;
  const hit = cache.texts.get(fsPath);
  if ((!hit || Date.now() - hit.at >= HEAD_TTL_MS) && !cache.pending.has(fsPath)) {
    cache.pending.add(fsPath);
    void serverWork.track(
      gitHeadText(fsPath).then((text) => {
        cache.pending.delete(fsPath);
        const before = cache.texts.get(fsPath);
        cache.texts.set(fsPath, { at: Date.now(), text });
        if (!before || before.text !== text) ctx.refreshDiagnostics(uri);
      }),
    );
  }
  return hit?.text;
}

const refusedLogged = new Set<string>();

/** Logs a refused baseline once per message (diagnostics run on every keystroke pause). */
function refusedOnce(ctx: FeatureContext, message: string): void {
  if (refusedLogged.has(message)) return;
  if (refusedLogged.size > 1000) refusedLogged.clear();
  refusedLogged.add(message);
  ctx.log.warn(message);
}

function driftFor(ctx: FeatureContext, doc: TextDocument, settings: ToonLensSettings, headCache: HeadCache, agentKind: () => boolean) {
  const fsPath = ctx.fsPathOf(doc.uri);
  if (!fsPath) return [];
  const text = doc.getText();
  if (text.length > settings.maxFileSizeMB * 1024 * 1024) return [];
  // A configured baseline names its files; without one, only JSON Schemas are compared with their HEAD.
  const configured = configuredBaseline(fsPath, ctx.workspaceRootOf(doc.uri), settings.schemaBaselines ?? {}, { trusted: ctx.isTrusted(), refused: (m) => refusedOnce(ctx, m) });
  // And a `$schema` naming a meta-schema needs "json-schema.org" in the text: every other JSON document
  // (a large agent plan) is not parsed (nor copied) a second time. A document the agent-JSON check of this
  // version already recognized (a verdict, a report, …) is not a JSON Schema: its text is not even searched
  // (a search of a large plan is not free).
  if (configured === null && !/\.schema\.json$/i.test(fsPath) && (agentKind() || !text.includes('json-schema.org'))) return [];
  let value: unknown;
  try {
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    return [];
  }
  const baseline = configured !== null ? configured : isSchemaDocument(fsPath, value) ? cachedHead(ctx, doc.uri, fsPath, headCache) : undefined;
  if (baseline === undefined) return [];
  return schemaDriftDiagnostics(text, baseline, fsPath).map((d) => toLspDiagnostic(doc, d));
}

export const schemaDriftFeature: FeatureModule = {
  name: 'schema-drift',
  create(ctx) {
    const headCache: HeadCache = { texts: new Map(), pending: new Set() };
    const analyzer = jsonAnalyzer(ctx);
    return {
      diagnostics: {
        appliesTo: (doc) => isJsonDocument(doc) && doc.uri.startsWith('file:'),
        provide: (doc, settings) => driftFor(ctx, doc, settings, headCache, () => analyzer.currentKind(doc, settings) !== undefined),
      },
    };
  },
};

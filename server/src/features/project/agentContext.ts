/**
 * Agent context in the editor (docs/agent-context.md): the context diagnostics on every markdown file of a
 * workspace folder (duplicates with the other copy as related information and a quick fix removing this copy
 * only; over budget; unreachable; import cycles), a lens on the first line of every agent file (which agents
 * load it and how, its real tokens, the file it shares the most instructions with), and the
 * `toonlens.agentContext` command answering the model as schemas/context.v1.json for views and scripts.
 *
 * One model per workspace folder: the folder is walked once; afterwards an edit or a watched-file change
 * replaces that file's text only and the model is recomputed from the texts held, with token counts reused
 * for every file whose text did not change. Open documents win over the disk.
 */
import { formatInt } from '../../core/format';
import * as nodePath from 'node:path';
import { pathToFileURL } from 'node:url';
import { CodeActionKind, DiagnosticSeverity, FileChangeType, type CodeAction, type CodeLens, type Diagnostic, type DiagnosticRelatedInformation } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { FeatureContext, FeatureModule } from '../../lsp/feature';
import { serverWork } from '../../lsp/idle';
import { contentModified, runSliced } from '../../lsp/timeSlice';
import { trustedEdits } from '../../lsp/codeActions';
import { contextModel, type ContextCache, type ContextModel } from '../../core/context/model';
import { contextDiagnostics, type ContextDiagnostic, type InstructionCache } from '../../core/context/diagnostics';
import { AGENT_NAMES, isContextCandidate, type AgentId, type AgentOptions, type LoadClass } from '../../core/context/agents';
import { LineIndex } from '../../core/lineIndex';
import { isMarkdownPath } from '../../core/files';
import { markdownPlans } from '../markdown/plans';
import { ChunkCounter, tokenizer, DEFAULT_TOKENIZER, isTokenizerName } from '../../core/tokens';
import { EMPTY_CONFIG, isIgnored, type ToonLensConfig } from '../../core/config';
import { ConfigLoader } from '../../node/config';
import { readRepositoryContext, type RepositoryContext } from '../../node/contextFiles';
import { readRegularText } from '../../node/files';
import { contextJson } from '../../core/context/json';
import { AGENT_CONTEXT_COMMAND, AGENT_STATUS_COMMAND, type AgentStatusAnswer } from '../../protocol/commands';

export { AGENT_CONTEXT_COMMAND, AGENT_STATUS_COMMAND };

const SEVERITY = { error: DiagnosticSeverity.Error, warning: DiagnosticSeverity.Warning, info: DiagnosticSeverity.Information, hint: DiagnosticSeverity.Hint } as const;
const fmt = formatInt;

interface Computed {
  model: ContextModel;
  byPath: Map<string, ContextDiagnostic[]>;
}

/** Above this many characters a document's first context lens does not wait for the model to be computed. */
export const FIRST_LENS_WAIT_MAX_CHARS = 256 * 1024;

/** One workspace folder's agent files and the model computed from them. */
class FolderContext {
  private repo: Promise<RepositoryContext> | undefined;
  /** Parsed files (with their token counts) and their instructions by path: an edit redoes the edited file only. */
  private readonly views: ContextCache = new Map();
  /**
   * One counter per tokenizer (the views keep the counts of the counter that made them); it remembers the counts
   * of a file's pieces, so an edit of a large agent file recounts only the pieces the edit touched.
   */
  private counter: { name: string; chunks: ChunkCounter; count: (text: string) => number } | undefined;
  /** The open texts whose count their markdown plan gave, while a model is built (see compute). */
  private planned: { text: string; tokens: number }[] = [];
  private readonly units: InstructionCache = new Map();
  private computed: { key: string; value: Computed } | undefined;
  private config: ToonLensConfig | undefined;
  /** The repository's agent options, once read (file names from its settings). */
  private options: AgentOptions = {};
  /** Bumped on every change of a held text; part of the memo key. */
  private generation = 0;

  constructor(
    readonly root: string,
    private readonly ctx: FeatureContext,
    private readonly configs: ConfigLoader,
  ) {}

  private loadRepo(): Promise<RepositoryContext> {
    this.config ??= this.configs.forDir(this.root, this.root).config;
    const ignore = this.config.ignore;
    this.repo ??= readRepositoryContext(this.root, ignore.length ? { ignored: (rel) => isIgnored(ignore, rel.replace(/\/$/, '')) } : {});
    return this.repo;
  }

  /** A file changed on disk: re-read it alone. */
  async changed(rel: string, type: FileChangeType): Promise<void> {
    if (!this.repo) return;
    const repo = await this.repo;
    const i = repo.files.findIndex((f) => f.path === rel);
    if (type === FileChangeType.Deleted) {
      if (i >= 0) repo.files.splice(i, 1);
      const p = repo.allPaths.indexOf(rel);
      if (p >= 0) repo.allPaths.splice(p, 1);
    } else {
      if (type === FileChangeType.Created && !repo.allPaths.includes(rel)) repo.allPaths.push(rel);
      if (isContextCandidate(rel, repo.options) || i >= 0) {
        const r = readRegularText(nodePath.join(this.root, rel));
        if (r.ok) {
          if (i >= 0) repo.files[i] = { path: rel, text: r.text };
          else repo.files.push({ path: rel, text: r.text });
        } else if (i >= 0) repo.files.splice(i, 1);
      }
    }
    this.generation++;
  }

  configChanged(): void {
    this.config = undefined;
    this.repo = undefined;
    this.generation++;
  }

  /** The open documents of this folder by path, and the memo key of the model they and the disk make. */
  private openTexts(): { open: Map<string, string>; docs: Map<string, TextDocument>; key: string } {
    const open = new Map<string, string>();
    const docs = new Map<string, TextDocument>();
    const versions: string[] = [];
    for (const doc of this.ctx.documents.all()) {
      const fs = this.ctx.fsPathOf(doc.uri);
      if (!fs) continue;
      const rel = nodePath.relative(this.root, fs);
      if (!rel || rel.startsWith('..') || nodePath.isAbsolute(rel)) continue;
      const p = rel.split(nodePath.sep).join('/');
      open.set(p, doc.getText());
      docs.set(p, doc);
      versions.push(`${p}@${doc.version}`);
    }
    return { open, docs, key: `${this.generation}|${versions.sort().join(',')}` };
  }

  /**
   * The model last computed, whether or not a text changed since (undefined before the first). What a code lens
   * shows while typing: the debounced diagnostics pass computes the new one, and the lenses are refreshed then.
   */
  lastComputed(): Computed | undefined {
    return this.computed?.value;
  }

  /**
   * Whether an agent may load the file at `rel`: a name or folder an agent's conventions read, or a file the last
   * model holds (an import). Any other file's lens needs no model.
   */
  mayLoad(rel: string): boolean {
    if (isContextCandidate(rel, this.options)) return true;
    const m = this.computed?.value.model;
    return m !== undefined && (m.agents.some((a) => a.entries.some((e) => e.path === rel)) || m.unreachable.some((u) => u.path === rel));
  }

  /**
   * The model with the open documents' texts over the disk's. `stop` is asked between turns of the counting (a
   * diagnostics pass for a version already replaced gives up there: the next version's pass computes). With
   * `waitForPlans` (the diagnostics pass, which no request waits for) an open file's markdown plan under way is
   * awaited for its count; a request counts the file itself rather than wait for a large document's plan.
   */
  async compute(stop: () => Error | undefined = () => undefined, waitForPlans = false): Promise<Computed> {
    const repo = await this.loadRepo();
    this.options = repo.options;
    const { open, docs, key } = this.openTexts();
    if (this.computed?.key === key) return this.computed.value;
    const files = repo.files.map((f) => ({ path: f.path, text: open.get(f.path) ?? f.text }));
    for (const [p, text] of open) if (!repo.files.some((f) => f.path === p) && isContextCandidate(p, repo.options)) files.push({ path: p, text });
    const config = this.config ?? EMPTY_CONFIG;
    const name = isTokenizerName(config.tokenizer) ? config.tokenizer : DEFAULT_TOKENIZER;
    if (this.counter?.name !== name) {
      const chunks = new ChunkCounter(tokenizer(name));
      // One function per counter: the parsed files keep the counts of the function that made them.
      this.counter = { name, chunks, count: (text) => this.planned.find((k) => k.text === text)?.tokens ?? chunks.count(text) };
    }
    // An open markdown file's plan has counted its slices for the lenses: where they stand for the whole text,
    // their sum is the file's count. The other open texts' pieces are counted first, in turns (a large agent file
    // is never one long count); the model's counts below then find them in the counter's memo.
    const { chunks, count } = this.counter;
    const plans = markdownPlans(this.ctx);
    const planned: { text: string; tokens: number }[] = [];
    for (const f of files) {
      const doc = docs.get(f.path);
      if (!doc) continue;
      const tokens = await plans.textTokens(doc, name, waitForPlans);
      if (tokens !== undefined && doc.getText() === f.text) planned.push({ text: f.text, tokens });
      else await runSliced(chunks.warmSteps(f.text), stop);
    }
    this.planned = planned;
    const model = contextModel({
      files,
      allPaths: repo.allPaths,
      read: (p) => open.get(p) ?? repo.read(p),
      count,
      options: repo.options,
      cache: this.views,
    });
    const byPath = new Map<string, ContextDiagnostic[]>();
    for (const d of contextDiagnostics(model, config.contextBudget ?? {}, this.units)) {
      const l = byPath.get(d.path);
      if (l) l.push(d);
      else byPath.set(d.path, [d]);
    }
    // Only while this model is built: a closed document's text is not kept for a later count.
    this.planned = [];
    const value = { model, byPath };
    this.computed = { key, value };
    return value;
  }
}

function relPath(root: string, fsPath: string): string | undefined {
  const rel = nodePath.relative(root, fsPath);
  if (!rel || rel.startsWith('..') || nodePath.isAbsolute(rel)) return undefined;
  return rel.split(nodePath.sep).join('/');
}

/** The lens title of one file: who loads it and how, its tokens, the file it shares the most instructions with. */
export function lensTitle(model: ContextModel, path: string, diagnostics: readonly ContextDiagnostic[]): string | undefined {
  const byClass = new Map<string, AgentId[]>();
  let tokens = 0;
  for (const a of model.agents) {
    const e = a.entries.find((x) => x.path === path);
    if (!e) continue;
    tokens = Math.max(tokens, e.tokens);
    const label = e.class === 'matching' ? `when ${(e.globs ?? []).join(', ')}` : ({ always: 'always', 'on-use': 'on use' } as Record<LoadClass, string>)[e.class];
    const l = byClass.get(label);
    if (l) l.push(a.agent);
    else byClass.set(label, [a.agent]);
  }
  if (byClass.size === 0) return diagnostics.some((d) => d.code === 'context/unreachable' && d.start === 0) ? 'loaded by no agent' : undefined;
  const who = [...byClass].map(([label, agents]) => `${agents.map((x) => AGENT_NAMES[x]).join(', ')} (${label})`).join('; ');
  const shared = new Map<string, number>();
  for (const d of diagnostics) if (d.code === 'context/duplicate-instruction') for (const r of d.related ?? []) shared.set(r.path, (shared.get(r.path) ?? 0) + 1);
  const top = [...shared].sort((a, b) => b[1] - a[1])[0];
  return `loaded by ${who} · ${fmt(tokens)} tokens${top ? ` · also in ${top[0]}: ${top[1]} line${top[1] === 1 ? '' : 's'}` : ''}`;
}

const CLASS_WORDS: Record<LoadClass, string> = { always: 'always', matching: 'when matching', 'on-use': 'on use' };

/**
 * The status-bar entry of a file: the agents that load it (two names, then a count) and its real tokens; the
 * tooltip has one line per agent, agent → class. Undefined when no agent loads the file (the entry is hidden).
 */
export function agentStatus(model: ContextModel, path: string): AgentStatusAnswer | undefined {
  const lines: string[] = [];
  const names: string[] = [];
  let tokens = 0;
  for (const a of model.agents) {
    const e = a.entries.find((x) => x.path === path);
    if (!e) continue;
    tokens = Math.max(tokens, e.tokens);
    names.push(AGENT_NAMES[a.agent]);
    const how = e.class === 'matching' ? `when ${(e.globs ?? []).join(', ')}` : CLASS_WORDS[e.class];
    const paid = e.class === 'always' ? `${fmt(e.tokens)} tokens on every request` : e.class === 'on-use' ? `${fmt(e.alwaysTokens)} tokens on every request, ${fmt(e.tokens)} when used` : `${fmt(e.tokens)} tokens`;
    lines.push(`${AGENT_NAMES[a.agent]} → ${how} (${paid})`);
  }
  if (!names.length) return undefined;
  const who = names.length <= 2 ? names.join(', ') : `${names.slice(0, 2).join(', ')} +${names.length - 2}`;
  return { text: `$(hubot) ${who} · ${fmt(tokens)} tok`, tooltip: [`Agents loading ${path}:`, ...lines, '', 'Click to show the Agent Context view.'].join('\n') };
}

/** One line per agent that loads the file: its class, the rule (docs/agent-context.md) and what each request pays for it. */
function lensTooltip(model: ContextModel, path: string): string {
  const lines: string[] = [];
  for (const a of model.agents) {
    const e = a.entries.find((x) => x.path === path);
    if (!e) continue;
    const paid = e.class === 'always' ? `${fmt(e.tokens)} tokens on every request` : e.class === 'on-use' ? `${fmt(e.alwaysTokens)} tokens on every request (its description), ${fmt(e.tokens)} when used` : `${fmt(e.tokens)} tokens when working on ${(e.globs ?? []).join(', ')}`;
    lines.push(`${AGENT_NAMES[a.agent]}: ${paid} (rule ${e.rule}${e.via ? `, imported by ${e.via}` : ''})`);
  }
  if (!lines.length) lines.push('No agent loads this file (see its context/unreachable diagnostic).');
  lines.push('', 'docs/agent-context.md: what each agent loads, and why.');
  return lines.join('\n');
}

export const agentContextFeature: FeatureModule = {
  name: 'agent-context',
  create(ctx) {
    const configs = new ConfigLoader();
    const folders = new Map<string, FolderContext>();
    const folderOf = (uri: string): { folder: FolderContext; rel: string } | undefined => {
      const fs = ctx.fsPathOf(uri);
      const root = ctx.workspaceRootOf(uri);
      if (!fs || !root) return undefined;
      const rel = relPath(root, fs);
      if (!rel) return undefined;
      let folder = folders.get(root);
      if (!folder) folders.set(root, (folder = new FolderContext(root, ctx, configs)));
      return { folder, rel };
    };
    const lineIndexes = new WeakMap<ContextModel, Map<string, LineIndex>>();
    const rangeIn = (model: ContextModel, path: string, start: number, end: number) => {
      let m = lineIndexes.get(model);
      if (!m) lineIndexes.set(model, (m = new Map()));
      let idx = m.get(path);
      if (!idx) m.set(path, (idx = new LineIndex(model.texts.get(path) ?? '')));
      return { start: idx.positionAt(start), end: idx.positionAt(end) };
    };
    const lastKey = new Map<string, string>();
    /** The lens title each open document was last answered with; a recomputed model that changes one refreshes the lenses. */
    const shownTitles = new Map<string, string | undefined>();
    const refreshStaleLenses = (at: FolderContext, computed: Computed) => {
      let stale = false;
      for (const [uri, title] of shownTitles) {
        if (!ctx.documents.get(uri)) {
          shownTitles.delete(uri);
          continue;
        }
        const o = folderOf(uri);
        if (!o || o.folder !== at) continue;
        const now = lensTitle(computed.model, o.rel, computed.byPath.get(o.rel) ?? []);
        if (now !== title) {
          stale = true;
          shownTitles.set(uri, now);
        }
      }
      if (stale) ctx.refreshCodeLenses();
    };

    const toLsp = (doc: TextDocument, root: string, model: ContextModel, d: ContextDiagnostic): Diagnostic => {
      const related: DiagnosticRelatedInformation[] | undefined = d.related?.map((r) => ({ location: { uri: pathToFileURL(nodePath.join(root, r.path)).toString(), range: rangeIn(model, r.path, r.start, r.end) }, message: r.message }));
      return {
        range: { start: doc.positionAt(d.start), end: doc.positionAt(d.end) },
        severity: SEVERITY[d.severity],
        code: d.code,
        source: 'toonlens',
        message: d.message,
        ...(related?.length ? { relatedInformation: related } : {}),
        data: { version: doc.version, fixes: d.fix ? 1 : 0 },
      };
    };

    return {
      diagnostics: {
        appliesTo: (doc) => isMarkdownPath(doc.uri) && folderOf(doc.uri) !== undefined,
        async provide(doc) {
          const at = folderOf(doc.uri);
          if (!at) return [];
          const superseded = () => {
            const open = ctx.documents.get(doc.uri);
            return open && open.version !== doc.version ? contentModified() : undefined;
          };
          const computed = await serverWork.track(at.folder.compute(superseded, true));
          const { model, byPath } = computed;
          refreshStaleLenses(at.folder, computed);
          const mine = byPath.get(at.rel) ?? [];
          // Another file's duplicates change with this one: refresh the open files whose diagnostics differ now.
          const key = JSON.stringify(mine.map((d) => [d.code, d.start, d.message]));
          lastKey.set(doc.uri, key);
          for (const other of ctx.documents.all()) {
            if (other.uri === doc.uri || !lastKey.has(other.uri)) continue;
            const o = folderOf(other.uri);
            if (!o || o.folder !== at.folder) continue;
            const now = JSON.stringify((byPath.get(o.rel) ?? []).map((d) => [d.code, d.start, d.message]));
            if (now !== lastKey.get(other.uri)) ctx.refreshDiagnostics(other.uri);
          }
          return mine.map((d) => toLsp(doc, at.folder.root, model, d));
        },
      },
      async codeActions(doc, params) {
        const at = folderOf(doc.uri);
        if (!at) return [];
        const wanted = params.context.diagnostics.filter((d) => d.source === 'toonlens' && d.code === 'context/duplicate-instruction');
        if (!wanted.length) return [];
        const { byPath } = await at.folder.compute();
        const out: CodeAction[] = [];
        for (const d of byPath.get(at.rel) ?? []) {
          if (!d.fix) continue;
          const start = doc.positionAt(d.start);
          const lsp = wanted.find((w) => w.range.start.line === start.line && w.range.start.character === start.character);
          if (!lsp) continue;
          const edits = d.fix.edits.map((e) => ({ range: { start: doc.positionAt(e.start), end: doc.positionAt(e.end) }, newText: e.newText }));
          out.push({ title: d.fix.title, kind: CodeActionKind.QuickFix, diagnostics: [lsp], isPreferred: false, edit: { documentChanges: [{ textDocument: { uri: doc.uri, version: doc.version }, edits }] } });
        }
        return trustedEdits(ctx, out);
      },
      async codeLenses(doc) {
        const at = folderOf(doc.uri);
        if (!at) return [];
        // Never held up by a model being recomputed: an edit's lens request gets the last model's lens (the
        // markdown lenses in the same answer wait for nothing else), and the diagnostics pass refreshes it.
        // A document's first lens (just opened) waits for a model that has its text, unless the document is large
        // or no agent may load it: then the lens comes with the diagnostics pass's model, as an edit's does.
        let computed: Computed | undefined;
        if (shownTitles.has(doc.uri)) computed = at.folder.lastComputed();
        else if (doc.getText().length <= FIRST_LENS_WAIT_MAX_CHARS && at.folder.mayLoad(at.rel)) computed = await at.folder.compute();
        if (!computed) {
          shownTitles.set(doc.uri, undefined);
          return [];
        }
        const { model, byPath } = computed;
        const title = lensTitle(model, at.rel, byPath.get(at.rel) ?? []);
        shownTitles.set(doc.uri, title);
        if (!title) return [];
        const lens: CodeLens = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, command: { title, tooltip: lensTooltip(model, at.rel), command: AGENT_CONTEXT_COMMAND, arguments: [{ uri: doc.uri }] } };
        return [lens];
      },
      commands: {
        async [AGENT_STATUS_COMMAND](args) {
          const arg = args[0] as { uri?: unknown } | undefined;
          const at = typeof arg?.uri === 'string' ? folderOf(arg.uri) : undefined;
          if (!at) return null;
          const { model } = await serverWork.track(at.folder.compute());
          return agentStatus(model, at.rel) ?? null;
        },
        async [AGENT_CONTEXT_COMMAND](args) {
          const arg = args[0] as { uri?: string; for?: string } | undefined;
          const uri = arg?.uri ?? ctx.documents.all()[0]?.uri;
          const root = (uri && ctx.workspaceRootOf(uri)) ?? ctx.workspaceRoots()[0];
          if (!root) return { error: 'no workspace folder' };
          let folder = folders.get(root);
          if (!folder) folders.set(root, (folder = new FolderContext(root, ctx, configs)));
          const { model, byPath } = await serverWork.track(folder.compute());
          return { ...(contextJson(model, [...byPath.values()].flat(), tokenizer(DEFAULT_TOKENIZER).estimator) as object), root };
        },
      },
      onDidChangeWatchedFiles(changes) {
        let touched = false;
        const work: Promise<void>[] = [];
        for (const c of changes) {
          const fs = ctx.fsPathOf(c.uri);
          if (!fs) continue;
          if (nodePath.basename(fs) === '.toonlens.json') {
            configs.clear();
            for (const f of folders.values()) f.configChanged();
            touched = true;
            continue;
          }
          for (const f of folders.values()) {
            const rel = relPath(f.root, fs);
            if (!rel) continue;
            work.push(f.changed(rel, c.type));
            touched = true;
          }
        }
        if (!touched) return;
        void serverWork.track(Promise.all(work)).then(() => {
          ctx.refreshDiagnostics(undefined, (doc) => lastKey.has(doc.uri));
          ctx.refreshCodeLenses();
        });
      },
    };
  },
};

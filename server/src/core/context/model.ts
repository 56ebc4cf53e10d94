/**
 * The context model of a repository: per agent, every file it loads with its class, real token count and
 * whether it is loaded for the working path; the import graph (missing targets, cycles, imports past the
 * depth limit); the files no agent loads. One entry point, {@link contextModel}, shared by the CLI, the
 * language server and the MCP server. Pure: files come in as `{path, text}` (repository-relative, `/`), and
 * imported files that are not agent files through `read`.
 *
 * Linear in the input: each file is parsed, scanned for imports and counted once, whatever the number of
 * agents loading it; glob triggers are compiled once and tested against the path list until a first match.
 */
import { compileGlob } from '../glob';
import { agentSpecs, AGENT_IDS, CODEX_MAX_BYTES, dirOf, descriptionText, importRule, MAX_IMPORT_DEPTH, type AgentId, type AgentOptions, type FileView, type LoadClass, type LoadRule, type LoadSpec, type Skipped } from './agents';
import { parseFrontmatter, type Frontmatter } from './frontmatter';
import { findImports, resolveImport, type ImportRef } from './imports';

export interface ContextFile {
  path: string;
  text: string;
}

export interface ContextInput {
  /** The agent files of the repository (what {@link isContextCandidate} accepts), repository-relative. */
  files: readonly ContextFile[];
  /** Every file path of the repository (glob triggers are checked against it); defaults to the files' paths. */
  allPaths?: readonly string[];
  /** The text of an imported file that is not among `files`; undefined when it does not exist. */
  read?(path: string): string | undefined;
  /** Token count of a text. */
  count(text: string): number;
  /** The working path (`--for`): a file or folder, repository-relative. Default: the root. */
  for?: string;
  agents?: readonly AgentId[];
  options?: AgentOptions;
  /** Parsed files kept across calls (the editor's): a file whose text is unchanged is not parsed again. */
  cache?: ContextCache;
}

/** What {@link contextModel} keeps of each file between calls, by path. */
export type ContextCache = Map<string, FileView>;

export interface ContextEntry {
  path: string;
  class: LoadClass;
  rule: LoadRule;
  /** Real tokens of the file (of the part loaded, when a byte limit cuts it). */
  tokens: number;
  /** Tokens paid on every request at the root: the whole file when `always`, the description of an on-use file. */
  alwaysTokens: number;
  /** For `matching`: the globs that trigger it. */
  globs?: string[];
  /** Loaded for the working path (always, or matching it). */
  loaded: boolean;
  /** The file that imports it (for imported files), and the import depth. */
  via?: string;
  depth?: number;
  /** Bytes cut by a byte limit (Codex `project_doc_max_bytes`). */
  truncatedBytes?: number;
  /** A `matching` entry whose globs match no file of the repository. */
  matchesNothing?: boolean;
}

export interface AgentContext {
  agent: AgentId;
  entries: ContextEntry[];
  /** Paid on every request at the root: always-loaded files and on-use descriptions. */
  alwaysTokens: number;
  /** Paid on every request for the working path: {@link alwaysTokens} plus the matching files it triggers. */
  paidTokens: number;
  /** Files this agent's conventions name that it does not load, and why (another agent may load them). */
  skipped: { path: string; reason: string }[];
}

export interface ImportEdge {
  from: string;
  /** The target, repository-relative; undefined when it points outside the repository (`~/…`, absolute). */
  to?: string;
  spec: string;
  start: number;
  end: number;
  /** The target exists (or is outside the repository, which is not checked). */
  found: boolean;
  /** Past the import depth limit: not loaded. */
  tooDeep?: boolean;
}

export interface ContextModel {
  for: string;
  agents: AgentContext[];
  imports: ImportEdge[];
  /** Import cycles, each as the paths around it (first path repeated at the end). */
  cycles: string[][];
  /** Files some agent's conventions name that no agent loads, with the reasons. */
  unreachable: { path: string; reasons: string[] }[];
  /** The texts the model read, by path (for the diagnostics). */
  texts: ReadonlyMap<string, string>;
}

class Files {
  readonly views = new Map<string, FileView>();
  private readonly tokens = new Map<string, number>();

  constructor(
    files: readonly ContextFile[],
    private readonly input: ContextInput,
  ) {
    for (const f of files) this.views.set(f.path, this.cached(f.path, f.text));
  }

  private cached(path: string, text: string): FileView {
    const c = this.input.cache;
    const hit = c?.get(path);
    if (hit && hit.text === text) return hit;
    const v = view(path, text);
    c?.set(path, v);
    return v;
  }

  get(path: string): FileView | undefined {
    let v = this.views.get(path);
    if (v || !this.input.read) return v;
    const text = this.input.read(path);
    if (text === undefined) return undefined;
    v = this.cached(path, text);
    this.views.set(path, v);
    return v;
  }

  count(path: string, text: string): number {
    const v = this.views.get(path);
    if (v && v.text === text) return this.memo(v).text;
    let n = this.tokens.get(path);
    if (n === undefined) this.tokens.set(path, (n = this.input.count(text)));
    return n;
  }

  /** Tokens of an on-use file's description (what each request pays for it). */
  countDescription(v: FileView): number {
    const m = this.memo(v);
    return (m.description ??= this.input.count(descriptionText(v.frontmatter())));
  }

  /** A view's token counts, reset when another counter asks (a different tokenizer). */
  private memo(v: FileView): NonNullable<FileView['tokens']> {
    if (v.tokens?.by !== this.input.count) v.tokens = { by: this.input.count, text: this.input.count(v.text) };
    return v.tokens;
  }

  importsOf(v: FileView): ImportRef[] {
    return v.imports();
  }
}

function view(path: string, text: string): FileView {
  let fm: Frontmatter | undefined;
  let refs: ImportRef[] | undefined;
  const frontmatter = () => (fm ??= parseFrontmatter(text));
  return { path, text, frontmatter, imports: () => (refs ??= findImports(text, frontmatter().bodyStart)) };
}

/** Whether the working path is at or below a glob's scope. */
function matcher(): (globs: readonly string[], path: string) => boolean {
  const compiled = new Map<string, (p: string) => boolean>();
  return (globs, path) =>
    globs.some((g) => {
      let m = compiled.get(g);
      if (!m) compiled.set(g, (m = compileGlob(g)));
      return m(path);
    });
}

function normalizeFor(p: string | undefined): string {
  if (!p) return '';
  let s = p.replace(/\\/g, '/').replace(/^\.\/+/, '').replace(/\/+$/, '');
  if (s === '.') s = '';
  return s;
}

/** The context model of a repository for the agents asked (default: all). */
export function contextModel(input: ContextInput): ContextModel {
  const files = new Files(input.files, input);
  const forPath = normalizeFor(input.for);
  const opts = input.options ?? {};
  const all = [...files.views.values()];
  const allPaths = input.allPaths ?? input.files.map((f) => f.path);
  const matches = matcher();
  const skipped: Skipped[] = [];
  const edges = new Map<string, ImportEdge[]>();
  const agents: AgentContext[] = [];
  const loadedSomewhere = new Set<string>();
  const reachMemo = new Map<string, boolean>();
  let sorted: string[] | undefined;
  /** Whether a glob matches some path: only the paths under the glob's literal prefix are tested (binary search). */
  const reaches = (globs: readonly string[]): boolean => {
    const key = globs.join('\0');
    let r = reachMemo.get(key);
    if (r === undefined) {
      sorted ??= [...allPaths].sort();
      r = globs.some((g) => {
        const m = /[*?[{\\!]/.exec(g);
        const prefix = m ? g.slice(0, m.index) : g;
        let lo = 0;
        let hi = sorted!.length;
        while (lo < hi) {
          const mid = (lo + hi) >> 1;
          if (sorted![mid]! < prefix) lo = mid + 1;
          else hi = mid;
        }
        for (let i = lo; i < sorted!.length && sorted![i]!.startsWith(prefix); i++) if (matches([g], sorted![i]!)) return true;
        return false;
      });
      reachMemo.set(key, r);
    }
    return r;
  };

  const edgesOf = (v: FileView): ImportEdge[] => {
    let e = edges.get(v.path);
    if (!e) {
      e = files.importsOf(v).map((ref) => {
        const to = resolveImport(v.path, ref.spec);
        return { from: v.path, ...(to !== undefined ? { to } : {}), spec: ref.spec, start: ref.start, end: ref.end, found: to === undefined || files.get(to) !== undefined };
      });
      edges.set(v.path, e);
    }
    return e;
  };

  const asked = new Set<AgentId>(input.agents ?? AGENT_IDS);
  const matchNothing: { path: string; globs: string[]; agent: AgentId }[] = [];
  // Every agent is modelled (a file only an agent not asked for loads is still reachable); only those asked are counted and returned.
  for (const agent of AGENT_IDS) {
    const counted = asked.has(agent);
    const specs = agentSpecs(agent, all, skipped, opts);
    const entries: ContextEntry[] = [];
    const seen = new Map<string, ContextEntry>();
    const add = (spec: LoadSpec, via?: string, depth?: number): ContextEntry | undefined => {
      const v = files.get(spec.path);
      if (!v) return undefined;
      const prior = seen.get(spec.path);
      // A file loaded twice (its own rule and an import) counts once, under its cheapest-to-reach class.
      if (prior && rank(prior.class) <= rank(spec.class)) return undefined;
      const tokens = counted ? files.count(v.path, v.text) : 0;
      const loaded = spec.class === 'always' || (spec.class === 'matching' && forPath !== '' && matches(spec.globs ?? [], forPath));
      const alwaysTokens = spec.class === 'always' ? tokens : counted && spec.class === 'on-use' && spec.paid === 'description' ? files.countDescription(v) : 0;
      const e: ContextEntry = { path: v.path, class: spec.class, rule: spec.rule, tokens, alwaysTokens, loaded };
      if (spec.globs) e.globs = spec.globs;
      if (via !== undefined) {
        e.via = via;
        e.depth = depth!;
      }
      if (spec.class === 'matching' && !spec.folderScope && !reaches(spec.globs ?? [])) e.matchesNothing = true;
      if (prior) entries.splice(entries.indexOf(prior), 1, e);
      else entries.push(e);
      seen.set(spec.path, e);
      return e;
    };
    for (const spec of specs) {
      const e = add(spec);
      const rule = importRule(agent, spec);
      if (!e || !rule) continue;
      // Follow imports breadth-first up to the depth limit; what is imported shares its importer's class.
      let frontier: string[] = [spec.path];
      const visited = new Set<string>([spec.path]);
      for (let depth = 1; frontier.length; depth++) {
        const next: string[] = [];
        for (const from of frontier) {
          const v = files.get(from);
          if (!v) continue;
          for (const edge of edgesOf(v)) {
            if (!edge.found || edge.to === undefined || visited.has(edge.to)) continue;
            if (depth > MAX_IMPORT_DEPTH) {
              edge.tooDeep = true;
              continue;
            }
            visited.add(edge.to);
            const imported: LoadSpec = { path: edge.to, class: spec.class, rule, paid: spec.class === 'always' ? 'body' : 'none', ...(spec.globs ? { globs: spec.globs, folderScope: spec.folderScope ?? false } : {}) };
            add(imported, from, depth);
            next.push(edge.to);
          }
        }
        frontier = next;
      }
    }
    if (agent === 'codex' && counted) applyByteLimit(entries, forPath, opts.codexMaxBytes ?? CODEX_MAX_BYTES, files);
    entries.sort((a, b) => rank(a.class) - rank(b.class) || b.tokens - a.tokens || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    let alwaysTokens = 0;
    let paidTokens = 0;
    for (const e of entries) {
      alwaysTokens += e.alwaysTokens;
      paidTokens += e.class === 'matching' && e.loaded ? e.tokens : e.alwaysTokens;
      if (!e.matchesNothing) loadedSomewhere.add(e.path);
      else matchNothing.push({ path: e.path, globs: e.globs ?? [], agent });
    }
    if (counted) agents.push({ agent, entries, alwaysTokens, paidTokens, skipped: skipped.filter((x) => x.agent === agent).map((x) => ({ path: x.path, reason: x.reason })) });
  }

  const unreachable = new Map<string, string[]>();
  const note = (path: string, reason: string) => {
    if (loadedSomewhere.has(path)) return;
    const r = unreachable.get(path);
    if (r) {
      if (!r.includes(reason)) r.push(reason);
    } else unreachable.set(path, [reason]);
  };
  // A misplaced file inside a nested project root is that project's own configuration (docs/agent-context.md,
  // "Nested project roots"): judged from there, not from this root.
  const ownRoot = nestedRootFinder(allPaths);
  for (const s of skipped) if (!(s.misplaced && ownRoot(s.path))) note(s.path, `${s.reason} (${s.agent})`);
  for (const e of matchNothing) note(e.path, `its globs (${e.globs.join(', ')}) match no file of the repository (${e.agent})`);
  for (const f of input.files) if (!loadedSomewhere.has(f.path) && !unreachable.has(f.path) && !ownRoot(f.path)) note(f.path, 'no agent loads a file at this path');

  const importEdges = [...edges.values()].flat();
  const texts = new Map<string, string>();
  for (const [p, v] of files.views) texts.set(p, v.text);
  return {
    for: forPath,
    agents,
    imports: importEdges,
    cycles: findCycles(edges),
    unreachable: [...unreachable].map(([path, reasons]) => ({ path, reasons })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    texts,
  };
}

/**
 * Entries that make their folder a project root of its own: a repository (a `.git` file: submodule, worktree), a
 * GitHub folder (read at a repository's root only) or a VS Code workspace folder's settings. `.claude` and `.cursor`
 * are not among them: both agents read those folders nested in a project too.
 */
const ROOT_MARKERS: ReadonlySet<string> = new Set(['.git', '.github', '.vscode']);

/**
 * Whether a path lies in a nested project root: a folder below the repository root holding one of
 * {@link ROOT_MARKERS} (seen in the walked paths; a `.git` folder is never walked, a `.git` file is listed).
 */
function nestedRootFinder(allPaths: readonly string[]): (path: string) => boolean {
  let roots: Set<string> | undefined;
  return (path) => {
    if (!roots) {
      roots = new Set();
      for (const p of allPaths) {
        let at = p.indexOf('/');
        while (at > 0) {
          const next = p.indexOf('/', at + 1);
          const seg = p.slice(at + 1, next < 0 ? p.length : next);
          if (ROOT_MARKERS.has(seg)) roots.add(p.slice(0, at));
          at = next;
        }
      }
    }
    if (!roots.size) return false;
    for (let at = path.indexOf('/'); at > 0; at = path.indexOf('/', at + 1)) if (roots.has(path.slice(0, at))) return true;
    return false;
  };
}

function rank(c: LoadClass): number {
  return c === 'always' ? 0 : c === 'matching' ? 1 : 2;
}

/**
 * Codex joins the chain from the root down to the working folder and stops adding once the joined size reaches
 * its byte limit: the file that crosses it is cut, the files after it are dropped. Only the chain loaded for the
 * working path is cut; the other nested files are shown whole.
 */
function applyByteLimit(entries: ContextEntry[], forPath: string, maxBytes: number, files: Files): void {
  const chain = entries.filter((e) => e.loaded).sort((a, b) => dirOf(a.path).length - dirOf(b.path).length);
  let used = 0;
  for (const e of chain) {
    const v = files.get(e.path)!;
    const bytes = utf8Length(v.text);
    const room = Math.max(0, maxBytes - used);
    if (bytes > room) {
      e.truncatedBytes = bytes - room;
      const kept = sliceUtf8(v.text, room);
      e.tokens = kept ? files.count(`${e.path}\0${room}`, kept) : 0;
      if (e.class === 'always') e.alwaysTokens = e.tokens;
    }
    used += Math.min(bytes, room) + (used > 0 ? 2 : 0);
  }
  void forPath;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** The longest prefix of `s` of at most `bytes` UTF-8 bytes. */
function sliceUtf8(s: string, bytes: number): string {
  let n = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    const w = c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? 4 : 3;
    if (n + w > bytes) break;
    n += w;
    i += w === 4 ? 2 : 1;
  }
  return s.slice(0, i);
}

/** Cycles of the import graph (iterative DFS, each edge followed once). */
function findCycles(edges: ReadonlyMap<string, ImportEdge[]>): string[][] {
  const state = new Map<string, 1 | 2>();
  const cycles: string[][] = [];
  for (const root of edges.keys()) {
    if (state.has(root)) continue;
    const stack: { node: string; i: number }[] = [{ node: root, i: 0 }];
    const onPath: string[] = [root];
    state.set(root, 1);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const out = edges.get(top.node) ?? [];
      if (top.i >= out.length) {
        state.set(top.node, 2);
        stack.pop();
        onPath.pop();
        continue;
      }
      const edge = out[top.i++]!;
      if (!edge.found || edge.to === undefined) continue;
      const s = state.get(edge.to);
      if (s === 1) {
        const at = onPath.indexOf(edge.to);
        cycles.push([...onPath.slice(at), edge.to]);
      } else if (s === undefined) {
        state.set(edge.to, 1);
        stack.push({ node: edge.to, i: 0 });
        onPath.push(edge.to);
      }
    }
  }
  return cycles;
}

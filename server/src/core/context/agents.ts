/**
 * The loading model of each agent (docs/agent-context.md has the table, with each agent's own documentation
 * for every rule): which repository files it loads, and when — `always` (paid on every request), `matching`
 * (when the working path matches a glob; per-folder files match everything below their folder) or `on-use`
 * (skills, prompts, commands, agents, manual rules: only their description, if any, is paid every request).
 * Pure: it reads the file list and frontmatter it is given.
 */
import { parseFrontmatter, stringList, stringValue, type Frontmatter } from './frontmatter';
import type { ImportRef } from './imports';

export const AGENT_IDS = ['claude-code', 'codex', 'copilot', 'cursor', 'gemini'] as const;
export type AgentId = (typeof AGENT_IDS)[number];

export const AGENT_NAMES: Readonly<Record<AgentId, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  copilot: 'Copilot (VS Code)',
  cursor: 'Cursor',
  gemini: 'Gemini CLI',
};

export function isAgentId(x: unknown): x is AgentId {
  return typeof x === 'string' && (AGENT_IDS as readonly string[]).includes(x);
}

export type LoadClass = 'always' | 'matching' | 'on-use';

/** What of an on-use file is paid on every request: its description (name included), or nothing. */
export type AlwaysPaid = 'body' | 'description' | 'none';

/** The rules of the docs table (docs/agent-context.md), each naming why an entry is loaded. */
export const LOAD_RULES = [
  'claude/memory',
  'claude/local-memory',
  'claude/nested-memory',
  'claude/import',
  'claude/rules',
  'claude/rules-paths',
  'claude/skill',
  'claude/agent',
  'claude/command',
  'codex/agents-md',
  'codex/override',
  'codex/fallback',
  'codex/nested',
  'cursor/always',
  'cursor/globs',
  'cursor/requested',
  'cursor/manual',
  'cursor/agents-md',
  'cursor/nested-agents-md',
  'cursor/legacy',
  'copilot/instructions',
  'copilot/agents-md',
  'copilot/apply-to',
  'copilot/no-apply-to',
  'copilot/prompt',
  'copilot/agent',
  'copilot/skill',
  'gemini/root',
  'gemini/nested',
  'gemini/import',
] as const;
export type LoadRule = (typeof LOAD_RULES)[number];

/** One file an agent may load, before imports are followed and tokens counted. */
export interface LoadSpec {
  path: string;
  class: LoadClass;
  rule: LoadRule;
  paid: AlwaysPaid;
  /** For `matching`: the globs (relative to the repository root) of the paths that trigger it. */
  globs?: string[];
  /** Whether every glob is a folder scope (`D/**`), which always has a file below it. */
  folderScope?: boolean;
}

/** A file an agent's conventions name but that it does not load, and why (feeds `context/unreachable`). */
export interface Skipped {
  path: string;
  agent: AgentId;
  reason: string;
  /** In a folder the agent does not read it from (as opposed to shadowed, empty or misnamed). */
  misplaced?: boolean;
}

export interface AgentOptions {
  /** Codex `project_doc_fallback_filenames` (after AGENTS.override.md and AGENTS.md). */
  codexFallbacks?: readonly string[];
  /** Codex `project_doc_max_bytes` (default 32 KiB). */
  codexMaxBytes?: number;
  /** Gemini CLI `context.fileName` (default GEMINI.md). */
  geminiFileNames?: readonly string[];
}

export const CODEX_MAX_BYTES = 32 * 1024;
/** Import depth both Claude Code and Gemini CLI stop at. */
export const MAX_IMPORT_DEPTH = 5;

export interface FileView {
  path: string;
  text: string;
  /** Parsed on first use. */
  frontmatter(): Frontmatter;
  /** The `@path` references of the body, found on first use. */
  imports(): ImportRef[];
  /** Token counts of the text and of its description, kept with the counter that made them (a cached view is reused across calls). */
  tokens?: { by: (text: string) => number; text: number; description?: number };
}

const lower = (s: string) => s.toLowerCase();
/**
 * A file name's extension, lower case. The agents' own naming conventions (Cursor rules are `.mdc`, Claude
 * Code's rules, agents and commands `.md`) are about those folders, not about what ToonLens serves as markdown
 * (core/files.ts answers that).
 */
const extOf = (name: string): string => (name.includes('.') ? lower(name.slice(name.lastIndexOf('.') + 1)) : '');
export const dirOf = (p: string): string => (p.includes('/') ? p.slice(0, p.lastIndexOf('/')) : '');
export const baseOf = (p: string): string => p.slice(p.lastIndexOf('/') + 1);

/** The folder a `.claude` / `.cursor` / `.github` config folder at `marker` belongs to, and the rest of the path after it. */
function underFolder(path: string, marker: string): { scope: string; rest: string } | undefined {
  const lp = lower(path);
  const m = lower(marker);
  let idx: number;
  if (lp.startsWith(`${m}/`)) idx = 0;
  else {
    const k = lp.indexOf(`/${m}/`);
    if (k < 0) return undefined;
    idx = k + 1;
  }
  return { scope: idx === 0 ? '' : path.slice(0, idx - 1), rest: path.slice(idx + marker.length + 1) };
}

const scoped = (scope: string, glob: string): string => {
  const g = glob.replace(/^\.\//, '').replace(/^\//, '');
  return scope ? `${scope}/${g}` : g;
};

function perFolder(path: string, scope: string, always: LoadRule, nested: LoadRule, paid: AlwaysPaid = 'body'): LoadSpec {
  return scope === '' ? { path, class: 'always', rule: always, paid } : { path, class: 'matching', rule: nested, paid, globs: [`${scope}/**`], folderScope: true };
}

function globSpec(path: string, scope: string, globs: string[], rule: LoadRule): LoadSpec {
  if (globs.some((g) => g === '**' || g === '**/*')) {
    return scope === '' ? { path, class: 'always', rule, paid: 'body' } : { path, class: 'matching', rule, paid: 'body', globs: [`${scope}/**`], folderScope: true };
  }
  return { path, class: 'matching', rule, paid: 'body', globs: globs.map((g) => scoped(scope, g)) };
}

const onUse = (path: string, rule: LoadRule, fm: Frontmatter): LoadSpec => ({ path, class: 'on-use', rule, paid: stringValue(fm.data.description) || stringValue(fm.data.name) ? 'description' : 'none' });

function claude(files: readonly FileView[], skipped: Skipped[]): LoadSpec[] {
  const out: LoadSpec[] = [];
  for (const f of files) {
    const name = lower(baseOf(f.path));
    const dir = dirOf(f.path);
    if (name === 'claude.md' || name === 'claude.local.md') {
      // `D/.claude/CLAUDE.md` is D's project memory.
      const scope = lower(baseOf(dir)) === '.claude' ? dirOf(dir) : dir;
      if (lower(baseOf(dir)) === '.claude' && name === 'claude.local.md') {
        skipped.push({ path: f.path, agent: 'claude-code', reason: 'CLAUDE.local.md is read beside CLAUDE.md, not inside .claude/', misplaced: true });
        continue;
      }
      out.push(perFolder(f.path, scope, name === 'claude.md' ? 'claude/memory' : 'claude/local-memory', 'claude/nested-memory'));
      continue;
    }
    const rules = underFolder(f.path, '.claude/rules');
    if (rules) {
      if (extOf(name) !== 'md') continue;
      const paths = stringList(f.frontmatter().data.paths);
      out.push(paths.length ? globSpec(f.path, rules.scope, paths, 'claude/rules-paths') : perFolder(f.path, rules.scope, 'claude/rules', 'claude/rules'));
      continue;
    }
    const skills = underFolder(f.path, '.claude/skills');
    if (skills) {
      if (name === 'skill.md' && skills.rest.split('/').length === 2) out.push(onUse(f.path, 'claude/skill', f.frontmatter()));
      else if (name === 'skill.md') skipped.push({ path: f.path, agent: 'claude-code', reason: 'a skill is .claude/skills/<name>/SKILL.md, one folder deep', misplaced: true });
      continue;
    }
    const agents = underFolder(f.path, '.claude/agents');
    if (agents && extOf(name) === 'md') {
      out.push(onUse(f.path, 'claude/agent', f.frontmatter()));
      continue;
    }
    const commands = underFolder(f.path, '.claude/commands');
    if (commands && extOf(name) === 'md') out.push(onUse(f.path, 'claude/command', f.frontmatter()));
  }
  return out;
}

function codex(files: readonly FileView[], skipped: Skipped[], opts: AgentOptions): LoadSpec[] {
  const names = ['agents.override.md', 'agents.md', ...(opts.codexFallbacks ?? []).map(lower)];
  const byDir = new Map<string, FileView[]>();
  for (const f of files) {
    if (!names.includes(lower(baseOf(f.path)))) continue;
    const d = dirOf(f.path);
    const list = byDir.get(d);
    if (list) list.push(f);
    else byDir.set(d, [f]);
  }
  const out: LoadSpec[] = [];
  for (const [dir, list] of byDir) {
    list.sort((a, b) => names.indexOf(lower(baseOf(a.path))) - names.indexOf(lower(baseOf(b.path))));
    // At most one file per folder: the first non-empty one in precedence order.
    const chosen = list.find((f) => f.text.trim() !== '');
    for (const f of list) {
      if (f === chosen) continue;
      skipped.push({ path: f.path, agent: 'codex', reason: f.text.trim() === '' ? 'empty files are skipped' : `${baseOf(chosen!.path)} in the same folder takes precedence` });
    }
    if (!chosen) continue;
    const n = names.indexOf(lower(baseOf(chosen.path)));
    out.push(perFolder(chosen.path, dir, n === 0 ? 'codex/override' : n === 1 ? 'codex/agents-md' : 'codex/fallback', 'codex/nested'));
  }
  return out;
}

function cursor(files: readonly FileView[], skipped: Skipped[]): LoadSpec[] {
  const out: LoadSpec[] = [];
  for (const f of files) {
    const name = lower(baseOf(f.path));
    const rules = underFolder(f.path, '.cursor/rules');
    if (rules) {
      if (extOf(name) !== 'mdc') {
        if (extOf(name) === 'md') skipped.push({ path: f.path, agent: 'cursor', reason: 'project rules must be .mdc files; a .md file in .cursor/rules is ignored' });
        continue;
      }
      const fm = f.frontmatter().data;
      const globs = stringList(fm.globs);
      if (fm.alwaysApply === true) out.push(perFolder(f.path, rules.scope, 'cursor/always', 'cursor/always'));
      else if (globs.length) out.push(globSpec(f.path, rules.scope, globs, 'cursor/globs'));
      else if (stringValue(fm.description)) out.push({ path: f.path, class: 'on-use', rule: 'cursor/requested', paid: 'description' });
      else out.push({ path: f.path, class: 'on-use', rule: 'cursor/manual', paid: 'none' });
      continue;
    }
    if (name === 'agents.md') out.push(perFolder(f.path, dirOf(f.path), 'cursor/agents-md', 'cursor/nested-agents-md'));
    else if (name === '.cursorrules') {
      if (dirOf(f.path) === '') out.push({ path: f.path, class: 'always', rule: 'cursor/legacy', paid: 'body' });
      else skipped.push({ path: f.path, agent: 'cursor', reason: '.cursorrules is read at the project root only', misplaced: true });
    }
  }
  return out;
}

/** `.github/skills/<name>/SKILL.md` or `.claude/skills/<name>/SKILL.md` (lower-cased path). */
function isTopSkill(lp: string): boolean {
  const parts = lp.split('/');
  return parts.length === 4 && (parts[0] === '.github' || parts[0] === '.claude') && parts[1] === 'skills';
}

function copilot(files: readonly FileView[], skipped: Skipped[]): LoadSpec[] {
  const out: LoadSpec[] = [];
  for (const f of files) {
    const name = lower(baseOf(f.path));
    const lp = lower(f.path);
    if (lp === '.github/copilot-instructions.md') out.push({ path: f.path, class: 'always', rule: 'copilot/instructions', paid: 'body' });
    else if (name === 'copilot-instructions.md') skipped.push({ path: f.path, agent: 'copilot', reason: 'copilot-instructions.md is read from .github/ at the workspace root only', misplaced: true });
    else if (lp === 'agents.md') out.push({ path: f.path, class: 'always', rule: 'copilot/agents-md', paid: 'body' });
    else if (name === 'agents.md') skipped.push({ path: f.path, agent: 'copilot', reason: 'nested AGENTS.md files are read only with the experimental chat.useNestedAgentsMdFiles setting, off by default', misplaced: true });
    else if (name.endsWith('.instructions.md')) {
      if (!lp.startsWith('.github/instructions/')) {
        skipped.push({ path: f.path, agent: 'copilot', reason: 'instruction files are read from .github/instructions/', misplaced: true });
        continue;
      }
      const fm = f.frontmatter();
      const applyTo = stringList(fm.data.applyTo);
      out.push(applyTo.length ? globSpec(f.path, '', applyTo, 'copilot/apply-to') : onUse(f.path, 'copilot/no-apply-to', fm));
    } else if (name.endsWith('.prompt.md')) {
      if (lp.startsWith('.github/prompts/')) out.push({ path: f.path, class: 'on-use', rule: 'copilot/prompt', paid: 'none' });
      else skipped.push({ path: f.path, agent: 'copilot', reason: 'prompt files are read from .github/prompts/', misplaced: true });
    } else if (name.endsWith('.agent.md') || name.endsWith('.chatmode.md')) {
      if (lp.startsWith('.github/agents/') || lp.startsWith('.github/chatmodes/')) out.push(onUse(f.path, 'copilot/agent', f.frontmatter()));
      else skipped.push({ path: f.path, agent: 'copilot', reason: 'custom agent files are read from .github/agents/', misplaced: true });
    } else if (name === 'skill.md' && isTopSkill(lp)) out.push(onUse(f.path, 'copilot/skill', f.frontmatter()));
  }
  return out;
}

function gemini(files: readonly FileView[], opts: AgentOptions): LoadSpec[] {
  const names = (opts.geminiFileNames && opts.geminiFileNames.length ? opts.geminiFileNames : ['GEMINI.md']).map(lower);
  const out: LoadSpec[] = [];
  for (const f of files) if (names.includes(lower(baseOf(f.path)))) out.push(perFolder(f.path, dirOf(f.path), 'gemini/root', 'gemini/nested'));
  return out;
}

/** What each agent's conventions load of these files (imports not followed yet). */
export function agentSpecs(agent: AgentId, files: readonly FileView[], skipped: Skipped[], opts: AgentOptions = {}): LoadSpec[] {
  switch (agent) {
    case 'claude-code':
      return claude(files, skipped);
    case 'codex':
      return codex(files, skipped, opts);
    case 'cursor':
      return cursor(files, skipped);
    case 'copilot':
      return copilot(files, skipped);
    case 'gemini':
      return gemini(files, opts);
  }
}

/** Whether an agent follows `@path` imports in this file (memory files and what they import), and under which rule. */
export function importRule(agent: AgentId, spec: LoadSpec): LoadRule | undefined {
  if (agent === 'claude-code' && (spec.rule === 'claude/memory' || spec.rule === 'claude/local-memory' || spec.rule === 'claude/nested-memory' || spec.rule === 'claude/import')) return 'claude/import';
  if (agent === 'gemini' && (spec.rule === 'gemini/root' || spec.rule === 'gemini/nested' || spec.rule === 'gemini/import')) return 'gemini/import';
  return undefined;
}

/** The frontmatter fields an on-use file pays for on every request (its name and description). */
export function descriptionText(fm: Frontmatter): string {
  return [stringValue(fm.data.name), stringValue(fm.data.description)].filter((s) => s !== '').join(': ');
}

/** Whether a repository path is one any agent's conventions name (the files the model is built from). */
export function isContextCandidate(path: string, opts: AgentOptions = {}): boolean {
  const name = lower(baseOf(path));
  if (['agents.md', 'agents.override.md', 'claude.md', 'claude.local.md', 'gemini.md', 'skill.md', 'copilot-instructions.md', '.cursorrules'].includes(name)) return true;
  if ((opts.codexFallbacks ?? []).some((n) => lower(n) === name) || (opts.geminiFileNames ?? []).some((n) => lower(n) === name)) return true;
  if (name.endsWith('.instructions.md') || name.endsWith('.prompt.md') || name.endsWith('.agent.md') || name.endsWith('.chatmode.md') || extOf(name) === 'mdc') return true;
  if (extOf(name) !== 'md') return false;
  return ['.claude/rules', '.claude/agents', '.claude/commands', '.claude/skills', '.cursor/rules'].some((m) => underFolder(path, m) !== undefined);
}

export { parseFrontmatter };

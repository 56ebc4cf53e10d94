/**
 * The one answer to "which diagnostics does this path get", for every consumer: the CLI's `check`, Check
 * Workspace, the language server's providers, the client's document selector and file watcher, and the
 * pre-commit manifest (a test keeps the manifest and the client equal to what this module says).
 *
 * A path is a file-system path or a URI; only its last segments are read (query and fragment ignored,
 * backslashes read as slashes). No imports: the thin client shares this file through the protocol folder.
 */

/** What ToonLens does with a file. */
export type FileRole = 'markdown' | 'toon' | 'json' | 'config';

/** The project configuration's file name. */
export const CONFIG_FILE_NAME = '.toonlens.json';

/** Extensions served as markdown, whatever an editor's language id says (`.mdc`: Cursor rules). */
export const MARKDOWN_EXTENSIONS: readonly string[] = ['md', 'markdown', 'mdown', 'mkd', 'mdc'];
/** Extensions of TOON files. */
export const TOON_EXTENSIONS: readonly string[] = ['toon'];
/** Extensions of agent-JSON candidates (a JSON file gets diagnostics only once its kind is recognized). */
export const JSON_EXTENSIONS: readonly string[] = ['json'];

const ALL_EXTENSIONS = [...JSON_EXTENSIONS, ...MARKDOWN_EXTENSIONS, ...TOON_EXTENSIONS];

/** The glob of every file ToonLens reads (the client's file watcher). */
export const WATCH_GLOB = `**/*.{${ALL_EXTENSIONS.join(',')}}`;

/** The pre-commit manifest's `files:` pattern (a Python regex on the repository-relative path). */
export const PRE_COMMIT_FILES_PATTERN = `\\.(${ALL_EXTENSIONS.join('|')})$`;

/** Globs the client serves as markdown whatever their language id (extensions VS Code does not map to markdown). */
export const MARKDOWN_FILE_PATTERNS: readonly string[] = ['**/*.mdc'];

/** The path with query and fragment dropped and backslashes read as slashes. */
function normalize(path: string): string {
  let end = path.length;
  const q = path.indexOf('?');
  if (q >= 0 && /^[a-z][a-z0-9+.-]*:/i.test(path)) end = q;
  const h = path.indexOf('#');
  if (h >= 0 && h < end && /^[a-z][a-z0-9+.-]*:/i.test(path)) end = h;
  return path.slice(0, end).replace(/\\/g, '/');
}

function baseName(path: string): string {
  const p = normalize(path);
  return p.slice(p.lastIndexOf('/') + 1);
}

function extensionOf(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** What ToonLens does with the file at `path`, or undefined when it does nothing with it. */
export function fileRole(path: string): FileRole | undefined {
  const name = baseName(path);
  if (name === CONFIG_FILE_NAME) return 'config';
  const ext = extensionOf(name);
  if (MARKDOWN_EXTENSIONS.includes(ext)) return 'markdown';
  if (TOON_EXTENSIONS.includes(ext)) return 'toon';
  if (JSON_EXTENSIONS.includes(ext)) return 'json';
  return undefined;
}

/** Whether `path` names a markdown file by its extension (`.md`, `.markdown`, `.mdown`, `.mkd`, `.mdc`). */
export function isMarkdownPath(path: string): boolean {
  return fileRole(path) === 'markdown';
}

/**
 * Extensions the engine's `profile`/`convert`/`plan` label `source_type: "markdown"` when given such a file by
 * name: the served markdown extensions plus `.mdx` (markdown with JSX, which the producer labels markdown).
 * `.mdx` is measured when asked for, never served or walked: its JSX is not CommonMark, so the editor and
 * `check` would report noise on it.
 */
export const MEASURED_MARKDOWN_EXTENSIONS: readonly string[] = [...MARKDOWN_EXTENSIONS, 'mdx'];

/** The `source_type` of a verdict measured from the file at `path`: `markdown` by extension, else `text`. */
export function measuredSourceType(path: string): 'markdown' | 'text' {
  return MEASURED_MARKDOWN_EXTENSIONS.includes(extensionOf(baseName(path))) ? 'markdown' : 'text';
}

/** Whether `path` names a `.toon` file. */
export function isToonPath(path: string): boolean {
  return fileRole(path) === 'toon';
}

/** File names agents load wherever they stand (compared case-insensitively). */
const AGENT_FILE_NAMES = new Set([
  'agents.md',
  'agents.override.md',
  'claude.md',
  'claude.local.md',
  'gemini.md',
  'skill.md',
  'copilot-instructions.md',
  '.cursorrules',
  '.windsurfrules',
  '.clinerules',
]);
/** Name endings of VS Code / Copilot agent files. */
const AGENT_FILE_SUFFIXES = ['.instructions.md', '.prompt.md', '.agent.md', '.chatmode.md'];
/** Folders whose markdown files agents load (the path holds `/<folder>/` or starts with `<folder>/`). */
const AGENT_FOLDERS = ['.cursor/rules', '.claude/agents', '.claude/commands', '.claude/rules', '.claude/skills', '.github/agents', '.github/instructions', '.github/prompts', '.windsurf/rules', '.clinerules', '.gemini/commands'];

/**
 * Whether `path` is a file agents load — instruction, rule, skill, prompt or agent files, by name and location
 * (docs/agent-context.md lists them per agent) — as opposed to a README or other documentation. Agent-file
 * advice (vague or duplicate rules, long sections) applies to these files only.
 */
export function isAgentFile(path: string): boolean {
  const p = normalize(path);
  const name = baseName(p).toLowerCase();
  if (AGENT_FILE_NAMES.has(name)) return true;
  if (AGENT_FILE_SUFFIXES.some((s) => name.endsWith(s))) return true;
  if (name.endsWith('.mdc')) return true;
  if (!name.endsWith('.md')) return false;
  const lower = p.toLowerCase();
  return AGENT_FOLDERS.some((f) => lower.startsWith(`${f}/`) || lower.includes(`/${f}/`));
}

/** Name endings of agent files loaded when a task or command asks for them. */
const ON_DEMAND_SUFFIXES = ['.prompt.md'];
/** Folders of agent files loaded on demand (skills, commands, prompts). */
const ON_DEMAND_FOLDERS = ['.claude/commands', '.claude/skills', '.github/prompts', '.gemini/commands'];

/**
 * Whether `path` is an agent file loaded on demand — a skill (`SKILL.md` and the files beside it), a prompt, a
 * command — rather than on every request (AGENTS.md, CLAUDE.md, instructions, rules). Advice to move detail out of
 * always-on context into a skill (long or split sections) does not apply to these.
 */
export function isOnDemandAgentFile(path: string): boolean {
  const p = normalize(path);
  const name = baseName(p).toLowerCase();
  if (name === 'skill.md' || ON_DEMAND_SUFFIXES.some((s) => name.endsWith(s))) return true;
  const lower = p.toLowerCase();
  return name.endsWith('.md') && ON_DEMAND_FOLDERS.some((f) => lower.startsWith(`${f}/`) || lower.includes(`/${f}/`));
}

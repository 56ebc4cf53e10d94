/**
 * The findings of one markdown file as `toonlens check` reports them, shared by every command that prints
 * them (check, profile), so two commands never give two answers for the same file: the file's plan with the
 * project's token options, the core's markdown diagnostics for its path (agent-file advice, token notes), then
 * the project's rule levels. And its opt-in fixes (`.toonlens.json` `fix`), shared by `check --fix` and the MCP
 * `fix` tool.
 */
import { applyRuleLevels } from '../core/config';
import { compactTables } from '../core/markdown/compactTable';
import { markdownDiagnostics } from '../core/markdown/diagnostics';
import { EngineCache, type EngineOptions } from '../core/markdown/engine';
import type { CoreDiagnostic } from '../core/types';
import { agentFileByConfig, type LoadedConfig } from '../node/config';

/** The engine options a project's config sets (tokenizer, token gate and floor), as the editor's settings carry them. */
export function planOptions(loaded: LoadedConfig): EngineOptions {
  const opts: EngineOptions = {};
  if (loaded.config.tokenizer !== undefined) opts.tokenizer = loaded.config.tokenizer;
  if (loaded.config.minTokenSavings !== undefined) opts.minTokenSavings = loaded.config.minTokenSavings;
  if (loaded.config.minTokenSavingsPct !== undefined) opts.minTokenSavingsPct = loaded.config.minTokenSavingsPct;
  return opts;
}

export interface FindingOptions {
  /** Token notes asked for on this run (`--token-notes`), whatever the config says. */
  tokenNotes?: boolean;
  /** Engine options given on the command line; they win over the config's. */
  engine?: EngineOptions;
}

/** A markdown text's findings: `abs` is its file (undefined for stdin: every finding is shown), `loaded` its config. */
export function markdownFindings(text: string, abs: string | undefined, loaded: LoadedConfig, options: FindingOptions = {}): CoreDiagnostic[] {
  // The server's plan (EngineCache): the same sections and verdicts as planDocument, with each run of slices'
  // details released once measured (holding all of them makes the peak grow with the section count).
  const plan = new EngineCache().plan(text, { ...planOptions(loaded), ...options.engine });
  const diagnostics = markdownDiagnostics(text, plan, {
    ...(abs !== undefined ? { path: abs, agentFile: agentFileByConfig(loaded, abs) } : {}),
    tokenNotes: options.tokenNotes === true || loaded.config.tokenNotesAsDiagnostics === true,
  });
  return applyRuleLevels(diagnostics, loaded.config.rules);
}

/** A markdown text with the opt-in fixes its `.toonlens.json` turns on, and how many applied. */
export interface MarkdownFix {
  text: string;
  /** How many fixes applied (one per table compacted); 0 leaves `text` as given. */
  fixes: number;
  /** What the fixes were, for the line `check --fix` prints: `2 tables compacted`. */
  what: string;
}

/**
 * The opt-in markdown fixes of `fix` in the file's `.toonlens.json` (docs/config.md): `compactTables` compacts every
 * table whose rendered HTML stays identical. Shared by `check --fix` and the MCP `fix` tool, so both write the same.
 */
export function markdownFixes(text: string, loaded: LoadedConfig): MarkdownFix {
  if (loaded.config.fix?.compactTables !== true) return { text, fixes: 0, what: '' };
  const compact = compactTables(text);
  const n = compact.edits.length;
  return { text: compact.text, fixes: n, what: `${n} table${n === 1 ? '' : 's'} compacted` };
}

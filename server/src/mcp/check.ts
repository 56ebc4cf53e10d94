/**
 * `check` and `fix` on a document given as text: the same core entry points and the same report shape as
 * `toonlens check --format json` on a file holding that text (the tests compare the two).
 */
import { basename } from 'node:path';
import { checkBytes, type CheckSettings } from '../core/agentJson/check';
import { applyFixes } from '../core/json/edits';
import { applyRuleLevels, CONFIG_FILE_NAME, configDiagnostics } from '../core/config';
import { toonFileDiagnostics } from '../core/markdown/diagnostics';
import { isMarkdownPath, isToonPath } from '../core/files';
import type { CoreDiagnostic, DocumentKind, JsonFix } from '../core/types';
import { ConfigLoader } from '../node/config';
import { createNodeWorkspace } from '../node/workspace';
import { positionMapper, type FileReport } from '../cli/check';
import { markdownFindings, markdownFixes } from '../cli/findings';

export type TextKind = DocumentKind | 'markdown' | 'toon';

/** What `details` adds to each diagnostic: 1-based positions as editors show them, and the fixes it offers. */
export interface DiagnosticDetails {
  location: { line: number; column: number; end_line: number; end_column: number };
  fixes: { title: string; unattended: boolean }[];
}

export interface TextCheck {
  /** The absolute path the text stands for (its name decides markdown / .toon / JSON, its folder the config). */
  abs: string;
  /** The `file` the report shows. */
  shown: string;
  /** The MCP root the path lies in: report rules read the files it names there. */
  root: string;
  kind?: TextKind;
  /** Add {@link DiagnosticDetails} to each diagnostic (the rest stays exactly the CLI's report). */
  details?: boolean;
}

function report(details: boolean, shown: string, kind: FileReport['kind'], text: string | undefined, diagnostics: CoreDiagnostic[], hints?: Parameters<typeof positionMapper>[1]): FileReport {
  const at = positionMapper(text, hints);
  return {
    file: shown,
    kind,
    diagnostics: diagnostics.map((d) => {
      const range = { start: at(d.range.start), end: at(d.range.end) };
      const base: FileReport['diagnostics'][number] = { code: d.code, severity: d.severity, message: d.message, range };
      // The other occurrence of a repeated rule, as the CLI's report gives it.
      if (d.related?.length) base.related = d.related.map((r) => ({ message: r.message, range: { start: at(r.range.start), end: at(r.range.end) } }));
      if (!details) return base;
      const extra: DiagnosticDetails = {
        location: { line: range.start.line + 1, column: range.start.character + 1, end_line: range.end.line + 1, end_column: range.end.character + 1 },
        fixes: (d.fixes ?? []).map((f) => ({ title: f.title, unattended: f.fixAll })),
      };
      return { ...base, ...extra };
    }),
  };
}

/** The kind settings of a document: its `.toonlens.json` only, as `toonlens check` reads them (never `.vscode/settings.json`). */
function settingsFor(documentKinds: Record<string, DocumentKind>): CheckSettings {
  return Object.keys(documentKinds).length ? { documentKinds: { ...documentKinds } } : {};
}

/** The diagnostics of `text` as the file `opts.abs`, as one report of `check --format json`. */
export function checkText(text: string, opts: TextCheck): FileReport {
  return checkTextWithFixes(text, opts).report;
}

function checkTextWithFixes(text: string, opts: TextCheck): { report: FileReport; fixes: JsonFix[]; jsonText?: string } {
  const loaded = new ConfigLoader().forFile(opts.abs);
  const rules = loaded.config.rules;
  const kind = opts.kind ?? (isMarkdownPath(opts.abs) ? 'markdown' : isToonPath(opts.abs) ? 'toon' : undefined);
  if (kind === undefined && basename(opts.abs) === CONFIG_FILE_NAME) {
    return { report: report(opts.details === true, opts.shown, 'config', text, applyRuleLevels(configDiagnostics(text), rules)), fixes: [] };
  }
  if (kind === 'markdown' || kind === 'toon') {
    // The findings `toonlens check` reports for this file (agent-file advice by its name, the project's token notes).
    const diagnostics = kind === 'markdown' ? markdownFindings(text, opts.abs, loaded) : applyRuleLevels(toonFileDiagnostics(text), rules);
    return { report: report(opts.details === true, opts.shown, kind, text, diagnostics), fixes: [] };
  }
  const result = checkBytes(new TextEncoder().encode(text), {
    fsPath: opts.abs,
    settings: settingsFor(loaded.config.documentKinds),
    kind,
    workspace: createNodeWorkspace(opts.root),
  });
  if (!result.kind) return { report: { file: opts.shown, kind: null, diagnostics: [] }, fixes: [] };
  const fixes = result.diagnostics.flatMap((d) => d.fixes ?? []).filter((f) => f.fixAll);
  return {
    report: report(opts.details === true, opts.shown, result.kind, result.text, applyRuleLevels(result.diagnostics, rules), result.lineHints ?? { offsets: [], lines: [], lineStarts: [] }),
    fixes,
    jsonText: result.text,
  };
}

export interface FixResult {
  /** The text with every unattended fix applied (the input itself when none applies). */
  text: string;
  changed: boolean;
  /** How many fixes were applied. */
  fixes: number;
  /** What remains after the fixes, as `check` reports it. */
  remaining: FileReport;
}

/**
 * `check --fix` without the write: every derived-field fix applied to the text (on markdown, the opt-in fixes its
 * `.toonlens.json` turns on), then the re-check.
 */
export function fixText(text: string, opts: TextCheck): FixResult {
  if ((opts.kind ?? (isMarkdownPath(opts.abs) ? 'markdown' : undefined)) === 'markdown') {
    const fixed = markdownFixes(text, new ConfigLoader().forFile(opts.abs));
    if (fixed.fixes === 0) return { text, changed: false, fixes: 0, remaining: checkText(text, opts) };
    return { text: fixed.text, changed: true, fixes: fixed.fixes, remaining: checkText(fixed.text, opts) };
  }
  const first = checkTextWithFixes(text, opts);
  if (first.fixes.length === 0 || first.jsonText === undefined) return { text, changed: false, fixes: 0, remaining: first.report };
  const next = applyFixes(first.jsonText, first.fixes);
  if (next === first.jsonText) return { text, changed: false, fixes: 0, remaining: first.report };
  return { text: next, changed: true, fixes: first.fixes.length, remaining: checkText(next, opts) };
}

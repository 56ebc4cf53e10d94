/**
 * The library entry (`import { check, plan, convert } from 'toonlens'`, built to dist/lib.js): a small, typed,
 * pure surface over the core — the same diagnostics, plans and candidates as the editor and the CLI, on text the
 * caller passes in. No file system, no editor: a check of agent JSON runs the document's own rules only (the rules
 * that read other workspace files need the CLI or the editor).
 */
import { checkDocument } from './agentJson/check';
import { markdownDiagnostics, toonFileDiagnostics } from './markdown/diagnostics';
import { convertDocument, planOnce, type EngineOptions } from './markdown/engine';
import type { VerdictV1 } from './markdown/verdict';
import { isMarkdownPath, isToonPath } from './files';
import { LineIndex } from './lineIndex';
import type { DocumentKind, Severity } from './types';
import type { TokenizerName } from './tokens';
import { VERSION } from '../version';

export { VERSION };
export type { DocumentKind, Severity, TokenizerName, VerdictV1 };

/** Options every entry point takes. */
export interface LibraryOptions {
  /**
   * The document's path or file name: picks markdown (`.md`, `.mdc`, …), `.toon`, or agent JSON, and the JSON kind
   * by file-name convention (`*.verdict.json`, …). Without it, text is checked as agent JSON.
   */
  path?: string;
  /** Treat a JSON document as this kind, whatever its name or content. */
  kind?: DocumentKind;
  /** Token counter for markdown: `o200k_base` (default), `cl100k_base` or `estimate`. */
  tokenizer?: TokenizerName;
  /** The token gate: a conversion must save at least this many real tokens (default 1). */
  minTokenSavings?: number;
}

/** One finding, with 1-based lines and columns (UTF-16 code units) and 0-based offsets. */
export interface Finding {
  code: string;
  severity: Severity;
  message: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  offset: number;
  endOffset: number;
}

function engineOptions(o: LibraryOptions): EngineOptions {
  const e: EngineOptions = {};
  if (o.tokenizer !== undefined) e.tokenizer = o.tokenizer;
  if (o.minTokenSavings !== undefined) e.minTokenSavings = o.minTokenSavings;
  return e;
}

/** The diagnostics `toonlens check` reports for this text (without `.toonlens.json` severities). */
export function check(text: string, options: LibraryOptions = {}): Finding[] {
  const path = options.path ?? '';
  const diagnostics =
    path && isMarkdownPath(path)
      ? markdownDiagnostics(text, planOnce(text, engineOptions(options)))
      : path && isToonPath(path)
        ? toonFileDiagnostics(text)
        : checkDocument(text, { ...(path ? { fsPath: path } : {}), kind: options.kind }).diagnostics;
  const index = new LineIndex(text);
  return diagnostics.map((d) => {
    const start = index.positionAt(d.range.start);
    const end = index.positionAt(d.range.end);
    return { code: d.code, severity: d.severity, message: d.message, line: start.line + 1, column: start.character + 1, endLine: end.line + 1, endColumn: end.character + 1, offset: d.range.start, endOffset: d.range.end };
  });
}

/** One section of a plan. */
export interface PlannedSection {
  kind: 'frontmatter' | 'preamble' | 'section';
  heading: string | null;
  /** 1-based first and last line. */
  lineStart: number;
  lineEnd: number;
  action: 'convert' | 'keep';
  /** The section's verdict (`recommend`, `review`, `reject`, …); null for frontmatter. */
  verdict: string | null;
  /** The TOON candidate (also when the action is keep); null for frontmatter. */
  candidate: string | null;
}

/** A markdown document's per-section plan and its hybrid (the sections worth converting converted). */
export interface Plan {
  sections: PlannedSection[];
  hybrid: string;
  tokens: { tokenizer: TokenizerName; source: number; hybrid: number; savings: number };
}

/** `toonlens plan`: which sections of a markdown document are worth converting to TOON, and the hybrid. */
export function plan(markdown: string, options: LibraryOptions = {}): Plan {
  const p = planOnce(markdown, engineOptions(options));
  const t = p.tokens;
  return {
    sections: p.sections.map((s) => ({ kind: s.slice.kind, heading: s.slice.heading, lineStart: s.slice.lineStart, lineEnd: s.slice.lineEnd, action: s.action, verdict: s.verdict?.verdict ?? null, candidate: s.candidate })),
    hybrid: p.hybrid,
    tokens: { tokenizer: t.tokenizer, source: t.source, hybrid: t.hybrid, savings: t.savings },
  };
}

/** `toonlens convert`: the whole document as one TOON candidate, with its verdict.v1 measurement. */
export function convert(markdown: string, options: LibraryOptions & { mode?: 'lossless' | 'record' } = {}): VerdictV1 {
  return convertDocument(markdown, { ...engineOptions(options), sourceType: 'markdown', ...(options.mode ? { mode: options.mode } : {}) });
}

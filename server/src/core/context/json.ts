/**
 * The context model and its diagnostics as schemas/context.v1.json describes them (`toonlens context --json`,
 * the editor's `toonlens.agentContext` command, the MCP server): offsets become zero-based line and character.
 */
import { LineIndex } from '../lineIndex';
import { AGENT_NAMES } from './agents';
import type { ContextDiagnostic } from './diagnostics';
import type { ContextModel } from './model';

interface Position {
  line: number;
  character: number;
}

/** Zero-based line and character of an offset in one of the model's texts (one line table per file). */
export function positions(model: ContextModel): (path: string, offset: number) => Position {
  const idx = new Map<string, LineIndex>();
  return (path, offset) => {
    let i = idx.get(path);
    if (!i) idx.set(path, (i = new LineIndex(model.texts.get(path) ?? '')));
    return i.positionAt(offset);
  };
}

/** The model and its diagnostics as schemas/context.v1.json describes them. */
export function contextJson(model: ContextModel, diagnostics: readonly ContextDiagnostic[], estimator: string): unknown {
  const at = positions(model);
  const range = (path: string, s: number, e: number) => ({ start: at(path, s), end: at(path, e) });
  return {
    schema_version: 'context.v1',
    for: model.for,
    tokenizer: estimator,
    agents: model.agents.map((a) => ({
      agent: a.agent,
      name: AGENT_NAMES[a.agent],
      always_tokens: a.alwaysTokens,
      paid_tokens: a.paidTokens,
      files: a.entries.map((e) => ({
        path: e.path,
        class: e.class,
        rule: e.rule,
        tokens: e.tokens,
        always_tokens: e.alwaysTokens,
        loaded: e.loaded,
        ...(e.globs ? { globs: e.globs } : {}),
        ...(e.via !== undefined ? { imported_by: e.via, import_depth: e.depth } : {}),
        ...(e.truncatedBytes ? { truncated_bytes: e.truncatedBytes } : {}),
        ...(e.matchesNothing ? { matches_nothing: true } : {}),
      })),
      skipped: a.skipped,
    })),
    imports: model.imports.map((e) => ({ from: e.from, to: e.to ?? null, spec: e.spec, line: at(e.from, e.start).line + 1, found: e.found, ...(e.tooDeep ? { too_deep: true } : {}) })),
    cycles: model.cycles,
    unreachable: model.unreachable,
    diagnostics: diagnostics.map((d) => ({
      file: d.path,
      code: d.code,
      severity: d.severity,
      message: d.message,
      range: range(d.path, d.start, d.end),
      ...(d.related ? { related: d.related.map((r) => ({ file: r.path, message: r.message, range: range(r.path, r.start, r.end) })) } : {}),
    })),
  };
}


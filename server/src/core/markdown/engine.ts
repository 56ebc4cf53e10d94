/**
 * The verdict engine facade (docs/engine.md): markdown → slices → models → TOON
 * candidates → verdict.v1, plus the per-section context plan and its hybrid. The rest of the server
 * (core/index.ts, cli/, features/, mcp/) and the bench import the engine from here.
 *
 * Everything is computed per slice and composed: a document's model is its slices'
 * models merged, its TOON encoding is the slices' encodings joined (TOON encodes each
 * root key independently; a property test checks the composition against `encode`),
 * so `EngineCache` re-measures only the slices an edit touched.
 *
 * Which way to plan (all give the same `PlanResult` for the same text and options):
 * - {@link planDocument}: one plan of one text, nothing kept (the MCP server, tests, the bench).
 * - {@link planOnce}: the CLI's `plan` and `check`: the same result, a large document planned in runs so the
 *   peak does not grow with every section's details.
 * - `EngineCache.plan`: the editor: one cache per open document, so an edit re-measures only the slices it touched.
 * - `EngineCache.planSteps`: the same plan as a generator yielding after each slice (the language server's time
 *   slicing); {@link runSteps} drives any such generator to its end synchronously (`EngineCache.plan` is exactly that).
 * Likewise {@link profileDocument} / {@link convertDocument} for one text, `EngineCache.profile` / `convert` to
 * reuse a cache's analyses.
 *
 * Modules behind it: `documentVerdict.ts` (whole-document verdict), `sectionMeasure.ts` (a section's standalone
 * measurement), `planBuild.ts` (plan rows, hybrid), `engineCache.ts` (the cache and the step runner),
 * `engineTypes.ts` / `engineOptions.ts` (the public shapes, options with their defaults).
 */
import { errorMessage } from '../errors';
import { decode } from '@toon-format/toon';
import { sliceToonFenceDiagnostics } from './analysis';
import { isSliceModel, renderBody, renderModel, type JsonValue } from './model';
import { convertedSegment } from './plan';
import { sliceDocument, type Slice } from './slices';
import type { ContextPlan, EngineMode, PlanSection, VerdictV1 } from './verdict';
import type { VerdictWarning } from './warnings';
import type { CoreDiagnostic } from '../types';
import type { EngineOptions, PlanResult, SectionResult } from './engineTypes';
import { analyzeDocument, documentVerdict, freshAnalyze } from './documentVerdict';
import { buildPlan } from './planBuild';
import { EngineCache, PLAN_RUN } from './engineCache';
import { isCountBoundary, tokenizer } from '../tokens';

export type { EngineMode, VerdictV1, VerdictWarning, Slice, ContextPlan, PlanSection };
export type { BlockSummary, EngineOptions, PlanProgress, PlanResult, SectionResult, TokenFigures } from './engineTypes';
export type { BlockFence } from './blockConvert';
export { sliceDocument };
export { sectionMeasurement, sectionWarnings } from './planBuild';
export { EngineCache, PLAN_RUN, RELEASE_MERGE_CACHE_CHARS, runSteps } from './engineCache';

/** Profile response (schema 1.0, lossless measurement, toon_candidate null). */
export function profileDocument(text: string, opts: EngineOptions = {}): VerdictV1 {
  return documentVerdict(analyzeDocument(String(text ?? ''), freshAnalyze), { ...opts, mode: 'lossless' }, false);
}

/** Convert response (schema 1.0) in the requested mode. */
export function convertDocument(text: string, opts: EngineOptions = {}): VerdictV1 {
  return documentVerdict(analyzeDocument(String(text ?? ''), freshAnalyze), opts, true);
}

/** The per-section context plan (schema 1.1) and its hybrid document. */
export function planDocument(text: string, opts: EngineOptions = {}): PlanResult {
  return buildPlan(analyzeDocument(String(text ?? ''), freshAnalyze), opts);
}

/**
 * A plan made once and read whole (the CLI's `plan`): the same result as {@link planDocument}. A document of more
 * than one run of slices ({@link PLAN_RUN}) is planned as the engine cache plans it, each run's details released
 * once measured (the whole-document verdict rebuilds them when read), so the CLI's peak does not grow with every
 * section's details. A smaller document keeps its details for the verdict: rebuilding them costs more than it saves.
 */
export function planOnce(text: string, opts: EngineOptions = {}): PlanResult {
  const t = String(text ?? '');
  const slices = sliceDocument(t);
  if (slices.length <= PLAN_RUN) return buildPlan(analyzeDocument(t, freshAnalyze, undefined, slices), opts);
  return new EngineCache().plan(t, opts);
}

/**
 * The token count of the text a plan was made of, read off the plan: the sum of its slices' counts. That is exactly
 * the count of the whole text when the tokenizer is a real one and every slice after the first starts where
 * counting is additive ({@link isCountBoundary}); undefined otherwise (an estimate, an indented heading, a slice
 * after frontmatter that starts with a blank line), and when the slices do not cover `text` end to end.
 */
export function planTextTokens(plan: PlanResult, text: string): number | undefined {
  if (!tokenizer(plan.tokenizer).real) return undefined;
  let at = 0;
  for (const s of plan.sections) {
    if (s.slice.charStart !== at || (at > 0 && !isCountBoundary(text, at))) return undefined;
    at = s.slice.charEnd;
  }
  if (at !== text.length) return undefined;
  return plan.tokens.source;
}

/** The edit that converts one section of a plan in place: exactly its segment, whole body or by block. */
export function sectionConvertEdit(s: SectionResult): { start: number; end: number; newText: string } {
  return { start: s.slice.charStart, end: s.slice.charEnd, newText: s.segment() };
}

/** The edit that converts one slice in place: exactly its hybrid segment (docs/engine.md#plan-and-hybrid). */
export function convertSectionEdit(text: string, slice: Slice, candidate: string): { start: number; end: number; newText: string } {
  const sliceText = text.slice(slice.charStart, slice.charEnd);
  return { start: slice.charStart, end: slice.charEnd, newText: convertedSegment(sliceText, slice.headingEnd - slice.charStart, candidate) };
}

/**
 * Revert: strict-decodes TOON and renders the model back to markdown. A section's fence holds its body
 * (the heading stays the markdown line above it), rendered without a heading; a whole-document candidate,
 * or a fence written by an earlier version (`"## Heading": …`), is a slice model and renders with its headings.
 * Throws an Error with the decoder's message when the text does not decode.
 */
export function renderToonAsMarkdown(toonText: string): string {
  let value: JsonValue;
  try {
    value = decode(toonText, { strict: true }) as JsonValue;
  } catch (e) {
    throw new Error(`TOON does not decode: ${errorMessage(e)}`, { cause: e });
  }
  if (isSliceModel(value)) return renderModel(value);
  const body = renderBody(value);
  return body === '' ? '' : body + '\n';
}

/**
 * The document's `toon/fence-decode` diagnostics from its plan, as steps (one yield per slice):
 * each slice's fences are checked once per slice text and shifted into place. Frontmatter is
 * metadata, not markdown: a fence marker inside it opens no fence (as for the fences and inline
 * comments, see sectionFences.ts and diagnostics.ts).
 */
export function* toonFenceDiagnosticSteps(plan: PlanResult): Generator<void, CoreDiagnostic[], void> {
  const out: CoreDiagnostic[] = [];
  for (const s of plan.sections) {
    if (s.slice.kind === 'frontmatter') continue; // metadata, not markdown: a fence inside it is no fence
    const base = s.slice.charStart;
    for (const d of sliceToonFenceDiagnostics(s.analysis)) out.push(base === 0 ? d : { ...d, range: { start: d.range.start + base, end: d.range.end + base } });
    yield;
  }
  return out;
}

/**
 * The diagnostics of a markdown or `.toon` file, shared by the language server and `toonlens check`:
 * - the verdict engine's warnings that point at text (`toon/duplicate-rule`, `toon/vague-rule` where they
 *   point; `toon/long-section`, `toon/split-candidate` on the section's heading line, never across its body),
 *   none on a converted section (a ```toon fence is TOON already) or inside any ```toon fence;
 * - `toon/duplicate-rule` across the whole text (the plan's document-wide list, the one the whole-document
 *   verdict of `profile` holds), naming the earlier occurrence as related information;
 * - agent-file advice (rows flagged `agentAdvice`) only on files agents load (core/files.ts isAgentFile), and
 *   advice about always-on context (rows flagged `alwaysOnAdvice`) not on the ones loaded on demand;
 * - token notes (rows flagged `tokenNote`) only where the document holds a ```toon fence (the author converted)
 *   or the caller asks for them (`toonlens.tokenNotesAsDiagnostics`);
 * - `toon/fence-decode` for a ```toon fence (or a .toon file) that fails a strict decode;
 * - minus what the file's `<!-- toonlens-disable… -->` comments switch off.
 */
import { runSteps, sectionWarnings, toonFenceDiagnosticSteps, type PlanResult } from './engine';
import { toonFileDiagnostics } from '../toon/fences';
import type { CoreDiagnostic } from '../types';
import type { DiagnosticCode } from '../codes';
import { LineIndex } from '../lineIndex';
import { applyInlineDisables, type InlineDirective } from './inlineControl';
import { sliceDirectives } from './analysis';
import { WARNING_DIAGNOSTICS, type RuleDiagnostic } from './rules';
import { isAgentFile, isOnDemandAgentFile } from '../files';
import { DUPLICATE_SUGGESTION, type DuplicateFinding } from './warnings';
import { convertedFenceOf, fenceAtOffset, toonFencesOfPlan, toonFencesOfPlanSteps, type FenceAt } from './sectionFences';

export { toonFileDiagnostics };


/** Engine warning codes shown as diagnostics, and their diagnostic codes (read off the rules). */
export const WARNING_DIAGNOSTIC_CODES: Readonly<Record<string, DiagnosticCode>> = Object.fromEntries([...WARNING_DIAGNOSTICS].map(([w, d]) => [w, d.code]));

/** The diagnostic of a section's token_regression warning. */
export const TOKEN_REGRESSION_CODE: DiagnosticCode = 'toon/token-regression';

/** The heading line(s) of a slice without the final line break; a preamble's first line. */
function headingRange(text: string, start: number, headingEnd: number): { start: number; end: number } {
  let end = headingEnd > start ? headingEnd : start;
  if (headingEnd <= start) while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
  while (end > start && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  return { start, end };
}

/** Which findings a markdown text gets, by where it is and what the user asked for. */
export interface MarkdownDiagnosticOptions {
  /**
   * The file's path or URI: agent-file advice (vague, duplicate rules, long and split sections) only on files
   * agents load. Without a path every finding is shown (the caller cannot tell).
   */
  path?: string;
  /** The project declares the file an agent file (`.toonlens.json` `agentFiles`), whatever its path. */
  agentFile?: boolean;
  /** Token notes (`toon/token-regression`) as diagnostics in every document, not only in one the author converted. */
  tokenNotes?: boolean;
}

/** Whether a rule's diagnostic is shown under the options (agent advice on agent files, token notes where asked). */
function shownHere(shown: RuleDiagnostic, agentFile: boolean, tokenNotes: boolean, onDemand = false): boolean {
  if (shown.agentAdvice && !agentFile) return false;
  if (shown.alwaysOnAdvice && onDemand) return false;
  if (shown.tokenNote && !tokenNotes) return false;
  return true;
}

/** The plan's located section warnings as core diagnostics (whole-document offsets). */
export function sectionWarningDiagnostics(plan: PlanResult, text: string, fences: readonly FenceAt[] = toonFencesOfPlan(plan), options: MarkdownDiagnosticOptions = {}): CoreDiagnostic[] {
  return runSteps(sectionWarningSteps(plan, text, fences, options));
}

const DUPLICATE_CODE = 'duplicate_rule';

/** A document-wide duplicate as a diagnostic: the message names the earlier occurrence, also given as related information. */
function duplicateDiagnostic(f: DuplicateFinding, shown: RuleDiagnostic, text: string, suggestion: string): CoreDiagnostic {
  const clamp = (n: number) => Math.max(0, Math.min(n, text.length));
  const start = clamp(f.range.char_start);
  const kind = f.verbatim ? 'Repeated rule' : 'Near-duplicate rule';
  const where = f.firstSection === f.section ? `line ${f.first.line_start}` : `line ${f.first.line_start} ("${f.firstSection}")`;
  const message = `${kind} in "${f.section}": it repeats ${where}.${shown.withSuggestion ? ` ${suggestion}` : ''}`;
  const firstStart = clamp(f.first.char_start);
  return {
    code: shown.code,
    severity: shown.severity ?? 'warning',
    message,
    range: { start, end: Math.max(start, clamp(f.range.char_end)) },
    related: [{ range: { start: firstStart, end: Math.max(firstStart, clamp(f.first.char_end)) }, message: `First occurrence of the rule, in "${f.firstSection}"` }],
  };
}

/** Sections between two yields of the diagnostic steps. */
const SECTIONS_PER_STEP = 256;

function* sectionWarningSteps(plan: PlanResult, text: string, fences: readonly FenceAt[], options: MarkdownDiagnosticOptions): Generator<void, CoreDiagnostic[], void> {
  const out: CoreDiagnostic[] = [];
  const inFence = (offset: number) => fenceAtOffset(fences, offset) !== undefined;
  const agentFile = options.agentFile === true || options.path === undefined || isAgentFile(options.path);
  const onDemand = options.path !== undefined && isOnDemandAgentFile(options.path);
  // A document holding a ```toon fence is one the author converted: there the token notes are findings.
  const tokenNotes = options.tokenNotes === true || fences.length > 0;
  let n = 0;
  for (const s of plan.sections) {
    if (++n % SECTIONS_PER_STEP === 0) yield;
    const warnings = sectionWarnings(s);
    if (warnings.length === 0 || convertedFenceOf(text, s, fences)) continue;
    for (const w of warnings) {
      // A section's verdict compares its own rules only; the document-wide list below replaces those.
      if (w.code === DUPLICATE_CODE) continue;
      const shown = WARNING_DIAGNOSTICS.get(w.code);
      if (!shown || !shownHere(shown, agentFile, tokenNotes, onDemand)) continue;
      let range: { start: number; end: number };
      if (shown.at === 'heading') {
        // On the heading line (a preamble: its first line), never across the section's body.
        range = headingRange(text, s.slice.charStart, s.slice.headingEnd);
      } else {
        if (!w.range) continue;
        const start = Math.max(0, Math.min(w.range.char_start, text.length));
        range = { start, end: Math.max(start, Math.min(w.range.char_end, text.length)) };
      }
      // (a warning without a range of its own, token_regression, is about the section, not text in a fence)
      if (w.range && inFence(range.start)) continue;
      const message = shown.withSuggestion && w.suggestion ? `${w.message} ${w.suggestion}` : w.message;
      out.push({ code: shown.code, severity: shown.severity ?? (w.severity === 'warning' ? 'warning' : 'info'), message, range });
    }
  }
  const dupShown = WARNING_DIAGNOSTICS.get(DUPLICATE_CODE);
  if (dupShown && shownHere(dupShown, agentFile, tokenNotes)) {
    yield;
    const dups = yield* plan.duplicateSteps();
    for (let i = 0; i < dups.length; i++) {
      const f = dups[i]!;
      const s = plan.sections[f.group];
      if (!s || inFence(f.range.char_start) || convertedFenceOf(text, s, fences)) continue;
      out.push(duplicateDiagnostic(f, dupShown, text, DUPLICATE_SUGGESTION));
    }
  }
  return out;
}

/**
 * A markdown text's diagnostics (fences and section warnings, in document order), inline disables applied.
 * `toon/fence-decode` comes from the plan's slices (each slice's fences checked once per slice text, see
 * toonFenceDiagnosticSteps), so after an edit only the edited slice is parsed again, never the whole text;
 * a caller that already ran those steps time-sliced passes their result as `fenceDiagnostics`.
 */
export function markdownDiagnostics(text: string, plan: PlanResult, options: MarkdownDiagnosticOptions = {}, fenceDiagnostics: readonly CoreDiagnostic[] = runSteps(toonFenceDiagnosticSteps(plan))): CoreDiagnostic[] {
  return runSteps(markdownDiagnosticSteps(text, plan, fenceDiagnostics, undefined, options));
}

/**
 * The inline control comments of a planned text, in document order: each slice's own (parsed once per slice
 * text and memoized with its analysis, see sliceDirectives), shifted to document offsets and lines. After an
 * edit only the edited slice is parsed again, never the whole text. Frontmatter is metadata, not markdown: a
 * comment inside it is no directive.
 */
export function planDirectives(plan: PlanResult): InlineDirective[] {
  const out: InlineDirective[] = [];
  for (const s of plan.sections) {
    if (s.slice.kind === 'frontmatter') continue;
    const ds = sliceDirectives(s.analysis);
    if (ds.length === 0) continue;
    const at = s.slice.charStart;
    const line = s.slice.lineStart - 1;
    for (const d of ds) out.push({ ...d, start: d.start + at, end: d.end + at, line: d.line + line, endLine: d.endLine + line });
  }
  return out;
}

/**
 * `markdownDiagnostics` as steps (a yield every few hundred sections), so the server spreads a large document's
 * diagnostics over turns of its event loop and answers lens requests in between. `lineOf` gives an offset's
 * 0-based line (the server passes its document's; by default a line index of the text is built when needed).
 */
export function* markdownDiagnosticSteps(text: string, plan: PlanResult, fenceDiagnostics: readonly CoreDiagnostic[], lineOf?: (offset: number) => number, options: MarkdownDiagnosticOptions = {}): Generator<void, CoreDiagnostic[], void> {
  const fences = yield* toonFencesOfPlanSteps(plan);
  const core = [...fenceDiagnostics, ...(yield* sectionWarningSteps(plan, text, fences, options))];
  core.sort((a, b) => a.range.start - b.range.start);
  yield;
  const directives = planDirectives(plan);
  if (directives.length === 0 || core.length === 0) return core;
  let line = lineOf;
  if (!line) {
    const index = new LineIndex(text);
    line = (offset) => index.positionAt(offset).line;
  }
  return applyInlineDisables(core, directives, line);
}

/**
 * Diagnostics on markdown and `.toon` files:
 * - the verdict engine's warnings that point at text (`toon/duplicate-rule`, `toon/vague-rule` where they
 *   point; `toon/long-section`, `toon/split-candidate` on the section's heading line, never across its body),
 *   none on a converted section (a ```toon fence is TOON already) or inside any ```toon fence;
 * - `toon/token-regression` (info, on the heading line) where a section saves characters but not real
 *   tokens (the engine's `token_regression`, which has no range of its own);
 * - `toon/fence-decode` for a ```toon fence (or a .toon file) that fails a strict decode.
 * It is also where a markdown document's analysis runs once per version, so it sends the status-bar
 * text for that document: "analysing…" while the plan is computed, then the plan's figures.
 */
import type { Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { PlanResult } from '../core/markdown/engine';
import { toonFileDiagnostics } from '../core/toon/fences';
import { pushAll } from '../core/arrays';
import type { CoreDiagnostic } from '../core/types';
import { ruleCode, type DiagnosticCode } from '../core/codes';
import type { FeatureModule } from './feature';
import { toLspDiagnostic } from './diagnostics';
import { charsChange, fmtInt, isMarkdownDocument, isToonDocument, markdownPlans, overSizeLimit, planTokenSavings, savesOrCosts } from './markdownPlans';
import { convertedFenceOf, toonFencesIn, type FenceAt } from './markdownFences';
import type { StatusParams } from './protocol';

/** Engine warning codes shown as diagnostics, and their diagnostic codes. */
export const WARNING_DIAGNOSTIC_CODES: Readonly<Record<string, DiagnosticCode>> = {
  duplicate_rule: 'toon/duplicate-rule',
  vague_rule: 'toon/vague-rule',
  long_section: 'toon/long-section',
  split_candidate: 'toon/split-candidate',
};

/** The diagnostic of a section's token_regression warning. */
export const TOKEN_REGRESSION_CODE: DiagnosticCode = 'toon/token-regression';

/** Warnings about a whole section: shown on its heading line (or a preamble's first line). */
const SECTION_WIDE = new Set(['long_section', 'split_candidate']);

/** The heading line(s) of a slice without the final line break; a preamble's first line. */
function headingRange(text: string, start: number, headingEnd: number): { start: number; end: number } {
  let end = headingEnd > start ? headingEnd : start;
  if (headingEnd <= start) while (end < text.length && text[end] !== '\n' && text[end] !== '\r') end++;
  while (end > start && (text[end - 1] === '\n' || text[end - 1] === '\r')) end--;
  return { start, end };
}

/** The plan's located section warnings as core diagnostics (whole-document offsets). */
export function sectionWarningDiagnostics(plan: PlanResult, text: string, fences: readonly FenceAt[] = toonFencesIn(text)): CoreDiagnostic[] {
  const out: CoreDiagnostic[] = [];
  const inFence = (offset: number) => fences.some((f) => offset >= f.start && offset <= f.end);
  for (const s of plan.sections) {
    if (!s.verdict || convertedFenceOf(text, s, fences)) continue;
    for (const w of s.verdict.warnings) {
      if (w.code === 'token_regression') {
        // On the heading line (a preamble: its first line), as information: the verdict already says review.
        out.push({ code: TOKEN_REGRESSION_CODE, severity: 'info', message: w.message, range: headingRange(text, s.slice.charStart, s.slice.headingEnd) });
        continue;
      }
      const code = WARNING_DIAGNOSTIC_CODES[w.code];
      if (!code || !w.range) continue;
      let range: { start: number; end: number };
      if (SECTION_WIDE.has(w.code)) range = headingRange(text, s.slice.charStart, s.slice.headingEnd);
      else {
        const start = Math.max(0, Math.min(w.range.char_start, text.length));
        range = { start, end: Math.max(start, Math.min(w.range.char_end, text.length)) };
      }
      if (inFence(range.start)) continue;
      const message = w.suggestion ? `${w.message} ${w.suggestion}` : w.message;
      out.push({ code, severity: w.severity === 'warning' ? 'warning' : 'info', message, range });
    }
  }
  return out;
}

/** The status-bar text of a markdown document's plan, e.g. "TOON saves 53 tokens · 898 → 813 chars (9.5% fewer)". */
export function planStatus(uri: string, plan: PlanResult): StatusParams {
  const cp = plan.verdict.context_plan!;
  const converted = plan.sections.filter((s) => s.action === 'convert').length;
  const measured = plan.sections.filter((s) => s.verdict).length;
  const net = { source: cp.net.source, toon: cp.net.hybrid, savings_pct: cp.net.savings_pct };
  const text = converted ? `TOON ${savesOrCosts(planTokenSavings(plan), 'token')} · ${Math.abs(cp.net.savings_pct).toFixed(1)}% ${cp.net.savings_pct >= 0 ? 'fewer' : 'more'} chars` : 'TOON: keep markdown';
  const tooltip = `ToonLens plan: ${converted} of ${fmtInt(measured)} sections convert; the hybrid is ${charsChange(net)}.${cp.recommend_hybrid ? (cp.safe_to_auto_apply ? ' Safe to auto-apply.' : ' Review before converting.') : ' Converting is not recommended.'}`;
  return { uri, text: `$(symbol-keyword) ${text}`, tooltip };
}

export const ANALYSING_TEXT = '$(sync~spin) ToonLens: analysing…';

export const markdownDiagnosticsFeature: FeatureModule = {
  name: 'markdown-diagnostics',
  create(ctx) {
    const plans = markdownPlans(ctx);
    return {
      diagnostics: {
        appliesTo: (doc: TextDocument) => isMarkdownDocument(doc) || isToonDocument(doc),
        async provide(doc, settings): Promise<Diagnostic[]> {
          if (overSizeLimit(doc, settings)) {
            if (isMarkdownDocument(doc)) ctx.setStatus({ uri: doc.uri, text: '' });
            return [toLspDiagnostic(doc, { ...ruleCode('limits/too-large'), message: `File is larger than toonlens.maxFileSizeMB (${settings.maxFileSizeMB} MB): not analysed.`, range: { start: 0, end: 0 } })];
          }
          const text = doc.getText();
          if (isToonDocument(doc) && !isMarkdownDocument(doc)) return toonFileDiagnostics(text).map((d) => toLspDiagnostic(doc, d));
          ctx.setStatus({ uri: doc.uri, text: ANALYSING_TEXT, tooltip: 'ToonLens is measuring the sections of this document.' });
          let plan: PlanResult;
          try {
            // Time-sliced; a failed analysis throws here (logged once by the plans, skipped by the scheduler).
            plan = await plans.planAsync(doc, undefined, settings);
          } catch (err) {
            ctx.setStatus({ uri: doc.uri, text: '' });
            throw err;
          }
          ctx.setStatus(planStatus(doc.uri, plan));
          const core = await plans.fenceDiagnostics(doc, plan);
          pushAll(core, sectionWarningDiagnostics(plan, text));
          core.sort((a, b) => a.range.start - b.range.start);
          return core.map((d) => toLspDiagnostic(doc, d));
        },
      },
    };
  },
};

/**
 * Diagnostics on markdown and `.toon` files:
 * - the verdict engine's warnings that point at text (`toon/duplicate-rule`, `toon/vague-rule`,
 *   `toon/long-section`, `toon/split-candidate`), with the engine's severity, where they point;
 * - `toon/fence-decode` for a ```toon fence (or a .toon file) that fails a strict decode.
 */
import type { Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { PlanResult } from '../core/markdown/engine';
import { toonFenceDiagnostics, toonFileDiagnostics } from '../core/toon/fences';
import type { CoreDiagnostic } from '../core/types';
import type { FeatureModule } from './feature';
import { toLspDiagnostic } from './diagnostics';
import { isMarkdownDocument, isToonDocument, markdownPlans, overSizeLimit } from './markdownPlans';

/** Engine warning codes shown as diagnostics, and their diagnostic codes. */
export const WARNING_DIAGNOSTIC_CODES: Readonly<Record<string, string>> = {
  duplicate_rule: 'toon/duplicate-rule',
  vague_rule: 'toon/vague-rule',
  long_section: 'toon/long-section',
  split_candidate: 'toon/split-candidate',
};

/** The plan's located section warnings as core diagnostics (whole-document offsets). */
export function sectionWarningDiagnostics(plan: PlanResult, textLength: number): CoreDiagnostic[] {
  const out: CoreDiagnostic[] = [];
  for (const s of plan.sections) {
    for (const w of s.verdict?.warnings ?? []) {
      const code = WARNING_DIAGNOSTIC_CODES[w.code];
      if (!code || !w.range) continue;
      const start = Math.max(0, Math.min(w.range.char_start, textLength));
      const end = Math.max(start, Math.min(w.range.char_end, textLength));
      const message = w.suggestion ? `${w.message} ${w.suggestion}` : w.message;
      out.push({ code, severity: w.severity === 'warning' ? 'warning' : 'info', message, range: { start, end } });
    }
  }
  return out;
}

export const markdownDiagnosticsFeature: FeatureModule = {
  name: 'markdown-diagnostics',
  create(ctx) {
    const plans = markdownPlans(ctx);
    return {
      diagnostics: {
        appliesTo: (doc: TextDocument) => isMarkdownDocument(doc) || isToonDocument(doc),
        provide(doc, settings): Diagnostic[] {
          if (overSizeLimit(doc, settings)) {
            return [toLspDiagnostic(doc, { code: 'limits/too-large', severity: 'info', message: `File is larger than toonlens.maxFileSizeMB (${settings.maxFileSizeMB} MB): not analysed.`, range: { start: 0, end: 0 } })];
          }
          const text = doc.getText();
          if (isToonDocument(doc) && !isMarkdownDocument(doc)) return toonFileDiagnostics(text).map((d) => toLspDiagnostic(doc, d));
          const core = [...toonFenceDiagnostics(text), ...sectionWarningDiagnostics(plans.planFor(doc), text.length)];
          core.sort((a, b) => a.range.start - b.range.start);
          return core.map((d) => toLspDiagnostic(doc, d));
        },
      },
    };
  },
};

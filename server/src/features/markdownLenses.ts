/**
 * Code lenses on markdown: one above every measured section (heading or preamble) saying what TOON would
 * save and the verdict, and one on the first line with the plan (net savings of the hybrid, how many
 * sections convert, and "Convert all recommended sections" when the plan is safe to auto-apply).
 * `toonlens.codeLens.minSavingsPct` hides section lenses below a threshold (0, the default, shows all):
 * display only, verdicts never change.
 */
import type { CodeLens } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { PlanResult, SectionResult } from '../core/markdown/engine';
import type { FeatureModule } from './feature';
import { COMMANDS } from './protocol';
import { fmtChange, fmtInt, humanCode, isMarkdownDocument, markdownPlans, overSizeLimit } from './markdownPlans';

/** The lens title of one section, e.g. `TOON −23.4% · 1,204 → 922 chars · ~71 tokens saved · convert`. */
export function sectionLensTitle(s: SectionResult): string {
  const v = s.verdict!;
  const mc = v.measured_chars;
  switch (v.verdict) {
    case 'convert':
      return `TOON ${fmtChange(mc.savings_pct)} · ${fmtInt(mc.source)} → ${fmtInt(mc.toon)} chars · ~${fmtInt(v.token_estimates.savings)} tokens saved · convert`;
    case 'review': {
      const w = v.warnings[0];
      return `review: ${w ? humanCode(w.code) : 'warnings'} (TOON ${fmtChange(mc.savings_pct)})`;
    }
    case 'keep_markdown':
      return `keep markdown (${fmtChange(mc.savings_pct)})`;
    case 'split_first': {
      const w = v.warnings.find((x) => x.code === 'long_section' || x.code === 'split_candidate') ?? v.warnings[0];
      return `split first: ${w ? humanCode(w.code) : 'mixed concerns'}`;
    }
    case 'refused':
      return 'refused: budget not reachable losslessly';
  }
}

/** The plan lens title, e.g. `TOON plan: −12.3% net · 3 of 10 sections convert · safe to auto-apply`. */
export function planLensTitle(plan: PlanResult): string {
  const cp = plan.verdict.context_plan!;
  const measured = plan.sections.filter((s) => s.verdict).length;
  const converted = plan.sections.filter((s) => s.action === 'convert').length;
  const verdict = cp.recommend_hybrid ? (cp.safe_to_auto_apply ? 'safe to auto-apply' : 'review before converting') : 'keep markdown';
  return `TOON plan: ${fmtChange(cp.net.savings_pct)} net · ${converted} of ${measured} sections convert · ${verdict}`;
}

export function markdownCodeLenses(doc: TextDocument, plan: PlanResult, minSavingsPct: number): CodeLens[] {
  const lenses: CodeLens[] = [];
  const top = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };
  lenses.push({ range: top, command: { title: planLensTitle(plan), command: COMMANDS.showVerdict, arguments: [{ uri: doc.uri, position: top.start }] } });
  if (plan.verdict.context_plan?.safe_to_auto_apply) {
    lenses.push({ range: top, command: { title: 'Convert all recommended sections', command: COMMANDS.convertAll, arguments: [{ uri: doc.uri, version: doc.version }] } });
  }
  for (const s of plan.sections) {
    if (!s.verdict) continue; // frontmatter is never measured
    // 0 (the default) shows every lens; any other value hides sections saving less than it.
    if (minSavingsPct !== 0 && s.verdict.measured_chars.savings_pct < minSavingsPct) continue;
    const pos = doc.positionAt(s.slice.charStart);
    const range = { start: pos, end: pos };
    const title = sectionLensTitle(s);
    lenses.push(
      s.action === 'convert'
        ? { range, command: { title, command: COMMANDS.convertSection, arguments: [{ uri: doc.uri, version: doc.version, sectionStart: s.slice.charStart }] } }
        : { range, command: { title, command: COMMANDS.showVerdict, arguments: [{ uri: doc.uri, position: pos }] } },
    );
  }
  return lenses;
}

export const markdownLensesFeature: FeatureModule = {
  name: 'markdown-lenses',
  create(ctx) {
    const plans = markdownPlans(ctx);
    return {
      async codeLenses(doc, _params, token) {
        if (!isMarkdownDocument(doc)) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        if (!settings.codeLens.enabled || overSizeLimit(doc, settings) || token.isCancellationRequested) return [];
        const current = ctx.documents.get(doc.uri) ?? doc;
        return ctx.guard('markdown code lenses', doc.uri, () => markdownCodeLenses(current, plans.planFor(current), settings.codeLens.minSavingsPct), []);
      },
    };
  },
};

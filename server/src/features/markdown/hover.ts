/**
 * Hover on a markdown heading (or anywhere on a preamble's first line): the section's verdict as a compact
 * table — profile, characters, savings, token estimates with their estimator, flags, warnings with their
 * messages and suggestions — and the first lines of the TOON candidate.
 */
import { formatPercent } from '../../core/format';
import { MarkupKind, type Hover } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { PlanResult, SectionResult } from '../../core/markdown/engine';
import type { FeatureModule } from '../../lsp/feature';
import type { TokenizerName } from '../../core/tokens';
import { charsChange, fmtInt, fmtTokenSavings, headingText, isMarkdownDocument, isMeasured, markdownPlans, overSizeLimit, planLensTitle, planTokenSavings, savesOrCosts, sectionAtOffset, type PlanSettings } from './plans';
import type { PlanSummary } from '../../protocol/commands';
import { convertedFenceOf, markdownFences, type FenceAt, type MarkdownFences } from './fences';
import { revertDescription } from '../../core/markdown/revert';
import { blocksConvertDespiteSplit, blocksLabel } from '../../core/markdown/blockConvert';

const PREVIEW_LINES = 12;

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

/** The hover markdown for one measured section. */
export function sectionHoverMarkdown(s: SectionResult): string {
  const v = s.verdict!;
  const mc = v.measured_chars;
  const te = v.token_estimates;
  const lines: string[] = [];
  lines.push(`**${cell(headingText(s))}** — verdict \`${v.verdict}\`${v.safe_to_auto_apply ? ' (safe to auto-apply)' : ''} · action \`${s.action}\``);
  lines.push('');
  if (s.tokens) lines.push(`Converting ${fmtTokenSavings(s.tokens)} (\`${cell(s.tokens.tokenizer)}\`, counted on the text Convert writes).`, '');
  const blocks = s.blockSummary ? s.blocks : null;
  if (blocks) {
    const split = blocksConvertDespiteSplit(v) ? ' The section stays a split candidate; converting its blocks does not need the split.' : '';
    lines.push(`Converts by block: ${blocksLabel(s.blockSummary!)} → \`\`\`toon fences in place; the prose stays markdown as it is.${split}`, '');
  }
  lines.push('| | markdown | TOON | converting |');
  lines.push('|---|---:|---:|---|');
  lines.push(`| characters | ${fmtInt(mc.source)} | ${fmtInt(mc.toon)} | ${savesOrCosts(mc.savings, 'char')} (${formatPercent(Math.abs(mc.savings_pct))}) |`);
  lines.push(`| tokens (\`${cell(te.estimator)}\`) | ${fmtInt(te.source)} | ${fmtInt(te.toon)} | ${savesOrCosts(te.savings, 'token')} |`);
  for (const r of te.ratio_estimates) {
    lines.push(`| tokens (${r.chars_per_token} chars/token) | ${fmtInt(r.source)} | ${fmtInt(r.toon)} | ${savesOrCosts(r.savings, 'token')} |`);
  }
  lines.push('');
  const f = v.flags;
  lines.push(`profile \`${v.profile.name}\` · mode \`${v.mode}\` · delimiter ${v.delimiter === null ? '—' : `\`${JSON.stringify(v.delimiter).slice(1, -1)}\``} · lossless ${f.lossless} · valid ${f.valid}`);
  if (v.warnings.length) {
    lines.push('');
    lines.push('| warning | severity | message |');
    lines.push('|---|---|---|');
    for (const w of v.warnings) {
      const where = w.range ? ` (line ${w.range.line_start})` : '';
      const msg = `${w.message}${where}${w.suggestion ? ` — ${w.suggestion}` : ''}`;
      lines.push(`| \`${w.code}\` | ${w.severity} | ${cell(msg)} |`);
    }
  }
  const preview = blocks ? blocks.map((b) => b.toon).join('\n\n') : s.candidate;
  if (preview) {
    const all = preview.split('\n');
    const shown = all.slice(0, PREVIEW_LINES).join('\n');
    const fence = '`'.repeat(Math.max(3, longestBacktickRun(shown) + 1));
    lines.push('');
    lines.push(`${blocks ? 'TOON of the blocks' : 'TOON candidate'}${all.length > PREVIEW_LINES ? ` (first ${PREVIEW_LINES} of ${all.length} lines)` : ''}:`);
    lines.push(`${fence}toon\n${shown}\n${fence}`);
  }
  return lines.join('\n');
}

/** The hover of a converted section (its body is a ```toon fence): what the fence saves and what Revert does. */
export function fenceHoverMarkdown(fences: MarkdownFences, uri: string, text: string, s: SectionResult, at: FenceAt, tok?: TokenizerName): string | undefined {
  const m = fences.fenceFigures(uri, text, at, s, tok);
  if (!m) return undefined;
  const against = m.exactOriginal ? 'the original markdown' : 'its canonical markdown rendering (the original is not known)';
  return [
    `**${cell(headingText(s))}** — TOON already (a \`\`\`toon fence)`,
    '',
    '| | markdown | TOON | converting |',
    '|---|---:|---:|---|',
    `| characters | ${fmtInt(m.chars.source)} | ${fmtInt(m.chars.toon)} | ${savesOrCosts(m.chars.savings, 'char')} (${formatPercent(Math.abs(m.chars.savings_pct))}) |`,
    `| tokens (\`${tok ?? 'o200k_base'}\`) | ${fmtInt(m.tokens.source)} | ${fmtInt(m.tokens.toon)} | ${savesOrCosts(m.tokens.savings, 'token')} |`,
    '',
    `Measured against ${against}: ${charsChange(m.chars)}. **Revert to Markdown** ${revertDescription(m.kind)}.`,
  ].join('\n');
}

/**
 * The whole-document plan as markdown (what the plan lens opens): the plan line, then one row per measured
 * section with its line, verdict, real tokens before → after and what converting does; converted sections say
 * so. Every figure is the one the section's lens and hover show.
 */
export function planSummaryMarkdown(memo: MarkdownFences, doc: TextDocument, plan: PlanResult): PlanSummary {
  const fences = memo.toonFencesOf(doc, plan);
  const name = doc.uri.slice(doc.uri.lastIndexOf('/') + 1);
  const title = `TOON plan: ${decodeURIComponentSafe(name)}`;
  const cp = plan.contextPlan;
  const net = { source: cp.net.source, toon: cp.net.hybrid, savings_pct: cp.net.savings_pct };
  const lines = [`# ${cell(title)}`, '', `${planLensTitle(plan, fences.length)}.`, '', `The hybrid document: ${charsChange(net)}, ${savesOrCosts(planTokenSavings(plan), 'token')} (\`${plan.tokenizer}\`).`, ''];
  lines.push('| line | section | verdict | tokens | converting |', '|---:|---|---|---:|---|');
  const text = doc.getText();
  for (const s of plan.sections) {
    if (!isMeasured(s)) continue;
    const line = s.slice.lineStart;
    if (convertedFenceOf(text, s, fences)) {
      lines.push(`| ${line} | ${cell(headingText(s))} | TOON already | | Revert to Markdown gives the markdown back |`);
      continue;
    }
    const v = s.verdict!;
    const t = s.tokens;
    const tokens = t ? `${fmtInt(t.source)} → ${fmtInt(t.toon)}` : `${fmtInt(v.token_estimates.source)} → ${fmtInt(v.token_estimates.toon)}`;
    lines.push(`| ${line} | ${cell(headingText(s))} | \`${v.verdict}\`${s.action === 'convert' ? ' (converts)' : ''} | ${tokens} | ${t ? fmtTokenSavings(t) : savesOrCosts(v.token_estimates.savings, 'token')} · ${charsChange(v.measured_chars)} |`);
  }
  return { title, markdown: lines.join('\n') + '\n' };
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function longestBacktickRun(s: string): number {
  let best = 0;
  for (const m of s.matchAll(/`+/g)) best = Math.max(best, m[0].length);
  return best;
}

export function markdownHover(doc: TextDocument, offset: number, plans: ReturnType<typeof markdownPlans>, fences: MarkdownFences, settings?: PlanSettings): Hover | undefined {
  const plan = plans.planFor(doc, settings);
  const s = sectionAtOffset(plan, offset);
  if (!s || !s.verdict) return undefined;
  // Only the heading line(s) (or a preamble's first line) carry the hover: elsewhere the text is the user's.
  const end = s.slice.kind === 'section' ? s.slice.headingEnd : doc.offsetAt({ line: doc.positionAt(s.slice.charStart).line + 1, character: 0 });
  if (offset > end || offset < s.slice.charStart) return undefined;
  const fence = convertedFenceOf(doc.getText(), s, fences.toonFencesOf(doc, plan));
  const value = fence ? fenceHoverMarkdown(fences, doc.uri, doc.getText(), s, fence, plan.tokenizer) : sectionHoverMarkdown(s);
  if (value === undefined) return undefined;
  return {
    contents: { kind: MarkupKind.Markdown, value },
    range: { start: doc.positionAt(s.slice.charStart), end: doc.positionAt(Math.max(s.slice.charStart, end - 1)) },
  };
}

export const markdownHoverFeature: FeatureModule = {
  name: 'markdown-hover',
  create(ctx) {
    const plans = markdownPlans(ctx);
    const fences = markdownFences(ctx);
    return {
      async hover(doc, params, token) {
        if (!isMarkdownDocument(ctx, doc)) return undefined;
        const settings = await ctx.settings.forDocument(doc.uri);
        const current = ctx.documents.get(doc.uri) ?? doc;
        if (overSizeLimit(current, settings)) return undefined;
        await plans.ready(current, token, settings); // time-sliced; then planFor answers at once
        return ctx.guard('markdown hover', doc.uri, () => markdownHover(current, current.offsetAt(params.position), plans, fences, settings), undefined);
      },
    };
  },
};

/**
 * Diagnostics on markdown and `.toon` files:
 * - the verdict engine's warnings that point at text (`toon/duplicate-rule`, `toon/vague-rule` where they
 *   point; `toon/long-section`, `toon/split-candidate` on the section's heading line, never across its body),
 *   none on a converted section (a ```toon fence is TOON already) or inside any ```toon fence;
 * - `toon/token-regression` (info, on the heading line) where a section saves characters but not real
 *   tokens (the engine's `token_regression`, which has no range of its own), in a document holding a ```toon
 *   fence or with `toonlens.tokenNotesAsDiagnostics`;
 * - agent-file advice on files agents load only (core/files.ts isAgentFile);
 * - `toon/fence-decode` for a ```toon fence (or a .toon file) that fails a strict decode;
 * - minus what the document's inline disable comments switch off.
 * All of it is the core's markdownDiagnostics (core/markdown/diagnostics.ts), the function `toonlens check` runs.
 * It is also where a markdown document's analysis runs once per version, so it sends the status-bar
 * text for that document: "analysing…" while the plan is computed, then the plan's figures.
 */
import { formatPercent } from '../../core/format';
import type { Diagnostic } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { PlanResult } from '../../core/markdown/engine';
import { markdownDiagnosticSteps, toonFileDiagnostics } from '../../core/markdown/diagnostics';
import { ruleCode } from '../../core/codes';
import type { FeatureModule } from '../../lsp/feature';
import { toLspDiagnostic } from '../../lsp/diagnostics';
import { charsChange, fmtInt, isMarkdownDocument, isToonDocument, markdownPlans, overSizeLimit, planState, planTokenSavings, savesOrCosts } from './plans';
import { markdownFences } from './fences';
import type { StatusParams } from '../../protocol/commands';
import { BACKGROUND_PAUSE_TURNS, contentModified, nextTurn, runSliced } from '../../lsp/timeSlice';
import { jsonAnalyzer } from '../json/documents';
import { serverWork } from '../../lsp/idle';
import { shortName } from '../../lsp/progress';
import type { CoreDiagnostic } from '../../core/types';

/** Core diagnostics → LSP, as steps (a large document has thousands: converted in time-sliced turns). */
function* toLspSteps(doc: TextDocument, core: readonly CoreDiagnostic[]): Generator<void, Diagnostic[], void> {
  const out: Diagnostic[] = [];
  for (let i = 0; i < core.length; i++) {
    out.push(toLspDiagnostic(doc, core[i]!));
    if ((i & 255) === 255) yield;
  }
  return out;
}

/** The status-bar text of a markdown document's plan, e.g. "TOON saves 53 tokens · 898 → 813 chars (9.5% fewer)". */
export function planStatus(uri: string, plan: PlanResult, fences = 0): StatusParams {
  const cp = plan.contextPlan;
  const { converting, measured, words } = planState(plan, fences);
  const net = { source: cp.net.source, toon: cp.net.hybrid, savings_pct: cp.net.savings_pct };
  // The same reading as the plan lens: savings only when the plan recommends converting.
  const text =
    converting === 0 && fences > 0
      ? 'TOON: converted'
      : converting && cp.recommend_hybrid
        ? `TOON ${savesOrCosts(planTokenSavings(plan), 'token')} · ${formatPercent(Math.abs(cp.net.savings_pct))} ${cp.net.savings_pct >= 0 ? 'fewer' : 'more'} chars`
        : 'TOON: keep markdown';
  const tooltip =
    converting === 0 && fences > 0
      ? `ToonLens plan: ${fences} ${fences === 1 ? 'section is' : 'sections are'} TOON; nothing left to convert.`
      : `ToonLens plan: ${converting} of ${fmtInt(measured)} sections convert; the hybrid is ${charsChange(net)}; ${words}.`;
  return { uri, text: `$(symbol-keyword) ${text}`, tooltip };
}

export const ANALYSING_TEXT = '$(sync~spin) ToonLens: analysing…';

/**
 * From this size a `.toon` file is decoded on the server's worker thread: the decode is one synchronous call of
 * the TOON library (seconds on a large file), which in-thread would hold every other request that long.
 */
export const TOON_OFF_THREAD_MIN_CHARS = 256 * 1024;

export const markdownDiagnosticsFeature: FeatureModule = {
  name: 'markdown-diagnostics',
  create(ctx) {
    const plans = markdownPlans(ctx);
    const fenceStore = markdownFences(ctx);
    const worker = jsonAnalyzer(ctx).worker;
    /** A `.toon` file's diagnostics: on the worker for a large one (a newer version supersedes the job), else here. */
    async function toonFileDiagnosticsOf(doc: TextDocument): Promise<CoreDiagnostic[]> {
      const text = doc.getText();
      if (text.length < TOON_OFF_THREAD_MIN_CHARS || !worker.available) return toonFileDiagnostics(text);
      const version = doc.version;
      const current = () => ctx.documents.get(doc.uri)?.version === version;
      const reply = await serverWork.track(worker.run({ op: 'toon', text }, current, { label: `decoding ${shortName(doc.uri)}` }));
      if (!current()) throw contentModified();
      if (reply?.ok && reply.toon) return reply.toon;
      if (reply && !reply.ok) ctx.log.error(`worker failed to decode ${doc.uri}: ${reply.error}`);
      return toonFileDiagnostics(text); // the worker is gone or failed: here
    }
    return {
      diagnostics: {
        appliesTo: (doc: TextDocument) => isMarkdownDocument(ctx, doc) || isToonDocument(doc),
        async provide(doc, settings): Promise<Diagnostic[]> {
          if (overSizeLimit(doc, settings)) {
            if (isMarkdownDocument(ctx, doc)) ctx.setStatus({ uri: doc.uri, text: '' });
            return [toLspDiagnostic(doc, { ...ruleCode('limits/too-large'), message: `File is larger than toonlens.maxFileSizeMB (${settings.maxFileSizeMB} MB): not analysed.`, range: { start: 0, end: 0 } })];
          }
          const text = doc.getText();
          if (isToonDocument(doc) && !isMarkdownDocument(ctx, doc)) return (await toonFileDiagnosticsOf(doc)).map((d) => toLspDiagnostic(doc, d));
          ctx.setStatus({ uri: doc.uri, text: ANALYSING_TEXT, tooltip: 'ToonLens is measuring the sections of this document.' });
          let plan: PlanResult;
          try {
            // Time-sliced; a failed analysis throws here (logged once by the plans, skipped by the scheduler).
            plan = await plans.planAsync(doc, undefined, settings);
          } catch (err) {
            ctx.setStatus({ uri: doc.uri, text: '' });
            throw err;
          }
          // A newer version arriving meanwhile (typing) supersedes this run (its own run publishes): it stops at
          // its next turn instead of delaying the lenses of the version being typed.
          const superseded = () => {
            const open = ctx.documents.get(doc.uri);
            return open && open.version !== doc.version ? contentModified() : undefined;
          };
          // The lens and hover requests waiting on the same plan are answered first: their responses are queued for
          // writing in this turn and encoded in the next; the status notification and this run's work come after
          // (a notification written first would hold the connection's writer while the lenses wait).
          await nextTurn();
          await nextTurn();
          const early = superseded();
          if (early) throw early;
          ctx.setStatus(planStatus(doc.uri, plan, fenceStore.toonFencesOf(doc, plan).length));
          // The fences of the plan's slices, checked once per slice text and time-sliced (never a whole-text parse).
          const fences = await plans.fenceDiagnostics(doc, plan);
          const late = superseded();
          if (late) throw late;
          const options = { path: doc.uri, agentFile: settings.project?.agentFile, tokenNotes: settings.tokenNotesAsDiagnostics };
          // Background work: a burst of requests (a screen's lens resolves) passes between its turns.
          const core = await runSliced(markdownDiagnosticSteps(text, plan, fences, (offset) => doc.positionAt(offset).line, options), superseded, undefined, BACKGROUND_PAUSE_TURNS);
          return runSliced(toLspSteps(doc, core), superseded, undefined, BACKGROUND_PAUSE_TURNS);
        },
      },
    };
  },
};

/** `toonlens plan <file|--stdin> [--json] [--out HYBRID.md]`: the per-section plan and the hybrid document. */
import { formatInt } from '../core/format';
import { flag, stringValue } from './args';
import { planOnce, type PlanResult } from '../core/markdown/engine';
import { tokenizer } from '../core/tokens';
import { maxOf } from '../core/arrays';
import { printJson } from './jsonOut';
import { compactTables } from '../core/markdown/compactTable';
import { displayWidth, truncateToWidth } from './textWidth';
import { COMMON, DELIMITERS, EXIT_LINE, TOKEN_OPTIONS, engineCommand, engineOptions, failOnList, failOnMatches, pct, readInput, tokenApprox, writeFileAtomic } from './engineArgs';

function planTable(plan: PlanResult, name: string, source: string): string {
  // The sections' plan alone: the whole-document verdict (its composed candidate) is not shown here.
  const cp = plan.contextPlan;
  const rows = cp.sections.map((s, i) => {
    const heading = s.kind === 'section' ? s.heading ?? '' : `(${s.kind})`;
    const m = s.measured_chars;
    const t = plan.sections[i]?.tokens;
    return [
      truncateToWidth(heading, 40),
      s.profile ?? '-',
      s.verdict ?? '-',
      s.action,
      m ? `${formatInt(m.source)} → ${formatInt(m.toon)}` : '-',
      m ? pct(m.savings_pct) : '-',
      t && s.action === 'convert' ? `${tokenApprox(t.estimator)}${formatInt(t.savings)}` : '-',
    ];
  });
  const head = ['section', 'profile', 'verdict', 'action', 'chars before → after', 'savings', 'tokens saved'];
  // Columns are measured in terminal cells, so CJK and emoji headings keep the table aligned.
  const widths = head.map((h, i) => maxOf(rows.map((r) => displayWidth(r[i]!)), displayWidth(h)));
  const fmt = (r: string[]) => r.map((c, i) => c + ' '.repeat(widths[i]! - displayWidth(c))).join('  ').trimEnd();
  const out = [`${name}: ${cp.sections.length} sections`, fmt(head), fmt(widths.map((w) => '-'.repeat(w))), ...rows.map(fmt)];
  out.push('');
  out.push(`net: ${formatInt(cp.net.source)} → ${formatInt(cp.net.hybrid)} chars (savings ${formatInt(cp.net.savings)}, ${pct(cp.net.savings_pct)})`);
  const nt = plan.tokens;
  out.push(`tokens: ${formatInt(nt.source)} → ${formatInt(nt.hybrid)} (savings ${formatInt(nt.savings)}, ${nt.estimator})`);
  const compact = compactTables(source);
  if (compact.edits.length) {
    const tok = tokenizer(plan.tokenizer);
    const saved = tok.count(source) - tok.count(compact.text);
    out.push(`compact tables (markdown kept, same HTML): ${compact.edits.length} table${compact.edits.length === 1 ? '' : 's'}, ${formatInt(source.length)} → ${formatInt(compact.text.length)} chars, tokens saved ${tokenApprox(tok.estimator)}${formatInt(saved)}`);
  }
  out.push(`hybrid recommended: ${cp.recommend_hybrid ? 'yes' : 'no'}; safe to auto-apply: ${cp.safe_to_auto_apply ? 'yes' : 'no'}; reassembly verified: ${cp.reassembly_verified ? 'yes' : 'no'}`);
  return out.join('\n') + '\n';
}

const HELP = `Usage: toonlens plan <file | - | --stdin> [--json] [--out HYBRID.md] [--fail-on LIST]

Measures every heading-bounded section standalone and assembles the hybrid document
(verdict.v1 schema 1.1 with context_plan). Without --json a table is printed, one row per section.

Options:
  --out FILE             write the hybrid document to FILE (atomically)
  --json                 print the plan JSON
  --delimiter auto|comma|tab|pipe
  --stdin, -             read the document from standard input
  --fail-on LIST         exit 1 when the document verdict, a section verdict or a warning severity is in LIST
  --chars-per-token LIST ratio estimates to report (default 3.5,4,4.5)
${TOKEN_OPTIONS}
  -h, --help             show this help

Examples:
  toonlens plan AGENTS.md
  toonlens plan AGENTS.md --out AGENTS.hybrid.md
  toonlens plan AGENTS.md --json --fail-on review

${EXIT_LINE}
`;

export const run = engineCommand('plan', HELP, { ...COMMON, out: { type: 'string' }, delimiter: { type: 'string', choices: DELIMITERS } }, async (p, io) => {
  const failOn = failOnList(p);
  const input = await readInput(p, io);
  const opts = engineOptions(p, input.sourceType);
  const plan = planOnce(input.text, opts);
  const out = stringValue(p, 'out');
  if (out !== undefined) writeFileAtomic(io, out, plan.hybrid);
  if (flag(p, 'json')) printJson(io, plan.verdict);
  else {
    io.stdout(planTable(plan, input.name, input.text));
    if (out !== undefined) io.stdout(`wrote ${out}\n`);
  }
  // Read only for --fail-on: a text plan builds no whole-document verdict it does not print.
  if (!failOn.length) return 0;
  const cp = plan.verdict.context_plan!;
  const verdicts = [plan.verdict.verdict, ...cp.sections.map((s) => s.verdict).filter((x): x is NonNullable<typeof x> => x !== null)];
  const warnings = [...plan.verdict.warnings, ...cp.sections.flatMap((s) => s.warnings)];
  return failOnMatches(failOn, verdicts, warnings) ? 1 : 0;
});

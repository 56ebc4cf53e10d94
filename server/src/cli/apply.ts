/**
 * `toonlens apply <report.json> [--tier auto|confirm|all] [--dry-run] [--format text|json] [--root DIR]`
 *
 * Applies a docs-hygiene report's exact_edits, one line per entry. Never writes on any doubt: every
 * entry is planned by the same core planner the editor uses (containment, sha256 guard, live git
 * re-verification), and a confirm-tier entry is skipped unless --tier confirm or all. Entries touching a
 * file an earlier entry already changes are skipped (their hash predates that change).
 *
 * --tier auto (default) applies auto-tier entries only; confirm applies confirm-tier entries only (you
 * reviewed them); all applies both. A git or extraction doubt is never overridden here: the CLI cannot ask.
 * --root is the workspace folder every path must stay inside; by default the git work tree holding the
 * report, else the report's folder (never the current directory: running from $HOME must not widen it).
 *
 * Exit codes: 0 nothing refused; 1 something was refused for safety (stale, unsafe path, git doubt, …);
 * 2 usage or I/O error (unreadable report, not JSON, a write that failed).
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import type { CliIO } from './io';
import { parseJson } from '../core/json/parse';
import { planExactEdit, type TierAllowed } from '../core/report/exactEdit';
import { planBatch } from '../core/report/lenses';
import { entriesOf, get, str } from '../core/report/shape';
import { applyChangesNode, createNodeWorkspace, findGitToplevel } from '../node/workspace';

const USAGE = `Usage: toonlens apply <report.json> [--tier auto|confirm|all] [--dry-run] [--format text|json] [--root DIR]

Applies the report's exact_edits that are safe to apply; prints one line per entry.
  --tier auto      auto-tier entries only (default)
  --tier confirm   confirm-tier entries only (after you reviewed them)
  --tier all       both
  --dry-run        plan and print, write nothing
  --format json    machine-readable result
  --root DIR       folder every path must stay inside (default: the git work tree holding the report, else its folder)
Exit: 0 ok, 1 something refused for safety, 2 usage or I/O error.
`;

interface ApplyArgs {
  report: string;
  tier: TierAllowed;
  dryRun: boolean;
  format: 'text' | 'json';
  root?: string;
}

function parseArgs(argv: string[]): ApplyArgs | string {
  let report: string | undefined;
  let tier: TierAllowed = 'auto';
  let dryRun = false;
  let format: 'text' | 'json' = 'text';
  let root: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = (): string | undefined => {
      const eq = a.indexOf('=');
      if (eq >= 0) return a.slice(eq + 1);
      i++;
      return argv[i];
    };
    if (a === '--dry-run') dryRun = true;
    else if (a === '--tier' || a.startsWith('--tier=')) {
      const v = value();
      if (v !== 'auto' && v !== 'confirm' && v !== 'all') return `--tier must be auto, confirm or all`;
      tier = v;
    } else if (a === '--format' || a.startsWith('--format=')) {
      const v = value();
      if (v !== 'text' && v !== 'json') return `--format must be text or json`;
      format = v;
    } else if (a === '--root' || a.startsWith('--root=')) {
      const v = value();
      if (!v) return '--root needs a directory';
      root = v;
    } else if (a.startsWith('-') && a !== '-') return `unknown option ${a}`;
    else if (report === undefined) report = a;
    else return 'apply takes exactly one report file';
  }
  if (report === undefined) return 'missing <report.json>';
  return { report, tier, dryRun, format, root };
}

type Status = 'applied' | 'would-apply' | 'skipped' | 'refused' | 'failed';

interface EntryResult {
  entryIndex: number;
  path: string | null;
  kind: string | null;
  status: Status;
  summary?: string;
  reason?: string;
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout(USAGE);
    return 0;
  }
  const args = parseArgs(argv);
  if (typeof args === 'string') {
    io.stderr(`toonlens apply: ${args}\n\n${USAGE}`);
    return 2;
  }
  const reportPath = nodePath.resolve(io.cwd, args.report);
  let text: string;
  try {
    text = fs.readFileSync(reportPath, 'utf8');
  } catch (e) {
    io.stderr(`toonlens apply: cannot read ${args.report}: ${(e as NodeJS.ErrnoException).code ?? String(e)}\n`);
    return 2;
  }
  const parsed = parseJson(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) {
    io.stderr(`toonlens apply: ${args.report} is not JSON: ${parsed.problem.message}\n`);
    return 2;
  }
  const report = parsed.value;
  const root = args.root ? nodePath.resolve(io.cwd, args.root) : (findGitToplevel(nodePath.dirname(reportPath)) ?? nodePath.dirname(reportPath));
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) {
    io.stderr(`toonlens apply: ${root} is not a directory\n`);
    return 2;
  }
  const workspace = createNodeWorkspace(root);
  const batch = planBatch(report, (i) => planExactEdit(report, i, workspace, { tierAllowed: args.tier, trusted: true, reportFsPath: reportPath }));

  const results: EntryResult[] = [];
  const entries = entriesOf(report);
  const describe = (i: number) => ({
    path: str(get(entries[i], 'path')) ?? null,
    kind: str(get(get(entries[i], 'exact_edit'), 'kind')) ?? null,
  });
  let refused = false;
  let ioFailed = false;
  for (const s of batch.skipped) {
    refused ||= s.refusedForSafety;
    results.push({ entryIndex: s.entryIndex, ...describe(s.entryIndex), status: s.refusedForSafety ? 'refused' : 'skipped', reason: s.reason });
  }
  for (const a of batch.applied) {
    if (args.dryRun) {
      results.push({ entryIndex: a.entryIndex, ...describe(a.entryIndex), status: 'would-apply', summary: a.summary });
      continue;
    }
    const written = applyChangesNode(a.changes, root);
    if (written.ok) results.push({ entryIndex: a.entryIndex, ...describe(a.entryIndex), status: 'applied', summary: a.summary });
    else {
      ioFailed = true;
      results.push({ entryIndex: a.entryIndex, ...describe(a.entryIndex), status: 'failed', reason: `nothing written: ${written.reason}` });
    }
  }
  results.sort((x, y) => x.entryIndex - y.entryIndex);

  if (args.format === 'json') {
    const count = (s: Status) => results.filter((r) => r.status === s).length;
    io.stdout(
      JSON.stringify(
        { report: reportPath, root, tier: args.tier, dryRun: args.dryRun, results, applied: count('applied'), wouldApply: count('would-apply'), skipped: count('skipped'), refused: count('refused'), failed: count('failed') },
        null,
        2,
      ) + '\n',
    );
  } else {
    if (results.length === 0) io.stdout('no entries\n');
    for (const r of results) {
      const label = `entries[${r.entryIndex}] ${r.path ?? '?'}`;
      if (r.status === 'applied') io.stdout(`${label}: applied: ${r.summary}\n`);
      else if (r.status === 'would-apply') io.stdout(`${label}: would apply: ${r.summary}\n`);
      else io.stdout(`${label}: ${r.status}: ${r.reason}\n`);
    }
  }
  return ioFailed ? 2 : refused ? 1 : 0;
}

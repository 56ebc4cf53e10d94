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
 * 2 on an error (bad_request: bad arguments or a report that is not JSON; input_not_found; io: a write that failed).
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { defineCommand, flag, stringValue, usageError, type OptionDefs, type ParsedArgs } from './args';
import { parseJson } from '../core/json/parse';
import { planExactEdit, type PlanResult, type TierAllowed } from '../core/agentJson/report/exactEdit';
import type { FileChange } from '../core/agentJson/report/changes';
import { previewChanges, type ChangePreview } from '../core/agentJson/report/preview';
import type { SafetyTier } from '../core/agentJson/report/safetyTier';
import { readRegularText } from '../node/files';
import { planBatch } from '../core/agentJson/report/lenses';
import { entriesOf, get, str } from '../core/agentJson/report/shape';
import { applyChangesNode, createNodeWorkspace, findGitToplevel } from '../node/workspace';
import { readInputText } from './input';
import { kindFromContent, kindFromSchemaUrl } from '../core/agentJson/kinds';

/** Why a parsed value is not a docs-hygiene report, or undefined when it is one (by `$schema` or its distinctive keys). */
function notAReport(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value === null ? 'it is null' : Array.isArray(value) ? 'it is an array' : `it is a ${typeof value}`;
  const schema = (value as Record<string, unknown>).$schema;
  const bySchema = typeof schema === 'string' ? kindFromSchemaUrl(schema) : undefined;
  const kind = bySchema ?? kindFromContent(value);
  if (kind === 'report') return undefined;
  return kind ? `it is a ${kind} document` : 'it lacks shortlist, entries and generated_at';
}

const USAGE = `Usage: toonlens apply <report.json> [--tier auto|confirm|all] [--dry-run] [--format text|json] [--root DIR]

Applies the report's exact_edits that are safe to apply; prints one line per entry.

Options:
  --tier auto      auto-tier entries only (default)
  --tier confirm   confirm-tier entries only (after you reviewed them)
  --tier all       both
  --dry-run        plan and print, write nothing
  --format json    machine-readable result
  --root DIR       folder every path must stay inside (default: the git work tree holding the report, else its folder)
  -h, --help       show this help

Examples:
  toonlens apply hygiene-report.json --dry-run
  toonlens apply hygiene-report.json
  toonlens apply hygiene-report.json --tier all --format json

Exit status: 0 nothing refused, 1 something refused for safety, 2 on an error (bad_request, input_not_found, io).
`;

interface ApplyArgs {
  report: string;
  tier: TierAllowed;
  dryRun: boolean;
  format: 'text' | 'json';
  root?: string;
}

const OPTIONS: OptionDefs = {
  tier: { type: 'string', choices: ['auto', 'confirm', 'all'] },
  'dry-run': { type: 'boolean' },
  format: { type: 'string', choices: ['text', 'json'] },
  root: { type: 'string' },
};

function applyArgs(p: ParsedArgs): ApplyArgs {
  if (p.positionals.length === 0) throw usageError('missing <report.json>');
  if (p.positionals.length > 1) throw usageError('apply takes exactly one report file');
  const root = stringValue(p, 'root');
  if (root === '') throw usageError('--root needs a directory');
  return {
    report: p.positionals[0]!,
    tier: (stringValue(p, 'tier') as TierAllowed | undefined) ?? 'auto',
    dryRun: flag(p, 'dry-run'),
    format: (stringValue(p, 'format') as 'text' | 'json' | undefined) ?? 'text',
    root,
  };
}

export type Status = 'applied' | 'would-apply' | 'skipped' | 'refused' | 'failed';

export interface EntryResult {
  entryIndex: number;
  path: string | null;
  kind: string | null;
  status: Status;
  /** The entry's effective safety tier, when the planner got as far as deriving it. */
  tier?: SafetyTier;
  /** What a planned entry does, per file (path, lines, action, a short preview), read before anything is written. */
  changes?: Omit<ChangePreview, 'revealLine'>[];
  summary?: string;
  reason?: string;
}

/** The JSON `apply --format json` prints, shared with the MCP server's apply_report tool. */
export interface ApplyJson {
  report: string;
  root: string;
  tier: TierAllowed;
  dryRun: boolean;
  results: EntryResult[];
  applied: number;
  wouldApply: number;
  skipped: number;
  refused: number;
  failed: number;
}

export interface ApplyRun {
  /** Absolute path of the report file (its folder + scan.project_root is the project root). */
  reportPath: string;
  /** The folder every path must stay inside. */
  root: string;
  /** The tier recorded in the output. */
  tier: TierAllowed;
  /** The tier an entry may be applied at (the CLI: `tier` for every entry; MCP: confirm tier only for named entries). */
  tierFor?: (entryIndex: number) => TierAllowed;
  dryRun: boolean;
}

/**
 * Plans every exact_edit of a parsed report (the editor's planner: containment, sha256 guard, live git checks) and,
 * unless a dry run, writes the planned ones through the one verified writer. `refused` says a safety refusal
 * happened, `ioFailed` that a write failed.
 */
export function applyReport(report: unknown, run: ApplyRun): { json: ApplyJson; refused: boolean; ioFailed: boolean } {
  const { reportPath, root, dryRun } = run;
  const tierFor = run.tierFor ?? (() => run.tier);
  const workspace = createNodeWorkspace(root);
  const plans = new Map<number, PlanResult>();
  const batch = planBatch(report, (i) => {
    const plan = planExactEdit(report, i, workspace, { tierAllowed: tierFor(i), trusted: true, reportFsPath: reportPath });
    plans.set(i, plan);
    return plan;
  });
  const tierOf = (i: number) => {
    const t = plans.get(i)?.tier;
    return t === undefined ? {} : { tier: t };
  };
  const textOf = (abs: string) => {
    const r = readRegularText(abs);
    return r.ok ? r.text : undefined;
  };
  const previewOf = (changes: FileChange[]) => previewChanges(changes, root, textOf).map(({ revealLine: _, ...p }) => p);

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
    results.push({ entryIndex: s.entryIndex, ...describe(s.entryIndex), status: s.refusedForSafety ? 'refused' : 'skipped', ...tierOf(s.entryIndex), reason: s.reason });
  }
  for (const a of batch.applied) {
    const planned = { ...tierOf(a.entryIndex), changes: previewOf(a.changes) };
    if (dryRun) {
      results.push({ entryIndex: a.entryIndex, ...describe(a.entryIndex), status: 'would-apply', ...planned, summary: a.summary });
      continue;
    }
    const written = applyChangesNode(a.changes, root);
    if (written.ok) results.push({ entryIndex: a.entryIndex, ...describe(a.entryIndex), status: 'applied', ...planned, summary: a.summary });
    else {
      ioFailed = true;
      results.push({ entryIndex: a.entryIndex, ...describe(a.entryIndex), status: 'failed', reason: `nothing written: ${written.reason}` });
    }
  }
  results.sort((x, y) => x.entryIndex - y.entryIndex);
  const count = (s: Status) => results.filter((r) => r.status === s).length;
  const json: ApplyJson = { report: reportPath, root, tier: run.tier, dryRun, results, applied: count('applied'), wouldApply: count('would-apply'), skipped: count('skipped'), refused: count('refused'), failed: count('failed') };
  return { json, refused, ioFailed };
}

/** A report file's text parsed and checked to be a docs-hygiene report, else a bad_request error. */
export function parseReport(shown: string, text: string): unknown {
  const parsed = parseJson(text.replace(/^\uFEFF/, ''));
  if (!parsed.ok) throw usageError(`${shown} is not JSON: ${parsed.problem.message}`);
  const notReport = notAReport(parsed.value);
  if (notReport) throw usageError(`${shown} is not a docs-hygiene report (${notReport}); nothing applied`);
  return parsed.value;
}

export const run = defineCommand({ name: 'apply', options: OPTIONS, help: USAGE, errorExit: 2 }, async (p, io) => {
  const args = applyArgs(p);
  const reportPath = nodePath.resolve(io.cwd, args.report);
  const report = parseReport(args.report, readInputText(args.report, reportPath));
  const root = args.root ? nodePath.resolve(io.cwd, args.root) : (findGitToplevel(nodePath.dirname(reportPath)) ?? nodePath.dirname(reportPath));
  if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw usageError(`--root ${root} is not a directory`);
  const { json, refused, ioFailed } = applyReport(report, { reportPath, root, tier: args.tier, dryRun: args.dryRun });
  const results = json.results;

  if (args.format === 'json') {
    io.stdout(JSON.stringify(json, null, 2) + '\n');
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
});

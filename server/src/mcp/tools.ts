/**
 * The MCP tools: each one a thin adapter over the CLI command (run in memory, its `--json` output returned as is)
 * or over the core function the CLI command calls, so an agent and CI get the same answers.
 */
import * as nodePath from 'node:path';
import { CliError } from '../cli/io';
import { runCli, cliJson, readFailures, type CliCommand } from './cliBridge';
import { run as runCheck } from '../cli/check';
import { run as runProfile } from '../cli/profile';
import { run as runConvert } from '../cli/convert';
import { run as runPlan } from '../cli/plan';
import { run as runValidate } from '../cli/validate';
import { run as runDecode } from '../cli/decode';
import { strictDecode } from '../cli/engineArgs';
import { run as runSchemaDiff, schemaDiffRows } from '../cli/schemaDiff';
import { applyReport, parseReport } from '../cli/apply';
import { run as runContext } from '../cli/context';
import { isInside } from '../core/agentJson/report/paths';
import { findGitToplevel } from '../node/workspace';
import { readInputText } from '../cli/input';
import { diffSchemas, hasBreaking, schemaRoleFromFileName, type SchemaRole } from '../core/agentJson/schemaDiff';
import { sectionConvertEdit, planDocument, type EngineOptions } from '../core/markdown/engine';
import { KEEP_MARKER_CODE } from '../core/markdown/policy';
import type { TokenizerName } from '../core/tokens';
import { DOCUMENT_KINDS } from '../core/types';
import { checkText, fixText, type TextKind } from './check';
import type { Roots } from './roots';
import { SCHEMAS, type JsonSchema, type ToolName } from './schemas';
import { errorMessage } from '../core/errors';

/** What a tool call runs with. */
export interface ToolContext {
  roots: Roots;
  /** The server was started with --allow-writes. */
  allowWrites: boolean;
}

export type Args = Record<string, unknown>;

export interface Tool {
  name: ToolName;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: false };
  run(args: Args, ctx: ToolContext): Promise<Record<string, unknown>>;
}

const bad = (message: string): CliError => new CliError('bad_request', message);

/** Exactly one of two arguments. */
function oneOf(args: Args, a: string, b: string): string {
  const has = (k: string) => args[k] !== undefined;
  if (has(a) === has(b)) throw bad(has(a) ? `give ${a} or ${b}, not both` : `missing input: give ${a} or ${b}`);
  return has(a) ? a : b;
}

type Source = { text: string; abs?: undefined; root: string } | { text?: undefined; abs: string; root: string; shown: string };

/** The document a call names: its text, or a path resolved inside the roots (read by the CLI command). */
async function source(args: Args, ctx: ToolContext): Promise<Source> {
  if (oneOf(args, 'text', 'path') === 'text') {
    const roots = await ctx.roots.list();
    return { text: args.text as string, root: roots[0] ?? process.cwd() };
  }
  const { abs, root } = await ctx.roots.resolve(args.path as string);
  return { abs, root, shown: args.path as string };
}

/** How a CLI command run in `root` is given a file: relative to the root (its messages then name it so). */
function cliPath(abs: string, root: string): string {
  const rel = nodePath.relative(root, abs);
  return rel === '' ? '.' : rel;
}

/** The engine flags of profile / convert / plan from the arguments (the CLI checks what the schema cannot). */
function engineFlags(args: Args): string[] {
  const out: string[] = [];
  const put = (flag: string, v: unknown) => {
    if (v !== undefined) out.push(`--${flag}`, String(v));
  };
  put('tokenizer', args.tokenizer);
  put('min-token-savings', args.min_token_savings);
  if (Array.isArray(args.chars_per_token)) out.push('--chars-per-token', args.chars_per_token.join(','));
  put('mode', args.mode);
  put('delimiter', args.delimiter);
  put('target-chars', args.target_chars);
  put('target-tokens', args.target_tokens);
  if (args.allow_lossy === true) out.push('--allow-lossy');
  return out;
}

/** A verdict command (`profile`, `convert`, `plan`) on the text (as `--stdin`) or the file. */
async function verdictCommand(command: CliCommand, args: Args, ctx: ToolContext): Promise<Record<string, unknown>> {
  const src = await source(args, ctx);
  const argv = ['--json', ...engineFlags(args), ...(src.text !== undefined ? ['--stdin'] : ['--', cliPath(src.abs, src.root)])];
  return cliJson(await runCli(command, argv, src.root, src.text)) as Record<string, unknown>;
}

function textKind(args: Args): TextKind | undefined {
  return args.kind as TextKind | undefined;
}

async function checkOrFix(args: Args, ctx: ToolContext): Promise<{ abs: string; shown: string; root: string; text?: string }> {
  const src = await source(args, ctx);
  if (src.text === undefined) {
    if (args.file_name !== undefined) throw bad('file_name goes with text, not with path');
    return { abs: src.abs, shown: src.shown, root: src.root };
  }
  const kind = textKind(args);
  const fallback = kind === 'markdown' ? 'document.md' : kind === 'toon' ? 'document.toon' : 'document.json';
  const name = typeof args.file_name === 'string' ? args.file_name : fallback;
  const { abs, root } = await ctx.roots.resolve(name, 'file_name');
  return { abs, shown: typeof args.file_name === 'string' ? args.file_name : '<text>', root, text: src.text };
}

const READ_ONLY = { readOnlyHint: true, openWorldHint: false } as const;

const tools: Tool[] = [
  {
    name: 'check',
    title: 'Check agent JSON, markdown or TOON',
    description:
      'The editor\'s diagnostics for one document: a verdict, docs-hygiene report, critique report or recipe-build payload (JSON), a markdown agent file, or a .toon file, given as text or as a path under the server\'s roots. Returns exactly what `toonlens check --format json` prints: codes, severities, messages and 0-based ranges; with details: true also 1-based locations and the fixes each diagnostic offers (apply them with `fix`). Call it on JSON you are about to emit.',
    inputSchema: SCHEMAS.check.input,
    outputSchema: SCHEMAS.check.output,
    annotations: READ_ONLY,
    async run(args, ctx) {
      const doc = await checkOrFix(args, ctx);
      const details = args.details === true;
      if (doc.text !== undefined) return { files: [checkText(doc.text, { abs: doc.abs, shown: doc.shown, root: doc.root, kind: textKind(args), details })] };
      if (details) {
        // The same report as the CLI's for this one file, with the details added.
        const text = readInputText(doc.shown, doc.abs);
        return { files: [checkText(text, { abs: doc.abs, shown: cliPath(doc.abs, doc.root).split(nodePath.sep).join('/'), root: doc.root, kind: textKind(args), details })] };
      }
      const kind = textKind(args);
      const argv = ['--format', 'json', ...(kind && (DOCUMENT_KINDS as readonly string[]).includes(kind) ? ['--kind', kind] : []), '--', cliPath(doc.abs, doc.root)];
      const run = await runCli(runCheck, argv, doc.root);
      const failures = readFailures(run);
      if (failures.length) throw new CliError('io', failures[0]!);
      return { files: cliJson(run) as unknown[] };
    },
  },
  {
    name: 'fix',
    title: 'Apply every fix `check --fix` would to a document (returns text, never writes)',
    description: 'Applies every fix `toonlens check --fix` would apply (derived fields recomputed; on markdown, the opt-in fixes the `.toonlens.json` `fix` turns on, such as compactTables) to the document and returns the new text and what remains. Never writes a file.',
    inputSchema: SCHEMAS.fix.input,
    outputSchema: SCHEMAS.fix.output,
    annotations: READ_ONLY,
    async run(args, ctx) {
      const doc = await checkOrFix(args, ctx);
      const text = doc.text ?? readInputText(doc.shown, doc.abs);
      return { ...fixText(text, { abs: doc.abs, shown: doc.text !== undefined ? doc.shown : nodePath.relative(doc.root, doc.abs).split(nodePath.sep).join('/'), root: doc.root, kind: textKind(args) }) };
    },
  },
  {
    name: 'profile',
    title: 'Profile a markdown document (verdict without the TOON payload)',
    description: 'Whether converting a markdown document to TOON is worth it, before it is loaded into context: verdict.v1 (schema 1.0, toon_candidate null), exactly as `toonlens profile --json` prints it.',
    inputSchema: SCHEMAS.profile.input,
    outputSchema: SCHEMAS.profile.output,
    annotations: READ_ONLY,
    run: (args, ctx) => verdictCommand(runProfile, args, ctx),
  },
  {
    name: 'convert',
    title: 'Convert a markdown document to TOON (verdict with the payload)',
    description: 'The TOON candidate of a document and its verdict.v1, exactly as `toonlens convert --json` prints it. An unreachable budget without allow_lossy is the verdict refused, not an error.',
    inputSchema: SCHEMAS.convert.input,
    outputSchema: SCHEMAS.convert.output,
    annotations: READ_ONLY,
    run: (args, ctx) => verdictCommand(runConvert, args, ctx),
  },
  {
    name: 'plan',
    title: 'Per-section context plan (markdown + TOON hybrid)',
    description: 'Every heading-bounded section measured standalone, and whether a markdown+TOON hybrid is recommended: verdict.v1 schema 1.1 with context_plan, exactly as `toonlens plan --json` prints it.',
    inputSchema: SCHEMAS.plan.input,
    outputSchema: SCHEMAS.plan.output,
    annotations: READ_ONLY,
    run: (args, ctx) => verdictCommand(runPlan, args, ctx),
  },
  {
    name: 'convert_section',
    title: 'Convert one section of a markdown document (returns text, never writes)',
    description: 'One section, by heading or by a line inside it: its standalone verdict, its TOON candidate, and the whole document with that section converted exactly as the editor\'s Convert would write it. Never writes a file.',
    inputSchema: SCHEMAS.convert_section.input,
    outputSchema: SCHEMAS.convert_section.output,
    annotations: READ_ONLY,
    async run(args, ctx) {
      const src = await source(args, ctx);
      const by = oneOf(args, 'heading', 'line');
      const text = src.text ?? readInputText(src.shown, src.abs);
      const opts: EngineOptions = {};
      if (args.tokenizer !== undefined) opts.tokenizer = args.tokenizer as TokenizerName;
      if (args.min_token_savings !== undefined) opts.minTokenSavings = args.min_token_savings as number;
      if (args.delimiter !== undefined) opts.delimiter = args.delimiter as EngineOptions['delimiter'];
      if (Array.isArray(args.chars_per_token)) opts.charsPerToken = args.chars_per_token as number[];
      const plan = planDocument(text, opts);
      const heading = typeof args.heading === 'string' ? args.heading.trim() : undefined;
      const line = args.line as number | undefined;
      const s = plan.sections.find((x) => (by === 'heading' ? x.slice.heading !== null && x.slice.heading.trim() === heading : x.slice.lineStart <= line! && line! <= x.slice.lineEnd));
      if (!s) {
        const headings = plan.sections.filter((x) => x.slice.heading !== null).map((x) => x.slice.heading!);
        throw bad(by === 'heading' ? `no section has the heading '${heading}' (headings: ${headings.slice(0, 20).join(' | ') || 'none'})` : `line ${line} is past the end of the document (${plan.sections.at(-1)?.slice.lineEnd ?? 0} lines)`);
      }
      // The editor's rule (features/markdown/convert.ts): the candidate strictly decoded and the section is not marked keep.
      // (a section converting by block writes its tables and lists fenced, the prose kept: its segment either way)
      const convertible = !!s.verdict && s.verdict.flags.valid && !s.verdict.warnings.some((w) => w.code === KEEP_MARKER_CODE) && (typeof s.candidate === 'string' || s.blockSummary !== null);
      let converted: string | null = null;
      if (convertible) {
        const e = sectionConvertEdit(s);
        converted = text.slice(0, e.start) + e.newText + text.slice(e.end);
      }
      const sl = s.slice;
      return {
        section: { kind: sl.kind, heading: sl.heading, level: sl.level, line_start: sl.lineStart, line_end: sl.lineEnd },
        action: s.action,
        convertible,
        verdict: s.verdict as unknown as Record<string, unknown> | null,
        candidate: s.candidate,
        text: converted,
      };
    },
  },
  {
    name: 'validate_toon',
    title: 'Validate TOON text (strict decode)',
    description: 'Strictly decodes TOON with the official decoder: {valid: true, file} as `toonlens validate --json` prints it, or an invalid_toon error naming the line.',
    inputSchema: SCHEMAS.validate_toon.input,
    outputSchema: SCHEMAS.validate_toon.output,
    annotations: READ_ONLY,
    async run(args, ctx) {
      const src = await source(args, ctx);
      if (src.text === undefined) return cliJson(await runCli(runValidate, ['--json', '--', cliPath(src.abs, src.root)], src.root)) as Record<string, unknown>;
      strictDecode(src.text.replace(/\r?\n$/, ''), '<text>');
      return { valid: true, file: null };
    },
  },
  {
    name: 'decode_toon',
    title: 'Decode TOON to JSON',
    description: 'Strictly decodes TOON and returns the JSON value (as `toonlens decode` prints it), or an invalid_toon error naming the line.',
    inputSchema: SCHEMAS.decode_toon.input,
    outputSchema: SCHEMAS.decode_toon.output,
    annotations: READ_ONLY,
    async run(args, ctx) {
      const src = await source(args, ctx);
      if (src.text === undefined) return { value: cliJson(await runCli(runDecode, ['--', cliPath(src.abs, src.root)], src.root)) };
      return { value: strictDecode(src.text.replace(/\r?\n$/, ''), '<text>') };
    },
  },
  {
    name: 'schema_diff',
    title: 'Breaking and additive changes between two JSON Schemas',
    description: 'Classifies every change from the old schema to the new one as breaking or additive for the schema\'s role (input: tightening breaks; output: loosening breaks), exactly as `toonlens schema-diff --format json` prints them.',
    inputSchema: SCHEMAS.schema_diff.input,
    outputSchema: SCHEMAS.schema_diff.output,
    annotations: READ_ONLY,
    async run(args, ctx) {
      const oldBy = oneOf(args, 'old_schema', 'old_path');
      const newBy = oneOf(args, 'new_schema', 'new_path');
      const names = [args.new_path, args.old_path].filter((x): x is string => typeof x === 'string');
      const role: SchemaRole = (args.role as SchemaRole | undefined) ?? names.map((n) => schemaRoleFromFileName(n)).find((r) => r !== undefined) ?? 'both';
      if (oldBy === 'old_path' && newBy === 'new_path') {
        const o = await ctx.roots.resolve(args.old_path as string, 'old_path');
        const n = await ctx.roots.resolve(args.new_path as string, 'new_path');
        const argv = ['--format', 'json', ...(role === 'both' ? [] : ['--role', role]), '--', cliPath(o.abs, n.root), cliPath(n.abs, n.root)];
        const changes = cliJson(await runCli(runSchemaDiff, argv, n.root)) as { classification: string }[];
        return { role, breaking: changes.some((c) => c.classification === 'breaking'), changes };
      }
      const load = async (by: string): Promise<unknown> => {
        if (by.endsWith('_schema')) return args[by];
        const { abs } = await ctx.roots.resolve(args[by] as string, by);
        const text = readInputText(args[by] as string, abs);
        try {
          return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
        } catch (err) {
          throw bad(`${args[by] as string} is not JSON: ${errorMessage(err)}`);
        }
      };
      const changes = diffSchemas(await load(oldBy), await load(newBy), role);
      return { role, breaking: hasBreaking(changes), changes: schemaDiffRows(changes) };
    },
  },
  {
    name: 'context',
    title: 'What each coding agent loads from a repository, in real tokens',
    description: 'Per agent (Claude Code, Codex, Copilot, Cursor, Gemini CLI) the instruction, rule, skill and prompt files it loads for a working path, each with its class (always, matching, on use) and real token count, the total paid on every request, the import graph, and the waste (duplicate instructions across files loaded together, over-budget agents, unreachable files), exactly as `toonlens context --json` prints it.',
    inputSchema: SCHEMAS.context.input,
    outputSchema: SCHEMAS.context.output,
    annotations: READ_ONLY,
    async run(args, ctx) {
      const roots = await ctx.roots.list();
      const dir = typeof args.path === 'string' ? (await ctx.roots.resolve(args.path)).abs : roots[0] ?? process.cwd();
      const argv = ['--json'];
      for (const a of Array.isArray(args.agent) ? args.agent : []) argv.push('--agent', String(a));
      if (typeof args.for === 'string') argv.push('--for', args.for);
      if (typeof args.tokenizer === 'string') argv.push('--tokenizer', args.tokenizer);
      argv.push('--', '.');
      return cliJson(await runCli(runContext, argv, dir)) as Record<string, unknown>;
    },
  },
  {
    name: 'apply_report',
    title: 'Apply a docs-hygiene report\'s exact_edits (dry run unless confirmed)',
    description:
      'Plans every exact_edit of a docs-hygiene report file (containment, sha256 guard, git checks) and returns the plan, as `toonlens apply --dry-run --format json` prints it. Writes only with confirm: true on a server started with --allow-writes; confirm-tier entries only when listed in confirm_entries.',
    inputSchema: SCHEMAS.apply_report.input,
    outputSchema: SCHEMAS.apply_report.output,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    async run(args, ctx) {
      const write = args.confirm === true;
      if (write && !ctx.allowWrites) throw bad('writes are off: this server was started without --allow-writes (call without confirm for the dry run)');
      const { abs, root: mcpRoot } = await ctx.roots.resolve(args.path as string);
      const report = parseReport(args.path as string, readInputText(args.path as string, abs));
      // As the CLI: the git work tree holding the report, when it lies inside the root; else the root itself.
      const top = findGitToplevel(nodePath.dirname(abs));
      const root = top !== undefined && (top === mcpRoot || isInside(mcpRoot, top)) ? top : mcpRoot;
      const named = new Set(Array.isArray(args.confirm_entries) ? (args.confirm_entries as number[]) : []);
      const { json } = applyReport(report, { reportPath: abs, root, tier: named.size ? 'all' : 'auto', tierFor: (i) => (named.has(i) ? 'all' : 'auto'), dryRun: !write });
      return json as unknown as Record<string, unknown>;
    },
  },
];

export const TOOLS: ReadonlyMap<string, Tool> = new Map(tools.map((t) => [t.name, t]));

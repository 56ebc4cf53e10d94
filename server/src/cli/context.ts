/**
 * `toonlens context [DIR] [--agent NAME…] [--for PATH] [--tokenizer …] [--json] [--format text|json|sarif]`
 *
 * Per agent, the files it loads from the repository at DIR (default: the current folder) for a working path
 * (default: the root), each with its real token count and class; what every request pays; the on-use
 * catalogue; the import graph; and the context diagnostics (duplicates, over budget, unreachable, import
 * cycles). JSON follows schemas/context.v1.json. Exit 0, or 1 when a diagnostic is an error (a rule level in
 * `.toonlens.json` can make one); 2 on a usage or I/O error.
 */
import { formatInt } from '../core/format';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { defineCommand, flag, listWords, stringValue, usageError, CliError } from './args';
import type { CliIO } from './io';
import { printJson } from './jsonOut';
import { toSarif, type FileReport } from './check';
import { displayWidth } from './textWidth';
import { AGENT_IDS, AGENT_NAMES, isAgentId, type AgentId } from '../core/context/agents';
import { contextModel, type ContextModel } from '../core/context/model';
import { contextDiagnostics, type ContextDiagnostic } from '../core/context/diagnostics';
import { contextJson, positions } from '../core/context/json';
import { applyRuleLevels } from '../core/config';
import { DEFAULT_TOKENIZER, isTokenizerName, tokenizer, TOKENIZERS, type TokenizerName } from '../core/tokens';
import { ConfigLoader } from '../node/config';
import { readRepositoryContext } from '../node/contextFiles';

export const CONTEXT_HELP = `Usage: toonlens context [DIR] [options]

Shows what each coding agent loads from the repository at DIR (default: the current folder): every
instruction, rule, skill and prompt file, its class — always (paid on every request), matching (when
the working path matches its globs or folder) or on use (only its description is paid) — its real token
count, the total every request pays, the @import graph, and the waste: the same instruction in two files
loaded together, an agent over its contextBudget, files no agent loads. docs/agent-context.md has the
rules and the documentation behind each.

Options:
  --agent NAME        only these agents (repeat or comma-separate): ${AGENT_IDS.join(', ')}
  --for PATH          the working path (a file or folder in DIR): applies globs and nested files
  --tokenizer NAME    ${TOKENIZERS.join(' | ')} (default: .toonlens.json's tokenizer, else ${DEFAULT_TOKENIZER})
  --format text|json|sarif   output format (default text); --json is --format json
  -h, --help          show this help

Examples:
  toonlens context . --agent claude-code --for src/server.ts
  toonlens context
  toonlens context --json > context.json
  toonlens context --format sarif > context.sarif

Exit status: 0, or 1 when a diagnostic is an error; 2 on an error (bad_request, input_not_found, io).
`;

type Format = 'text' | 'json' | 'sarif';

/** Every `--agent` value on the line (node's parser keeps the last only), comma lists split. */
function agentValues(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a === '--agent' && i + 1 < argv.length) out.push(argv[++i]!);
    else if (a.startsWith('--agent=')) out.push(a.slice('--agent='.length));
  }
  return out.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

const command = (agentsAsked: string[]) =>
  defineCommand(
    {
      name: 'context',
      help: CONTEXT_HELP,
      errorExit: 2,
      options: { agent: { type: 'string' }, for: { type: 'string' }, tokenizer: { type: 'string', choices: TOKENIZERS }, json: { type: 'boolean' }, format: { type: 'string', choices: ['text', 'json', 'sarif'] } },
    },
    async (p, io) => {
      if (p.positionals.length > 1) throw usageError(`expected at most one folder, got ${p.positionals.length}`);
      for (const a of agentsAsked) if (!isAgentId(a)) throw usageError(`--agent must be ${listWords(AGENT_IDS)}, not '${a}'`);
      const agents = agentsAsked.length ? (AGENT_IDS.filter((a) => agentsAsked.includes(a)) as AgentId[]) : [...AGENT_IDS];
      const format: Format = flag(p, 'json') ? 'json' : ((stringValue(p, 'format') as Format | undefined) ?? 'text');
      const dirArg = p.positionals[0] ?? '.';
      const root = resolve(io.cwd, dirArg);
      let isDir: boolean;
      try {
        isDir = statSync(root).isDirectory();
      } catch {
        throw new CliError('input_not_found', `folder not found: ${dirArg}`);
      }
      if (!isDir) throw usageError(`${dirArg} is not a folder`);
      const forArg = stringValue(p, 'for');
      let forPath: string | undefined;
      if (forArg !== undefined) {
        const abs = resolve(io.cwd, forArg);
        const rel = abs.slice(root.length + 1).replace(/\\/g, '/');
        if (abs !== root && !abs.startsWith(root + '/') && !abs.startsWith(root + '\\')) throw usageError(`--for ${forArg} is outside ${dirArg}`);
        forPath = abs === root ? '' : rel;
      }
      const config = new ConfigLoader().forDir(root, root);
      const tokName: TokenizerName = (stringValue(p, 'tokenizer') as TokenizerName | undefined) ?? (isTokenizerName(config.config.tokenizer) ? config.config.tokenizer : DEFAULT_TOKENIZER);
      const tok = tokenizer(tokName);
      const repo = await readRepositoryContext(root);
      for (const pr of repo.problems) io.stderr(`toonlens context: ${pr.path} ${pr.reason}; not counted\n`);
      if (repo.truncated) io.stderr(`toonlens context: the walk stopped at its bound; the model covers part of ${dirArg}\n`);
      const model = contextModel({ files: repo.files, allPaths: repo.allPaths, read: repo.read, count: (t) => tok.count(t), agents, options: repo.options, ...(forPath !== undefined ? { for: forPath } : {}) });
      const diagnostics = applyRuleLevels(contextDiagnostics(model, config.config.contextBudget ?? {}), config.config.rules);
      if (format === 'json') printJson(io, contextJson(model, diagnostics, tok.estimator));
      else if (format === 'sarif') printJson(io, toSarif(fileReports(model, diagnostics)));
      else io.stdout(contextText(model, diagnostics, tok.estimator));
      return repo.problems.length ? 2 : diagnostics.some((d) => d.severity === 'error') ? 1 : 0;
    },
  );

export const run = (argv: string[], io: CliIO): Promise<number> => command(agentValues(argv))(argv, io);

function fileReports(model: ContextModel, diagnostics: readonly ContextDiagnostic[]): FileReport[] {
  const at = positions(model);
  const byFile = new Map<string, FileReport>();
  for (const d of diagnostics) {
    let r = byFile.get(d.path);
    if (!r) byFile.set(d.path, (r = { file: d.path, kind: 'markdown', diagnostics: [] }));
    r.diagnostics.push({ code: d.code, severity: d.severity, message: d.message, range: { start: at(d.path, d.start), end: at(d.path, d.end) } });
  }
  return [...byFile.values()];
}

const fmt = formatInt;
const CLASS_LABEL = { always: 'always', matching: 'matching', 'on-use': 'on use' } as const;

function pad(s: string, width: number, right = false): string {
  const gap = ' '.repeat(Math.max(0, width - displayWidth(s)));
  return right ? gap + s : s + gap;
}

/** The readable table: per agent its files by class and cost, then imports, unreachable files and diagnostics. */
export function contextText(model: ContextModel, diagnostics: readonly ContextDiagnostic[], estimator: string): string {
  const lines: string[] = [];
  const where = model.for ? `for ${model.for}` : 'at the repository root';
  lines.push(`Agent context ${where} (tokens: ${estimator})`, '');
  for (const a of model.agents) {
    const paid = model.for ? a.paidTokens : a.alwaysTokens;
    lines.push(`${AGENT_NAMES[a.agent]}: ${fmt(paid)} tokens on every request${a.entries.length ? '' : ' (loads no file of this repository)'}`);
    const w = Math.max(6, ...a.entries.map((e) => fmt(e.tokens).length));
    for (const e of a.entries) {
      const notes: string[] = [];
      if (e.class === 'matching') notes.push(`${e.loaded ? 'loaded: ' : 'when '}${(e.globs ?? []).join(', ')}`);
      if (e.class === 'on-use') notes.push(e.alwaysTokens ? `description ${fmt(e.alwaysTokens)} every request` : 'nothing until used');
      if (e.via !== undefined) notes.push(`imported by ${e.via}`);
      if (e.truncatedBytes) notes.push(`${fmt(e.truncatedBytes)} bytes cut by the byte limit`);
      if (e.matchesNothing) notes.push('matches no file');
      lines.push(`  ${pad(CLASS_LABEL[e.class], 8)} ${pad(fmt(e.tokens), w, true)}  ${e.path}${notes.length ? `  (${notes.join('; ')})` : ''}`);
    }
    for (const x of a.skipped) lines.push(`  ${pad('skipped', 8)} ${pad('', w, true)}  ${x.path}  (${x.reason})`);
    lines.push('');
  }
  if (model.imports.length) {
    const missing = model.imports.filter((e) => !e.found).length;
    lines.push(`Imports: ${model.imports.length}${missing ? `, ${missing} missing` : ''}${model.cycles.length ? `, ${model.cycles.length} cycle${model.cycles.length === 1 ? '' : 's'}` : ''}`);
    for (const e of model.imports) lines.push(`  ${e.from} → ${e.to ?? `${e.spec} (outside the repository)`}${e.found ? '' : ' (missing)'}${e.tooDeep ? ' (past the depth limit)' : ''}`);
    for (const c of model.cycles) lines.push(`  cycle: ${c.join(' → ')}`);
    lines.push('');
  }
  if (model.unreachable.length) {
    lines.push(`Loaded by no agent: ${model.unreachable.length}`);
    for (const u of model.unreachable) lines.push(`  ${u.path}: ${u.reasons.join('; ')}`);
    lines.push('');
  }
  const at = positions(model);
  if (diagnostics.length) {
    lines.push(`Diagnostics: ${diagnostics.length}`);
    for (const d of diagnostics) {
      const p = at(d.path, d.start);
      lines.push(`  ${d.path}:${p.line + 1}:${p.character + 1} ${d.severity} ${d.code} ${d.message}`);
    }
  } else lines.push('Diagnostics: none');
  return lines.join('\n') + '\n';
}

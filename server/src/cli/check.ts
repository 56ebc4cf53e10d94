/**
 * `toonlens check [--format text|json|sarif] [--fix | --fix-dry-run] [--kind KIND] <files|dirs|globs…|->`:
 * the editor's diagnostics for agent JSON, in CI. Exit 0: no error; 1: some error (or more warnings than
 * --max-warnings); 2: usage or I/O error.
 */
import { readdirSync, lstatSync, statSync, existsSync, type Stats } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileGlob } from '../core/glob';
import type { Log, ReportingDescriptor, Result } from 'sarif';
import { CODES, DIAGNOSTICS_DOC_URL, REPOSITORY_URL, codeDocumentationUrl, isDiagnosticCode } from '../core/codes';
import { clampOrDefault } from '../core/settingRanges';
import type { CliIO } from './io';
import { CliError, defineCommand, flag, listValue, stringValue, usageError, type OptionDefs, type ParsedArgs } from './args';
import { isGitIgnored, parseGitignore, type IgnoreFile } from '../core/gitignore';
import { writeOutputFile } from '../node/safeWrite';
import { VERSION } from '../version';
import { checkBytes, checkTooLarge, DEFAULT_MAX_FILE_SIZE_MB, TOO_LARGE_CODE, type CheckOptions, type CheckResult, type CheckSettings } from '../core/agentJson/check';
import { detectKind } from '../core/agentJson/kinds';
import { applyFixes } from '../core/json/edits';
import { parseJson } from '../core/json/parse';
import { createNodeWorkspace } from '../node/workspace';
import { readRegularFile, readRegularText, realpathOrUndefined } from '../node/files';
import { WriteRefused, realRoot, replaceFile } from '../node/safeWrite';
import { sha256Hex } from '../core/agentJson/report/text';
import { isInside } from '../core/agentJson/report/paths';
import { ConfigLoader, ignoredByConfig, readConfigFile, type LoadedConfig } from '../node/config';
import { applyRuleLevels, CONFIG_FILE_NAME, configDiagnostics } from '../core/config';
import { toonFileDiagnostics } from '../core/markdown/diagnostics';
import { markdownFindings, markdownFixes } from './findings';
import { isMarkdownPath, isToonPath } from '../core/files';
import { hintedPositions, LineIndex, type LineHints } from '../core/lineIndex';
import { DOCUMENT_KINDS, type CoreDiagnostic, type DocumentKind, type JsonFix, type WorkspaceReader } from '../core/types';
import { pushAll } from '../core/arrays';
import { printJson } from './jsonOut';
import { ContextDiagnosticsByRoot } from '../node/contextCheck';
import { errorMessage } from '../core/errors';

export const CHECK_HELP = `Usage: toonlens check [options] [--] <files|dirs|globs…|->

Diagnoses agent JSON documents (verdicts, docs-hygiene reports, critique reports, recipe-build MCP
payloads), markdown files and .toon files with exactly the editor's diagnostics. Directories are walked
(node_modules and .git skipped, .gitignore honoured) for markdown, .toon and the JSON documents ToonLens
recognizes; files named explicitly are always read; a walked symlink is followed only to a file inside the
walked folder. The nearest .toonlens.json above each file sets rule severities and ignore globs (the
editor's .vscode/settings.json is never read). '-' (or --stdin) reads one document from standard input.
After -- every word is a path, never an option.

Options:
  --format text|json|sarif   output format (default text: path:line:col severity code message)
  --output-file FILE         write the report to FILE instead of standard output
  --quiet                    report errors only (warnings, infos and hints are still counted)
  --max-warnings N           exit 1 when more than N warnings are found
  --ignore GLOB              skip walked and glob-matched files matching GLOB (repeatable; relative to
                             the working folder; a GLOB without '/' matches a name at any depth)
  --no-gitignore             walk folders without reading their .gitignore files
  --stdin                    read one document from standard input (same as '-')
  --stdin-filename NAME      the name standard input is checked as (picks markdown, .toon or the JSON
                             kind, and the .toonlens.json; default <stdin>, checked as JSON)
  --fix                      apply every unattended fix to the files, then report what remains (and the
                             opt-in fixes .toonlens.json "fix" turns on, e.g. compactTables)
  --fix-dry-run              the same fixes, written nowhere: reports what would remain (JSON: the fixed
                             text as "output"); works on standard input
  --exit-zero                exit 0 even when errors are found (bad arguments and I/O errors still exit 2)
  --kind KIND                treat every JSON file as this kind (${DOCUMENT_KINDS.join(', ')})
  --max-file-size-mb N       skip larger files with an info diagnostic (default 50, at most 64)
  --config FILE              use this config file instead of the nearest .toonlens.json
  --token-notes              report toon/token-regression in every markdown file (default: only in
                             files holding a \`\`\`toon fence; .toonlens.json tokenNotesAsDiagnostics)
  -h, --help                 show this help
  --version                  print the version

Colors: on a terminal; NO_COLOR turns them off, FORCE_COLOR on. Runs over 2 s draw progress on a
terminal's stderr. The summary line (stderr) counts every severity.

Examples:
  toonlens check .
  toonlens check AGENTS.md docs/ 'agent-out/**/*.verdict.json'
  toonlens check --format sarif --output-file toonlens.sarif -- .
  toonlens check --ignore 'vendor/**' --max-warnings 0 .
  cat AGENTS.md | toonlens check --stdin-filename AGENTS.md -
  toonlens check --fix --kind verdict out/plan.json
  toonlens check --fix-dry-run docs/

Exit status: 0 no error (or --exit-zero), 1 at least one error diagnostic or more warnings than
--max-warnings, 2 on an error (bad_request, input_not_found, io).
`;

type Format = 'text' | 'json' | 'sarif';

interface CheckArgs {
  format: Format;
  fix: boolean;
  /** Compute the fixes and report what would remain, writing nothing (ESLint's --fix-dry-run). */
  fixDryRun: boolean;
  /** Report errors but exit 0 (a demo or a report-only CI step). */
  exitZero?: boolean;
  kind?: DocumentKind;
  maxFileSizeMB?: number;
  /** An explicit config file (instead of the nearest .toonlens.json). */
  config?: string;
  targets: string[];
  /** Read one document from stdin, checked as this path (relative to the cwd) or as `<stdin>`. */
  stdin?: { name: string | undefined };
  quiet: boolean;
  maxWarnings?: number;
  ignore: string[];
  gitignore: boolean;
  outputFile?: string;
}

const CHECK_OPTIONS: OptionDefs = {
  format: { type: 'string', choices: ['text', 'json', 'sarif'] },
  fix: { type: 'boolean' },
  'fix-dry-run': { type: 'boolean' },
  'exit-zero': { type: 'boolean' },
  kind: { type: 'string', choices: DOCUMENT_KINDS },
  'max-file-size-mb': { type: 'string' },
  config: { type: 'string' },
  stdin: { type: 'boolean' },
  'stdin-filename': { type: 'string' },
  quiet: { type: 'boolean' },
  'max-warnings': { type: 'string' },
  ignore: { type: 'string', multiple: true },
  'no-gitignore': { type: 'boolean' },
  'output-file': { type: 'string' },
  'token-notes': { type: 'boolean' },
};

function checkArgs(p: ParsedArgs): ParsedArgs & CheckArgs {
  const out: CheckArgs = { format: (stringValue(p, 'format') as Format | undefined) ?? 'text', fix: flag(p, 'fix'), fixDryRun: flag(p, 'fix-dry-run'), targets: p.positionals, quiet: flag(p, 'quiet'), ignore: listValue(p, 'ignore'), gitignore: !flag(p, 'no-gitignore') };
  if (out.fix && out.fixDryRun) throw usageError('--fix and --fix-dry-run cannot be used together');
  if (flag(p, 'exit-zero')) out.exitZero = true;
  const kind = stringValue(p, 'kind');
  if (kind !== undefined) out.kind = kind as DocumentKind;
  const max = stringValue(p, 'max-file-size-mb');
  if (max !== undefined) {
    const n = Number(max);
    if (!(n > 0)) throw usageError(`--max-file-size-mb must be a positive number, not '${max}'`);
    out.maxFileSizeMB = clampOrDefault('maxFileSizeMB', n);
  }
  const config = stringValue(p, 'config');
  if (config !== undefined) out.config = config;
  const maxWarnings = stringValue(p, 'max-warnings');
  if (maxWarnings !== undefined) {
    if (!/^\d+$/.test(maxWarnings)) throw usageError(`--max-warnings must be a whole number, not '${maxWarnings}'`);
    out.maxWarnings = Number(maxWarnings);
  }
  const outputFile = stringValue(p, 'output-file');
  if (outputFile !== undefined) {
    if (outputFile === '') throw usageError('--output-file needs a file name');
    out.outputFile = outputFile;
  }
  const stdinName = stringValue(p, 'stdin-filename');
  const dashes = out.targets.filter((t) => t === '-').length;
  if (flag(p, 'stdin') || dashes > 0 || stdinName !== undefined) {
    if (dashes > 1) throw usageError("'-' (standard input) given more than once");
    if (out.targets.some((t) => t !== '-')) throw usageError("give files or standard input ('-', --stdin), not both");
    if (!flag(p, 'stdin') && dashes === 0) throw usageError("--stdin-filename names standard input: add '-' or --stdin");
    if (out.fix) throw usageError('--fix cannot write back to standard input');
    if (stdinName === '') throw usageError('--stdin-filename needs a name');
    out.stdin = { name: stdinName };
    out.targets = [];
  } else if (out.targets.length === 0) throw usageError("no files, directories or globs given (or '-' for standard input)");
  return { ...p, ...out };
}

/** One checked file, as the JSON format prints it. */
export interface FileReport {
  file: string;
  /** The agent-JSON kind, `markdown`, `toon` or `config` (a .toonlens.json); null for a named file that is none of them. */
  kind: DocumentKind | 'markdown' | 'toon' | 'config' | null;
  diagnostics: { code: string; severity: CoreDiagnostic['severity']; message: string; range: { start: Position; end: Position }; related?: { message: string; range: { start: Position; end: Position } }[] }[];
  /** With --fix-dry-run, the file's text after the fixes (only when a fix applies; ESLint's `output`). */
  output?: string;
}
interface Position {
  line: number;
  character: number;
}

const SKIPPED_DIRS = new Set(['node_modules', '.git']);
const GLOB_CHARS = /[*?[\]{}]/;

export const run = defineCommand({ name: 'check', options: CHECK_OPTIONS, help: CHECK_HELP, errorExit: 2 }, async (p, io) => {
  const args = checkArgs(p);
  const configs = new ConfigLoader();
  const explicitConfig = args.config !== undefined ? readConfigFile(resolve(io.cwd, args.config)) : undefined;
  const reportedConfigs = new Set<string>();
  if (explicitConfig && explicitConfig.problems.length && /^cannot read/.test(explicitConfig.problems[0]!)) {
    throw new CliError('input_not_found', `config file ${args.config}: ${explicitConfig.problems[0]!}`);
  }
  const configFor = (abs: string) => explicitConfig ?? configs.forFile(abs);
  const settings: CheckSettings = { maxFileSizeMB: args.maxFileSizeMB };
  let ioError = false;
  const files: { abs: string; explicit: boolean; walkedFrom?: string }[] = [];
  const seen = new Set<string>();
  const add = (abs: string, explicit: boolean, walkedFrom?: string) => {
    if (seen.has(abs)) return;
    seen.add(abs);
    files.push(walkedFrom !== undefined ? { abs, explicit, walkedFrom } : { abs, explicit });
  };

  const skippedNote = (path: string) => io.stderr(`toonlens check: ${display(io.cwd, path)}: a symlink to a file outside the folder being checked; skipped, not read\n`);
  const skip = ignoreMatcher(io.cwd, args.ignore);
  const walkOptions: WalkOptions = { skip, gitignore: args.gitignore, cwd: io.cwd, note: skippedNote };
  for (const target of args.targets) {
    const abs = resolve(io.cwd, target);
    let st: Stats | undefined;
    try {
      st = statSync(abs);
    } catch {
      st = undefined;
    }
    if (st?.isDirectory()) {
      for (const f of walk(abs, io.cwd, configFor, walkOptions)) add(f, false, abs);
    } else if (st) {
      if (skip(abs, false)) io.stderr(`toonlens check: ${display(io.cwd, abs)}: matches --ignore; skipped\n`);
      else add(abs, true);
    } else if (GLOB_CHARS.test(target)) {
      const matches = expandGlob(io.cwd, target, skippedNote).filter((f) => !skip(f, false));
      if (matches.length === 0) {
        io.stderr(`toonlens check: no file matches '${target}'\n`);
        ioError = true;
      }
      for (const f of matches) add(f, true);
    } else {
      io.stderr(`toonlens check: input file not found: ${target}\n`);
      ioError = true;
    }
  }

  const reports: FileReport[] = [];
  const textLines: string[] = [];
  const counts = { error: 0, warning: 0, info: 0, hint: 0 };
  let checked = 0;
  const paint = io.color && !args.outputFile && args.format === 'text' ? COLORS : NO_COLORS;
  const workspaces = new Map<string, WorkspaceReader | undefined>();
  const contexts = new ContextDiagnosticsByRoot();
  const fixing = args.fix || args.fixDryRun;
  /** Fixes applied (or, with --fix-dry-run, that would be) and the files they changed. */
  const fixTotals = { fixes: 0, files: 0 };
  /** Adds one checked file's diagnostics (and with --fix-dry-run its fixed text) to the output. */
  const record = (abs: string, kind: FileReport['kind'], text: string | undefined, diagnostics: CoreDiagnostic[], lineHints?: CheckResult['lineHints'], output?: string): void => {
    const rel = display(io.cwd, abs);
    const toPosition = positionMapper(text, lineHints);
    const report: FileReport = { file: rel, kind, diagnostics: [] };
    if (output !== undefined) report.output = output;
    for (const d of diagnostics) {
      counts[d.severity]++;
      if (args.quiet && d.severity !== 'error') continue;
      const range = { start: toPosition(d.range.start), end: toPosition(d.range.end) };
      const entry: FileReport['diagnostics'][number] = { code: d.code, severity: d.severity, message: d.message, range };
      if (d.related?.length) entry.related = d.related.map((r) => ({ message: r.message, range: { start: toPosition(r.range.start), end: toPosition(r.range.end) } }));
      if (text !== undefined) FINGERPRINTS.set(entry, lineFingerprint(d.code, text, d.range.start));
      report.diagnostics.push(entry);
      textLines.push(`${paint.path(`${rel}:${range.start.line + 1}:${range.start.character + 1}`)} ${paint[d.severity](d.severity)} ${paint.code(d.code)} ${d.message}`);
    }
    reports.push(report);
  };

  let stdinBytes: Buffer | undefined;
  if (args.stdin) {
    stdinBytes = Buffer.from(await io.readStdin(), 'utf8');
    files.push({ abs: resolve(io.cwd, args.stdin.name ?? STDIN_NAME), explicit: true });
  }
  const progress = progressLine(io, files.length);
  for (const { abs, explicit, walkedFrom } of files) {
    progress.tick();
    const loaded = configFor(abs);
    if (loaded.problems.length && !reportedConfigs.has(loaded.file!)) {
      reportedConfigs.add(loaded.file!);
      io.stderr(`toonlens check: invalid config ${display(io.cwd, loaded.file!)}: ${loaded.problems[0]}${loaded.problems.length > 1 ? ` (and ${loaded.problems.length - 1} more)` : ''}\n`);
      ioError = true;
    }
    if (ignoredByConfig(loaded, abs)) {
      if (explicit) io.stderr(`toonlens check: ${display(io.cwd, abs)}: ignored by ${display(io.cwd, loaded.file!)}; skipped\n`);
      continue;
    }
    const rules = loaded.config.rules;
    const root = repositoryRoot(abs, io.cwd);
    if (!workspaces.has(root)) workspaces.set(root, createNodeWorkspace(root));
    const opts: CheckOptions = { fsPath: abs, settings: { ...kindSettings(loaded), ...definedOnly(settings) }, kind: args.kind, workspace: workspaces.get(root) };
    const limitMB = opts.settings?.maxFileSizeMB ?? DEFAULT_MAX_FILE_SIZE_MB;
    // Only a regular file within the size limit is read (never a FIFO, a device or a directory; never past the limit).
    const read: ReturnType<typeof readRegularFile> = stdinBytes ? (stdinBytes.length > limitMB * 1024 * 1024 ? { ok: false, code: 'too-large', reason: `is over the ${limitMB} MB limit`, size: stdinBytes.length, head: stdinBytes.subarray(0, 64 * 1024) } : { ok: true, bytes: stdinBytes, size: stdinBytes.length }) : readRegularFile(abs, limitMB * 1024 * 1024);
    if (!read.ok && read.code !== 'too-large') {
      io.stderr(`toonlens check: cannot read '${display(io.cwd, abs)}': it ${read.reason}\n`);
      ioError = true;
      continue;
    }
    const bytes = read.ok ? read.bytes : undefined;
    if (basename(abs) === CONFIG_FILE_NAME && bytes) {
      // The config file itself gets the editor's diagnostics on it (syntax and schema, with ranges).
      const text = decodeText(bytes);
      checked++;
      record(abs, 'config', text, applyRuleLevels(configDiagnostics(text), rules));
      continue;
    }
    if (isMarkdownPath(abs) || isToonPath(abs)) {
      const kind = isMarkdownPath(abs) ? 'markdown' : 'toon';
      checked++;
      if (!bytes) {
        const size = read.ok ? 0 : (read.size ?? 0);
        record(abs, kind, '', applyRuleLevels([{ code: TOO_LARGE_CODE, severity: 'info' as const, message: `Not checked: ${(size / 1048576).toFixed(1)} MB is over the ${limitMB} MB limit (toonlens.maxFileSizeMB)`, range: { start: 0, end: 0 } }], rules));
        continue;
      }
      let text = decodeText(bytes);
      let output: string | undefined;
      let diagnostics: CoreDiagnostic[];
      try {
        // The opt-in fixes first (.toonlens.json `fix`), so the findings are those of the text as it is left.
        const fixed = kind === 'markdown' && fixing ? markdownFixes(text, loaded) : undefined;
        if (fixed && fixed.fixes > 0) {
          const done = writeFixed({ abs, bytes, root, next: fixed.text, fixes: fixed.fixes, what: fixed.what, dryRun: args.fixDryRun }, io);
          if (done) {
            fixTotals.fixes += fixed.fixes;
            fixTotals.files++;
            text = fixed.text;
            if (args.fixDryRun) output = text;
          } else ioError = true;
        }
        diagnostics = kind === 'markdown' ? markdownFindings(text, stdinBytes && !args.stdin?.name ? undefined : abs, loaded, { tokenNotes: flag(p, 'token-notes') }) : applyRuleLevels(toonFileDiagnostics(text), rules);
      } catch (err) {
        checked--;
        ioError = notChecked(io, abs, err);
        continue;
      }
      // What the repository's agents load, and waste across files (docs/agent-context.md): the repository is the
      // folder holding .git, else the folder being walked; a file named alone outside a repository has no context.
      const contextRoot = existsSync(join(root, '.git')) ? root : walkedFrom;
      if (kind === 'markdown' && contextRoot !== undefined && !stdinBytes) {
        const context = await contexts.forFile(contextRoot, abs, configs.forDir(contextRoot, contextRoot).config);
        if (context.length) diagnostics = [...diagnostics, ...applyRuleLevels(context, rules)].sort((a, b) => a.range.start - b.range.start);
      }
      record(abs, kind, text, diagnostics, undefined, output);
      continue;
    }
    let result: CheckResult;
    try {
      result = bytes ? checkBytes(bytes, opts) : checkTooLarge(read.ok ? Buffer.alloc(0) : (read.head ?? Buffer.alloc(0)), read.ok ? 0 : (read.size ?? 0), opts);
    } catch (err) {
      ioError = notChecked(io, abs, err);
      continue;
    }
    const tooLarge = result.diagnostics.some((d) => d.code === TOO_LARGE_CODE);
    if (!result.kind && tooLarge && explicit) {
      io.stderr(`toonlens check: ${display(io.cwd, abs)}: ${result.diagnostics[0]!.message}\n`);
      continue;
    }
    if (!result.kind) {
      // Walked files that are not ToonLens documents are silently skipped; named ones get a note.
      if (explicit) io.stderr(`toonlens check: ${display(io.cwd, abs)}: not a ToonLens document (no $schema, setting, file-name convention or distinctive keys); skipped\n`);
      if (explicit && args.format === 'json') reports.push({ file: display(io.cwd, abs), kind: null, diagnostics: [] });
      continue;
    }
    checked++;

    let output: string | undefined;
    if (fixing && bytes) {
      const fixed = fixFile(abs, bytes, root, result, opts, io, args.fixDryRun);
      if (fixed === 'io-error') ioError = true;
      else if (fixed) {
        fixTotals.fixes += fixed.fixes;
        fixTotals.files++;
        result = fixed.result;
        if (args.fixDryRun) output = fixed.text;
      }
    }

    record(abs, result.kind ?? null, result.text, applyRuleLevels(result.diagnostics, rules), result.lineHints ?? EMPTY_HINTS, output);
  }

  progress.done();
  // The report goes to stdout, or whole into --output-file (written once, through the one writer).
  let buffered = '';
  const outIO: CliIO = args.outputFile ? { ...io, stdout: (t) => void (buffered += t) } : io;
  if (args.format === 'json') printJson(outIO, reports);
  else if (args.format === 'sarif') printJson(outIO, toSarif(reports, io.cwd));
  else if (textLines.length) outIO.stdout(textLines.join('\n') + '\n');
  if (args.outputFile) {
    try {
      writeOutputFile(resolve(io.cwd, args.outputFile), new TextEncoder().encode(buffered));
    } catch (e) {
      throw new CliError('io', `cannot write ${args.outputFile}: ${e instanceof WriteRefused ? e.message : ((e as NodeJS.ErrnoException).code ?? (e as Error).message)}`);
    }
  }
  if (args.format === 'text' || args.outputFile) io.stderr(summaryLine(checked, counts, args.quiet, fixing ? { ...fixTotals, dryRun: args.fixDryRun } : undefined) + '\n');
  const tooManyWarnings = args.maxWarnings !== undefined && counts.warning > args.maxWarnings;
  if (tooManyWarnings) io.stderr(`toonlens check: ${counts.warning} warning${counts.warning === 1 ? '' : 's'}, more than --max-warnings ${args.maxWarnings}\n`);
  if (ioError) return 2;
  return (counts.error > 0 || tooManyWarnings) && !args.exitZero ? 1 : 0;
});

/** The name standard input is reported under without --stdin-filename. */
const STDIN_NAME = '<stdin>';

/**
 * `N documents checked: E errors, W warnings, I infos, H hints` (every severity, --quiet or not; the counts are of
 * what remains after the fixes), then with --fix `; F fixes applied in N files` (`would apply`: --fix-dry-run).
 */
export function summaryLine(checked: number, counts: Record<CoreDiagnostic['severity'], number>, quiet = false, fixed?: { fixes: number; files: number; dryRun: boolean }): string {
  const n = (k: number, w: string) => `${k} ${w}${k === 1 ? '' : 's'}`;
  const fixes = fixed ? `; ${fixed.fixes} fix${fixed.fixes === 1 ? '' : 'es'} ${fixed.dryRun ? 'would apply' : 'applied'}${fixed.fixes ? ` in ${n(fixed.files, 'file')}` : ''}` : '';
  return `${n(checked, 'document')} checked: ${n(counts.error, 'error')}, ${n(counts.warning, 'warning')}, ${n(counts.info, 'info')}, ${n(counts.hint, 'hint')}${fixes}${quiet && counts.warning + counts.info + counts.hint > 0 ? ' (only errors shown: --quiet)' : ''}`;
}

type Paint = Record<CoreDiagnostic['severity'] | 'path' | 'code', (s: string) => string>;
const sgr = (open: number, close: number) => (s: string) => `\x1b[${open}m${s}\x1b[${close}m`;
const COLORS: Paint = { error: sgr(31, 39), warning: sgr(33, 39), info: sgr(36, 39), hint: sgr(2, 22), path: sgr(1, 22), code: sgr(2, 22) };
const same = (s: string) => s;
const NO_COLORS: Paint = { error: same, warning: same, info: same, hint: same, path: same, code: same };

/** Runs longer than this draw a progress line on a terminal's stderr. */
export const PROGRESS_AFTER_MS = 2000;
const PROGRESS_EVERY_MS = 100;

/** A progress line on stderr (a terminal only, after {@link PROGRESS_AFTER_MS}), erased when the run ends. */
function progressLine(io: CliIO, total: number): { tick(): void; done(): void } {
  const now = io.now;
  if (!io.stderrIsTTY || !now) return { tick: () => undefined, done: () => undefined };
  const start = now();
  let shown = false;
  let last = 0;
  let i = 0;
  return {
    tick() {
      i++;
      const t = now();
      if (t - start < PROGRESS_AFTER_MS || t - last < PROGRESS_EVERY_MS) return;
      last = t;
      shown = true;
      io.stderr(`\rtoonlens check: ${i}/${total} files…`);
    },
    done() {
      if (shown) io.stderr('\r\x1b[K');
    },
  };
}

/**
 * The `--ignore` globs as one predicate on absolute paths: each glob is matched against the path relative to the
 * cwd; a glob without `/` matches a file or folder name at any depth; a folder that matches skips what is under it.
 */
function ignoreMatcher(cwd: string, globs: readonly string[]): (abs: string, isDir: boolean) => boolean {
  if (globs.length === 0) return () => false;
  const matchers = globs.flatMap((g) => {
    const p = g.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '');
    const base = p.includes('/') ? p : `**/${p}`;
    return [compileGlob(base), compileGlob(`${base}/**`)];
  });
  return (abs) => {
    const rel = relative(cwd, abs).split(sep).join('/');
    if (rel.startsWith('..')) return false;
    return matchers.some((m) => m(rel));
  };
}

/**
 * One file whose check threw (a defect of ours, never the file's fault): one line on stderr naming it, and the
 * run goes on with the other files, exiting 2 at the end. Returns true (the run's I/O-error flag).
 */
function notChecked(io: CliIO, abs: string, err: unknown): true {
  const why = errorMessage(err);
  io.stderr(`toonlens check: ${display(io.cwd, abs)}: not checked, internal error: ${why.split('\n')[0]}\n`);
  return true;
}

/**
 * Applies the unattended fixes of a JSON check and writes the file (see {@link writeFixed}). Returns the re-check
 * and the fixed text, undefined when nothing changed.
 */
function fixFile(abs: string, bytes: Uint8Array, root: string, result: CheckResult, opts: CheckOptions, io: CliIO, dryRun: boolean): { result: CheckResult; text: string; fixes: number } | undefined | 'io-error' {
  const fixes: JsonFix[] = result.diagnostics.flatMap((d) => d.fixes ?? []).filter((f) => f.fixAll);
  if (fixes.length === 0 || result.text === undefined) return undefined;
  const next = applyFixes(result.text, fixes);
  if (next === result.text) return undefined;
  if (!writeFixed({ abs, bytes, root, next, fixes: fixes.length, what: `${fixes.length} fix${fixes.length === 1 ? '' : 'es'}`, dryRun }, io)) return 'io-error';
  return { result: checkBytes(new TextEncoder().encode(next), opts), text: next, fixes: fixes.length };
}

interface FixedFile {
  abs: string;
  /** The bytes that were checked: the file is replaced only while it still has them. */
  bytes: Uint8Array;
  root: string;
  next: string;
  fixes: number;
  /** What the fixes were, for the `fixed PATH (…)` line. */
  what: string;
  /** --fix-dry-run: say what would be written, write nothing. */
  dryRun: boolean;
}

/**
 * Writes a fixed file through the one verified atomic writer (node/safeWrite.ts): only inside the file's
 * repository (else its folder), never into .git, only while the file still has the bytes that were checked,
 * keeping its mode; a symlinked file is written through to its target. A file that is not valid UTF-8 is never
 * rewritten (its invalid bytes would be lost). Standard input and --fix-dry-run write nothing. Returns false on
 * a refused or failed write (one line on stderr; the run exits 2).
 */
function writeFixed(f: FixedFile, io: CliIO): boolean {
  const shown = display(io.cwd, f.abs);
  if (!isUtf8(f.bytes)) {
    io.stderr(`toonlens check: not fixed '${shown}': not valid UTF-8 (rewriting it would replace the invalid bytes)\n`);
    return false;
  }
  if (f.dryRun) {
    io.stderr(`toonlens check: would fix ${shown} (${f.what})\n`);
    return true;
  }
  const writeRoot = realRoot(isInside(f.root, f.abs) ? f.root : dirname(f.abs));
  try {
    if (writeRoot === undefined) throw new WriteRefused(`its folder ${f.root} does not exist`);
    replaceFile(writeRoot, f.abs, sha256Hex(f.bytes), new TextEncoder().encode(f.next));
  } catch (err) {
    const why = err instanceof WriteRefused ? err.message : ((err as NodeJS.ErrnoException).code ?? String(err));
    io.stderr(`toonlens check: not fixed '${shown}': ${why}\n`);
    return false;
  }
  io.stderr(`toonlens check: fixed ${shown} (${f.what})\n`);
  return true;
}

/** Whether bytes are valid UTF-8 (a BOM allowed). */
function isUtf8(bytes: Uint8Array): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** A JSON check without located findings: its few positions come from one sweep, not a line table. */
const EMPTY_HINTS: LineHints = { offsets: [], lines: [], lineStarts: [] };

/**
 * Offsets → 0-based LSP positions. A BOM is not a column (editors hide it), so positions are counted without it.
 * A JSON check's result carries the lines its locator saw (`lineHints`): then no line table is built.
 */
export function positionMapper(text: string | undefined, lineHints?: LineHints): (offset: number) => Position {
  if (text === undefined) return () => ({ line: 0, character: 0 });
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? text.slice(1) : text;
  if (lineHints) {
    const at = hintedPositions(body, lineHints);
    return (offset) => at(Math.max(0, offset - bom));
  }
  const index = new LineIndex(body);
  return (offset) => index.positionAt(Math.max(0, offset - bom));
}

/**
 * Every regular file under `dir` that `accept` takes, depth first in name order, skipping node_modules
 * and .git. Symlinked folders are not followed (no loops, no walking out of the tree); a symlink to a
 * regular file is taken only when the file's real path is inside `dir` (else `note` is told, for names
 * check would have looked at). FIFOs, devices, sockets and unreadable entries are passed over.
 */
interface WalkOptions {
  /** `--ignore`: a file or folder to pass over. */
  skip?: (abs: string, isDir: boolean) => boolean;
  /** Read each folder's .gitignore (and those above the walk's start, up to the repository root). */
  gitignore?: boolean;
  cwd: string;
  /** Told of a symlink to a file outside the walked folder (skipped, never read). */
  note?: (path: string) => void;
}

function walkFiles(dir: string, accept: (path: string, name: string, size: number) => boolean, opts: WalkOptions = { cwd: dir }): string[] {
  const out: string[] = [];
  // A committed `leak.json -> ../outside/secret.json` must not be read and quoted (SARIF goes to code scanning).
  const treeReal = realpathOrUndefined(dir);
  if (treeReal === undefined) return out;
  const note = opts.note ?? (() => undefined);
  const root = opts.gitignore ? repositoryRoot(join(dir, '.gitignore'), opts.cwd) : dir;
  const relToRoot = (p: string) => relative(root, p).split(sep).join('/');
  const stack: { d: string; ignores: IgnoreFile[] }[] = [{ d: dir, ignores: opts.gitignore ? ignoreFilesAbove(root, dir) : [] }];
  while (stack.length) {
    const { d, ignores: above } = stack.pop()!;
    const ignores = opts.gitignore ? withIgnoreFile(above, d, relToRoot(d)) : above;
    let names: string[];
    try {
      names = readdirSync(d).sort();
    } catch {
      continue;
    }
    const subdirs: { d: string; ignores: IgnoreFile[] }[] = [];
    for (const n of names) {
      const p = join(d, n);
      let st: Stats;
      try {
        st = lstatSync(p);
        if (st.isSymbolicLink()) {
          st = statSync(p);
          if (!st.isFile()) continue;
          const real = realpathOrUndefined(p);
          if (real === undefined || !isInside(treeReal, real)) {
            if (isMarkdownPath(n) || isToonPath(n) || n.toLowerCase().endsWith('.json')) note(p);
            continue;
          }
        }
      } catch {
        continue;
      }
      const isDir = st.isDirectory();
      if (opts.skip?.(p, isDir)) continue;
      if (ignores.length && isGitIgnored(ignores, relToRoot(p), isDir)) continue;
      if (isDir) {
        if (!SKIPPED_DIRS.has(n)) subdirs.push({ d: p, ignores });
      } else if (st.isFile() && accept(p, n, st.size)) {
        out.push(p);
      }
    }
    pushAll(stack, subdirs.reverse());
  }
  return out;
}

/** `ignores` plus the .gitignore of folder `dir` (at `rel` from the repository root), when it has one. */
function withIgnoreFile(ignores: IgnoreFile[], dir: string, rel: string): IgnoreFile[] {
  const read = readRegularText(join(dir, '.gitignore'), 4 * 1024 * 1024);
  return read.ok ? [...ignores, parseGitignore(read.text, rel)] : ignores;
}

/** The .gitignore files of the folders from the repository root down to (not including) `dir`. */
function ignoreFilesAbove(root: string, dir: string): IgnoreFile[] {
  const rel = relative(root, dir);
  if (!rel || rel.startsWith('..')) return [];
  let files: IgnoreFile[] = [];
  let d = root;
  const parts = rel.split(sep);
  for (let i = 0; i < parts.length; i++) {
    files = withIgnoreFile(files, d, parts.slice(0, i).join('/'));
    d = join(d, parts[i]!);
  }
  return files;
}

/** Markdown, .toon and the JSON files ToonLens recognizes under `dir` (sorted, node_modules/.git skipped). */
function walk(dir: string, cwd: string, configFor: (abs: string) => LoadedConfig, opts: WalkOptions): string[] {
  return walkFiles(dir, (p, n, size) => {
    if (ignoredByConfig(configFor(p), p)) return false;
    return isMarkdownPath(n) || isToonPath(n) || n === CONFIG_FILE_NAME || (n.toLowerCase().endsWith('.json') && recognized(p, size, cwd, configFor(p)));
  }, opts);
}

/**
 * The kind settings of a file: its `.toonlens.json` only. The editor's `.vscode/settings.json` is never read:
 * a repository's workspace settings are the editor's business (VS Code ignores the risky ones in an untrusted
 * workspace), and the CLI would have no such protection.
 */
function kindSettings(loaded: LoadedConfig): CheckSettings {
  return Object.keys(loaded.config.documentKinds).length === 0 ? {} : { documentKinds: { ...loaded.config.documentKinds } };
}

/** A markdown or .toon file's bytes as text (invalid UTF-8 replaced, as an editor opening it would; the BOM kept). */
function decodeText(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false, ignoreBOM: true }).decode(bytes);
}

/** Whether a walked file is a ToonLens document: by name without reading, else by sniffing its parsed content. */
function recognized(path: string, size: number, cwd: string, loaded: LoadedConfig): boolean {
  const root = repositoryRoot(path, cwd);
  const kindOpts = { fsPath: path, settings: kindSettings(loaded), root };
  if (detectKind('', undefined, kindOpts)) return true;
  if (size > 50 * 1024 * 1024) return false;
  try {
    const read = readRegularText(path, 50 * 1024 * 1024);
    if (!read.ok) return false;
    const raw = read.text;
    const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
    const parsed = parseJson(text);
    return detectKind(text, parsed.ok ? parsed.value : parsed.partial, kindOpts) !== undefined;
  } catch {
    return false;
  }
}

/** Files matching a glob, searched from its static prefix (relative globs from the cwd). */
function expandGlob(cwd: string, glob: string, note: (path: string) => void): string[] {
  const posix = glob.replace(/\\/g, '/');
  const parts = posix.split('/');
  const staticParts: string[] = [];
  for (const p of parts) {
    if (GLOB_CHARS.test(p)) break;
    staticParts.push(p);
  }
  const base = resolve(cwd, staticParts.join('/') || '.');
  const isMatch = compileGlob(resolve(cwd, posix).replace(/\\/g, '/'));
  const out = walkFiles(base, (p) => isMatch(p.split(sep).join('/')), { cwd, note });
  return out.sort();
}

function definedOnly(s: CheckSettings): CheckSettings {
  return Object.fromEntries(Object.entries(s).filter(([, v]) => v !== undefined)) as CheckSettings;
}

/** The nearest folder holding .git above the file, else the cwd: the root report paths are relative to. */
function repositoryRoot(abs: string, cwd: string): string {
  let d = dirname(abs);
  for (;;) {
    if (existsSync(join(d, '.git'))) return d;
    const up = dirname(d);
    if (up === d) return cwd;
    d = up;
  }
}

function display(cwd: string, abs: string): string {
  const r = relative(cwd, abs);
  return (r && !r.startsWith('..') ? r : abs).split(sep).join('/');
}

// ───────────── SARIF 2.1.0 ─────────────

const SARIF_LEVEL: Record<CoreDiagnostic['severity'], NonNullable<Result['level']>> = { error: 'error', warning: 'warning', info: 'note', hint: 'note' };


/**
 * What a finding's fingerprint is made of, kept beside the printed report (never part of the JSON format):
 * the code and the finding's line content, so an alert survives lines added above it.
 */
const FINGERPRINTS = new WeakMap<object, string>();

/** The code and the trimmed content of the line holding `offset`, hashed (SHA-256, first 16 hex digits). */
function lineFingerprint(code: string, text: string, offset: number): string {
  const at = Math.max(0, Math.min(offset, text.length));
  const from = text.lastIndexOf('\n', at - 1) + 1;
  let to = text.indexOf('\n', at);
  if (to < 0) to = text.length;
  return sha256Hex(new TextEncoder().encode(`${code}\0${text.slice(from, to).trim()}`)).slice(0, 16);
}

/** A catalogue description as plain text: markdown code marks dropped. */
function plain(text: string): string {
  return text.replace(/`+ ?([^`]*?) ?`+/g, '$1');
}

/** A SARIF rule for a code: the catalogue's description (short: its first clause; full), help and default severity. */
function sarifRule(id: string): ReportingDescriptor {
  const info = isDiagnosticCode(id) ? CODES[id] : undefined;
  if (!info) return { id, name: id, shortDescription: { text: `ToonLens diagnostic ${id}` }, helpUri: DIAGNOSTICS_DOC_URL };
  const full = plain(info.description);
  const url = codeDocumentationUrl(id) ?? DIAGNOSTICS_DOC_URL;
  const first = full.split(/[;:] /)[0]!;
  return {
    id,
    name: id,
    shortDescription: { text: first.length >= 12 ? first : full },
    fullDescription: { text: full },
    help: { text: `${id}: ${full}. Reference: ${url}`, markdown: `**${id}** (default ${info.severity}): ${info.description}.\n\n[ToonLens diagnostics reference](${url})` },
    defaultConfiguration: { level: SARIF_LEVEL[info.severity] },
    helpUri: url,
  };
}

/** A report's file as a SARIF artifact location: relative to the working folder (%SRCROOT%) when inside it, else a file URI. */
function artifactLocation(file: string): { uri: string; uriBaseId?: string } {
  if (isAbsolute(file)) return { uri: pathToFileURL(file).href };
  return { uri: file.split('/').map(encodeURIComponent).join('/'), uriBaseId: '%SRCROOT%' };
}

function sarifRegion(range: { start: Position; end: Position }) {
  return { startLine: range.start.line + 1, startColumn: range.start.character + 1, endLine: range.end.line + 1, endColumn: range.end.character + 1 };
}

/**
 * The reports as one SARIF 2.1.0 run (code-scanning upload): one rule per code with its full description and
 * help, 1-based regions, URIs relative to the working folder, related locations (a repeated rule's first
 * occurrence) and partial fingerprints (the code and the line's content, with an occurrence count per file).
 */
export function toSarif(reports: FileReport[], cwd?: string): Log {
  const ruleIds = [...new Set(reports.flatMap((r) => r.diagnostics.map((d) => d.code)))].sort();
  const ruleIndex = new Map(ruleIds.map((id, i) => [id, i]));
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'toonlens',
            version: VERSION,
            informationUri: REPOSITORY_URL,
            rules: ruleIds.map(sarifRule),
          },
        },
        ...(cwd ? { originalUriBaseIds: { '%SRCROOT%': { uri: pathToFileURL(cwd.endsWith(sep) ? cwd : cwd + sep).href } } } : {}),
        columnKind: 'utf16CodeUnits',
        results: reports.flatMap((r) => {
          const seen = new Map<string, number>();
          return r.diagnostics.map((d): Result => {
            const base = FINGERPRINTS.get(d) ?? sha256Hex(new TextEncoder().encode(`${d.code}\0${d.message}`)).slice(0, 16);
            const n = (seen.get(base) ?? 0) + 1;
            seen.set(base, n);
            const location = artifactLocation(r.file);
            return {
              ruleId: d.code,
              ruleIndex: ruleIndex.get(d.code),
              level: SARIF_LEVEL[d.severity],
              message: { text: d.message },
              locations: [{ physicalLocation: { artifactLocation: location, region: sarifRegion(d.range) } }],
              ...(d.related?.length ? { relatedLocations: d.related.map((x, id) => ({ id, message: { text: x.message }, physicalLocation: { artifactLocation: location, region: sarifRegion(x.range) } })) } : {}),
              partialFingerprints: { primaryLocationLineHash: `${base}:${n}` },
            };
          });
        }),
      },
    ],
  };
}

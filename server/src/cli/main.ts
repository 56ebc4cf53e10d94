/**
 * `toonlens` command-line entry: dispatches to one module per command.
 * Every command shares the server's core, so CI and the editor give the same answers.
 */
import { processIO, type CliIO } from './io';
import { VERSION } from '../version';
import { errorMessage } from '../core/errors';

type Command = (argv: string[], io: CliIO) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  check: async () => (await import('./check')).run,
  profile: async () => (await import('./profile')).run,
  convert: async () => (await import('./convert')).run,
  plan: async () => (await import('./plan')).run,
  validate: async () => (await import('./validate')).run,
  decode: async () => (await import('./decode')).run,
  apply: async () => (await import('./apply')).run,
  'schema-diff': async () => (await import('./schemaDiff')).run,
  mcp: async () => (await import('./mcp')).run,
  context: async () => (await import('./context')).run,
};

export const HELP = `toonlens ${VERSION} — TOON savings for markdown, diagnostics for agent JSON

Usage: toonlens <command> [options]

Commands:
  check [--format text|json|sarif] [--fix] <files|dirs|globs…|-> diagnose agent JSON, markdown and .toon files
  profile <file|--stdin> [--json]                                 profile a markdown document
  convert <file|--stdin> [--json] [--mode lossless|record|budget] convert markdown to a TOON candidate
  plan <file|--stdin> [--json] [--out HYBRID.md]                  per-section plan and hybrid document
  validate FILE.toon                                               strict TOON decode check
  decode FILE.toon [--out FILE]                                    decode TOON to JSON
  apply <report.json> [--tier auto|confirm|all] [--dry-run]        apply a report's exact_edits safely
  schema-diff <old.json> <new.json> [--role input|output]          classify schema changes
  mcp [--http PORT] [--allow-writes] [--root DIR]                  run the MCP server (stdio or HTTP)
  context [DIR] [--agent NAME…] [--for PATH] [--json]              what each agent loads, in real tokens

Examples:
  toonlens check .
  toonlens plan AGENTS.md
  toonlens convert config-table.md --json

Run 'toonlens <command> --help' for a command's options and examples. 'toonlens --version' prints the version.
`;

export const COMMANDS = Object.keys(commands);

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--help' || name === '-h' || name === 'help') {
    if (name === 'help' && rest[0] && commands[rest[0]]) return main([rest[0], '--help'], io);
    io.stdout(HELP);
    return 0;
  }
  if (name === undefined) {
    // No command is a usage error: the help goes to stderr so a pipe does not mistake it for output.
    io.stderr(HELP);
    return 2;
  }
  if (name === '--version' || name === '-v' || name === '-V') {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const load = commands[name];
  if (!load) {
    io.stderr(`toonlens: unknown command '${name}' (commands: ${COMMANDS.join(', ')}; see 'toonlens --help')\n`);
    return 2;
  }
  const command = await load();
  return command(rest, io);
}

/** The status a shell gives a command that a SIGPIPE ended (128 + 13): what Unix tools exit with when their reader leaves. */
export const EXIT_BROKEN_PIPE = 141;

/**
 * What the CLI does when writing its output fails. A reader that stops early (`toonlens plan --json big.md | head`)
 * closes the pipe: the rest of the output is not wanted, so the process ends at once and quietly, as a Unix tool
 * that SIGPIPE ends. Any other write error is one line on stderr and status 2.
 */
export function onOutputError(err: NodeJS.ErrnoException, exit: (code: number) => void, stderr: (text: string) => void): void {
  if (err.code === 'EPIPE') return exit(EXIT_BROKEN_PIPE);
  stderr(`toonlens: cannot write its output: ${err.message.split('\n')[0]}\n`);
  exit(2);
}

/** Runs the CLI on this process's arguments and sets the exit code. */
export function runFromProcess(): void {
  const exit = (code: number): never => process.exit(code);
  process.stdout.on('error', (err: NodeJS.ErrnoException) => onOutputError(err, exit, (t) => process.stderr.write(t)));
  process.stderr.on('error', (err: NodeJS.ErrnoException) => onOutputError(err, exit, () => undefined));
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      const message = errorMessage(err);
      process.stderr.write(`toonlens: internal error: ${message.split('\n')[0]}${process.env.TOONLENS_DEBUG ? `\n${err instanceof Error ? err.stack : ''}` : ''}\n`);
      process.exitCode = 2;
    },
  );
}

if (require.main === module) runFromProcess();

/**
 * Runs a CLI command in memory and reads its `--json` output, so every MCP tool that has a CLI twin answers with
 * exactly what the CLI prints: the same code path, the same JSON, the same error envelope.
 */
import { CLI_ERROR_CODES, CliError, type CliErrorCode, type CliIO } from '../cli/io';

export type CliCommand = (argv: string[], io: CliIO) => Promise<number>;

export interface CliRun {
  exit: number;
  stdout: string;
  stderr: string;
}

/** Runs `command argv` with `cwd` as its working directory and `stdin` as its standard input. */
export async function runCli(command: CliCommand, argv: string[], cwd: string, stdin = ''): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = {
    stdout: (t) => void out.push(t),
    stderr: (t) => void err.push(t),
    readStdin: async () => stdin,
    cwd,
  };
  const exit = await command(argv, io);
  return { exit, stdout: out.join(''), stderr: err.join('') };
}

function isErrorCode(x: unknown): x is CliErrorCode {
  return typeof x === 'string' && (CLI_ERROR_CODES as readonly string[]).includes(x);
}

/**
 * The command's JSON output. The CLI's error envelope (`{"error":{"code","message"}}`) becomes a thrown CliError,
 * and so does an exit without JSON: the first stderr line is the message.
 */
export function cliJson(run: CliRun): unknown {
  let value: unknown;
  try {
    value = JSON.parse(run.stdout);
  } catch {
    const line = run.stderr.split('\n').find((l) => l.trim() !== '') ?? `the command exited with status ${run.exit} and printed no JSON`;
    throw new CliError('internal', line.replace(/^toonlens [a-z-]+: /, ''));
  }
  const e = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (e && typeof e === 'object' && isErrorCode(e.code) && typeof e.message === 'string' && Object.keys(value as object).length === 1) {
    throw new CliError(e.code, e.message);
  }
  return value;
}

/** The stderr lines that report a file the command could not read (`check` and `apply` go on after them). */
export function readFailures(run: CliRun): string[] {
  return run.stderr
    .split('\n')
    .filter((l) => /: (cannot read|input file not found|no file matches|invalid config)/.test(l))
    .map((l) => l.replace(/^toonlens [a-z-]+: /, ''));
}

/**
 * The one argv parser of the CLI: `node:util` parseArgs (strict, positionals allowed) plus the checks every
 * command wants — closed value lists, `--help`/`-h` and `--version` on every command — and the error
 * envelope: one {@link CliError} with the producer's (doc2toon's) codes where it has one for the same
 * failure, so scripts written against doc2toon read the same `{"error":{"code","message"}}`.
 */
import { parseArgs } from 'node:util';
import { CliError, type CliIO } from './io';
import { VERSION } from '../version';
import { errorMessage } from '../core/errors';

export { CLI_ERROR_CODES, CliError, type CliErrorCode } from './io';

/** A bad argument (unknown option, missing or invalid value, wrong positionals). */
export const usageError = (message: string): CliError => new CliError('bad_request', message);

/** A file read that failed: `input_not_found` for a missing file, `io` for anything else. */
export function readError(file: string, err: unknown): CliError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new CliError('input_not_found', `input file not found: ${file}`);
  if (code === 'EISDIR') return new CliError('io', `cannot read ${file}: it is a directory`);
  return new CliError('io', `cannot read ${file}: ${code ?? errorMessage(err)}`);
}

export interface OptionDef {
  type: 'string' | 'boolean';
  short?: string;
  /** Allowed values of a string option (checked here, so every command words the error alike). */
  choices?: readonly string[];
  /** A string option that may be given more than once (every value is kept, in order, in `lists`). */
  multiple?: boolean;
}

export type OptionDefs = Record<string, OptionDef>;

export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  /** Every value of each `multiple` option, in command-line order. */
  lists: Record<string, string[]>;
  positionals: string[];
  /** `--help` / `-h` was given (the command prints its help and exits 0, whatever else is wrong). */
  help: boolean;
  /** `--version` was given. */
  version: boolean;
}

/** The first sentence of node's parseArgs message, reworded where it explains too little or too much. */
function oneLine(err: Error & { code?: string }): string {
  const quoted = /'([^']*)'/.exec(err.message)?.[1] ?? '';
  const name = quoted.split(' ')[0] ?? quoted;
  switch (err.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option '${name}'`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/argument missing/.test(err.message)) return `option '${name}' needs a value`;
      if (/does not take an argument/.test(err.message)) return `option '${name}' takes no value`;
      if (/ambiguous/.test(err.message)) return `option '${name}' needs a value (write ${name}=VALUE for a value starting with '-')`;
      break;
  }
  return err.message.split(/(?<=\.)\s/)[0]!;
}

/** Parses a command's argv. Throws a {@link CliError} (`bad_request`) with a one-line message. */
export function parseCommandArgs(argv: string[], defs: OptionDefs): ParsedArgs {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string; multiple?: boolean }> = {
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  };
  for (const [name, d] of Object.entries(defs)) options[name] = { type: d.type, ...(d.short ? { short: d.short } : {}), ...(d.multiple ? { multiple: true } : {}) };
  // --help wins over every other problem on the line, as in every CLI people know; after `--` every word is
  // a positional (a committed file named `--help` or `--config=evil.json` is a path, never an option).
  const end = argv.indexOf('--');
  const wantsHelp = (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
  let parsed: { values: Record<string, string | boolean | (string | boolean)[] | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (err) {
    if (wantsHelp) return { values: {}, lists: {}, positionals: [], help: true, version: false };
    throw usageError(oneLine(err as Error & { code?: string }));
  }
  const values: ParsedArgs['values'] = {};
  const lists: ParsedArgs['lists'] = {};
  for (const [k, v] of Object.entries(parsed.values)) {
    values[k] = Array.isArray(v) ? v[v.length - 1] : v;
    if (Array.isArray(v)) lists[k] = v.map(String);
  }
  const help = values.help === true;
  if (!help) {
    for (const [name, d] of Object.entries(defs)) {
      const v = values[name];
      if (d.choices && typeof v === 'string' && !d.choices.includes(v)) {
        throw usageError(`--${name} must be ${listWords(d.choices)}, not '${v}'`);
      }
    }
  }
  return { values, lists, positionals: parsed.positionals, help, version: values.version === true };
}

/** "a, b or c". */
export function listWords(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

/** A string option's value. */
export function stringValue(p: ParsedArgs, name: string): string | undefined {
  const v = p.values[name];
  return typeof v === 'string' ? v : undefined;
}

/** Every value of a `multiple` string option (empty when not given). */
export function listValue(p: ParsedArgs, name: string): string[] {
  return p.lists[name] ?? [];
}

/** A boolean option's value. */
export function flag(p: ParsedArgs, name: string): boolean {
  return p.values[name] === true;
}

/** The one-line stderr form of an error: `toonlens <command>: <message>` and where to read more. */
export function errorLine(command: string, err: CliError): string {
  const hint = err.code === 'bad_request' ? ` (see 'toonlens ${command} --help')` : '';
  return `toonlens ${command}: ${err.message}${hint}\n`;
}

/** The JSON envelope (stdout under --json / --format json), as the producer prints it. */
export function errorEnvelope(err: CliError): string {
  return JSON.stringify({ error: { code: err.code, message: err.message } }, null, 2) + '\n';
}

/** Any thrown value as a CliError (`internal` when it is not one). */
export function asCliError(e: unknown): CliError {
  return e instanceof CliError ? e : new CliError('internal', errorMessage(e));
}

export interface CommandSpec {
  /** The command word, for messages (`toonlens <name>: …`). */
  name: string;
  options: OptionDefs;
  help: string;
  /** Exit status on an error (1 for the producer's engine commands, 2 for check/apply/schema-diff). */
  errorExit: number;
}

/** Whether the command line asks for JSON output (the error then goes to stdout as the envelope too). */
function wantsJson(argv: string[]): boolean {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--') break;
    if (a === '--json' || a === '--format=json' || (a === '--format' && argv[i + 1] === 'json')) return true;
  }
  return false;
}

/**
 * A command entry point: parses argv with the spec, answers --help and --version, runs the handler, and turns
 * every throw into one stderr line, or into the JSON envelope on stdout when JSON output was asked for.
 */
export function defineCommand(spec: CommandSpec, handler: (p: ParsedArgs, io: CliIO) => Promise<number>): (argv: string[], io: CliIO) => Promise<number> {
  return async (argv, io) => {
    try {
      const p = parseCommandArgs(argv, spec.options);
      if (p.help) {
        io.stdout(spec.help);
        return 0;
      }
      if (p.version) {
        io.stdout(`${VERSION}\n`);
        return 0;
      }
      return await handler(p, io);
    } catch (e) {
      const err = asCliError(e);
      // As the producer: under JSON output the envelope alone (stdout stays one JSON value), else one stderr line.
      if (wantsJson(argv)) io.stdout(errorEnvelope(err));
      else io.stderr(errorLine(spec.name, err));
      return spec.errorExit;
    }
  };
}

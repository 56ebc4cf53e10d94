import { MAX_INPUT_BYTES } from '../node/files';

/**
 * Error codes of the envelope. `bad_request`, `input_not_found`, `invalid_toon` and `internal` are the
 * producer's; `io` is ours (a read or write that failed for another reason than a missing input).
 */
export const CLI_ERROR_CODES = ['bad_request', 'input_not_found', 'invalid_toon', 'io', 'internal'] as const;
export type CliErrorCode = (typeof CLI_ERROR_CODES)[number];

/** The CLI's one error (declared here, below args.ts, so the two files do not import each other). */
export class CliError extends Error {
  constructor(
    readonly code: CliErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** What a CLI command may touch of the outside world; tests pass a capturing double. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (for `--stdin`). */
  readStdin(): Promise<string>;
  cwd: string;
  /** Colors in text written to stdout (a terminal, or FORCE_COLOR; never with NO_COLOR). Absent: none. */
  color?: boolean;
  /** stderr is a terminal: progress lines may be drawn there. Absent: it is not. */
  stderrIsTTY?: boolean;
  /** The clock progress is timed with (milliseconds); tests pass their own. */
  now?: () => number;
}

/**
 * Whether stdout gets colors, as the NO_COLOR and FORCE_COLOR conventions say: FORCE_COLOR set to anything but
 * `0` or `false` forces them, NO_COLOR set and non-empty turns them off, otherwise a terminal gets them.
 */
export function colorWanted(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '0' && force !== 'false') return true;
  if (force === '0' || force === 'false') return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY && env.TERM !== 'dumb';
}

export const processIO: CliIO = {
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  readStdin: async () => {
    // Bounded like every file read (node/files.ts): `--stdin < /dev/zero` stops at the limit with one line.
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const c of process.stdin) {
      size += (c as Buffer).length;
      if (size > MAX_INPUT_BYTES) {
        process.stdin.destroy();
        throw new CliError('io', `standard input is over the ${MAX_INPUT_BYTES / (1024 * 1024)} MB limit`);
      }
      chunks.push(c as Buffer);
    }
    return Buffer.concat(chunks).toString('utf8');
  },
  cwd: process.cwd(),
  color: colorWanted(process.env, process.stdout.isTTY === true),
  stderrIsTTY: process.stderr.isTTY === true,
  now: () => Date.now(),
};

/**
 * File reading for every CLI command: only a regular file within the size limit is read (never
 * /dev/zero, a FIFO, a socket, a directory or a symlink to one; never past the limit), else one
 * {@link CliError} with a one-line reason (`input_not_found` when missing, `io` otherwise).
 */
import { CliError } from './args';
import { MAX_INPUT_BYTES, readRegularFile } from '../node/files';

/** The bytes of `abs` (named `shown` in messages), or a CliError saying what it is instead. */
export function readInputBytes(shown: string, abs: string, maxBytes: number = MAX_INPUT_BYTES): Buffer {
  const r = readRegularFile(abs, maxBytes);
  if (r.ok) return r.bytes;
  if (r.code === 'missing') throw new CliError('input_not_found', `input file not found: ${shown}`);
  throw new CliError('io', `cannot read ${shown}: it ${r.reason}`);
}

/** {@link readInputBytes} decoded as UTF-8 (a BOM is kept). */
export function readInputText(shown: string, abs: string, maxBytes: number = MAX_INPUT_BYTES): string {
  return readInputBytes(shown, abs, maxBytes).toString('utf8');
}

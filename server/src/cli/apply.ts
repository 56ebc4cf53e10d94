import type { CliIO } from './io';

export async function run(_argv: string[], io: CliIO): Promise<number> {
  io.stderr('toonlens: this command is not implemented yet\n');
  return 2;
}

import type { CliIO } from './io';

async function notYet(_argv: string[], io: CliIO): Promise<number> {
  io.stderr('toonlens: this command is not implemented yet\n');
  return 1;
}
export const runProfile = notYet;
export const runConvert = notYet;
export const runPlan = notYet;
export const runValidate = notYet;
export const runDecode = notYet;

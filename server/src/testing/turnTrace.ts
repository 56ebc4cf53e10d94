/**
 * Test-only record of the time slicer's turns (on only with the test hooks, testing/hooks.ts): how many turns
 * sliced work ran, their total and the longest, since the last read. The longest turn is the longest stretch
 * the server's thread spent in sliced work without reading a message: one step of it plus the turn's budget.
 * Read with the test command `toonlens.test.sliceTurns`; off, a turn costs one branch.
 */
import { TEST_HOOKS_ON } from './hooks';

export interface TurnTrace {
  turns: number;
  /** ms */
  total: number;
  /** ms */
  longest: number;
}

let trace: TurnTrace = { turns: 0, total: 0, longest: 0 };

/** Records one turn of sliced work that took `ms` (no-op unless the test hooks are on). */
export function recordTurn(ms: number): void {
  if (!TEST_HOOKS_ON) return;
  trace.turns++;
  trace.total += ms;
  if (ms > trace.longest) trace.longest = ms;
}

/** The turns recorded since the last call, and a fresh record. */
export function takeTurnTrace(): TurnTrace {
  const t = trace;
  trace = { turns: 0, total: 0, longest: 0 };
  return t;
}

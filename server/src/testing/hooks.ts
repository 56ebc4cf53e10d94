/**
 * The one switch of the test hooks, read once when the server starts, and the names of every test-only
 * command. With `TOONLENS_TEST_COUNTERS` set the server lists testing/commands.ts, which serves all of them;
 * a feature never registers a test command itself, it offers what it counts through
 * `FeatureContext.exposeTestCounter` (a no-op with the switch off). `TOONLENS_FAULT_INJECTION=<marker>` adds the
 * fault-injection feature (testing/faultInjection.ts).
 */

/** The test hooks are on (the test harness and the bench set `TOONLENS_TEST_COUNTERS`). */
export const TEST_HOOKS_ON = !!process.env.TOONLENS_TEST_COUNTERS;

/** The marker the fault-injection feature throws on, or undefined when it is off. */
export const FAULT_MARKER: string | undefined = process.env.TOONLENS_FAULT_INJECTION || undefined;

/** Every test-only command, by what it answers. */
export const TEST_COMMANDS = {
  /** Resolves once the server is idle (lsp/idle.ts), with the process's memory then. */
  idle: 'toonlens.test.idle',
  /** Answers at once (a round trip: every message sent before it has been handled). */
  ping: 'toonlens.test.ping',
  /** The memory marks recorded since the last call (testing/memoryTrace.ts). */
  memoryTrace: 'toonlens.test.memoryTrace',
  /** The time slicer's turns since the last call, `{ turns, total, longest }` (testing/turnTrace.ts). */
  sliceTurns: 'toonlens.test.sliceTurns',
  /** The JSON worker's counters (jobs started, cancelled, …). */
  jsonWorkerCounters: 'toonlens.test.jsonWorkerCounters',
  /** `[uri]` → the document's engine cache as `{ analysed, held, lookedUp }`, or null once it is closed. */
  markdownCache: 'toonlens.test.markdownCache',
  /** The markdown lens counters `{ unresolved, resolves }`. */
  markdownLensCounters: 'toonlens.test.markdownLensCounters',
  /** How many times report lenses were computed. */
  reportLensComputations: 'toonlens.test.reportLensComputations',
  /** `{ computations, builds, resolves }` of report lenses. */
  reportLensCounters: 'toonlens.test.reportLensCounters',
} as const;

/** The counters a feature exposes (the other test commands are served by testing/commands.ts itself). */
export type TestCounterName = Exclude<keyof typeof TEST_COMMANDS, 'idle' | 'ping' | 'memoryTrace' | 'sliceTurns'>;

/** What a feature answers for one of its counters (the command's arguments in, a plain value out). */
export type TestCounterReader = (args: unknown[]) => unknown;

export const IDLE_COMMAND = TEST_COMMANDS.idle;
export const PING_COMMAND = TEST_COMMANDS.ping;
export const MEMORY_TRACE_COMMAND = TEST_COMMANDS.memoryTrace;
export const SLICE_TURNS_COMMAND = TEST_COMMANDS.sliceTurns;

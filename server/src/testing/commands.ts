/**
 * The test-only commands, registered here and nowhere else (listed by server.ts only when the test hooks are
 * on, testing/hooks.ts): the idle signal and ping, the memory trace, the time slicer's turns, and every counter a feature exposed
 * through its context.
 */
import v8 from 'node:v8';
import type { FeatureModule } from '../lsp/feature';
import { serverWork, type IdleAnswer } from '../lsp/idle';
import { idleGcStats } from '../node/idleGc';
import { takeMemoryTrace } from './memoryTrace';
import { takeTurnTrace } from './turnTrace';
import { TEST_COMMANDS, type TestCounterName, type TestCounterReader } from './hooks';

/** The counters the features exposed, by name (one registry per server). */
export class TestCounters {
  private readonly readers = new Map<TestCounterName, TestCounterReader>();

  expose(name: TestCounterName, read: TestCounterReader): void {
    this.readers.set(name, read);
  }

  read(name: TestCounterName, args: unknown[]): unknown {
    const read = this.readers.get(name);
    if (!read) throw new Error(`no feature exposes the test counter ${name}`);
    return read(args);
  }
}

const COUNTER_NAMES = Object.keys(TEST_COMMANDS).filter((k): k is TestCounterName => k !== 'idle' && k !== 'ping' && k !== 'memoryTrace' && k !== 'sliceTurns');

/** The feature serving every `toonlens.test.*` command. */
export function testCommandsFeature(counters: TestCounters): FeatureModule {
  return {
    name: 'test-commands',
    create() {
      return {
        commands: {
          [TEST_COMMANDS.idle]: async (): Promise<IdleAnswer> => {
            await serverWork.whenIdle();
            const m = process.memoryUsage();
            const heapSpaces = v8.getHeapSpaceStatistics().map((s) => ({ name: s.space_name, space_size: s.space_size, space_used_size: s.space_used_size, physical_space_size: s.physical_space_size }));
            return { idle: true, gc: idleGcStats() ?? null, memory: { rss: m.rss, heapTotal: m.heapTotal, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers }, heapSpaces };
          },
          [TEST_COMMANDS.ping]: () => ({ pong: true }),
          [TEST_COMMANDS.memoryTrace]: () => takeMemoryTrace(),
          [TEST_COMMANDS.sliceTurns]: () => takeTurnTrace(),
          ...Object.fromEntries(COUNTER_NAMES.map((name) => [TEST_COMMANDS[name], (args: unknown[]) => counters.read(name, args)])),
        },
      };
    },
  };
}

/**
 * Test-only memory trace (on only with the test hooks, testing/hooks.ts): named marks along the path of a large
 * message — the reader's body, its decode and parse, the JSON check, the publish — each with the process's
 * RSS and high-water mark (VmRSS, VmHWM of /proc/self/status) and `process.memoryUsage()`. The phase after
 * which VmHWM first reaches its final value is where the peak happened. Read with the test command
 * `toonlens.test.memoryTrace` (bench/bare-server.ts answers the same request); off, a mark costs one branch.
 */
import { readFileSync } from 'node:fs';
import { TEST_HOOKS_ON } from './hooks';

export interface MemoryMark {
  label: string;
  /** ms since the process started. */
  t: number;
  /** MB. */
  rss: number;
  hwm: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

const MAX_MARKS = 200;
const marks: MemoryMark[] = [];
const MB = 1e6;

function statusKb(status: string, field: string): number {
  const at = status.indexOf(`${field}:`);
  return at < 0 ? NaN : parseInt(status.slice(at + field.length + 1), 10);
}

/** Records a mark (no-op unless the test hooks are on). */
export function memoryMark(label: string): void {
  if (!TEST_HOOKS_ON) return;
  let status = '';
  try {
    status = readFileSync('/proc/self/status', 'latin1');
  } catch {
    // not Linux: RSS from memoryUsage, no high-water mark
  }
  const u = process.memoryUsage();
  marks.push({
    label,
    t: Math.round(performance.now()),
    rss: status ? (statusKb(status, 'VmRSS') * 1024) / MB : u.rss / MB,
    hwm: status ? (statusKb(status, 'VmHWM') * 1024) / MB : NaN,
    heapUsed: u.heapUsed / MB,
    external: u.external / MB,
    arrayBuffers: u.arrayBuffers / MB,
  });
  if (marks.length > MAX_MARKS) marks.splice(0, marks.length - MAX_MARKS);
}

/** The marks recorded since the last call (and forgets them). */
export function takeMemoryTrace(): MemoryMark[] {
  return marks.splice(0);
}

// Test entry of the first window of the reopen run (exact Revert across windows).
import { runSuite } from './index';
import type { convertPhase as Phase } from './reopen.test';

export function run(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loads the bundled suite after mocha's globals exist
  return runSuite('reopen-convert.js', () => (require('./reopen.test') as { convertPhase: typeof Phase }).convertPhase());
}

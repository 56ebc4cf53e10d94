// Test entry of the second window of the reopen run (exact Revert across windows).
import { runSuite } from './index';
import type { revertPhase as Phase } from './reopen.test';

export function run(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loads the bundled suite after mocha's globals exist
  return runSuite('reopen-revert.js', () => (require('./reopen.test') as { revertPhase: typeof Phase }).revertPhase());
}

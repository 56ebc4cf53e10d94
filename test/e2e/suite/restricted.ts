// Test entry of the restricted-mode run (workspace trust on, folder not trusted).
import { runSuite } from './index';

export function run(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loads the bundled suite after mocha's globals exist
  return runSuite('restricted.js', () => require('./restricted.test'));
}

// Test entry of the agent-context run: the mixed context fixture opened as a folder of its own.
import { runSuite } from './index';

export function run(): Promise<void> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loads the bundled suite after mocha's globals exist
  return runSuite('context.js', () => require('./agentContext.test'));
}

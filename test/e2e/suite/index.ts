// Test entry loaded by the extension host (extensionTestsPath): runs the mocha suite and settles when done.
import * as path from 'path';
import Mocha from 'mocha';

/** Runs the bundled tests that `load` registers (after mocha's globals exist). */
export function runSuite(entry: string, load: () => void): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60000, reporter: 'spec' });
  // The suite is bundled into this file; mocha only needs a file to "load", so register the bundled tests directly.
  mocha.suite.emit('pre-require', globalThis, path.join(__dirname, entry), mocha);
  load();
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
  });
}

/**
 * The suite files of the main run, in order, one line each (a new file is one more line; esbuild bundles each
 * `require` it sees). The timings go last: their large document never slows the other tests.
 */
/* eslint-disable @typescript-eslint/no-require-imports -- each loads a bundled suite file after mocha's globals exist */
const SUITES: (() => unknown)[] = [
  () => require('./extension.test'),
  () => require('./conventions.test'),
  () => require('./timings.test'),
];
/* eslint-enable @typescript-eslint/no-require-imports */

export function run(): Promise<void> {
  return runSuite('index.js', () => {
    for (const load of SUITES) load();
  });
}

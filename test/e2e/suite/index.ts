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

export function run(): Promise<void> {
  return runSuite('index.js', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loads the bundled suite after mocha's globals exist
    require('./extension.test');
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- as above
    require('./conventions.test');
  });
}

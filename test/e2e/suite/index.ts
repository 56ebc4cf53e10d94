// Test entry loaded by the extension host (extensionTestsPath): runs the mocha suite and settles when done.
import * as path from 'path';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60000, reporter: 'spec' });
  // The suite is bundled into this file; mocha only needs a file to "load", so register the bundled tests directly.
  mocha.suite.emit('pre-require', globalThis, path.join(__dirname, 'index.js'), mocha);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loads the bundled suite after mocha's globals exist
  require('./extension.test');
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} test(s) failed`)) : resolve()));
  });
}

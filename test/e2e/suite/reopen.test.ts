// Exact Revert across windows of the same folder: the "convert" phase converts a section and saves the file in one
// window; the runner closes it and opens the same folder in a new window (a new extension host and language server,
// the folder reached through a symlink so that VS Code hands another per-window storage folder), where the "revert"
// phase reverts that fence and gets the original bytes back (the `| ------- |` rule included), not the canonical
// rendering (`| --- |`).
import * as assert from 'assert';
import * as vscode from 'vscode';

import { file, installedExtension, lenses, open, waitFor } from './helpers';

const REL = 'docs/reopen-ports.md';
/** A section whose separator row a canonical rendering would write as `| --- | --- |`. */
export const REOPEN_TEXT = '# Ports\n\n| Name | Port |\n| ------- | ---- |\n| api | 8080 |\n| worker | 8081 |\n| search | 8082 |\n| billing | 8083 |\n| auth | 8084 |\n| gateway | 8085 |\n| cache | 8086 |\n| queue | 8087 |\n';

async function activate(): Promise<void> {
  await installedExtension();
}

export function convertPhase(): void {
  describe('exact Revert across windows: convert in the first window', () => {
    before(activate);
    it('converts the section and saves the file', async () => {
      // The runner put test/e2e/reopen/reopen-ports.md there before this window opened.
      const doc = await open(REL);
      assert.equal(doc.getText(), REOPEN_TEXT);
      const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertSection'));
      const convert = ls.find((x) => x.command?.command === 'toonlens.convertSection')!;
      const outcome = (await vscode.commands.executeCommand(convert.command!.command, ...(convert.command!.arguments ?? []))) as { applied: boolean };
      assert.equal(outcome.applied, true);
      await waitFor('converted text', () => (doc.getText().includes('```toon') ? true : undefined));
      // The converted text goes to disk for the next window (the buffer's bytes, then the editor reloads them).
      const converted = doc.getText();
      await vscode.workspace.fs.writeFile(file(REL), Buffer.from(converted, 'utf8'));
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await waitFor('the editor holds the file on disk', () => (!doc.isDirty && doc.getText() === converted ? true : undefined));
      // In this window the revert is exact (the original is in the server's memory, and written to the store).
      const after = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.revertSection'));
      assert.match(after.find((x) => x.command?.command === 'toonlens.revertSection')!.command!.tooltip ?? '', /exact original/);
    });
  });
}

export function revertPhase(): void {
  describe('exact Revert across windows: revert in a new window of the same folder', () => {
    before(activate);
    it('the fence converted in the other window reverts to the exact original bytes', async () => {
      const doc = await open(REL);
      assert.match(doc.getText(), /```toon/, 'the converted file from the first window');
      const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.revertSection'));
      const revert = ls.find((x) => x.command?.command === 'toonlens.revertSection')!;
      assert.match(revert.command!.tooltip ?? '', /exact original/, `the new window knows the original: ${revert.command!.tooltip}`);
      const outcome = (await vscode.commands.executeCommand(revert.command!.command, ...(revert.command!.arguments ?? []))) as { applied: boolean; exact?: boolean };
      assert.equal(outcome.applied, true);
      assert.equal(outcome.exact, true);
      await waitFor('reverted text', () => (!doc.getText().includes('```toon') ? true : undefined));
      assert.equal(doc.getText(), REOPEN_TEXT, 'the | ------- | rule comes back byte for byte');
    });
  });
}

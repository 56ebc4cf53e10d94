// Runs inside a real VS Code whose workspace trust is ON and the test folder NOT trusted (restricted mode):
// every lens, hover and diagnostic still works, nothing is applied, and the action lenses say why.
import * as assert from 'assert';
import * as vscode from 'vscode';

import { file, installedExtension, lenses } from './helpers';

describe('ToonLens in restricted mode (workspace trust on, folder not trusted)', () => {
  before(async () => {
    await installedExtension();
  });

  it('the workspace really is untrusted', () => {
    assert.equal(vscode.workspace.isTrusted, false);
  });

  it('markdown lenses and diagnostics still work; Convert lenses say why and convert nothing', async () => {
    const doc = await vscode.workspace.openTextDocument(file('AGENTS.md'));
    await vscode.window.showTextDocument(doc);
    const before = doc.getText();
    const ls = await lenses(doc, (l) => l.some((x) => /^TOON plan:/.test(x.command?.title ?? '')));
    const actions = ls.filter((x) => /^Convert/.test(x.command?.title ?? ''));
    assert.ok(actions.length > 0, ls.map((x) => x.command?.title).join(' | '));
    for (const a of actions) {
      assert.match(a.command!.title, /needs a trusted workspace$/);
      assert.match(a.command!.tooltip ?? '', /Restricted mode/);
    }
    assert.ok(ls.some((x) => / · convert$/.test(x.command?.title ?? '')), 'verdicts are still shown');
    // Run Convert the way a lens of a trusted workspace would: refused, nothing written.
    const text = doc.getText();
    const start = text.indexOf('## Commands');
    const outcome = (await vscode.commands.executeCommand('toonlens.convertSection', { uri: doc.uri.toString(), version: doc.version, sectionStart: start })) as { applied: boolean; message: string };
    assert.equal(outcome.applied, false);
    assert.match(outcome.message, /restricted mode/);
    assert.equal(doc.getText(), before);
    assert.equal(doc.isDirty, false);
  });

  it('report lenses say why nothing is applied, and the target file is untouched', async () => {
    const doc = await vscode.workspace.openTextDocument(file('docs/hygiene-report.json'));
    await vscode.window.showTextDocument(doc);
    const ls = await lenses(doc, (l) => l.length > 0);
    assert.ok(ls.some((x) => /restricted mode/i.test(x.command?.title ?? '')), ls.map((x) => x.command?.title).join(' | '));
    const target = Buffer.from(await vscode.workspace.fs.readFile(file('docs/plan.md'))).toString('utf8');
    const outcome = (await vscode.commands.executeCommand('toonlens.applyAllAuto', { uri: doc.uri.toString(), position: { line: 0, character: 0 } })) as { applied?: boolean } | undefined;
    assert.notEqual(outcome?.applied, true);
    assert.equal(Buffer.from(await vscode.workspace.fs.readFile(file('docs/plan.md'))).toString('utf8'), target);
  });
});

// Runs inside the real VS Code extension host and drives the installed extension through the vscode API only.
import * as assert from 'assert';
import * as vscode from 'vscode';

const ws = (): vscode.Uri => {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test workspace is open');
  return folder.uri;
};
const file = (rel: string): vscode.Uri => vscode.Uri.joinPath(ws(), ...rel.split('/'));
const codeOf = (d: vscode.Diagnostic): string => String(typeof d.code === 'object' ? d.code.value : d.code);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

async function open(rel: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(file(rel));
  await vscode.window.showTextDocument(doc);
  return doc;
}

async function lenses(doc: vscode.TextDocument, pred: (ls: vscode.CodeLens[]) => boolean): Promise<vscode.CodeLens[]> {
  return waitFor('code lenses', async () => {
    const ls = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100);
    return ls && pred(ls) ? ls : undefined;
  });
}

async function diagnostics(uri: vscode.Uri, pred: (ds: vscode.Diagnostic[]) => boolean): Promise<vscode.Diagnostic[]> {
  return waitFor(`diagnostics for ${uri.path}`, () => {
    const ds = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'toonlens');
    return pred(ds) ? ds : undefined;
  });
}

/** Waits for `code` on the document, applies the quick fix whose title matches, and waits for the diagnostic to go. */
async function applyQuickFix(doc: vscode.TextDocument, code: string, title: RegExp): Promise<void> {
  const ds = await diagnostics(doc.uri, (d) => d.some((x) => codeOf(x) === code));
  const diag = ds.find((x) => codeOf(x) === code)!;
  const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, diag.range, vscode.CodeActionKind.QuickFix.value);
  const fix = actions.find((a) => a.edit && title.test(a.title));
  assert.ok(fix, `a quick fix for ${code}: ${actions.map((a) => a.title).join(' | ')}`);
  assert.ok(await vscode.workspace.applyEdit(fix.edit!));
  await diagnostics(doc.uri, (d) => !d.some((x) => codeOf(x) === code));
}

describe('ToonLens in a real VS Code', () => {
  before(async () => {
    const ext = vscode.extensions.all.find((e) => e.packageJSON?.name === 'toonlens');
    assert.ok(ext, 'the ToonLens extension is installed');
    await ext.activate();
  });

  it('shows a TOON savings lens above every heading of a markdown file', async () => {
    const doc = await open('AGENTS.md');
    const headings = doc.getText().split('\n').filter((l) => /^#{1,6} /.test(l)).length;
    const ls = await lenses(doc, (l) => l.filter((x) => x.command?.title && x.range.start.line > 0).length >= headings - 1);
    const titles = ls.map((l) => l.command?.title ?? '');
    assert.ok(titles.some((t) => /^TOON −\d/.test(t) && t.endsWith('convert')), `a convert lens: ${titles.join(' | ')}`);
    assert.ok(titles.some((t) => /keep markdown/.test(t)), `a keep-markdown lens: ${titles.join(' | ')}`);
  });

  it('explains a section verdict when a heading is hovered', async () => {
    const doc = await open('AGENTS.md');
    const line = doc.getText().split('\n').findIndex((l) => l.startsWith('## Services'));
    const hovers = await waitFor('hover', async () => {
      const h = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(line, 4));
      return h && h.length ? h : undefined;
    });
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /convert/);
    assert.match(text, /tokenx/);
  });

  it('converts a section to a toon fence with the lens command', async () => {
    const doc = await open('AGENTS.md');
    const before = doc.getText();
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertSection'));
    const lens = ls.find((x) => x.command?.command === 'toonlens.convertSection')!;
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    await waitFor('converted text', () => (doc.getText().includes('```toon') ? true : undefined));
    assert.notEqual(doc.getText(), before);
    await vscode.commands.executeCommand('undo');
    await waitFor('undo', () => (doc.getText() === before ? true : undefined));
  });

  it('reverts a toon fence to markdown with the refactor code action', async () => {
    const doc = await open('AGENTS.md');
    const before = doc.getText();
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertSection'));
    const lens = ls.find((x) => x.command?.command === 'toonlens.convertSection')!;
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    await waitFor('converted text', () => (doc.getText().includes('```toon') ? true : undefined));
    const fenceLine = doc.getText().split('\n').findIndex((l) => l.startsWith('```toon'));
    const at = new vscode.Range(fenceLine + 1, 0, fenceLine + 1, 0);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, at, vscode.CodeActionKind.RefactorRewrite.value);
    const revert = actions.find((a) => a.title === 'Revert to Markdown');
    assert.ok(revert?.edit, `a revert action: ${actions.map((a) => a.title).join(' | ')}`);
    assert.ok(await vscode.workspace.applyEdit(revert.edit));
    await waitFor('reverted text', () => (!doc.getText().includes('```toon') ? true : undefined));
    assert.match(doc.getText(), /\| Command \| Purpose \| When \|/, 'the table is markdown again');
    await vscode.commands.executeCommand('undo');
    await vscode.commands.executeCommand('undo');
    await waitFor('both undone', () => (doc.getText() === before ? true : undefined));
  });

  it('converts every recommended section with the plan lens, in one undoable edit', async () => {
    const doc = await open('AGENTS.md');
    const before = doc.getText();
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertAll'));
    const converting = ls.filter((x) => x.command?.command === 'toonlens.convertSection').length;
    const all = ls.find((x) => x.command?.command === 'toonlens.convertAll')!;
    assert.equal(all.command!.title, 'Convert all recommended sections');
    await vscode.commands.executeCommand(all.command!.command, ...(all.command!.arguments ?? []));
    const fences = await waitFor('converted sections', () => {
      const n = doc.getText().split('\n').filter((l) => l.startsWith('```toon')).length;
      return n > 0 ? n : undefined;
    });
    assert.equal(fences, converting, 'one fence per section whose lens said convert');
    await vscode.commands.executeCommand('undo');
    await waitFor('undo', () => (doc.getText() === before ? true : undefined));
  });

  it('reports a defective verdict and fixes it with a quick fix', async () => {
    const doc = await open('bad.verdict.json');
    await applyQuickFix(doc, 'verdict/safe-to-auto-apply', /safe_to_auto_apply/);
  });

  it('reports a defective hygiene report, fixes its tier and applies its exact_edit to the workspace file', async () => {
    const doc = await open('docs/hygiene-report.json');
    await applyQuickFix(doc, 'report/safety-tier', /safety_tier/);
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.title === 'Apply replace-text (auto)'));
    const lens = ls.find((x) => x.command?.title === 'Apply replace-text (auto)')!;
    const target = file('docs/plan.md');
    const before = Buffer.from(await vscode.workspace.fs.readFile(target)).toString('utf8');
    assert.match(before, /TEMPORARY NOTE/);
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    const after = await waitFor('edited target', async () => {
      const opened = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
      const text = opened ? opened.getText() : Buffer.from(await vscode.workspace.fs.readFile(target)).toString('utf8');
      return text.includes('The migration is done.') ? text : undefined;
    });
    assert.doesNotMatch(after, /TEMPORARY NOTE/);
  });
});

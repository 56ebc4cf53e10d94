// Helpers shared by the real-editor suites (they run inside the extension host, through the vscode API only).
import * as assert from 'assert';
import * as vscode from 'vscode';

export const ws = (): vscode.Uri => {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test workspace is open');
  return folder.uri;
};
export const file = (rel: string): vscode.Uri => vscode.Uri.joinPath(ws(), ...rel.split('/'));
export const codeOf = (d: vscode.Diagnostic): string => String(typeof d.code === 'object' ? d.code.value : d.code);
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 30000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(250);
  }
}

export async function open(rel: string): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(file(rel));
  await vscode.window.showTextDocument(doc);
  return doc;
}

export async function lenses(doc: vscode.TextDocument, pred: (ls: vscode.CodeLens[]) => boolean): Promise<vscode.CodeLens[]> {
  return waitFor('code lenses', async () => {
    const ls = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100);
    return ls && pred(ls) ? ls : undefined;
  });
}

export async function diagnostics(uri: vscode.Uri, pred: (ds: vscode.Diagnostic[]) => boolean): Promise<vscode.Diagnostic[]> {
  return waitFor(`diagnostics for ${uri.path}`, () => {
    const ds = vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'toonlens');
    return pred(ds) ? ds : undefined;
  });
}

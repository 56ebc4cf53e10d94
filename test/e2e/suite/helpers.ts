// Helpers shared by the real-editor suites (they run inside the extension host, through the vscode API only).
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

import pkg from '../../../package.json';

/** ToonLens's extension id (publisher.name). */
export const EXTENSION_ID = `${pkg.publisher}.${pkg.name}`;

/**
 * The extension under test, activated: the one the runner installed from the VSIX into the server's extensions
 * dir (TOONLENS_E2E_EXTENSIONS_DIR), at this checkout's version — never a development folder.
 */
export async function installedExtension(): Promise<vscode.Extension<unknown>> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `the ${EXTENSION_ID} extension is installed`);
  const dir = process.env.TOONLENS_E2E_EXTENSIONS_DIR;
  assert.ok(dir, 'the runner names the extensions dir it installed the VSIX into (TOONLENS_E2E_EXTENSIONS_DIR)');
  const real = fs.realpathSync(dir) + path.sep;
  assert.ok(fs.realpathSync(ext.extensionPath).startsWith(real), `loaded from the extensions dir ${real}, not from ${ext.extensionPath}`);
  assert.equal(ext.packageJSON.version, pkg.version, "the installed extension is this checkout's version");
  await ext.activate();
  return ext;
}

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

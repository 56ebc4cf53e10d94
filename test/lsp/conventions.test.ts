// Editor conventions over real LSP: every diagnostic links its code's documentation (codeDescription), and every
// toon/* markdown diagnostic has the quick fixes "Disable <code> for this line" and "… for this file", which write
// the inline comment that then switches it off (markdownlint / ESLint style).
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CancellationTokenSource, ExecuteCommandRequest, type CodeAction, type Diagnostic } from 'vscode-languageserver-protocol/node';
import { LspHarness, REPO_ROOT, applyTextEdits } from './harness';
import { codeDocumentationUrl } from '../../server/src/core/codes';
import { critiqueText } from './fixtures';

const DUPLICATES = readFileSync(join(REPO_ROOT, 'examples', 'markdown', 'duplicate-rules.md'), 'utf8');
const ofCode = (ds: Diagnostic[], code: string) => ds.filter((d) => d.code === code);

describe('editor conventions', () => {
  let h: LspHarness;
  before(async () => {
    h = await LspHarness.start({ capabilities: { textDocument: { codeAction: { disabledSupport: true, codeActionLiteralSupport: { codeActionKind: { valueSet: ['quickfix', 'refactor', 'source'] } } } } } });
  });
  after(() => h.shutdown());

  test('every diagnostic, markdown and JSON, links its code\'s row in docs/diagnostics.md', async () => {
    const md = h.openFile('AGENTS.md', DUPLICATES, 'markdown');
    const json = h.openFile('bad.critique.json', critiqueText((c) => { (c as Record<string, unknown>).schema_version = 7; }), 'json');
    for (const uri of [md, json]) {
      const ds = await h.waitForDiagnostics(uri, (d) => d.length > 0);
      for (const d of ds) {
        assert.equal(typeof d.code, 'string');
        assert.equal(d.codeDescription?.href, codeDocumentationUrl(String(d.code)), `${String(d.code)} links its documentation`);
        assert.match(d.codeDescription!.href, /^https:\/\/github\.com\/toonlens\/toonlens\/blob\/main\/docs\/diagnostics\.md#[a-z0-9-]+$/);
      }
    }
    h.close(md);
    h.close(json);
  });

  async function fixes(uri: string, d: Diagnostic): Promise<CodeAction[]> {
    const actions = ((await h.codeActions(uri, d.range, { diagnostics: [d], only: ['quickfix'] })) ?? []) as CodeAction[];
    return actions.filter((a) => a.title.startsWith('Disable '));
  }

  test('"for this line" writes a disable-next-line comment before the line; that diagnostic goes, the others stay', async () => {
    const uri = h.openFile('line/AGENTS.md', DUPLICATES, 'markdown');
    const ds = await h.waitForDiagnostics(uri, (d) => ofCode(d, 'toon/duplicate-rule').length >= 2);
    const dup = ofCode(ds, 'toon/duplicate-rule');
    const target = dup[0]!;
    const actions = await fixes(uri, target);
    assert.deepEqual(actions.map((a) => a.title), ['Disable toon/duplicate-rule for this line', 'Disable toon/duplicate-rule for this file']);
    assert.equal(actions[0]!.kind, 'quickfix');
    const text = applyTextEdits(DUPLICATES, LspHarness.editsFor(actions[0]!.edit, uri));
    const lines = text.split('\n');
    const at = target.range.start.line;
    assert.equal(lines[at], '<!-- toonlens-disable-next-line toon/duplicate-rule -->');
    assert.equal(lines[at + 1], DUPLICATES.split('\n')[at]);
    h.change(uri, text);
    const after = await h.waitForDiagnostics(uri, (_d, v) => v === h.version(uri));
    assert.deepEqual(ofCode(after, 'toon/duplicate-rule').map((d) => d.range.start.line), dup.slice(1).map((d) => d.range.start.line + 1), 'only that line\'s diagnostic is gone');
    h.close(uri);
  });

  test('"for this file" writes one disable comment after the frontmatter, and a second code joins it', async () => {
    const withFm = `---\ndescription: support rules\n---\n${DUPLICATES}\n## Style\n\n- Be careful with the tone as appropriate.\n`;
    const uri = h.openFile('file/AGENTS.md', withFm, 'markdown');
    const ds = await h.waitForDiagnostics(uri, (d) => ofCode(d, 'toon/duplicate-rule').length >= 2 && ofCode(d, 'toon/vague-rule').length >= 1);
    const file = (await fixes(uri, ofCode(ds, 'toon/duplicate-rule')[0]!)).find((a) => a.title.endsWith('for this file'))!;
    let text = applyTextEdits(withFm, LspHarness.editsFor(file.edit, uri));
    assert.ok(text.startsWith('---\ndescription: support rules\n---\n<!-- toonlens-disable toon/duplicate-rule -->\n# Support agent rules\n'), text.slice(0, 120));
    h.change(uri, text);
    let now = await h.waitForDiagnostics(uri, (_d, v) => v === h.version(uri));
    assert.equal(ofCode(now, 'toon/duplicate-rule').length, 0);
    const vague = ofCode(now, 'toon/vague-rule')[0];
    assert.ok(vague, JSON.stringify(now.map((d) => d.code)));
    const second = (await fixes(uri, vague)).find((a) => a.title.endsWith('for this file'))!;
    text = applyTextEdits(text, LspHarness.editsFor(second.edit, uri));
    assert.ok(text.includes('---\n<!-- toonlens-disable toon/duplicate-rule toon/vague-rule -->\n# Support'), 'the code joins the comment already there');
    h.change(uri, text);
    now = await h.waitForDiagnostics(uri, (_d, v) => v === h.version(uri));
    assert.deepEqual(now.filter((d) => String(d.code).startsWith('toon/')), []);
    h.close(uri);
  });

  test('a second code on one line joins the comment above; a line inside a table gets only the file fix; CRLF stays CRLF', async () => {
    const doc = '# Rules\r\n\r\n- Always run the tests before pushing.\r\n- Always run the tests before pushing.\r\n\r\n| rule | note |\r\n| --- | --- |\r\n| Always run the tests before pushing. | x |\r\n';
    const uri = h.openFile('crlf/AGENTS.md', doc, 'markdown');
    const ds = await h.waitForDiagnostics(uri, (d) => ofCode(d, 'toon/duplicate-rule').length >= 1);
    const inList = ofCode(ds, 'toon/duplicate-rule').find((d) => d.range.start.line === 3)!;
    assert.ok(inList, JSON.stringify(ds.map((d) => [d.code, d.range.start.line])));
    const line = (await fixes(uri, inList)).find((a) => a.title.endsWith('for this line'))!;
    const text = applyTextEdits(doc, LspHarness.editsFor(line.edit, uri));
    assert.ok(text.includes('- Always run the tests before pushing.\r\n<!-- toonlens-disable-next-line toon/duplicate-rule -->\r\n- Always'), JSON.stringify(text));
    // With the comment there, another code on that line joins it instead of a second comment (which would move the first one's "next line").
    h.change(uri, text);
    await h.waitForDiagnostics(uri, (_d, v) => v === h.version(uri));
    const fake = { ...inList, code: 'toon/vague-rule', range: { start: { line: 4, character: 2 }, end: { line: 4, character: 10 } } };
    const joined = (await fixes(uri, fake)).find((a) => a.title.endsWith('for this line'))!;
    assert.ok(joined, 'a line fix for the second code');
    const twice = applyTextEdits(text, LspHarness.editsFor(joined.edit, uri));
    assert.ok(twice.includes('\r\n<!-- toonlens-disable-next-line toon/duplicate-rule toon/vague-rule -->\r\n- Always'), JSON.stringify(twice));
    const inTable = { ...inList, range: { start: { line: 8, character: 2 }, end: { line: 8, character: 10 } } };
    assert.deepEqual((await fixes(uri, inTable)).map((a) => a.title), ['Disable toon/duplicate-rule for this file'], 'a comment line would end the table');
    h.close(uri);
  });

  test('a JSON diagnostic gets no disable fix; restricted mode shows the fixes disabled', async () => {
    const json = h.openFile('x.critique.json', critiqueText((c) => { (c as Record<string, unknown>).schema_version = 7; }), 'json');
    const jd = (await h.waitForDiagnostics(json, (d) => d.length > 0))[0]!;
    assert.deepEqual(await fixes(json, jd), []);
    h.close(json);
    const untrusted = await LspHarness.start({ initializationOptions: { trusted: false }, capabilities: { textDocument: { codeAction: { disabledSupport: true } } } });
    try {
      const uri = untrusted.openFile('AGENTS.md', DUPLICATES, 'markdown');
      const d = ofCode(await untrusted.waitForDiagnostics(uri, (x) => ofCode(x, 'toon/duplicate-rule').length > 0), 'toon/duplicate-rule')[0]!;
      const actions = (((await untrusted.codeActions(uri, d.range, { diagnostics: [d], only: ['quickfix'] })) ?? []) as CodeAction[]).filter((a) => a.title.startsWith('Disable '));
      assert.ok(actions.length > 0 && actions.every((a) => a.disabled && !a.edit), JSON.stringify(actions));
    } finally {
      await untrusted.shutdown();
    }
  });

  test('Check Workspace reports on the token the client attached (VS Code: a cancellable notification), and cancelling the request stops it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonlens-check-token-'));
    const FILES = 2000;
    const body = Array.from({ length: 20 }, (_, i) => `## Section ${i}\n\n- always run the tests\n- never push on red\n`).join('\n');
    mkdirSync(join(dir, 'docs'));
    for (let i = 0; i < FILES; i++) writeFileSync(join(dir, 'docs', `f${i}.md`), `# File ${i}\n\n${body}`);
    const w = await LspHarness.start({ workspaceDir: dir });
    try {
      const cts = new CancellationTokenSource();
      const token = 'client-notification-token';
      const pending = w.connection.sendRequest(ExecuteCommandRequest.type, { command: 'toonlens.checkWorkspace', arguments: [], workDoneToken: token }, cts.token) as Promise<{ cancelled: boolean; checked: number; files: number }>;
      await w.waitFor(() => w.progress.find((p) => p.token === token && p.value.kind === 'report'), 60_000, () => `a report on the client's token: ${JSON.stringify(w.progress.slice(0, 5))} ${JSON.stringify(w.progressTokens)} ${w.stderr.slice(-500)}`);
      const begin = w.progress.find((p) => p.token === token && p.value.kind === 'begin');
      assert.equal(begin?.value.cancellable, true);
      cts.cancel();
      const outcome = await pending;
      assert.equal(outcome.cancelled, true);
      assert.ok(outcome.checked < FILES, `stopped early: ${outcome.checked} of ${FILES}`);
      await w.waitFor(() => (w.progress.some((p) => p.token === token && p.value.kind === 'end') ? true : undefined), 10_000, () => 'the end on that token');
      const checks = w.progress.filter((p) => p.value.kind === 'begin' && p.value.title === 'ToonLens: Check Workspace').map((p) => p.token);
      assert.deepEqual(checks, [token], 'no second, server-made Check Workspace progress beside the client\'s');
    } finally {
      await w.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

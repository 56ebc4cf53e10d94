// Agent context over LSP on the mixed fixture: the context diagnostics the CLI prints, with the other copy as
// relatedInformation; the quick fix removing this copy only; the first-line lens; an edit in one file updating
// the other's diagnostics; a file created on disk joining the model; the toonlens.agentContext command; the
// status-bar entry's text (toonlens.agentStatus).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FileChangeType, type CodeAction, type Diagnostic, type TextDocumentEdit } from 'vscode-languageserver-protocol';
import { LspHarness, applyTextEdits, busy } from './harness';
import { FIRST_LENS_WAIT_MAX_CHARS } from '../../server/src/features/project/agentContext';
import { FIXTURES } from '../paths';

const MIXED = join(FIXTURES, 'context', 'mixed');

function filesOf(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? filesOf(p) : [relative(MIXED, p).split('\\').join('/')];
  });
}

const contextCodes = (ds: Diagnostic[]) => ds.filter((d) => String(d.code).startsWith('context/')).map((d) => `${d.range.start.line + 1}:${d.code}`);

test('agent context in the editor: diagnostics, related copy, quick fix, lens, live updates, command', async () => {
  const h = await LspHarness.start();
  try {
    for (const f of filesOf(MIXED)) h.writeFile(f, readFileSync(join(MIXED, f)));
    const claudeText = readFileSync(join(MIXED, 'CLAUDE.md'), 'utf8');
    const agentsText = readFileSync(join(MIXED, 'AGENTS.md'), 'utf8');
    const claude = h.openFile('CLAUDE.md', claudeText, 'markdown');
    const agents = h.openFile('AGENTS.md', agentsText, 'markdown');
    const claudeDs = await h.waitForDiagnostics(claude, (d) => contextCodes(d).length > 0);
    assert.deepEqual(contextCodes(claudeDs), ['1:context/over-budget', '5:context/duplicate-instruction', '6:context/duplicate-instruction', '7:context/unreachable']);
    const dup = claudeDs.find((d) => d.code === 'context/duplicate-instruction' && d.range.start.line === 4)!;
    assert.equal(dup.relatedInformation?.[0]?.location.uri, h.uri('AGENTS.md'));
    assert.equal(dup.relatedInformation?.[0]?.location.range.start.line, 3);

    // The quick fix edits this document only and removes exactly the duplicated line.
    const actions = (await h.codeActions(claude, dup.range, { diagnostics: [dup] })) ?? [];
    const fix = actions.find((a): a is CodeAction => 'edit' in a && /Remove this copy/.test(a.title))!;
    assert.ok(fix, JSON.stringify(actions));
    const changes = fix.edit!.documentChanges as TextDocumentEdit[];
    assert.deepEqual(changes.map((c) => c.textDocument.uri), [claude]);
    const fixed = applyTextEdits(claudeText, changes[0]!.edits as never);
    assert.equal(fixed, claudeText.replace('- Never commit secrets or API keys to the repository.\n', ''));

    // The lens on the first line: who loads it, its tokens, the file it shares instructions with.
    await h.waitIdle();
    const lenses = (await h.codeLenses(agents)) ?? [];
    const first = lenses.find((l) => l.range.start.line === 0 && /^loaded by /.test(l.command?.title ?? ''));
    assert.ok(first, JSON.stringify(lenses.map((l) => l.command?.title)));
    assert.match(first.command!.title, /^loaded by Claude Code, Codex, Copilot \(VS Code\), Cursor \(always\) · \d+ tokens · also in \S+: \d lines?$/);

    // The status-bar entry: the agents loading the file and its tokens, agent → class in the tooltip; none for a
    // file no agent loads.
    const status = (await h.executeCommand('toonlens.agentStatus', [{ uri: agents }])) as { text: string; tooltip: string };
    const lensTokens = /· (\d+) tokens/.exec(first.command!.title)![1];
    assert.equal(status.text, `$(hubot) Claude Code, Codex +2 · ${lensTokens} tok`);
    assert.deepEqual(status.tooltip.split('\n').filter((l) => l.includes(' → ')).map((l) => l.replace(/ \([^()]*\)$/, '')), ['Claude Code → always', 'Codex → always', 'Copilot (VS Code) → always', 'Cursor → always']);
    const srcStatus = (await h.executeCommand('toonlens.agentStatus', [{ uri: h.openFile('src/CLAUDE.md', readFileSync(join(MIXED, 'src/CLAUDE.md'), 'utf8'), 'markdown') }])) as { text: string; tooltip: string };
    assert.match(srcStatus.text, /^\$\(hubot\) Claude Code · \d+ tok$/);
    assert.match(srcStatus.tooltip, /Claude Code → when src\/\*\* \(\d+ tokens\)/);
    const notes = h.openFile('notes.md', '# Notes\n\nNothing here is loaded by an agent.\n', 'markdown');
    assert.equal(await h.executeCommand('toonlens.agentStatus', [{ uri: notes }]), null);

    // An edit in CLAUDE.md (the fix applied) clears the duplicate on AGENTS.md too.
    const agentsBefore = contextCodes(await h.waitForDiagnostics(agents, (d) => contextCodes(d).length > 0));
    assert.ok(agentsBefore.includes('4:context/duplicate-instruction'));
    h.change(claude, fixed);
    const agentsAfter = await h.waitForDiagnostics(agents, (d) => !contextCodes(d).includes('4:context/duplicate-instruction'));
    // CLAUDE.md is now the smaller file: the over-budget diagnostic moves to the costliest one, AGENTS.md.
    assert.deepEqual(contextCodes(agentsAfter), ['1:context/over-budget', '3:context/duplicate-instruction']);

    // A new file on disk joins the model.
    h.writeFile('.github/copilot-instructions.md', '# Copilot\n\n- Keep pull requests under four hundred lines.\n');
    await h.fileEvents([{ uri: h.uri('.github/copilot-instructions.md'), type: FileChangeType.Changed }]);
    const withNew = await h.waitForDiagnostics(agents, (d) => contextCodes(d).includes('5:context/duplicate-instruction'));
    assert.ok(contextCodes(withNew).includes('5:context/duplicate-instruction'));

    const model = (await h.executeCommand('toonlens.agentContext', [{ uri: agents }])) as { schema_version: string; agents: { agent: string; files: { path: string }[] }[] };
    assert.equal(model.schema_version, 'context.v1');
    assert.ok(model.agents.find((a) => a.agent === 'codex')!.files.some((f) => f.path === 'AGENTS.md'));
  } finally {
    await h.shutdown();
  }
});

test("a large agent file's first lenses do not wait for the context model; its lens comes with a refresh", async () => {
  const h = await LspHarness.start();
  try {
    let text = '# Rules\n\n';
    for (let i = 0; text.length <= FIRST_LENS_WAIT_MAX_CHARS; i++) text += `## Part ${i}\n\n- Rule number ${i} says what to do in part ${i}.\n\n`;
    const agents = h.openFile('AGENTS.md', text, 'markdown');
    const before = h.codeLensRefreshes;
    const first = (await h.codeLenses(agents)) ?? [];
    assert.equal(first.filter((l) => /^loaded by /.test(l.command?.title ?? '')).length, 0, 'answered before the model');
    await h.waitIdle(busy(120_000));
    assert.ok(h.codeLensRefreshes > before, 'the diagnostics pass asked for the lenses again');
    const again = (await h.codeLenses(agents)) ?? [];
    const lens = again.find((l) => l.range.start.line === 0 && /^loaded by /.test(l.command?.title ?? ''));
    assert.match(lens?.command?.title ?? '', /^loaded by .*Codex.* · [\d,]+ tokens$/);
  } finally {
    await h.shutdown();
  }
});

// features/project/agentContext.ts in process (a FeatureContext double, no server): the duplicate-instruction
// quick fix the mixed fixture's context diagnostics map to, applied to the text as a client would.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Diagnostic, Range } from 'vscode-languageserver/node';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { agentContextFeature } from '../../server/src/features/project/agentContext';
import { ContextDouble, codeActionsOf } from '../lsp/featureContext';
import { LspHarness, applyTextEdits } from '../lsp/harness';
import { FIXTURES } from '../paths';

// Read only: the workspace reader looks at the fixture folder, nothing is written.
const MIXED = join(FIXTURES, 'context', 'mixed');
const uriOf = (rel: string) => pathToFileURL(join(MIXED, rel)).href;
const textOf = (rel: string) => readFileSync(join(MIXED, rel), 'utf8');
const DUP = 'context/duplicate-instruction';

describe('agent context feature', () => {
  const double = new ContextDouble({ roots: [MIXED] });
  const feature = double.create(agentContextFeature);
  after(() => double.dispose());
  const diagnose = (doc: TextDocument) => double.diagnose(feature, doc);
  const request = (doc: TextDocument, range: Range, ds: Diagnostic[]) => codeActionsOf(feature, doc, range, ds);

  test('the quick fix removes this copy only, and the other copy stays', async () => {
    const claudeText = textOf('CLAUDE.md');
    const agentsText = textOf('AGENTS.md');
    const claude = double.open(uriOf('CLAUDE.md'), 'markdown', claudeText);
    const agents = double.open(uriOf('AGENTS.md'), 'markdown', agentsText);
    const ds = await diagnose(claude);
    const dup = ds.find((d) => d.code === DUP && d.range.start.line === 4)!;
    assert.ok(dup, JSON.stringify(ds.map((d) => `${d.range.start.line}:${String(d.code)}`)));

    const actions = await request(claude, dup.range, [dup]);
    assert.equal(actions.length, 1);
    const [fix] = actions;
    assert.match(fix!.title, /Remove this copy/);
    assert.equal(fix!.kind, 'quickfix');
    assert.equal(fix!.isPreferred, false, 'removing an instruction is a decision, not the preferred fix');
    assert.deepEqual(fix!.diagnostics, [dup]);
    const changes = fix!.edit!.documentChanges as { textDocument: { uri: string; version: number }; edits: never[] }[];
    assert.deepEqual(changes.map((c) => c.textDocument), [{ uri: claude.uri, version: claude.version }], 'this document only');
    const edits = LspHarness.editsFor(fix!.edit, claude.uri);
    assert.ok(edits.every((e) => e.range.start.line === dup.range.start.line), 'the edit is at the diagnostic');
    const line = '- Never commit secrets or API keys to the repository.\n';
    const fixed = applyTextEdits(claudeText, edits);
    assert.equal(fixed, claudeText.replace(line, ''));
    assert.ok(agentsText.includes(line), 'the other copy is in AGENTS.md');
    assert.equal(LspHarness.editsFor(fix!.edit, agents.uri).length, 0, 'and stays there');

    const after = await diagnose(double.change(claude.uri, fixed));
    assert.ok(!after.some((d) => d.code === DUP && d.message === dup.message), 'that duplicate is gone');
    assert.deepEqual(double.logs.filter((l) => l.level === 'error'), []);
  });

  test('no actions without a duplicate-instruction diagnostic or outside the workspace', async () => {
    const claude = double.ctx.documents.get(uriOf('CLAUDE.md')) ?? double.open(uriOf('CLAUDE.md'), 'markdown', textOf('CLAUDE.md'));
    const r = { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } };
    assert.deepEqual(await request(claude, r, []), []);
    const other = (await diagnose(claude)).filter((d) => d.code !== DUP);
    assert.ok(other.length > 0);
    assert.deepEqual(await request(claude, other[0]!.range, other), []);
    const outside = double.open('file:///elsewhere/CLAUDE.md', 'markdown', textOf('CLAUDE.md'));
    assert.deepEqual(await request(outside, r, [{ range: r, message: 'x', source: 'toonlens', code: DUP }]), []);
  });

  test('restricted mode: "Remove this copy" is shown disabled, with no edit', async () => {
    const untrusted = new ContextDouble({ roots: [MIXED], trusted: false, clientCapabilities: { textDocument: { codeAction: { disabledSupport: true } } } });
    try {
      const f = untrusted.create(agentContextFeature);
      const claude = untrusted.open(uriOf('CLAUDE.md'), 'markdown', textOf('CLAUDE.md'));
      const dup = (await untrusted.diagnose(f, claude)).find((d) => d.code === DUP)!;
      assert.ok(dup, 'the finding is still reported');
      const actions = await codeActionsOf(f, claude, dup.range, [dup]);
      assert.equal(actions.length, 1);
      assert.match(actions[0]!.title, /Remove this copy/);
      assert.match(actions[0]!.disabled?.reason ?? '', /restricted mode/);
      assert.equal(actions[0]!.edit, undefined);
    } finally {
      untrusted.dispose();
    }
  });
});

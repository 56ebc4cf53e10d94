// features/markdown/convert.ts in process (a FeatureContext double, no server): the Convert / Revert / Compact
// table actions a real agent file's sections map to, applied to the text as a client would, and Convert all.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { markdownConvertFeature } from '../../server/src/features/markdown/convert';
import { COMMANDS, REMEMBER_ORIGINALS_COMMAND } from '../../server/src/protocol/commands';
import { findToonFences } from '../../server/src/core/toon/fences';
import { ContextDouble, NO_CANCEL, codeActionsOf } from '../lsp/featureContext';
import { LspHarness, applyTextEdits, positionAt } from '../lsp/harness';
import { REPO_ROOT } from '../paths';

const AGENTS = readFileSync(join(REPO_ROOT, 'test', 'e2e', 'workspace', 'AGENTS.md'), 'utf8');
const LINES = AGENTS.split('\n');
const lineOf = (prefix: string) => LINES.findIndex((l) => l.startsWith(prefix));

function setup(options: ConstructorParameters<typeof ContextDouble>[0] = {}) {
  const double = new ContextDouble(options);
  const feature = double.create(markdownConvertFeature);
  const at = (doc: TextDocument, line: number, character = 0, only?: string[]) => codeActionsOf(feature, doc, { start: { line, character }, end: { line, character } }, [], only);
  return { double, feature, at };
}

describe('markdown convert feature', () => {
  const { double, feature, at } = setup();
  after(() => double.dispose());

  test('Convert on a convert-verdict section replaces exactly that section; Revert then gives the exact bytes', async () => {
    const doc = double.open('file:///w/exact/AGENTS.md', 'markdown', AGENTS);
    const services = lineOf('## Services');
    const [convert, ...rest] = await at(doc, services + 1);
    assert.deepEqual(rest, []);
    assert.match(convert!.title, /^Convert section to TOON \(saves \d+ tokens?, verdict convert\)$/);
    assert.equal(convert!.kind, 'refactor.rewrite');
    assert.equal(convert!.isPreferred, true);
    assert.equal(convert!.command?.command, REMEMBER_ORIGINALS_COMMAND);
    const edits = LspHarness.editsFor(convert!.edit, doc.uri);
    assert.equal((convert!.edit!.documentChanges![0] as { textDocument: { version: number } }).textDocument.version, doc.version, 'versioned');
    assert.ok(edits.length > 0);
    const style = lineOf('## Style');
    for (const e of edits) assert.ok(e.range.start.line >= services && e.range.end.line <= style, `edit ${JSON.stringify(e.range)} stays in the section`);

    const converted = applyTextEdits(AGENTS, edits);
    assert.equal(findToonFences(converted).length, 1);
    assert.ok(converted.startsWith(LINES.slice(0, services + 1).join('\n')), 'what precedes the section is untouched');
    assert.ok(converted.endsWith(LINES.slice(style).join('\n')), 'what follows the section is untouched');
    double.change(doc.uri, converted);
    assert.deepEqual(await feature.commands![REMEMBER_ORIGINALS_COMMAND]!(convert!.command!.arguments!, NO_CANCEL), { remembered: 1 });

    const fence = findToonFences(converted)[0]!;
    const inFence = positionAt(converted, fence.contentStart);
    const [revert, ...more] = await at(double.ctx.documents.get(doc.uri)!, inFence.line, inFence.character);
    assert.deepEqual(more, []);
    assert.equal(revert!.title, 'Revert to Markdown');
    assert.equal(revert!.kind, 'refactor.rewrite');
    assert.equal(applyTextEdits(converted, LspHarness.editsFor(revert!.edit, doc.uri)), AGENTS, 'Convert then Revert gives the exact bytes');
    assert.deepEqual(double.logs.filter((l) => l.level === 'error'), []);
  });

  test('a fence converted elsewhere reverts to the canonical rendering, and says so', async () => {
    const other = setup();
    try {
      // Originals are kept per content hash for the whole process: a row of its own, so that no other test's
      // conversion is this one's.
      const text = AGENTS.replace('| api | 8080 | platform | /healthz |', '| api | 8090 | platform | /livez |');
      const doc = other.double.open('file:///w/canonical/AGENTS.md', 'markdown', text);
      const [convert] = await other.at(doc, lineOf('## Services'));
      const converted = applyTextEdits(text, LspHarness.editsFor(convert!.edit, doc.uri));
      // Not remembered (the follow-up command never ran): the original is not known.
      const changed = other.double.change(doc.uri, converted);
      const pos = positionAt(converted, findToonFences(converted)[0]!.contentStart);
      const [revert] = await other.at(changed, pos.line, pos.character);
      assert.equal(revert!.title, 'Revert to Markdown (canonical rendering: original not known)');
      const reverted = applyTextEdits(converted, LspHarness.editsFor(revert!.edit, doc.uri));
      assert.equal(findToonFences(reverted).length, 0);
      assert.ok(reverted.includes('api | 8090 | platform | /livez'), 'the rows come back as a markdown table');
    } finally {
      other.double.dispose();
    }
  });

  test('a keep-markdown section gets the asking command, no edit; a table gets Compact table beside Convert', async () => {
    const doc = double.open('file:///w/keep/AGENTS.md', 'markdown', AGENTS);
    const [keep, ...none] = await at(doc, lineOf('## Style'));
    assert.deepEqual(none, []);
    assert.match(keep!.title, /verdict keep markdown\)$/);
    assert.equal(keep!.isPreferred, undefined);
    assert.equal(keep!.edit, undefined);
    assert.equal(keep!.command?.command, COMMANDS.convertSection);

    const row = lineOf('| api |');
    const onRow = await at(doc, row, 3);
    assert.equal(onRow.length, 2);
    const compact = onRow.find((a) => a.title.startsWith('Compact table'))!;
    assert.match(compact.title, /^Compact table \(keeps markdown and its rendering; saves \d+ tokens?\)$/);
    const compacted = applyTextEdits(AGENTS, LspHarness.editsFor(compact.edit, doc.uri));
    assert.ok(compacted.length < AGENTS.length && compacted.includes('|api|8080|platform|/healthz|'), 'the padding goes');
    assert.equal(findToonFences(compacted).length, 0, 'it stays markdown');

    assert.deepEqual(await at(doc, row, 3, ['quickfix']), [], 'no refactor for a quick fix request');
  });

  test('Convert all converts every recommended section in one edit', async () => {
    const doc = double.open('file:///w/all/AGENTS.md', 'markdown', AGENTS);
    const n = double.applied.length;
    const outcome = await feature.commands![COMMANDS.convertAll]!([{ uri: doc.uri, version: doc.version }], NO_CANCEL);
    assert.deepEqual(outcome, { applied: true, message: 'Convert 2 sections to TOON' });
    assert.equal(double.applied.length, n + 1);
    const all = applyTextEdits(AGENTS, LspHarness.editsFor(double.applied.at(-1)!.edit, doc.uri));
    assert.equal(findToonFences(all).length, 2, 'Commands and Services');
    assert.ok(all.includes('## Style\n\nKeep functions small and names honest.'), 'the keep-markdown section stays');
  });

  test('restricted mode: disabled actions without edits for a client that shows them, none otherwise; no Convert all', async () => {
    for (const disabledSupport of [true, false]) {
      const untrusted = setup({ trusted: false, clientCapabilities: { textDocument: { codeAction: { disabledSupport } } } });
      try {
        const doc = untrusted.double.open('file:///w/r/AGENTS.md', 'markdown', AGENTS);
        const actions = await untrusted.at(doc, lineOf('| api |'), 3);
        if (disabledSupport) {
          assert.equal(actions.length, 1, 'Convert only (Compact table is not offered disabled)');
          assert.ok(actions.every((a) => a.disabled?.reason.includes('restricted mode') && !a.edit && !a.command), JSON.stringify(actions));
        } else {
          assert.deepEqual(actions, []);
        }
        const outcome = (await untrusted.feature.commands![COMMANDS.convertAll]!([{ uri: doc.uri, version: doc.version }], NO_CANCEL)) as { applied: boolean; message: string };
        assert.equal(outcome.applied, false);
        assert.match(outcome.message, /restricted mode/);
        assert.deepEqual(untrusted.double.applied, []);
        assert.deepEqual(untrusted.double.logs.filter((l) => l.level === 'error'), []);
      } finally {
        untrusted.double.dispose();
      }
    }
  });
});

// Every convert of the corpus (whole body and by block), applied through the language server as a user applies it
// (the Convert code action, its remember command), then reverted fence by fence through the Revert code action:
// the length change is the claimed savings, the o200k count drops by at least 5 % of the section's tokens, every
// fence decodes to exactly the content of the markdown it replaced, and Revert gives back the exact bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { decode } from '@toon-format/toon';
import type { CodeAction, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, applyTextEdits, positionAt } from './harness';
import { planDocument } from '../../server/src/core/markdown/engine';
import { parseSlice } from '../../server/src/core/markdown/blocks';
import { bodyValue } from '../../server/src/core/markdown/model';
import { findToonFences } from '../../server/src/core/toon/fences';
import { tokenizer } from '../../server/src/core/tokens';
import { blocksConvertDespiteSplit } from '../../server/src/core/markdown/blockConvert';

const DIRS = [join(REPO_ROOT, 'test', 'fixtures', 'corpus', 'doc2toon-inputs'), join(REPO_ROOT, 'examples', 'markdown'), join(REPO_ROOT, 'test', 'fixtures', 'markdown')];
const DOCS = DIRS.flatMap((d) => readdirSync(d).filter((f) => f.endsWith('.md') && f !== 'LICENSE.md').sort().map((f) => ({ name: f, text: readFileSync(join(d, f), 'utf8') })));

const apply = (text: string, uri: string, edit: WorkspaceEdit) => applyTextEdits(text, LspHarness.editsFor(edit, uri));

async function rewrites(h: LspHarness, uri: string, text: string, offset: number): Promise<CodeAction[]> {
  const pos = positionAt(text, offset);
  return ((await h.codeActions(uri, { start: pos, end: pos }, { only: ['refactor.rewrite'] })) ?? []) as CodeAction[];
}

test('every convert of the corpus through the server: claimed = written, ≥ 5 % of its tokens, fences decode to their markdown, Revert exact', { timeout: 600_000 }, async () => {
  const o200k = tokenizer('o200k_base');
  const h = await LspHarness.start();
  let whole = 0;
  let byBlock = 0;
  let fencesChecked = 0;
  let splitOffers = 0;
  try {
    for (const { name, text } of DOCS) {
      const plan = planDocument(text);
      for (const s of plan.sections) {
        // (a split_first section whose blocks convert: its action lens and code action, out of the hybrid)
        const splitBlocks = s.action !== 'convert' && s.blockSummary !== null && blocksConvertDespiteSplit(s.verdict!);
        if (s.action !== 'convert' && !splitBlocks) continue;
        if (splitBlocks) splitOffers++;
        const at = `${name} “${s.slice.heading}”`;
        const uri = h.openFile(`corpus/${whole + byBlock}-${name}`, text, 'markdown');
        // Convert: the preferred code action on the section's heading, its edit applied, then its command (the original is remembered).
        const convert = (await rewrites(h, uri, text, s.slice.charStart)).find((a) => /^Convert .* to TOON \(/.test(a.title) && a.edit);
        assert.ok(convert, `${at}: a Convert action with an edit`);
        if (s.blockSummary) assert.doesNotMatch(convert.title, /^Convert section/, `${at}: the action names the blocks (${convert.title})`);
        const converted = apply(text, uri, convert.edit!);
        h.change(uri, converted);
        const remembered = (await h.executeCommand(convert.command!.command, convert.command!.arguments)) as { remembered: number };
        assert.ok(remembered.remembered >= 1, `${at}: the original is remembered`);
        // What the plan claimed is what the server wrote.
        const v = s.verdict!;
        assert.equal(text.length - converted.length, v.measured_chars.savings, `${at}: length change = claimed savings`);
        const drop = o200k.count(text) - o200k.count(converted);
        assert.ok(drop * 100 >= 5 * s.tokens!.source, `${at}: o200k ${drop} of ${s.tokens!.source} section tokens`);
        // The fences Convert wrote (inside the section's new extent), last first so earlier offsets stay put.
        const end = s.slice.charEnd - v.measured_chars.savings;
        const fences = findToonFences(converted).filter((f) => f.infoStart >= s.slice.charStart && f.contentEnd <= end);
        assert.equal(fences.length, s.blockSummary ? s.blockSummary.tables + s.blockSummary.lists : 1, at);
        if (s.blockSummary) byBlock++;
        else whole++;
        let current = converted;
        for (const f of fences.reverse()) {
          const revert = (await rewrites(h, uri, current, f.infoStart)).find((a) => a.title.startsWith('Revert to Markdown'));
          assert.ok(revert?.edit, `${at}: a Revert action`);
          assert.equal(revert.title, 'Revert to Markdown', `${at}: an exact revert, not a canonical rendering`);
          const [e] = LspHarness.editsFor(revert.edit, uri);
          // The fence holds exactly the content of the markdown it replaced (the section's body, or the block alone).
          const original = e!.newText;
          const expected = s.blockSummary ? bodyValue(parseSlice(original, false).blocks) : bodyValue(parseSlice(original, true).blocks);
          assert.deepEqual(decode(f.content, { strict: true }), expected, `${at}: the fence decodes to its markdown's content`);
          fencesChecked++;
          current = apply(current, uri, revert.edit!);
          h.change(uri, current);
        }
        assert.equal(current, text, `${at}: Revert gives back the exact bytes`);
        h.close(uri);
      }
    }
  } finally {
    await h.shutdown();
  }
  assert.ok(whole >= 1 && byBlock >= 1, `whole-body converts ${whole}, block converts ${byBlock}`);
  assert.ok(splitOffers >= 1, `split_first sections converted by block: ${splitOffers}`);
  assert.ok(fencesChecked > whole + byBlock, `${fencesChecked} fences checked`);
});

// A recipe-build payload over LSP: diagnostics for a defect, and completion of op values and required fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompletionRequest, type CompletionItem } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, positionAt } from './harness';

const CHUNKED = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'recipe', 'chunked.recipe-input.json'), 'utf8');

async function complete(h: LspHarness, uri: string, text: string, offset: number): Promise<CompletionItem[]> {
  const r = await h.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionAt(text, offset) });
  return Array.isArray(r) ? r : (r?.items ?? []);
}

test('recipe-input: a broken chunk sequence is diagnosed, and completion offers ops and their required fields', async () => {
  const h = await LspHarness.start();
  try {
    // seq 1 → 2: the appends of spec_upload no longer run 0, 1, 2, …
    const broken = CHUNKED.replace('"seq": 1', '"seq": 2');
    const uri = h.open('upload.recipe-input.json', broken, 'json');
    const ds = await h.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'recipe/chunk-seq'), 15000);
    const seq = ds.find((d) => d.code === 'recipe/chunk-seq')!;
    assert.equal(broken.split('\n')[seq.range.start.line]!.includes('"seq": 2'), true, 'on the offending seq');

    // The value of an op's "op": every op of the schema.
    const withEmptyOp = CHUNKED.replace('{ "op": "begin_chunk", "chunk_id": "spec_upload" }', '{ "op": "" }');
    h.change(uri, withEmptyOp);
    const at = withEmptyOp.indexOf('"op": ""') + '"op": "'.length;
    const ops = await complete(h, uri, withEmptyOp, at);
    const labels = ops.map((c) => c.label);
    for (const op of ['begin_chunk', 'append_chunk', 'commit_chunk']) assert.ok(labels.includes(op), `${op} offered: ${labels.join(', ')}`);

    // A property key inside an op that names append_chunk: its required fields not yet present.
    const partial = CHUNKED.replace('{ "op": "begin_chunk", "chunk_id": "spec_upload" }', '{ "op": "append_chunk",  }');
    h.change(uri, partial);
    const keyAt = partial.indexOf('"op": "append_chunk",  ') + '"op": "append_chunk", '.length;
    const fields = (await complete(h, uri, partial, keyAt)).map((c) => c.label);
    for (const f of ['chunk_id', 'seq', 'text']) assert.ok(fields.includes(f), `${f} offered: ${fields.join(', ')}`);
    assert.ok(!fields.includes('op'), 'op is present already');
  } finally {
    await h.shutdown();
  }
});

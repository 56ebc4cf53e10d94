// What the markdown engine keeps per section of a large document, measured on real markdown (the producer's
// corpus inputs repeated, bench/markdown-gen.ts corpusMarkdownDocument): docs/performance.md, "Markdown memory on
// real markdown". Each test fails with its change undone.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { EngineCache, RELEASE_MERGE_CACHE_CHARS } from '../../server/src/core/markdown/engine';
import { corpusMarkdownDocument } from '../../bench/markdown-gen';

const require = createRequire(import.meta.url);

/** gpt-tokenizer's o200k_base merge cache (the instance the core's tokenizer counts with: one module per process). */
function mergeCacheSize(): number {
  const api = (require('gpt-tokenizer/encoding/o200k_base') as { default: { bytePairEncodingCoreProcessor: { mergeCache?: Map<string, unknown> } } }).default;
  return api.bytePairEncodingCoreProcessor.mergeCache?.size ?? 0;
}

test("a large document's completed plan empties the tokenizer's merge cache; a small document's keeps it", () => {
  const small = corpusMarkdownDocument(20_000);
  assert.ok(small.length < RELEASE_MERGE_CACHE_CHARS);
  new EngineCache().plan(small);
  assert.ok(mergeCacheSize() > 100, `after a small plan: ${mergeCacheSize()} entries`);
  const large = corpusMarkdownDocument(RELEASE_MERGE_CACHE_CHARS + 1);
  const cache = new EngineCache();
  const plan = cache.plan(large);
  assert.equal(mergeCacheSize(), 0);
  // The counts do not depend on the cache: an edit's plan counts what a fresh plan counts.
  const at = plan.sections[Math.floor(plan.sections.length / 2)]!.slice.headingEnd + 1;
  const edited = large.slice(0, at) + 'x' + large.slice(at);
  assert.deepEqual(cache.plan(edited).tokens, new EngineCache().plan(edited).tokens);
});

async function heapMeter(): Promise<() => number> {
  const { exposeGc } = await import('../../server/src/node/idleGc');
  const gc = exposeGc();
  assert.ok(gc, 'gc can be exposed');
  return () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
}

test('what an engine cache keeps per section of real markdown, after a plan and an edit, is a few hundred bytes', async () => {
  const heap = await heapMeter();
  new EngineCache().plan(corpusMarkdownDocument(30_000)); // the tokenizer and markdown-it loaded
  const text = corpusMarkdownDocument(2_000_000);
  const at = Math.floor(text.length / 2);
  const edited = text.slice(0, at) + 'x' + text.slice(at);
  assert.equal(edited.indexOf('\u0000'), -1); // (flattened before the first reading)
  const before = heap();
  const cache = new EngineCache();
  let plan = cache.plan(text);
  // What the lenses read of every section, as a server keeps it.
  for (const s of plan.sections) void s.tokens;
  plan = cache.plan(edited);
  for (const s of plan.sections) void s.tokens;
  const perSection = (heap() - before) / plan.sections.length;
  // 2,952 sections: ≈ 550 B each (analysis 176 B, measurement record 88 B, slice 88 B, plan section 56 B, the
  // heading, array slots). Before the packed records (an analysis of 26 fields with a stats object, a record of
  // 16, a one-element warnings array for each negative_savings section) ≈ 750 B, and 1,140 B with the merge cache.
  assert.ok(perSection < 650, `${perSection.toFixed(0)} B per section (${plan.sections.length} sections)`);
  assert.ok(cache.size >= plan.sections.length);
});

test('detach copies Latin-1 text out of a two-byte string one byte a character', async () => {
  const { detach } = await import('../../server/src/core/markdown/text');
  const heap = await heapMeter();
  // A two-byte parent (one em dash), its plain ASCII run cut into 200-character copies.
  const parent = '—' + 'abcdefghijklmnopqrstuvwxyz0123456789 '.repeat(3000);
  const before = heap();
  const kept: string[] = [];
  for (let i = 0; i < 20_000; i++) kept.push(detach(parent.slice(1 + (i % 1000), 201 + (i % 1000))));
  const per = (heap() - before) / kept.length;
  // One byte a character: ≈ 230 B a copy (with its array slot); two bytes: ≈ 430 B.
  assert.ok(per < 320, `${per.toFixed(0)} B per 200-character copy`);
  assert.equal(kept[5], parent.slice(6, 206));
  // Beyond Latin-1 the copy keeps its characters (and is flat: no view into the parent).
  assert.equal(detach(parent.slice(0, 50)), parent.slice(0, 50));
});

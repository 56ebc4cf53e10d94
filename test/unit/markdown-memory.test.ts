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

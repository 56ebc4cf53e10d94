/**
 * Cross-field rules for recipe-build MCP payloads.
 *
 * recipe-input documents hold update_recipe_build arguments: one call's arguments object, or a
 * batch — an array of argument objects in send order (see core/recipe/calls.ts). Chunked uploads
 * are followed across the calls of a batch. A call whose idempotency_key repeats an earlier one
 * in the document is a replay (the server answers it from its record, or rejects it), so its ops
 * do not advance any chunk.
 *
 * review_recipe_build results have no cross-field rule in diagnostics.md: everything they promise
 * is in the schema's five-branch oneOf, which the schema pass checks (with
 * {@link recipeOutputBranch} to name the branch a failed document was closest to).
 */
import type { JsonPath, JsonTarget, RuleSet } from '../../types';
import { ruleSet, type Rule, type RuleHit } from './rule';
import { ruleCode } from '../../codes';
import { callOps, isObject, recipeCalls, type RecipeCall, type RecipeOp } from '../recipe/calls';
import { APPEND_LIMIT_BYTES, PAYLOAD_LIMIT_BYTES, requestBytes, sha256Hex } from '../recipe/payload';

export { recipeOutputBranch, type OutputBranch } from '../recipe/branch';
export { recipeCompletions, type RecipeCompletion } from '../recipe/completions';

/** The calls of a document whose ops take effect: replays of an earlier idempotency_key are dropped. */
function effectiveCalls(value: unknown): RecipeCall[] {
  const seen = new Set<string>();
  return recipeCalls(value).filter((c) => {
    const key = c.args.idempotency_key;
    if (typeof key !== 'string') return true;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}

/** What the recipe-input rules read: the calls of the document, and one walk of its chunk ops (on first use). */
export interface RecipeDoc {
  calls: RecipeCall[];
  chunks(): ChunkWalk;
}

/** recipe/payload-size — a whole tools/call request of 32 KiB or more. */
export const payloadSizeRule: Rule<RecipeDoc> = {
  ...ruleCode('recipe/payload-size'),
  check({ calls }) {
    const out: RuleHit[] = [];
    for (const call of calls) {
      const bytes = requestBytes(call.args);
      if (bytes < PAYLOAD_LIMIT_BYTES) continue;
      const target: JsonTarget = Array.isArray(call.args.ops) ? { path: [...call.path, 'ops'], part: 'key' } : { path: call.path };
      out.push({
        message: `Tool call is ${bytes} bytes serialized (${kib(bytes)}, JSON-escaped UTF-8 with request envelope): keep it under ${PAYLOAD_LIMIT_BYTES} (32 KiB) by sending large content as begin_chunk / append_chunk / commit_chunk.`,
        target,
      });
    }
    return out;
  },
};

/** recipe/append-size — a complete request carrying an append_chunk of 12 KiB or more. */
export const appendSizeRule: Rule<RecipeDoc> = {
  ...ruleCode('recipe/append-size'),
  check({ calls }) {
    const out: RuleHit[] = [];
    for (const call of calls) {
      const appends = callOps(call).filter((o) => o.op.op === 'append_chunk');
      if (appends.length === 0) continue;
      const bytes = requestBytes(call.args);
      if (bytes < APPEND_LIMIT_BYTES) continue;
      const first = appends[0]!;
      const path: JsonPath = typeof first.op.text === 'string' ? [...first.path, 'text'] : first.path;
      out.push({
        message: `append_chunk request is ${bytes} bytes serialized (${kib(bytes)}): keep each under ${APPEND_LIMIT_BYTES} (12 KiB) by splitting the text over more appends.`,
        target: { path },
      });
    }
    return out;
  },
};

interface AppendRecord {
  seq: number;
  text: unknown;
  path: JsonPath;
}

/** One chunked upload of a chunk_id, from its begin_chunk (or first append seen) to its commit_chunk. */
interface ChunkSession {
  /** A begin_chunk for it is in the document: its appends must start at seq 0. */
  begun: boolean;
  /** The seq the next append must carry; undefined until the first append when not begun here. */
  expected: number | undefined;
  appends: AppendRecord[];
  /** Every append carried the expected seq. */
  inOrder: boolean;
}

/** The chunk-seq and chunk-sha hits of one walk, each in send order. */
export interface ChunkWalk {
  seq: RuleHit[];
  sha: RuleHit[];
}

/**
 * Walks the chunk ops of the document in send order, for recipe/chunk-seq and recipe/chunk-sha.
 * A chunk begun in this document must run 0, 1, 2, …; a chunk begun elsewhere (its begin_chunk is in
 * an earlier call not in this document) must run on from its first seq without gaps or repeats.
 */
export function walkChunks(value: unknown): ChunkWalk {
  const out: ChunkWalk = { seq: [], sha: [] };
  const sessions = new Map<string, ChunkSession>();
  const ops: RecipeOp[] = effectiveCalls(value).flatMap(callOps);
  for (const { op, path } of ops) {
    const id = op.chunk_id;
    if (typeof id !== 'string') continue;
    if (op.op === 'begin_chunk') {
      sessions.set(id, { begun: true, expected: 0, appends: [], inOrder: true });
    } else if (op.op === 'append_chunk') {
      const seq = op.seq;
      let s = sessions.get(id);
      if (!s) sessions.set(id, (s = { begun: false, expected: undefined, appends: [], inOrder: true }));
      if (typeof seq !== 'number' || !Number.isInteger(seq)) {
        s.inOrder = false; // the schema reports it; the assembled text is unknowable
        continue;
      }
      const expected = s.expected ?? seq;
      if (seq !== expected) {
        s.inOrder = false;
        out.seq.push({
          message: `append_chunk seq ${seq} for chunk "${id}": expected ${expected} (${s.begun ? 'a chunk begun here runs 0, 1, 2, …' : 'seq goes up by 1 from the first append, no gaps or repeats'}).`,
          target: { path: [...path, 'seq'] },
        });
      }
      s.expected = seq + 1;
      s.appends.push({ seq, text: op.text, path });
    } else if (op.op === 'commit_chunk') {
      const s = sessions.get(id);
      sessions.delete(id);
      const finding = s ? chunkShaFinding(id, op.sha256, s, path) : undefined;
      if (finding) out.sha.push(finding);
    }
  }
  return out;
}

/** recipe/chunk-sha for one commit, when every append of the chunk is in the document and in order. */
function chunkShaFinding(id: string, recorded: unknown, s: ChunkSession, commitPath: JsonPath): RuleHit | undefined {
  if (typeof recorded !== 'string' || !s.inOrder) return undefined;
  const complete = s.begun || (s.appends.length > 0 && s.appends[0]!.seq === 0);
  if (!complete || !s.appends.every((a) => typeof a.text === 'string')) return undefined;
  const assembled = s.appends.map((a) => a.text as string).join('');
  const actual = sha256Hex(assembled);
  if (recorded.toLowerCase() === actual) return undefined;
  const parts = s.appends.length === 1 ? '1 append' : `${s.appends.length} appends`;
  return {
    message: `sha256 ≠ the SHA-256 of chunk "${id}" assembled from its ${parts} (${Buffer.byteLength(assembled, 'utf8')} UTF-8 bytes): expected ${actual}.`,
    target: { path: [...commitPath, 'sha256'] },
    fixes: [
      {
        title: `Set sha256 to ${actual} — the SHA-256 of chunk "${id}" assembled from its ${parts}`,
        edits: [{ path: [...commitPath, 'sha256'], value: actual }],
        // A digest mismatch may mean the text is wrong, not the digest: never applied unattended.
        fixAll: false,
      },
    ],
  };
}

export const chunkSeqRule: Rule<RecipeDoc> = { ...ruleCode('recipe/chunk-seq'), check: (doc) => doc.chunks().seq };
export const chunkShaRule: Rule<RecipeDoc> = { ...ruleCode('recipe/chunk-sha'), check: (doc) => doc.chunks().sha };

/** Every recipe-input rule, in the order of the codes catalogue. */
export const RECIPE_INPUT_RULES: readonly Rule<RecipeDoc>[] = [payloadSizeRule, appendSizeRule, chunkSeqRule, chunkShaRule];

/** Rules for update_recipe_build arguments (one call or a batch of calls). */
export const recipeInputRules: RuleSet = ruleSet(RECIPE_INPUT_RULES, (value) => {
  if (!isObject(value) && !Array.isArray(value)) return undefined;
  let walk: ChunkWalk | undefined;
  return { calls: recipeCalls(value), chunks: () => (walk ??= walkChunks(value)) };
});

/** Rules for review_recipe_build results: none beyond the schema (see the module comment). */
export const recipeOutputRules: RuleSet = () => [];

/**
 * Block conversion (docs/engine.md#block-conversion): a section's top-level tables and lists each become their own
 * ```toon fence in place, the prose around them kept as markdown byte for byte. Each fence holds the body model
 * of its block alone (`bodyValue([block])`, what a section made of that block alone converts to), so it decodes
 * to exactly that block's content; a block is fenced only when it reads as written in TOON (the readability
 * rules of `markdown_only`, per block) and saves at least the token floor of its own tokens.
 */
import { bodyValue } from './model';
import { parseSlice, type Block, type ParsedSlice } from './blocks';
import { decodesTo, safeEncode, strictDecodes, type DelimiterChar } from './candidate';
import { fenceMarker, sliceEol } from './plan';
import { decide, underTokenFloor } from './policy';
import { SPLIT_CODES } from './rules';
import { markdownOnlyReason } from './rules/markdownOnly';
import type { Tokenizer } from '../tokens';

/** One block of a section fenced as TOON. */
export interface BlockFence {
  /** Slice-relative: the start of the block's first line and the end of its last line's content (before its line break). */
  start: number;
  end: number;
  /** The block's kind: `t` table, `l` bullet list, `o` ordered list, `d` definition list. */
  kind: 't' | 'l' | 'o' | 'd';
  /** The TOON the fence holds (line breaks `\n`). */
  toon: string;
  delimiter: DelimiterChar;
  /** Exactly what the fence replaces (`raw.slice(start, end)`). */
  original: string;
}

/** A section with its tables and lists fenced: the blocks, and exactly the text Convert writes in place of the slice. */
export interface BlockConversion {
  blocks: BlockFence[];
  segment: string;
}

export interface BlockOptions {
  tok: Tokenizer;
  delims: readonly DelimiterChar[];
  /** The token gate and floor, per block: a block saving fewer tokens, or under this percentage of its own, stays markdown. */
  minTokens: number;
  minPct: number;
}

const FENCEABLE = new Set<Block['kind']>(['t', 'l', 'o', 'd']);

/** The text a fenced block is written as: opening fence line, the TOON, closing fence (no line break after it: the block's own stays). */
export function blockFenceText(toon: string, eol: string): string {
  const fence = fenceMarker(toon);
  const body = eol === '\n' ? toon : toon.split('\n').join(eol);
  return `${fence}toon${eol}${body}${eol}${fence}`;
}

/**
 * The section `raw` (parsed as `parsed`) with each table and list that converts readably and saves tokens fenced;
 * null when none does. Linear: each block is parsed alone once (it must read back as the same block) and each of
 * its encodings counted once.
 */
export function blockConversion(raw: string, parsed: ParsedSlice, o: BlockOptions): BlockConversion | null {
  const eol = sliceEol(raw);
  const lines = parsed.lines;
  const bom = raw.charCodeAt(0) === 0xfeff ? 1 : 0;
  const blocks: BlockFence[] = [];
  parsed.blocks.forEach((b, i) => {
    if (!FENCEABLE.has(b.kind) || markdownOnlyReason(b) !== null) return;
    const span = parsed.blockLines[i];
    if (!span) return;
    const [from, to] = span;
    if (parsed.heading && from === 0) return;
    const start = lines.lineStart(from) + (from === 0 ? bom : 0);
    const end = lines.contentEnd(to - 1);
    const original = raw.slice(start, end);
    const value = bodyValue([b]);
    // The fewest tokens among the encodings that decode (ties in delimiter order), if that saves the token floor.
    // The floor is monotone in the fence's tokens, so the encodings that pass it are a prefix of the ranking: the
    // answer is the first of that prefix that decodes. The checks that cost most run last, on that prefix only:
    // the block read alone, then the decode from the cheapest on.
    const ranked: { toon: string; delimiter: DelimiterChar; tokens: number }[] = [];
    for (const d of o.delims) {
      const t = safeEncode(value, d);
      if (t === null || ranked.some((r) => r.toon === t)) continue;
      ranked.push({ toon: t, delimiter: d, tokens: o.tok.count(blockFenceText(t, eol)) });
    }
    ranked.sort((x, y) => x.tokens - y.tokens);
    const source = o.tok.count(original);
    const passing = ranked.filter((r) => !underTokenFloor(source, r.tokens, Math.max(1, o.minTokens), o.minPct));
    if (passing.length === 0) return;
    const json = JSON.stringify(value);
    // The fence stands for the block as it reads alone (what Revert renders and a reader sees).
    const alone = parseSlice(original, false);
    if (JSON.stringify(bodyValue(alone.blocks)) !== json) return;
    const best = passing.find((r) => decodesTo(r.toon, json));
    if (best === undefined) return;
    blocks.push({ start, end, kind: b.kind as BlockFence['kind'], toon: best.toon, delimiter: best.delimiter, original });
  });
  if (blocks.length === 0) return null;
  return { blocks, segment: blockSegment(raw, blocks) };
}

/** `raw` with each block replaced by its fence. */
export function blockSegment(raw: string, blocks: readonly BlockFence[]): string {
  const eol = sliceEol(raw);
  let out = '';
  let at = 0;
  for (const b of blocks) {
    out += raw.slice(at, b.start) + blockFenceText(b.toon, eol);
    at = b.end;
  }
  return out + raw.slice(at);
}

/** The mechanical check of a block segment: the text between the fences is the slice's, and every fence strictly decodes. */
export function blockSegmentChecks(raw: string, conv: BlockConversion): boolean {
  return conv.segment === blockSegment(raw, conv.blocks) && conv.blocks.every((b) => raw.slice(b.start, b.end) === b.original && strictDecodes(b.toon));
}

/** What a lens or hover calls the converted blocks: "the table", "2 tables", "a table and 2 lists". */
export function blocksLabel(b: { tables: number; lists: number }): string {
  const alone = b.tables + b.lists === 1;
  const n = (k: number, one: string, many: string) => (k === 1 ? (alone ? `the ${one}` : `a ${one}`) : `${k} ${many}`);
  return [b.tables ? n(b.tables, 'table', 'tables') : '', b.lists ? n(b.lists, 'list', 'lists') : ''].filter(Boolean).join(' and ');
}

/**
 * Whether a `split_first` section's tables and lists may still be converted by block: the verdict would be convert
 * without the split warnings (the blocks save enough, in characters and real tokens, with no other warning).
 * Splitting concerns the prose, which block conversion keeps as it is.
 */
export function blocksConvertDespiteSplit(v: { verdict: string; flags: { valid: boolean }; measured_chars: { source: number; toon: number }; warnings: readonly { code: string }[] }): boolean {
  if (v.verdict !== 'split_first' || !v.flags.valid) return false;
  const warnings = v.warnings.filter((w) => !SPLIT_CODES.includes(w.code));
  return decide({ refused: false, source: v.measured_chars.source, toon: v.measured_chars.toon, warnings }).verdict === 'convert';
}

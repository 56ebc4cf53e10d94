/**
 * Token counting: real BPE counts from gpt-tokenizer (o200k_base by default, cl100k_base
 * selectable) and the tokenx estimate as the `estimate` fallback. Pure: no I/O, no editor API.
 *
 * The encodings are loaded on first use (loading the ranks is the dearest step of a cold run), so a server or CLI
 * run that never counts tokens does not pay for them. Special-token text (`<|endoftext|>`) in a
 * document is counted as ordinary text, never rejected.
 */
import { estimateTokenCount } from 'tokenx';
import { detach } from './markdown/text';

export type TokenizerName = 'o200k_base' | 'cl100k_base' | 'estimate';
export const TOKENIZERS: readonly TokenizerName[] = ['o200k_base', 'cl100k_base', 'estimate'];
export const DEFAULT_TOKENIZER: TokenizerName = 'o200k_base';

/**
 * Pinned versions (package.json pins both exactly; neither package exports its package.json, so a test
 * compares these with node_modules).
 */
export const GPT_TOKENIZER_VERSION = '4.0.0';
export const TOKENX_VERSION = '1.3.0';

export interface Tokenizer {
  name: TokenizerName;
  /** What `token_estimates.estimator` says, e.g. `gpt-tokenizer@4.0.0:o200k_base` or `tokenx@1.3.0`. */
  estimator: string;
  /** Whether counts are real BPE counts (the token gate runs only then). */
  real: boolean;
  /** Token count of a text; 0 for the empty string. Never throws. */
  count(text: string): number;
}

export function isTokenizerName(x: unknown): x is TokenizerName {
  return typeof x === 'string' && (TOKENIZERS as readonly string[]).includes(x);
}

type CountFn = (text: string, options?: { disallowedSpecial?: Set<string> }) => number;
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

/** What {@link pieceCounter} uses of gpt-tokenizer's BPE core (its own pre-token pattern, ranks and merges). */
interface BpeCore {
  tokenSplitRegex: RegExp;
  getBpeRankFromString(piece: string): number | undefined;
  bytePairEncode(piece: string): number[];
}

/**
 * The longest pre-token counted whole. gpt-tokenizer merges one pre-token in time quadratic in its length (each
 * merge rescans and splices the piece's pair list), so a long run of one character class (a word without spaces,
 * a run of spaces, backslashes, `=` or brackets) would block the thread for as long as the square of its length.
 * A longer pre-token is counted in chunks of this many characters, each merged on its own: work linear in the
 * piece, and every single BPE call bounded. The chunks' sum is not the exact count of such a piece: merges across
 * a chunk boundary are not made, and the greedy merge order can differ near one, so it is off by about a token
 * per chunk, either way (docs/engine.md, "Token counts of long pieces"). No vocabulary token is close to this
 * long, and every piece up to it is counted exactly.
 */
export const PIECE_BOUND = 256;

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}

/**
 * The count gpt-tokenizer's `countTokens` makes with no special tokens allowed (each pre-token of its pattern is
 * one token when it is a rank, else as many as its merges give; one longer than {@link PIECE_BOUND} in chunks), without a match array per pre-token: its
 * `matchAll` loop allocates one for every ~4 characters (a large share of what a cold plan allocates). The pattern matches every character (letters, digits, whitespace and anything
 * else each have an alternative; none matches empty), so its matches are contiguous and a sticky `test` from
 * each match's end finds the next one: the same pieces, the same ranks, the same merge cache, and a text is
 * 20 % faster to count. Null when the pinned package's core does not have that shape (the package's count
 * then); -1 from the counter if a piece ever failed to match (likewise).
 */
export function pieceCounter(core: Partial<BpeCore> | undefined): ((text: string) => number) | null {
  if (!core || !(core.tokenSplitRegex instanceof RegExp) || typeof core.getBpeRankFromString !== 'function' || typeof core.bytePairEncode !== 'function') return null;
  const c = core as BpeCore;
  const rank = c.getBpeRankFromString.bind(c);
  const merge = c.bytePairEncode.bind(c);
  const re = new RegExp(c.tokenSplitRegex.source, c.tokenSplitRegex.flags.replace(/[gy]/g, '') + 'y');
  const pieceTokens = (piece: string): number => (rank(piece) !== undefined ? 1 : merge(piece).length);
  const longPieceTokens = (text: string, at: number, end: number): number => {
    let n = 0;
    while (at < end) {
      let cut = Math.min(at + PIECE_BOUND, end);
      // Never between the halves of a surrogate pair: each half alone would count as its own bytes.
      if (cut < end && isHighSurrogate(text.charCodeAt(cut - 1)) && isLowSurrogate(text.charCodeAt(cut))) cut--;
      n += pieceTokens(text.slice(at, cut));
      at = cut;
    }
    return n;
  };
  return (text: string): number => {
    let n = 0;
    let at = 0;
    re.lastIndex = 0;
    while (at < text.length) {
      if (!re.test(text)) return -1;
      const end = re.lastIndex;
      n += end - at <= PIECE_BOUND ? pieceTokens(text.slice(at, end)) : longPieceTokens(text, at, end);
      at = end;
    }
    return n;
  };
}

/**
 * Entries of gpt-tokenizer's merge cache (pre-tokens that are not a rank of their own, with their merged ranks).
 * The library keeps up to 100,000 for the life of the process, about 300 B each: a long-running server that
 * counts code-heavy documents or a whole workspace ends up holding much of its text for it. 10,000 entries hold the working
 * set of any one document (dist/server.js + dist/cli.js + the bench document make 7,251
 * distinct entries; counting them with 10,000 is as fast as with 100,000, with 5,000 about a third slower).
 */
export const TOKEN_MERGE_CACHE_ENTRIES = 10_000;

/** The merge-cache clearers of the encodings loaded so far. */
const loaded: (() => void)[] = [];

interface EncodingModule {
  countTokens: CountFn;
  setMergeCacheSize(size: number): void;
  clearMergeCache(): void;
  /** The package's encoding module has the instance as `default`; the built bundle (esbuild.mjs) is the instance. */
  default?: EncodingModule;
  bytePairEncodingCoreProcessor?: Partial<BpeCore>;
}

function loadBpe(name: 'o200k_base' | 'cl100k_base'): CountFn {
  // require (not import) so esbuild's bundle initializes the ranks lazily, on the first count.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const mod: EncodingModule = name === 'o200k_base' ? require('gpt-tokenizer/encoding/o200k_base') : require('gpt-tokenizer/encoding/cl100k_base');
  /* eslint-enable @typescript-eslint/no-require-imports */
  mod.setMergeCacheSize(TOKEN_MERGE_CACHE_ENTRIES);
  loaded.push(() => mod.clearMergeCache());
  const pieces = pieceCounter((mod.default ?? mod).bytePairEncodingCoreProcessor);
  if (!pieces) return mod.countTokens;
  return (text, options) => {
    const n = pieces(text);
    return n >= 0 ? n : mod.countTokens(text, options);
  };
}

/**
 * Empties gpt-tokenizer's merge caches (every loaded encoding; the ranks stay loaded). What a large document's
 * completed plan does (core/markdown/engine.ts): its words fill all 10,000 entries (keys that are views into the section texts
 * count, each as long as its section), and
 * what comes next — an edit recounting one or two sections — gains next to nothing from them.
 */
export function clearTokenMergeCaches(): void {
  for (const clear of loaded) clear();
}

/** tokenx estimate of a text; 0 for the empty string. Never throws. */
export function estimateTokens(text: string): number {
  if (!text) return 0;
  try {
    return estimateTokenCount(text);
  } catch {
    return Math.round(text.length / 4);
  }
}

const cache = new Map<TokenizerName, Tokenizer>();

/** The tokenizer for a name (unknown names fall back to the default). */
export function tokenizer(name: TokenizerName | undefined = DEFAULT_TOKENIZER): Tokenizer {
  const n: TokenizerName = isTokenizerName(name) ? name : DEFAULT_TOKENIZER;
  let t = cache.get(n);
  if (t) return t;
  if (n === 'estimate') t = { name: n, estimator: `tokenx@${TOKENX_VERSION}`, real: false, count: estimateTokens };
  else {
    let fn: CountFn | undefined;
    t = {
      name: n,
      estimator: `gpt-tokenizer@${GPT_TOKENIZER_VERSION}:${n}`,
      real: true,
      count(text: string): number {
        if (!text) return 0;
        fn ??= loadBpe(n);
        try {
          // A flat copy: gpt-tokenizer's merge cache keeps the text's words as keys, and a word of 13 or more
          // characters is a view into the text, which for a slice of a document is the whole document version
          // (docs/performance.md: an edited document's old versions stayed alive through the cache).
          return fn(detach(text), NO_SPECIAL);
        } catch {
          return estimateTokens(text);
        }
      },
    };
  }
  cache.set(n, t);
  return t;
}

/** A chunk grows past this many characters only up to its next line start that is a pre-token boundary. */
export const COUNT_CHUNK_CHARS = 8192;

/**
 * Whether the pre-token pattern of both encodings always splits a text at `p`: `p` starts a line (after `\n`)
 * and its character is neither white space (a run of white space that reaches a later line break is one
 * pre-token) nor `/` (o200k's punctuation pre-token takes the line breaks and slashes after it). Every pattern
 * alternative that can hold a line break ends at the break then, so no pre-token spans `p`, and the count of a
 * text is the sum of the counts of its pieces cut there (`token-chunks.test.ts` checks it on the corpus and on
 * generated text for both encodings).
 */
export function isCountBoundary(text: string, p: number): boolean {
  if (p <= 0 || p >= text.length || text.charCodeAt(p - 1) !== 0x0a) return false;
  const c = text.charCodeAt(p);
  return !(c === 0x2f || c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0b || c === 0x0c || c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff);
}

/**
 * The pieces a text is counted in, as end offsets: cut at every count boundary that starts a heading line or
 * follows a blank line (boundaries chosen by the content around them, so an edit moves only the cuts near it),
 * and at the first count boundary past {@link COUNT_CHUNK_CHARS} of a piece with none. Linear in the text.
 */
export function countChunkEnds(text: string): number[] {
  const ends: number[] = [];
  let start = 0;
  for (let nl = text.indexOf('\n'); nl >= 0 && nl + 1 < text.length; nl = text.indexOf('\n', nl + 1)) {
    const p = nl + 1;
    if (!isCountBoundary(text, p)) continue;
    const byContent = text.charCodeAt(p) === 0x23 || (nl > 0 && text.charCodeAt(nl - 1) === 0x0a) || (nl > 1 && text.charCodeAt(nl - 1) === 0x0d && text.charCodeAt(nl - 2) === 0x0a);
    if (byContent || p - start >= COUNT_CHUNK_CHARS) {
      ends.push(p);
      start = p;
    }
  }
  ends.push(text.length);
  return ends;
}

/**
 * A counter that remembers the counts of the pieces it cut a text into (see {@link countChunkEnds}): counting
 * a text again after a small edit recounts only the pieces the edit touched, and gives exactly the count of
 * the whole text. The memo holds flat copies of the pieces (never a view that keeps a document version alive)
 * in two generations, the older dropped when the newer holds `maxChars` characters: bounded, and what is
 * counted again stays.
 */
export class ChunkCounter {
  private recent = new Map<string, number>();
  private older = new Map<string, number>();
  private recentChars = 0;
  /** The last text {@link warmSteps} went through, with its count (the same string object: no copy). */
  private warmed: { text: string; count: number } | undefined;

  constructor(
    readonly tok: Tokenizer,
    private readonly maxChars = 8_000_000,
  ) {}

  count(text: string): number {
    if (!this.tok.real || text.length <= COUNT_CHUNK_CHARS) return this.tok.count(text);
    if (this.warmed?.text === text) return this.warmed.count;
    let n = 0;
    let start = 0;
    for (const end of countChunkEnds(text)) {
      n += this.piece(text.slice(start, end));
      start = end;
    }
    return n;
  }

  /**
   * Counts the pieces of `text` this counter does not hold yet, a bounded amount of work per step (new counting,
   * or pieces looked up): a later {@link count} of the same text then answers from what the steps summed. What a
   * caller that must not block runs first, in turns.
   */
  *warmSteps(text: string, charsPerStep = COUNT_CHUNK_CHARS * 8): Generator<void, void, void> {
    if (!this.tok.real || text.length <= COUNT_CHUNK_CHARS || this.warmed?.text === text) return;
    let start = 0;
    let fresh = 0;
    let scanned = 0;
    let n = 0;
    for (const end of countChunkEnds(text)) {
      const s = text.slice(start, end);
      scanned += end - start;
      start = end;
      const known = this.recent.get(s);
      if (known !== undefined) n += known;
      else {
        n += this.piece(s);
        fresh += s.length;
      }
      if (fresh >= charsPerStep || scanned >= charsPerStep * 4) {
        fresh = 0;
        scanned = 0;
        yield;
      }
    }
    this.warmed = { text, count: n };
  }

  private piece(s: string): number {
    let n = this.recent.get(s);
    if (n !== undefined) return n;
    n = this.older.get(s);
    if (n === undefined) n = this.tok.count(s);
    if (this.recentChars + s.length > this.maxChars) {
      this.older = this.recent;
      this.recent = new Map();
      this.recentChars = 0;
    }
    this.recent.set(detach(s), n);
    this.recentChars += s.length;
    return n;
  }
}

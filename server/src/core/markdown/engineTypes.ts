/**
 * The engine's public shapes: the options a caller passes, and the plan and section results it reads
 * (re-exported by the facade, engine.ts).
 */
import type { BlockFence } from './blockConvert';
import type { TokenizerName } from '../tokens';
import type { SliceAnalysis } from './analysis';
import type { Slice } from './slices';
import type { ContextPlan, EngineMode, SourceType, VerdictV1 } from './verdict';
import type { DuplicateFinding } from './warnings';

export interface EngineOptions {
  mode?: EngineMode;
  delimiter?: 'auto' | 'comma' | 'tab' | 'pipe';
  targetChars?: number;
  targetTokens?: number;
  allowLossy?: boolean;
  sourceType?: SourceType;
  charsPerToken?: number[];
  /** Token counter: `o200k_base` (default), `cl100k_base`, or `estimate` (tokenx; turns the token gate off). */
  tokenizer?: TokenizerName;
  /** The token gate: a candidate saving fewer real tokens than this gets token_regression (default 1). */
  minTokenSavings?: number;
  /**
   * The token floor: a candidate saving under this percentage of its section's real tokens gets token_regression
   * too (default 5; 0 turns it off). Like the gate, only with a real tokenizer.
   */
  minTokenSavingsPct?: number;
}

/** Real token figures of one converted-or-not section, with the tokenizer that counted them. */
export interface TokenFigures {
  tokenizer: TokenizerName;
  /** `token_estimates.estimator`, e.g. `gpt-tokenizer@4.0.0:o200k_base`. */
  estimator: string;
  source: number;
  toon: number;
  savings: number;
}

/** The blocks a section converting by block fences, by kind. */
export interface BlockSummary {
  tables: number;
  lists: number;
}

export interface SectionResult {
  slice: Slice;
  /** The slice's standalone lossless verdict (warnings in whole-document coordinates); null for frontmatter. */
  verdict: VerdictV1 | null;
  /** The standalone TOON candidate of the whole body (also when the action is keep); null for frontmatter. */
  candidate: string | null;
  /**
   * When the section converts by block (its tables and lists fenced in place, the prose kept): those blocks,
   * slice-relative (built on read); null when it converts as a whole body (or not at all).
   */
  readonly blocks: BlockFence[] | null;
  /** How many tables and lists a section converting by block fences (read without rebuilding them); null otherwise. */
  readonly blockSummary: BlockSummary | null;
  /** Exactly the text Convert writes in place of the slice (what measured_chars.toon counts; the slice itself for frontmatter). */
  segment(): string;
  action: 'convert' | 'keep';
  /** The section's tokens: its markdown against the segment Convert writes (computed on first read); null for frontmatter. */
  tokens: TokenFigures | null;
  /** The slice's analysis (memoized per slice text; what per-slice features such as fence checks reuse). */
  analysis: SliceAnalysis;
}

export interface PlanResult {
  /** Schema 1.1: the whole document's profile response with `context_plan` appended (built on first read). */
  readonly verdict: VerdictV1;
  /** `verdict.context_plan`, without building the whole-document verdict. */
  contextPlan: ContextPlan;
  readonly hybrid: string;
  sections: SectionResult[];
  /** The tokenizer every token figure of this plan was counted with. */
  tokenizer: TokenizerName;
  /** The document's tokens against the hybrid's (source − Σ savings of the converted sections), computed on first read. */
  tokens: { tokenizer: TokenizerName; estimator: string; source: number; hybrid: number; savings: number };
  /** Repeated rules across the whole text, each with the earlier one it repeats (the diagnostics' duplicate-rule), computed on first read. */
  readonly duplicates: DuplicateFinding[];
  /** {@link duplicates} as steps (a yield after each slice whose rules are read), memoized with it. */
  duplicateSteps(): Generator<void, DuplicateFinding[], void>;
}

/** How far a time-sliced plan has got: `done` of `total` steps (each slice is analysed, then measured). */
export interface PlanProgress {
  done: number;
  total: number;
}

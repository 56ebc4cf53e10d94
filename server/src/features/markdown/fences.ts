/**
 * ```toon fences in open markdown documents, shared by the markdown lenses, hovers, diagnostics and
 * Convert/Revert: where they are (memoized per document version), which sections are converted fences
 * (a heading, or a preamble, whose body is one ```toon fence and nothing else), what a fence saves
 * against the markdown it stands for, and each workspace folder's originals for exact Revert.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { measureChars, type MeasuredChars } from '../../core/markdown/measure';
import { DEFAULT_TOKENIZER, tokenizer, type TokenizerName } from '../../core/tokens';
import { blockFenceKey, fenceKey, revertEdit, type OriginalRecord, type OriginalsStore, type RevertEdit } from '../../core/markdown/revert';
import { convertedFenceOf, fenceAtOffset, toonFencesOfPlanSteps, type FenceAt } from '../../core/markdown/sectionFences';
import { runSteps, type PlanResult, type SectionResult } from '../../core/markdown/engine';
import type { SliceAnalysis } from '../../core/markdown/analysis';
import { createOriginalsStore, type OriginalsStores } from '../../node/originals';
import { serverWork } from '../../lsp/idle';
import { onePerServer } from '../../lsp/feature';

export type { FenceAt };
export { fenceAtOffset, convertedFenceOf };

/** What a fence saves against the markdown it stands for (the known original, else its canonical rendering). */
export interface FenceSavings {
  chars: MeasuredChars;
  tokens: { source: number; toon: number; savings: number };
  /** Whether the markdown compared with is the exact original (else the canonical rendering). */
  exactOriginal: boolean;
  revert: RevertEdit;
}

/**
 * Measures a fence against its revert; undefined when the fence does not decode. When the fence is a converted
 * section's body (`section`: that slice's extent), the whole section is measured before and after the revert,
 * line breaks included: exactly what the section's verdict measured before Convert (its text against the segment
 * Convert wrote), so the lens before Convert and the fence lens after it give one figure, and the file's length
 * changes by exactly that.
 */
function fenceSavings(text: string, at: FenceAt, store: OriginalsStore | undefined, tok: TokenizerName = DEFAULT_TOKENIZER, section?: { start: number; end: number }): FenceSavings | undefined {
  let revert: RevertEdit;
  try {
    revert = revertEdit(text, at, store);
  } catch {
    return undefined;
  }
  let current = text.slice(revert.start, revert.end);
  let markdown = revert.newText;
  if (section && section.start <= revert.start && revert.end <= section.end) {
    current = text.slice(section.start, section.end);
    markdown = text.slice(section.start, revert.start) + revert.newText + text.slice(revert.end, section.end);
  }
  // Counted like section verdicts: with the plan's tokenizer, never an estimate unless chosen.
  const t = tokenizer(tok);
  const source = t.count(markdown);
  const toon = t.count(current);
  return {
    chars: measureChars(markdown.length, current.length),
    tokens: { source, toon, savings: source - toon },
    exactOriginal: revert.kind !== 'canonical',
    revert,
  };
}

/** What a fence's lenses and hover say: its figures against the markdown Revert writes, and which kind of revert that is. */
export interface FenceFigures extends Omit<FenceSavings, 'revert'> {
  kind: RevertEdit['kind'];
}

const blank = (text: string, from: number, to: number): boolean => {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
};

/** Whether the fence is the section's whole body (what Convert writes): only blank text around it in the slice. */
function isSectionBody(text: string, at: FenceAt, s: SectionResult): boolean {
  return s.slice.headingEnd <= at.start && blank(text, s.slice.headingEnd, at.start) && blank(text, at.end, s.slice.charEnd);
}

/** Each fence with the section whose slice holds it (both in document order). */
export function* fencesWithOwners(plan: PlanResult, fences: readonly FenceAt[]): Generator<[FenceAt, SectionResult | undefined]> {
  let si = 0;
  for (const f of fences) {
    while (si < plan.sections.length - 1 && plan.sections[si]!.slice.charEnd <= f.start) si++;
    yield [f, plan.sections[si]];
  }
}

const sameRecord = (a: OriginalRecord | undefined, b: OriginalRecord | undefined): boolean => a === b || (a !== undefined && b !== undefined && a.heading === b.heading && a.original === b.original);

/** Where a server's originals are kept, how a write failure is reported, and which workspace folder holds a document. */
export interface FencesOptions {
  /**
   * The extension's global storage folder (one originals file per workspace folder in it); absent: originals last
   * for the session.
   */
  storagePath?: string;
  warn?: (m: string) => void;
  /** The workspace folder holding a document: its originals are that folder's only. */
  rootOf?: (uri: string) => string | undefined;
}

/** The most documents whose fences are memoized at once (the open ones, in practice). */
const MEMO_MAX = 64;

/**
 * The fences of one server's open markdown documents: where they are (memoized per document version), what each
 * saves (remembered with its slice's analysis), and each workspace folder's originals for exact Revert. One per
 * server ({@link markdownFences}); a test or the bench makes its own.
 */
export class MarkdownFences {
  // Keyed by the plan the fences were read from, with the document's URI, version and length: a caller holding the
  // plan of an older version (an answer computed while the document changed) must neither get nor leave fences that
  // another version's caller then takes for its own (a Revert at stale offsets). The text's length, not the text:
  // the memo must not keep a version alive (an idle document holds its text compactly).
  private readonly memo = new Map<string, { plan: PlanResult; version: number; length: number; fences: FenceAt[] }>();
  /**
   * A fence's figures, remembered with the analysis of the slice holding it: they depend only on the slice's text
   * (the fence and the heading line before it), the original the store knows for the fence (compared by its text)
   * and the tokenizer, so after an edit elsewhere no fence is decoded, rendered or counted again (a lens request
   * after an edit costs what the edit changed, not what the document holds).
   */
  private readonly figuresMemo = new WeakMap<SliceAnalysis, { rel: number; tok: TokenizerName; key: string; blockKey: string; known: OriginalRecord | undefined; figures: FenceFigures | undefined }[]>();
  private stores: OriginalsStores | undefined;
  private readonly storagePath: string | undefined;
  private readonly warn: (m: string) => void;
  private readonly rootOf: (uri: string) => string | undefined;

  constructor(options: FencesOptions = {}) {
    this.storagePath = typeof options.storagePath === 'string' && options.storagePath !== '' ? options.storagePath : undefined;
    this.warn = options.warn ?? (() => undefined);
    this.rootOf = options.rootOf ?? (() => undefined);
  }

  /**
   * The ```toon fences of a document's current version (memoized), from the plan of that version: each slice's
   * fences are memoized with its analysis, so a version costs a parse of the edited slices only (none when they
   * do not say "toon"), never of the whole text.
   */
  toonFencesOf(doc: TextDocument, plan: PlanResult): FenceAt[] {
    return runSteps(this.toonFencesOfSteps(doc, plan));
  }

  /** {@link toonFencesOf} as steps: a yield after each slice parsed for its fences (the first time only). */
  private *toonFencesOfSteps(doc: TextDocument, plan: PlanResult): Generator<void, FenceAt[], void> {
    const length = doc.getText().length;
    const m = this.memo.get(doc.uri);
    if (m && m.plan === plan && m.version === doc.version && m.length === length) return m.fences;
    const fences = yield* toonFencesOfPlanSteps(plan);
    this.memo.delete(doc.uri);
    this.memo.set(doc.uri, { plan, version: doc.version, length, fences });
    if (this.memo.size > MEMO_MAX) this.memo.delete(this.memo.keys().next().value!);
    return fences;
  }

  /** The document closed: its fences go. */
  forget(uri: string): void {
    this.memo.delete(uri);
  }

  /**
   * The figures of the fence `at` in the document `uri` (whose workspace's originals count), whose slice is `owner`'s
   * (undefined: measured, not remembered); undefined when it does not decode.
   */
  fenceFigures(uri: string, text: string, at: FenceAt, owner: SectionResult | undefined, tok: TokenizerName = DEFAULT_TOKENIZER): FenceFigures | undefined {
    const store = this.originals(uri);
    const holds = owner !== undefined && owner.slice.charStart <= at.start && at.end <= owner.slice.charEnd;
    const rel = holds ? at.start - owner.slice.charStart : -1;
    const memo = holds ? this.figuresMemo.get(owner.analysis) : undefined;
    const prior = memo?.find((e) => e.rel === rel && e.tok === tok);
    // The same slice text and place: the same fence content, so its key (a sha256) is the remembered one.
    const key = prior?.key ?? fenceKey(at.fence.content);
    // (a block fence's original is under its own key; a section's wins, as in revertEdit)
    const blockKey = prior?.blockKey ?? blockFenceKey(at.fence.content);
    const known = store.get(key) ?? store.get(blockKey);
    if (prior && sameRecord(prior.known, known)) return prior.figures;
    // A converted section (its body is this fence, blank lines aside) is measured whole, as its verdict was.
    const section = holds && isSectionBody(text, at, owner) ? { start: owner.slice.charStart, end: owner.slice.charEnd } : undefined;
    const m = fenceSavings(text, at, store, tok, section);
    const figures = m && { chars: m.chars, tokens: m.tokens, exactOriginal: m.exactOriginal, kind: m.revert.kind };
    if (holds) {
      const list = memo ?? [];
      if (prior) list.splice(list.indexOf(prior), 1);
      if (list.length >= 8) list.shift();
      list.push({ rel, tok, key, blockKey, known, figures });
      if (!memo) this.figuresMemo.set(owner.analysis, list);
    }
    return figures;
  }

  /**
   * The document's fences and every fence's figures, a slice parse or a fence a step, so that a runSliced caller
   * spreads them over turns: after a Convert all of thousands of sections each fence is found, decoded, rendered and
   * counted once while the server answers other requests, and the lenses then read the memos at once.
   */
  *fenceFigureSteps(doc: TextDocument, plan: PlanResult): Generator<void, void, void> {
    const fences = yield* this.toonFencesOfSteps(doc, plan);
    const text = doc.getText();
    for (const [f, owner] of fencesWithOwners(plan, fences)) {
      this.fenceFigures(doc.uri, text, f, owner, plan.tokenizer);
      yield;
    }
  }

  /** The originals store of the workspace folder holding the document `uri`. */
  originals(uri: string): OriginalsStore {
    if (!this.stores) this.stores = createOriginalsStore(this.storagePath, { warn: this.warn, track: (p) => void serverWork.track(p) });
    return this.stores.of(this.rootOf(uri));
  }

  /** Writes the originals still waiting for their files, now (the server shutting down). */
  flush(): void {
    this.stores?.flush();
  }
}

/**
 * The one fences memo and originals store of a server, shared by the markdown features: originals kept in the
 * client's storage folder (`initializationOptions.storagePath`) per workspace folder.
 */
export const markdownFences = onePerServer(
  (ctx) => new MarkdownFences({ storagePath: ctx.initializationOptions.storagePath, warn: (m) => ctx.log.warn(m), rootOf: (uri) => ctx.workspaceRootOf(uri) }),
);

export { fenceKey };

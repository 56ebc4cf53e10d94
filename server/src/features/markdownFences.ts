/**
 * ```toon fences in open markdown documents, shared by the markdown lenses, hovers, diagnostics and
 * Convert/Revert: where they are (memoized per document version), which sections are converted fences
 * (a heading, or a preamble, whose body is one ```toon fence and nothing else), what a fence saves
 * against the markdown it stands for, and the session's / storage's originals for exact Revert.
 */
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { measureChars, type MeasuredChars } from '../core/markdown/measure';
import { DEFAULT_TOKENIZER, tokenizer, type TokenizerName } from '../core/tokens';
import { fenceKey, revertEdit, type OriginalsStore, type RevertEdit } from '../core/markdown/revert';
import { convertedFenceOf, fenceAtOffset, toonFencesOfPlan, type FenceAt } from '../core/markdown/sectionFences';
import type { PlanResult } from '../core/markdown/engine';
import { createOriginalsStore } from '../node/originals';
import { serverWork } from './idle';

export type { FenceAt };
export { fenceAtOffset, convertedFenceOf };

// The text's length, not the text: the memo must not keep a version alive (an idle document holds its text compactly).
const memo = new Map<string, { version: number; length: number; fences: FenceAt[] }>();
const MEMO_MAX = 64;

/**
 * The ```toon fences of a document's current version (memoized), from the plan of that version: each slice's
 * fences are memoized with its analysis, so a version costs a parse of the edited slices only (none when they
 * do not say "toon"), never of the whole text.
 */
export function toonFencesOf(doc: TextDocument, plan: PlanResult): FenceAt[] {
  const text = doc.getText();
  const m = memo.get(doc.uri);
  if (m && m.version === doc.version && m.length === text.length) return m.fences;
  const fences = toonFencesOfPlan(plan);
  memo.delete(doc.uri);
  memo.set(doc.uri, { version: doc.version, length: text.length, fences });
  if (memo.size > MEMO_MAX) memo.delete(memo.keys().next().value!);
  return fences;
}

/** The document closed: its fences go. */
export function forgetFences(uri: string): void {
  memo.delete(uri);
}

/** What a fence saves against the markdown it stands for (the known original, else its canonical rendering). */
export interface FenceSavings {
  chars: MeasuredChars;
  tokens: { source: number; toon: number; savings: number };
  /** Whether the markdown compared with is the exact original (else the canonical rendering). */
  exactOriginal: boolean;
  revert: RevertEdit;
}

/** Measures a fence against its revert; undefined when the fence does not decode. */
export function fenceSavings(text: string, at: FenceAt, store: OriginalsStore | undefined, tok: TokenizerName = DEFAULT_TOKENIZER): FenceSavings | undefined {
  let revert: RevertEdit;
  try {
    revert = revertEdit(text, at, store);
  } catch {
    return undefined;
  }
  const current = text.slice(revert.start, revert.end);
  // Counted like section verdicts: with the plan's tokenizer (#13), never an estimate unless chosen.
  const t = tokenizer(tok);
  const source = t.count(revert.newText);
  const toon = t.count(current);
  return {
    chars: measureChars(revert.newText.length, current.length),
    tokens: { source, toon, savings: source - toon },
    exactOriginal: revert.kind !== 'canonical',
    revert,
  };
}

let store: OriginalsStore | undefined;
let storagePath: string | undefined;
let warn: (m: string) => void = () => undefined;

/** Where originals are kept beyond the session (the client's storage directory), and how to report a write failure. */
export function configureOriginals(path: string | undefined, log?: (m: string) => void): void {
  storagePath = typeof path === 'string' && path !== '' ? path : undefined;
  if (log) warn = log;
  store = undefined;
}

/** The originals store of this server. */
export function originals(): OriginalsStore {
  if (!store) store = createOriginalsStore(storagePath, { warn, track: (p) => void serverWork.track(p) });
  return store;
}

/** Writes the originals still waiting for their files, now (the server shutting down). */
export function flushOriginals(): void {
  store?.flush?.();
}

export { fenceKey };

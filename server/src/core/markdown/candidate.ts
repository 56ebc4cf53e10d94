/**
 * TOON candidates (docs/engine.md#3-the-model): encode with each delimiter, strict-decode and
 * deep-compare with the model, shortest valid wins (ties: comma, tab, pipe). Never throws.
 */
import { encode, decode } from '@toon-format/toon';
import type { JsonValue } from './model';

export type DelimiterChar = ',' | '\t' | '|';
export type DelimiterOption = 'auto' | 'comma' | 'tab' | 'pipe';
export const DELIMITER_ORDER: readonly DelimiterChar[] = [',', '\t', '|'];

/** The delimiters to try for an option, in tie-break order. */
export function delimitersFor(opt: DelimiterOption | undefined): DelimiterChar[] {
  switch (opt) {
    case 'comma':
      return [','];
    case 'tab':
      return ['\t'];
    case 'pipe':
      return ['|'];
    default:
      return [...DELIMITER_ORDER];
  }
}

/** `encode` that reports failure as null instead of throwing. */
export function safeEncode(model: JsonValue, delimiter: DelimiterChar): string | null {
  try {
    return encode(model, { delimiter });
  } catch {
    return null;
  }
}

/**
 * The last texts known to strictly decode: a section's segment check decodes the candidate its validity check
 * has just decoded (a memo of many texts would keep much of a large document's candidates alive
 * in a server for good, long after their plan).
 */
const decodedOk = new Map<string, true>();
const DECODED_MEMO_MAX = 16;
function rememberDecoded(text: string): void {
  if (decodedOk.size >= DECODED_MEMO_MAX) decodedOk.delete(decodedOk.keys().next().value!);
  decodedOk.set(text, true);
}

/** Strict decode of `text` deep-equals `expectedJson` (the model's JSON.stringify). Never throws. */
export function decodesTo(text: string, expectedJson: string): boolean {
  try {
    const value = decode(text, { strict: true });
    rememberDecoded(text);
    return JSON.stringify(value) === expectedJson;
  } catch {
    return false;
  }
}

/** Whether `text` strictly decodes at all (a text this process already decoded is not decoded twice). */
export function strictDecodes(text: string): boolean {
  if (decodedOk.has(text)) return true;
  try {
    decode(text, { strict: true });
    rememberDecoded(text);
    return true;
  } catch {
    return false;
  }
}

export interface Candidate {
  text: string;
  delimiter: DelimiterChar;
  valid: boolean;
}

/**
 * Lazily encodes one model per delimiter and remembers each decode check, so callers
 * (and the document-level composition) pay for each encoding and check once.
 */
export class CandidateSet {
  private readonly texts = new Map<DelimiterChar, string | null>();
  private readonly checks = new Map<DelimiterChar, boolean>();
  private json: string | undefined;
  constructor(readonly model: JsonValue) {}

  private readonly newlines = new Map<DelimiterChar, number>();

  /** Number of line breaks in the encoding for `d` (for composed lengths). */
  lineBreaks(d: DelimiterChar): number {
    let n = this.newlines.get(d);
    if (n === undefined) {
      const t = this.text(d) ?? '';
      n = 0;
      for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) n++;
      this.newlines.set(d, n);
    }
    return n;
  }

  text(d: DelimiterChar): string | null {
    if (!this.texts.has(d)) this.texts.set(d, safeEncode(this.model, d));
    return this.texts.get(d)!;
  }

  valid(d: DelimiterChar): boolean {
    let v = this.checks.get(d);
    if (v === undefined) {
      const t = this.text(d);
      if (t === null) v = false;
      else {
        this.json ??= JSON.stringify(this.model);
        v = decodesTo(t, this.json);
      }
      this.checks.set(d, v);
    }
    return v;
  }

  /** Shortest valid candidate among `delims` (ties in order); when none is valid, the shortest encoding with valid false; null when nothing encodes. */
  best(delims: readonly DelimiterChar[]): Candidate | null {
    const encoded = delims
      .map((d) => ({ d, t: this.text(d) }))
      .filter((x): x is { d: DelimiterChar; t: string } => x.t !== null)
      .sort((a, b) => a.t.length - b.t.length || delims.indexOf(a.d) - delims.indexOf(b.d));
    for (const e of encoded) if (this.valid(e.d)) return { text: e.t, delimiter: e.d, valid: true };
    const first = encoded[0];
    return first ? { text: first.t, delimiter: first.d, valid: false } : null;
  }
}

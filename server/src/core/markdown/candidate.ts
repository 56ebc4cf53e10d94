/**
 * TOON candidates (docs/engine.md#3-the-model): encode with each delimiter, strict-decode and
 * deep-compare with the model, shortest valid wins (ties: comma, tab, pipe). Never throws.
 */
import { encode, decode, decodeStreamSync } from '@toon-format/toon';
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

/** Events of the library's decode stream read between two yields of {@link decodesToSteps}. */
const DECODE_EVENTS_PER_STEP = 2048;

/** Where events go while a value is built from the decode stream: the open object (its pending key) or array. */
type Open = { obj: Record<string, unknown>; key: string | undefined; arr?: undefined } | { arr: unknown[]; obj?: undefined };

/** Puts `value` where the open container takes it, as the library's decode does (`__proto__` an own property). */
function place(top: Open, value: unknown): void {
  if (top.arr) top.arr.push(value);
  else {
    if (top.key === undefined) throw new Error('a value without its key');
    if (top.key === '__proto__') Object.defineProperty(top.obj, top.key, { value, enumerable: true, writable: true, configurable: true });
    else top.obj[top.key] = value;
    top.key = undefined;
  }
}

/**
 * {@link decodesTo} as steps: the library's strict decode of `text` read from its own event stream
 * (`decodeStreamSync` over the same lines `decode` splits), a yield every few thousand events, the value built
 * from the events as `decode` builds it. The same answer as decodesTo; never throws.
 */
export function* decodesToSteps(text: string, expectedJson: string): Generator<void, boolean, void> {
  try {
    const stack: Open[] = [];
    let root: unknown = undefined;
    let n = 0;
    for (const e of decodeStreamSync(text.split('\n'), { strict: true })) {
      const top = stack[stack.length - 1];
      if (e.type === 'startObject' || e.type === 'startArray') {
        const open: Open = e.type === 'startObject' ? { obj: {}, key: undefined } : { arr: [] };
        if (top) place(top, open.arr ?? open.obj);
        stack.push(open);
      } else if (e.type === 'endObject' || e.type === 'endArray') {
        const done = stack.pop();
        if (!done || (e.type === 'endArray') !== !!done.arr) throw new Error('a mismatched end');
        if (stack.length === 0) root = done.arr ?? done.obj;
      } else if (e.type === 'key') {
        if (!top || top.arr) throw new Error('a key outside an object');
        top.key = e.key;
      } else if (top) place(top, e.value);
      else root = e.value;
      if (++n % DECODE_EVENTS_PER_STEP === 0) yield;
    }
    if (stack.length !== 0 || root === undefined) return false;
    rememberDecoded(text);
    return JSON.stringify(root) === expectedJson;
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

  /** {@link valid} as steps ({@link decodesToSteps}): the same answer, kept the same way. */
  *validSteps(d: DelimiterChar): Generator<void, boolean, void> {
    let v = this.checks.get(d);
    if (v === undefined) {
      const t = this.text(d);
      if (t === null) v = false;
      else {
        this.json ??= JSON.stringify(this.model);
        v = yield* decodesToSteps(t, this.json);
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

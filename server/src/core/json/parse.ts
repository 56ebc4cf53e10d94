/**
 * Parsing agent JSON: `JSON.parse` on the fast path (a valid document pays for nothing else),
 * jsonc-parser only after a failure, to say where and why the text is not JSON.
 */
import { parse as parseTolerant, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { errorMessage } from '../errors';

/** The first place the text stops being JSON. */
export interface SyntaxProblem {
  /** Offset in the parsed text. */
  offset: number;
  length: number;
  message: string;
}

export type ParseOutcome =
  | { ok: true; value: unknown }
  | { ok: false; problem: SyntaxProblem; /** What a tolerant parser recovered, for kind sniffing; undefined when nothing. */ partial: unknown };

/** Human wording of jsonc-parser's error codes: what the parser expected at that point. */
const PARSE_ERROR_WORDING: Record<string, string> = {
  InvalidSymbol: 'unexpected symbol',
  InvalidNumberFormat: 'invalid number',
  PropertyNameExpected: 'expected a double-quoted property name (trailing commas are not JSON)',
  ValueExpected: 'expected a value (trailing commas are not JSON)',
  ColonExpected: "expected ':' after the property name",
  CommaExpected: "expected ',' between items",
  CloseBraceExpected: "expected ',' or '}'",
  CloseBracketExpected: "expected ',' or ']'",
  EndOfFileExpected: 'expected the end of the document after the top-level value',
  InvalidCommentToken: 'comments are not JSON',
  UnexpectedEndOfComment: 'unterminated comment (comments are not JSON)',
  UnexpectedEndOfString: 'unterminated string',
  UnexpectedEndOfNumber: 'unterminated number',
  InvalidUnicode: 'invalid \\u escape: four hex digits expected',
  InvalidEscapeCharacter: 'invalid escape character in a string',
  InvalidCharacter: 'control character in a string must be escaped',
};

/**
 * Parses strict JSON. On failure reports the first syntax problem (with an offset into `text`)
 * and whatever a tolerant parse recovered. Never throws, also not on 100,000-deep nesting.
 */
export function parseJson(text: string): ParseOutcome {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, ...locateSyntaxProblem(text, err) };
  }
}

function locateSyntaxProblem(text: string, jsonParseError: unknown): { problem: SyntaxProblem; partial: unknown } {
  if (text.trim().length === 0) {
    return { problem: { offset: 0, length: 0, message: 'Not JSON: the document is empty; expected a JSON value' }, partial: undefined };
  }
  const errors: ParseError[] = [];
  let partial: unknown;
  try {
    partial = parseTolerant(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  } catch {
    // jsonc-parser recurses per nesting level; a pathologically deep document overflows it.
    errors.length = 0;
    partial = undefined;
  }
  const first = errors[0];
  if (first) {
    const wording = PARSE_ERROR_WORDING[printParseErrorCode(first.error)] ?? printParseErrorCode(first.error);
    const offset = Math.min(first.offset, text.length);
    // At least one character when there is one to underline; zero at the very end of the text.
    const length = Math.min(Math.max(first.length, 1), text.length - offset);
    return { problem: { offset, length, message: `Not JSON: ${wording}` }, partial };
  }
  // jsonc-parser accepted what V8 rejected (or overflowed): fall back to V8's own position.
  const v8Message = errorMessage(jsonParseError);
  const at = /at position (\d+)/.exec(v8Message);
  const offset = at ? Math.min(Number(at[1]), text.length) : /end of JSON input/.test(v8Message) ? text.length : 0;
  const reason = v8Message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/^SyntaxError:\s*/, '');
  return { problem: { offset, length: offset < text.length ? 1 : 0, message: `Not JSON: ${reason}` }, partial };
}

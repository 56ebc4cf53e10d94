/**
 * markdown-it's block parse in steps: the tokens `parser.parse(src, env)` makes, built by a generator that yields
 * every {@link TOKENIZE_STEP_LINES} source lines, so a huge slice's parse is many steps of a time-sliced plan.
 *
 * The core chain runs as markdown-it runs it, its `block` rule replaced by a copy of ParserBlock's top-level loop
 * that yields between top-level blocks, and of the two rules whose one call can cover a whole huge slice (`list`,
 * `table`: markdown-it 15's code, statement for statement) that yield between items and between rows. Everything
 * nested (an item's content, a blockquote) goes through markdown-it's own tokenizer, and between yields nothing
 * else touches the parse's state. The copies must stay markdown-it's: test/unit/block-steps.test.ts compares the
 * tokens with `parse` on generated and hand-picked inputs, so an upgrade that changes either rule fails there.
 *
 * The copied loop and rules are derived from markdown-it 15 (lib/parser_block.mjs, lib/rules_block/list.mjs,
 * lib/rules_block/table.mjs), Copyright (c) 2014 Vitaly Puzrin, Alex Kocharin, under the MIT license
 * (node_modules/markdown-it/LICENSE).
 */
import type { Parser, Token } from './parser';

type StateBlock = InstanceType<Parser['block']['State']>;
type StateCore = InstanceType<Parser['core']['State']>;
type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/** How many source lines the stepped parse tokenizes between two yields. */
export const TOKENIZE_STEP_LINES = 1024;

/** A ruler's rules with their names (markdown-it's Ruler keeps them so; its typings do not show it). */
interface NamedRule<F> {
  name: string;
  enabled: boolean;
  fn: F;
}
function namedRules<F>(ruler: unknown): NamedRule<F>[] {
  return (ruler as { __rules__: NamedRule<F>[] }).__rules__;
}

/** The tokens of `md.parse(src, env)`, in steps of about `stepLines` lines. */
export function* blockTokenSteps(md: Parser, src: string, env: Record<string, unknown> = {}, stepLines = TOKENIZE_STEP_LINES): Generator<void, Token[], void> {
  const state: StateCore = new md.core.State(src, md, env);
  const blockRule = namedRules<(s: StateCore) => void>(md.core.ruler).find((r) => r.name === 'block')?.fn;
  for (const rule of md.core.ruler.getRules('')) {
    if (rule !== blockRule || state.inlineMode) rule(state);
    else if (state.src) {
      const st: StateBlock = new md.block.State(state.src, md, state.env, state.tokens);
      yield;
      yield* tokenizeSteps(st, st.line, st.lineMax, stepLines);
    }
  }
  return state.tokens;
}

function isSpace(code: number): boolean {
  return code === 9 || code === 32;
}

/** ParserBlock.tokenize at the top level, with a yield every `stepLines` lines. */
function* tokenizeSteps(state: StateBlock, startLine: number, endLine: number, stepLines: number): Generator<void, void, void> {
  const rules = state.md.block.ruler.getRules('') as BlockRule[];
  const named = namedRules<BlockRule>(state.md.block.ruler);
  const listRule = named.find((r) => r.name === 'list')?.fn;
  const tableRule = named.find((r) => r.name === 'table')?.fn;
  const len = rules.length;
  const maxNesting = state.md.options.maxNesting;
  let line = startLine;
  let hasEmptyLines = false;
  let mark = line;
  while (line < endLine) {
    state.line = line = state.skipEmptyLines(line);
    if (line >= endLine) break;
    if (state.sCount[line]! < state.blkIndent) break;
    if (maxNesting !== undefined && state.level >= maxNesting) {
      state.line = endLine;
      break;
    }
    const prevLine = state.line;
    let ok = false;
    for (let i = 0; i < len; i++) {
      const rule = rules[i]!;
      // (each of the two answers in silent mode exactly when it would parse: then its stepped copy parses)
      if (rule === listRule) ok = rule(state, line, endLine, true) && (yield* listSteps(state, line, endLine, stepLines));
      else if (rule === tableRule) ok = rule(state, line, endLine, true) && (yield* tableSteps(state, line, endLine, stepLines));
      else ok = rule(state, line, endLine, false);
      if (ok) {
        if (prevLine >= state.line) throw new Error("block rule didn't increment state.line");
        break;
      }
    }
    if (!ok) throw new Error('none of the block rules matched');
    state.tight = !hasEmptyLines;
    if (state.isEmpty(state.line - 1)) hasEmptyLines = true;
    line = state.line;
    if (line < endLine && state.isEmpty(line)) {
      hasEmptyLines = true;
      line++;
      state.line = line;
    }
    if (line - mark >= stepLines) {
      mark = line;
      yield;
    }
  }
}

function skipBulletListMarker(state: StateBlock, startLine: number): number {
  const max = state.eMarks[startLine]!;
  let pos = state.bMarks[startLine]! + state.tShift[startLine]!;
  const marker = state.src.charCodeAt(pos++);
  if (marker !== 42 && marker !== 45 && marker !== 43) return -1;
  if (pos < max) {
    if (!isSpace(state.src.charCodeAt(pos))) return -1;
  }
  return pos;
}

function skipOrderedListMarker(state: StateBlock, startLine: number): number {
  const start = state.bMarks[startLine]! + state.tShift[startLine]!;
  const max = state.eMarks[startLine]!;
  let pos = start;
  if (pos + 1 >= max) return -1;
  let ch = state.src.charCodeAt(pos++);
  if (ch < 48 || ch > 57) return -1;
  for (;;) {
    if (pos >= max) return -1;
    ch = state.src.charCodeAt(pos++);
    if (ch >= 48 && ch <= 57) {
      if (pos - start >= 10) return -1;
      continue;
    }
    if (ch === 41 || ch === 46) break;
    return -1;
  }
  if (pos < max) {
    ch = state.src.charCodeAt(pos);
    if (!isSpace(ch)) return -1;
  }
  return pos;
}

function markTightParagraphs(state: StateBlock, idx: number): void {
  const level = state.level + 2;
  for (let i = idx + 2, l = state.tokens.length - 2; i < l; i++) {
    if (state.tokens[i]!.level === level && state.tokens[i]!.type === 'paragraph_open') {
      state.tokens[i + 2]!.hidden = true;
      state.tokens[i]!.hidden = true;
      i += 2;
    }
  }
}

/** markdown-it's `list` rule (not silent), with a yield between items every `stepLines` lines. */
function* listSteps(state: StateBlock, startLine: number, endLine: number, stepLines: number): Generator<void, boolean, void> {
  let max: number, pos: number, start = 0, token: Token;
  let nextLine = startLine;
  let tight = true;
  if (state.sCount[nextLine]! - state.blkIndent >= 4) return false;
  if (state.listIndent >= 0 && state.sCount[nextLine]! - state.listIndent >= 4 && state.sCount[nextLine]! < state.blkIndent) return false;
  let isOrdered: boolean;
  let markerValue = 0;
  let posAfterMarker: number;
  if ((posAfterMarker = skipOrderedListMarker(state, nextLine)) >= 0) {
    isOrdered = true;
    start = state.bMarks[nextLine]! + state.tShift[nextLine]!;
    markerValue = Number(state.src.slice(start, posAfterMarker - 1));
  } else if ((posAfterMarker = skipBulletListMarker(state, nextLine)) >= 0) isOrdered = false;
  else return false;
  const markerCharCode = state.src.charCodeAt(posAfterMarker - 1);
  const listTokIdx = state.tokens.length;
  if (isOrdered) {
    token = state.push('ordered_list_open', 'ol', 1);
    if (markerValue !== 1) token.attrs = [['start', markerValue as unknown as string]];
  } else token = state.push('bullet_list_open', 'ul', 1);
  const listLines: [number, number] = [nextLine, 0];
  token.map = listLines;
  token.markup = String.fromCharCode(markerCharCode);
  let prevEmptyEnd = false;
  const terminatorRules = state.md.block.ruler.getRules('list') as BlockRule[];
  const oldParentType = state.parentType;
  state.parentType = 'list';
  let mark = nextLine;
  while (nextLine < endLine) {
    pos = posAfterMarker;
    max = state.eMarks[nextLine]!;
    const initial = state.sCount[nextLine]! + posAfterMarker - (state.bMarks[nextLine]! + state.tShift[nextLine]!);
    let offset = initial;
    while (pos < max) {
      const ch = state.src.charCodeAt(pos);
      if (ch === 9) offset += 4 - ((offset + state.bsCount[nextLine]!) % 4);
      else if (ch === 32) offset++;
      else break;
      pos++;
    }
    const contentStart = pos;
    let indentAfterMarker: number;
    if (contentStart >= max) indentAfterMarker = 1;
    else indentAfterMarker = offset - initial;
    if (indentAfterMarker > 4) indentAfterMarker = 1;
    const indent = initial + indentAfterMarker;
    token = state.push('list_item_open', 'li', 1);
    token.markup = String.fromCharCode(markerCharCode);
    const itemLines: [number, number] = [nextLine, 0];
    token.map = itemLines;
    if (isOrdered) token.info = state.src.slice(start, posAfterMarker - 1);
    const oldTight = state.tight;
    const oldTShift = state.tShift[nextLine]!;
    const oldSCount = state.sCount[nextLine]!;
    const oldListIndent = state.listIndent;
    state.listIndent = state.blkIndent;
    state.blkIndent = indent;
    state.tight = true;
    state.tShift[nextLine] = contentStart - state.bMarks[nextLine]!;
    state.sCount[nextLine] = offset;
    if (contentStart >= max && state.isEmpty(nextLine + 1)) state.line = Math.min(state.line + 2, endLine);
    else state.md.block.tokenize(state, nextLine, endLine);
    if (!state.tight || prevEmptyEnd) tight = false;
    prevEmptyEnd = state.line - nextLine > 1 && state.isEmpty(state.line - 1);
    state.blkIndent = state.listIndent;
    state.listIndent = oldListIndent;
    state.tShift[nextLine] = oldTShift;
    state.sCount[nextLine] = oldSCount;
    state.tight = oldTight;
    token = state.push('list_item_close', 'li', -1);
    token.markup = String.fromCharCode(markerCharCode);
    nextLine = state.line;
    itemLines[1] = nextLine;
    if (nextLine >= endLine) break;
    if (state.sCount[nextLine]! < state.blkIndent) break;
    if (state.sCount[nextLine]! - state.blkIndent >= 4) break;
    let terminate = false;
    for (let i = 0, l = terminatorRules.length; i < l; i++) {
      if (terminatorRules[i]!(state, nextLine, endLine, true)) {
        terminate = true;
        break;
      }
    }
    if (terminate) break;
    if (isOrdered) {
      posAfterMarker = skipOrderedListMarker(state, nextLine);
      if (posAfterMarker < 0) break;
      start = state.bMarks[nextLine]! + state.tShift[nextLine]!;
    } else {
      posAfterMarker = skipBulletListMarker(state, nextLine);
      if (posAfterMarker < 0) break;
    }
    if (markerCharCode !== state.src.charCodeAt(posAfterMarker - 1)) break;
    if (nextLine - mark >= stepLines) {
      mark = nextLine;
      yield;
    }
  }
  if (isOrdered) token = state.push('ordered_list_close', 'ol', -1);
  else token = state.push('bullet_list_close', 'ul', -1);
  token.markup = String.fromCharCode(markerCharCode);
  listLines[1] = nextLine;
  state.line = nextLine;
  state.parentType = oldParentType;
  if (tight) markTightParagraphs(state, listTokIdx);
  return true;
}

const MAX_AUTOCOMPLETED_CELLS = 65536;

function getLine(state: StateBlock, line: number): string {
  const pos = state.bMarks[line]! + state.tShift[line]!;
  const max = state.eMarks[line]!;
  return state.src.slice(pos, max);
}

function escapedSplit(str: string): string[] {
  const result: string[] = [];
  const max = str.length;
  let pos = 0;
  let ch = str.charCodeAt(pos);
  let isEscaped = false;
  let lastPos = 0;
  let current = '';
  while (pos < max) {
    if (ch === 124) {
      if (!isEscaped) {
        result.push(current + str.substring(lastPos, pos));
        current = '';
        lastPos = pos + 1;
      } else {
        current += str.substring(lastPos, pos - 1);
        lastPos = pos;
      }
    }
    isEscaped = ch === 92;
    pos++;
    ch = str.charCodeAt(pos);
  }
  result.push(current + str.substring(lastPos));
  return result;
}

const ALIGN_RE = /^:?-+:?$/;

/** markdown-it's `table` rule (GFM; not silent), with a yield between rows every `stepLines` lines. */
function* tableSteps(state: StateBlock, startLine: number, endLine: number, stepLines: number): Generator<void, boolean, void> {
  if (startLine + 2 > endLine) return false;
  let nextLine = startLine + 1;
  if (state.sCount[nextLine]! < state.blkIndent) return false;
  if (state.sCount[nextLine]! - state.blkIndent >= 4) return false;
  let pos = state.bMarks[nextLine]! + state.tShift[nextLine]!;
  if (pos >= state.eMarks[nextLine]!) return false;
  const firstCh = state.src.charCodeAt(pos++);
  if (firstCh !== 124 && firstCh !== 45 && firstCh !== 58) return false;
  if (pos >= state.eMarks[nextLine]!) return false;
  const secondCh = state.src.charCodeAt(pos++);
  if (secondCh !== 124 && secondCh !== 45 && secondCh !== 58 && !isSpace(secondCh)) return false;
  if (firstCh === 45 && isSpace(secondCh)) return false;
  while (pos < state.eMarks[nextLine]!) {
    const ch = state.src.charCodeAt(pos);
    if (ch !== 124 && ch !== 45 && ch !== 58 && !isSpace(ch)) return false;
    pos++;
  }
  let lineText = getLine(state, startLine + 1);
  let columns = lineText.split('|');
  const aligns: string[] = [];
  for (let i = 0; i < columns.length; i++) {
    const t = columns[i]!.trim();
    if (!t) {
      if (i === 0 || i === columns.length - 1) continue;
      else return false;
    }
    if (!ALIGN_RE.test(t)) return false;
    if (t.charCodeAt(t.length - 1) === 58) aligns.push(t.charCodeAt(0) === 58 ? 'center' : 'right');
    else if (t.charCodeAt(0) === 58) aligns.push('left');
    else aligns.push('');
  }
  lineText = getLine(state, startLine).trim();
  if (lineText.indexOf('|') === -1) return false;
  if (state.sCount[startLine]! - state.blkIndent >= 4) return false;
  columns = escapedSplit(lineText);
  if (columns.length && columns[0] === '') columns.shift();
  if (columns.length && columns[columns.length - 1] === '') columns.pop();
  const columnCount = columns.length;
  if (columnCount === 0 || columnCount !== aligns.length) return false;
  const oldParentType = state.parentType;
  state.parentType = 'table' as typeof state.parentType;
  const terminatorRules = state.md.block.ruler.getRules('blockquote') as BlockRule[];
  const tokenTo = state.push('table_open', 'table', 1);
  const tableLines: [number, number] = [startLine, 0];
  tokenTo.map = tableLines;
  const tokenTho = state.push('thead_open', 'thead', 1);
  tokenTho.map = [startLine, startLine + 1];
  const tokenHtro = state.push('tr_open', 'tr', 1);
  tokenHtro.map = [startLine, startLine + 1];
  for (let i = 0; i < columns.length; i++) {
    const tokenHo = state.push('th_open', 'th', 1);
    if (aligns[i]) tokenHo.attrs = [['style', `text-align:${aligns[i]}`]];
    const tokenIl = state.push('inline', '', 0);
    tokenIl.content = columns[i]!.trim();
    tokenIl.children = [];
    state.push('th_close', 'th', -1);
  }
  state.push('tr_close', 'tr', -1);
  state.push('thead_close', 'thead', -1);
  let tbodyLines: [number, number] | undefined;
  let autocompletedCells = 0;
  let mark = startLine;
  for (nextLine = startLine + 2; nextLine < endLine; nextLine++) {
    if (state.sCount[nextLine]! < state.blkIndent) break;
    let terminate = false;
    for (let i = 0, l = terminatorRules.length; i < l; i++) {
      if (terminatorRules[i]!(state, nextLine, endLine, true)) {
        terminate = true;
        break;
      }
    }
    if (terminate) break;
    lineText = getLine(state, nextLine).trim();
    if (!lineText) break;
    if (state.sCount[nextLine]! - state.blkIndent >= 4) break;
    columns = escapedSplit(lineText);
    if (columns.length && columns[0] === '') columns.shift();
    if (columns.length && columns[columns.length - 1] === '') columns.pop();
    autocompletedCells += columnCount - columns.length;
    if (autocompletedCells > MAX_AUTOCOMPLETED_CELLS) break;
    if (nextLine === startLine + 2) {
      const tokenTbo = state.push('tbody_open', 'tbody', 1);
      tokenTbo.map = tbodyLines = [startLine + 2, 0];
    }
    const tokenTro = state.push('tr_open', 'tr', 1);
    tokenTro.map = [nextLine, nextLine + 1];
    for (let i = 0; i < columnCount; i++) {
      const tokenTdo = state.push('td_open', 'td', 1);
      if (aligns[i]) tokenTdo.attrs = [['style', `text-align:${aligns[i]}`]];
      const tokenIl = state.push('inline', '', 0);
      tokenIl.content = columns[i] ? columns[i]!.trim() : '';
      tokenIl.children = [];
      state.push('td_close', 'td', -1);
    }
    state.push('tr_close', 'tr', -1);
    if (nextLine - mark >= stepLines) {
      mark = nextLine;
      yield;
    }
  }
  if (tbodyLines) {
    state.push('tbody_close', 'tbody', -1);
    tbodyLines[1] = nextLine;
  }
  state.push('table_close', 'table', -1);
  tableLines[1] = nextLine;
  state.parentType = oldParentType;
  state.line = nextLine;
  return true;
}

/**
 * Analysis warnings (docs/engine.md#5-warnings): duplicate_rule, vague_rule, long_section,
 * split_candidate. Positions are slice-relative here; callers shift them.
 * Constants and the similarity measure are documented in docs/engine.md.
 */
import type { ParsedSlice, TextUnit } from './blocks';
import { isRuleText } from './stats';
import { fnv1a, isSpaceCode, trimEndWhile, trimTrailingLineBreaks } from './text';
import { maxOf } from '../arrays';

export interface WarningRange {
  line_start: number;
  line_end: number;
  char_start: number;
  char_end: number;
}
export interface VerdictWarning {
  code: string;
  severity: 'info' | 'warning';
  message: string;
  suggestion?: string;
  evidence?: string;
  range?: WarningRange;
}

export const LONG_SECTION_MAX_CHARS = 1500;
export const LONG_SECTION_MAX_LINES = 40;
export const LONG_SECTION_MAX_BULLETS = 12;
export const LONG_SECTION_TABLE_SHARE = 0.6;
/** split_candidate: this many distinct trigger openings in one section. */
export const SPLIT_MIN_TRIGGERS = 3;
export const SPLIT_MIN_POLICY_RULES = 3;
export const SPLIT_MIN_PROCEDURE_STEPS = 3;

/**
 * Vague phrases (case-insensitive). Strong ones make a unit vague whatever else it says; weak ones
 * ("gracefully", "high quality") only when the unit has no concrete handle (inline code, a path, a number);
 * condition hedges ("where possible", "if needed") only when, besides, the unit says almost nothing else
 * ("Refactor where possible.": real prompts attach them to concrete instructions, "Offer concrete next steps
 * when possible."). A phrase inside quotation marks or backticks is an example being talked about, not an
 * instruction, and never counts. Precision: docs/engine.md and docs/precision.md.
 */
export const VAGUE_PHRASES: readonly RegExp[] = [
  /\bbe (?:careful|smart|helpful|thoughtful|mindful|sensible|reasonable)\b/gi,
  /\bsmart about\b/gi,
  /\buse (?:good|your|best|sound) judg(?:e)?ment\b/gi,
  /\buse common sense\b/gi,
  /\bdo the right thing\b/gi,
  /\bmake (?:it|this|that|things|everything|the \w+) better\b/gi,
];
/** Condition hedges: vague only on a unit of at most {@link HEDGE_MAX_OTHER_WORDS} other words. */
export const CONDITION_HEDGES: readonly RegExp[] = [/\b(?:as|when|where|if) (?:appropriate|possible|needed|necessary)\b/gi];
export const HEDGE_MAX_OTHER_WORDS = 2;
export const WEAK_VAGUE_PHRASES: readonly RegExp[] = [
  /\bgracefully\b/gi,
  /\bimprove (?:the )?quality\b/gi,
  /\bhigh[- ]quality\b/gi,
];
/** A concrete handle: inline code, a path-like token, or a number. */
const CONCRETE_HANDLE = /`[^`\n]+`|\w\/\w|\d/;

/** Spans of `text` inside "…", “…”, «…» or `…` (a linear scan; an unclosed quote opens no span). */
export function quotedSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  const closers: Record<string, string> = { '"': '"', '\u201c': '\u201d', '\u00ab': '\u00bb', '`': '`' };
  let open = -1;
  let closer = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (open < 0) {
      const cl = closers[c];
      if (cl) {
        open = i;
        closer = cl;
      }
    } else if (c === closer) {
      spans.push([open, i]);
      open = -1;
    }
  }
  return spans;
}

/** Whether some phrase of `res` matches `text` outside every quoted span. */
function matchesUnquoted(res: readonly RegExp[], text: string, spans: [number, number][]): boolean {
  for (const re of res) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m; m = re.exec(text)) {
      const at = m.index;
      if (!spans.some(([a, b]) => at > a && at < b)) return true;
    }
  }
  return false;
}

/** Whether a rule text reads as a vague instruction (see {@link VAGUE_PHRASES}). */
export function isVagueRule(text: string): boolean {
  const spans = quotedSpans(text);
  if (matchesUnquoted(VAGUE_PHRASES, text, spans)) return true;
  if (CONCRETE_HANDLE.test(text)) return false;
  if (matchesUnquoted(WEAK_VAGUE_PHRASES, text, spans)) return true;
  if (!matchesUnquoted(CONDITION_HEDGES, text, spans)) return false;
  let rest = text;
  for (const re of CONDITION_HEDGES) rest = rest.replace(re, ' ');
  return (rest.match(/[\p{L}\p{N}_]+/gu) ?? []).length <= HEDGE_MAX_OTHER_WORDS;
}

export const DUPLICATE_SUGGESTION = 'Merge these rules or keep only the version with the clearest action and scope.';
const VAGUE_SUGGESTION = 'Rewrite as a concrete rule with an action, condition, and verification step.';
const LONG_SUGGESTION = 'Consider splitting this into a shorter canonical rule plus one or more task-specific skill files.';
const SPLIT_SUGGESTION = 'Keep the short canonical instruction here and move detailed procedure into a focused skill file.';

/** Trailing characters a rule's normalization drops: whitespace and . ; : , ! ? */
const isRulePunct = (c: number) => isSpaceCode(c) || c === 46 || c === 59 || c === 58 || c === 44 || c === 33 || c === 63;

/** Normalization for exact duplicates: case, whitespace, leading bullet/number, trailing punctuation. */
export function normalizeRule(text: string): string {
  const spaced = text
    .toLowerCase()
    .replace(/^\s*(?:[-+*]|\d{1,9}[.)])\s+/, '')
    .replace(/\s+/g, ' ')
    .trim();
  return trimEndWhile(spaced, isRulePunct);
}

export function ruleWords(norm: string): string[] {
  return [...new Set(norm.match(/[\p{L}\p{N}_]+/gu) ?? [])];
}

/**
 * Units without a rule keyword ("Run the tests before asking for review.") take part in duplicate detection
 * only with at least this many distinct words (short phrases such as "See below." repeat legitimately).
 */
export const VERBATIM_MIN_WORDS = 5;
/** A near-duplicate needs at least this many content words (fewer: only a verbatim repeat counts). */
export const NEAR_DUPLICATE_MIN_WORDS = 3;

/**
 * Words whose presence or absence does not change what a rule asks for (articles, pronouns, politeness,
 * intensifiers, modal strength). Two rules are near-duplicates when they say the same content words in the
 * same order and differ only in these words and in inflection ("test" / "tests"): a difference in any other
 * word ("delete" / "update", "before" / "after", "always" / "never") makes them two rules. Negations are never
 * filler.
 */
export const FILLER_WORDS: ReadonlySet<string> = new Set([
  'a', 'an', 'the', 'this', 'that', 'these', 'those', 'it', 'its', 'you', 'your', 'we', 'our', 'us', 'please',
  'always', 'also', 'just', 'really', 'very', 'all', 'every', 'each', 'any', 'to', 'be', 'is', 'are', 'and',
  'then', 'make', 'sure', 'must', 'should', 'shall', 'will', 'ensure', 'so',
]);

/** A word's stem for comparing near-duplicates: a few English inflections dropped ("runs", "tested", "testing"). */
export function ruleStem(w: string): string {
  if (w.length > 5 && w.endsWith('ies')) return w.slice(0, -3) + 'y';
  if (w.length > 5 && w.endsWith('ing')) return w.slice(0, -3);
  if (w.length > 4 && w.endsWith('ed')) return w.slice(0, -2);
  if (w.length > 4 && w.endsWith('es')) return w.slice(0, -2);
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) return w.slice(0, -1);
  return w;
}

const SEED_A = 0x811c9dc5;
const SEED_B = 0x9747b28c;

/** A 53-bit hash of a text (two FNV-1a passes): equal texts share it, different ones practically never. */
function hash53(text: string): number {
  return fnv1a(text, SEED_A) * 0x200000 + (fnv1a(text, SEED_B) & 0x1fffff);
}

/**
 * What duplicate detection keeps of a slice's units: one hash a unit — of its content words' stems in order,
 * filler dropped, when it has enough of them (a verbatim repeat has the same content, so it shares the hash), else
 * of its normalized text. Kept with the slice's analysis as long as the section is unchanged, so document-wide
 * detection after an edit never parses an unchanged section again.
 */
export type DupKeys = readonly number[];

/** Rules of one slice with the offsets that make their positions whole-document. */
export interface RuleGroup {
  rules: RuleRef[];
  charBase: number;
  lineBase: number;
}

export interface RuleRef {
  norm: string;
  unit: TextUnit;
  /** Display name of the section holding the rule. */
  section: string;
  /** Hash of the normalized text. */
  key: number;
  /** Hash of the content stems in order, or 0. */
  near: number;
}

/** The duplicate keys of a slice's rules (see {@link DupKeys}). */
export function dupKeysOf(rules: readonly RuleRef[]): DupKeys {
  // A plain array of doubles: smaller than a typed array and its buffer for the few units of a section.
  return rules.map((r) => r.near || r.key);
}

function unitRange(u: TextUnit, charBase: number, lineBase: number): WarningRange {
  return { line_start: u.lineStart + 1 + lineBase, line_end: u.lineEnd + 1 + lineBase, char_start: u.start + charBase, char_end: u.end + charBase };
}

/**
 * Memo for document-level duplicate detection: which units are repeats depends only on the sequence of
 * keys, so an edit that changes no rule reuses the last answer.
 */
export interface DuplicateMemo {
  keys: DupKeys[];
  hits: DuplicateHit[];
}

/** [group, index, first group, first index]: a repeated unit and the earlier unit it repeats. */
export type DuplicateHit = [number, number, number, number];

function sameKeys(a: DupKeys, b: DupKeys): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function unchangedPrefix(groups: readonly DupKeys[], memo: DuplicateMemo): number {
  const n = Math.min(groups.length, memo.keys.length);
  for (let g = 0; g < n; g++) if (!sameKeys(groups[g]!, memo.keys[g]!)) return g;
  return n;
}

/**
 * duplicate_rule over units in source order, across the whole text (docs/engine.md#5-warnings): a unit equal
 * (after normalization) to an earlier one, or one saying an earlier one's content words in the same order
 * (filler and inflections aside). `groups` holds each slice's keys in order. One hash lookup a unit: linear.
 */
export function findDuplicates(groups: readonly DupKeys[], memo?: { last?: DuplicateMemo }): DuplicateHit[] {
  const last = memo?.last;
  const prefix = last ? unchangedPrefix(groups, last) : 0;
  if (last && prefix === groups.length && last.keys.length === groups.length) return last.hits;
  // Groups before the first changed one keep their answers (a unit's status depends only on earlier units);
  // their units are replayed into the maps without lookups.
  const hits: DuplicateHit[] = last ? last.hits.filter(([g]) => g < prefix) : [];
  const seen = new Map<number, number>();
  // A unit's place as one number: group × 2^21 + index (a slice has far fewer units than 2^21).
  const PLACE = 0x200000;
  for (let gi = 0; gi < prefix; gi++) {
    const keys = groups[gi]!;
    for (let ki = 0; ki < keys.length; ki++) if (!seen.has(keys[ki]!)) seen.set(keys[ki]!, gi * PLACE + ki);
  }
  for (let gi = prefix; gi < groups.length; gi++) {
    const keys = groups[gi]!;
    for (let ki = 0; ki < keys.length; ki++) {
      const first = seen.get(keys[ki]!);
      if (first !== undefined) hits.push([gi, ki, Math.floor(first / PLACE), first % PLACE]);
      else seen.set(keys[ki]!, gi * PLACE + ki);
    }
  }
  if (memo) memo.last = { keys: [...groups], hits };
  return hits;
}

/** A repeated unit and the earlier one it repeats, in whole-document coordinates. */
export interface DuplicateFinding {
  range: WarningRange;
  section: string;
  first: WarningRange;
  firstSection: string;
  /** Whether the two are the same text after normalization (else a near-duplicate). */
  verbatim: boolean;
  /** The repeated unit's text. */
  evidence: string;
  /** The slice holding the repeat (its index in the document's slices). */
  group: number;
}

/** A duplicate hit with its units read from their slices' rules (a slice's rules, its offsets and name). */
export function duplicateFinding([g, i, fg, fi]: DuplicateHit, slice: (group: number) => { rules: readonly Pick<RuleRef, 'unit' | 'key'>[]; charBase: number; lineBase: number; section: string }): DuplicateFinding {
  const a = slice(g);
  const b = fg === g ? a : slice(fg);
  const r = a.rules[i]!;
  const f = b.rules[fi]!;
  return { range: unitRange(r.unit, a.charBase, a.lineBase), section: a.section, first: unitRange(f.unit, b.charBase, b.lineBase), firstSection: b.section, verbatim: r.key === f.key, evidence: r.unit.text, group: g };
}

/** A duplicate finding as the engine's duplicate_rule warning (verdict.v1). */
export function duplicateRuleWarning(f: DuplicateFinding): VerdictWarning {
  return { code: 'duplicate_rule', severity: 'warning', message: `Possible duplicate rule in "${f.section}".`, suggestion: DUPLICATE_SUGGESTION, evidence: f.evidence, range: f.range };
}

/** The engine's duplicate_rule warnings (verdict.v1) of rule groups: {@link findDuplicates} on their keys. */
export function duplicateRuleWarnings(groups: RuleGroup[] | RuleRef[], memo?: { last?: DuplicateMemo }): VerdictWarning[] {
  const gs: RuleGroup[] = groups.length > 0 && 'rules' in groups[0]! ? (groups as RuleGroup[]) : [{ rules: groups as RuleRef[], charBase: 0, lineBase: 0 }];
  const slice = (g: number) => ({ ...gs[g]!, section: gs[g]!.rules[0]?.section ?? '' });
  return findDuplicates(gs.map((g) => dupKeysOf(g.rules)), memo).map((h) => duplicateRuleWarning(duplicateFinding(h, slice)));
}

/** The two duplicate keys of a normalized unit (see {@link DupKeys}). */
export function dupKey(norm: string): { key: number; near: number } {
  const content: string[] = [];
  for (const w of norm.match(/[\p{L}\p{N}_]+/gu) ?? []) if (!FILLER_WORDS.has(w)) content.push(ruleStem(w));
  const near = content.length >= NEAR_DUPLICATE_MIN_WORDS ? hash53(content.join(' ')) || 1 : 0;
  return { key: hash53(norm), near };
}

/**
 * Units of a parsed slice that duplicate detection looks at: list items and sentences carrying a rule keyword,
 * and any other of at least {@link VERBATIM_MIN_WORDS} distinct words. A unit ending in a colon introduces
 * what follows ("The command has the following arguments:") and is no rule of its own.
 */
export function sliceRules(p: ParsedSlice, section: string, from = 0, to = p.units.length, out: RuleRef[] = []): RuleRef[] {
  for (let i = from; i < to; i++) {
    const u = p.units[i]!;
    if (u.text.trimEnd().endsWith(':')) continue;
    const norm = normalizeRule(u.text);
    if (!norm) continue;
    if (!isRuleText(u) && ruleWords(norm).length < VERBATIM_MIN_WORDS) continue;
    out.push({ norm, unit: u, section, ...dupKey(norm) });
  }
  return out;
}

export function vagueRuleWarnings(p: ParsedSlice, section: string): VerdictWarning[] {
  const steps = vagueRuleWarningSteps(p, section);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** How many text units {@link vagueRuleWarningSteps} reads between two yields. */
const VAGUE_UNITS_PER_STEP = 2048;

/** {@link vagueRuleWarnings}, a yield every VAGUE_UNITS_PER_STEP units. */
export function* vagueRuleWarningSteps(p: ParsedSlice, section: string): Generator<void, VerdictWarning[], void> {
  const out: VerdictWarning[] = [];
  for (let i = 0; i < p.units.length; i++) {
    if (i > 0 && i % VAGUE_UNITS_PER_STEP === 0) yield;
    const u = p.units[i]!;
    if (!isVagueRule(u.text)) continue;
    out.push({
      code: 'vague_rule',
      severity: 'warning',
      message: `Possibly vague instruction in "${section}".`,
      suggestion: VAGUE_SUGGESTION,
      evidence: u.text,
      range: unitRange(u, 0, 0),
    });
  }
  return out;
}

/** Whole-slice range: from its first character to the end of its last line's content. */
export function sliceRange(p: ParsedSlice): WarningRange {
  const n = p.lines.spanCount;
  return { line_start: 1, line_end: Math.max(1, n), char_start: 0, char_end: n ? p.lines.contentEnd(n - 1) : 0 };
}

/** long_section (info), body measured without the heading line(s). */
export function longSectionWarning(p: ParsedSlice, raw: string, headingEnd: number, section: string): VerdictWarning | null {
  const body = raw.slice(headingEnd);
  const chars = trimTrailingLineBreaks(body).length;
  const nonEmpty = body.split(/\r\n|\n|\r/).filter((l) => l.trim() !== '').length;
  const bullets = p.bulletLines;
  if (!(chars > LONG_SECTION_MAX_CHARS || nonEmpty > LONG_SECTION_MAX_LINES || bullets > LONG_SECTION_MAX_BULLETS)) return null;
  if (nonEmpty > 0 && p.tableLines >= LONG_SECTION_TABLE_SHARE * nonEmpty) return null;
  return {
    code: 'long_section',
    severity: 'info',
    message: `Long section: "${section}".`,
    suggestion: LONG_SUGGESTION,
    evidence: `${chars} chars, ${nonEmpty} non-empty lines, ${bullets} bullets`,
    range: sliceRange(p),
  };
}

const TRIGGER = /^(when|whenever|before|after|if|once|while)\b\s+(.*)$/i;

/**
 * split_candidate (info): ≥ 3 distinct trigger openings ("When …", "Before …", "If …") among
 * the section's paragraphs and items, or policy and procedure together (≥ 3 rules and an
 * ordered list of ≥ 3 steps).
 */
export function splitCandidateWarning(p: ParsedSlice, section: string): VerdictWarning | null {
  const triggers: string[] = [];
  const seen = new Set<string>();
  for (const u of p.units) {
    const m = TRIGGER.exec(u.text);
    if (!m) continue;
    const key = (m[1] + ' ' + m[2]!.split(/[,.;:]/)[0]!).toLowerCase().split(/\s+/).slice(0, 4).join(' ');
    if (seen.has(key)) continue;
    seen.add(key);
    triggers.push(key);
  }
  let evidence: string | null = null;
  if (triggers.length >= SPLIT_MIN_TRIGGERS) evidence = `Detected triggers: ${triggers.join(', ')}`;
  else {
    const rules = p.units.filter(isRuleText).length;
    const steps = maxOf(p.blocks.map((b) => (b.kind === 'o' ? b.items.length : 0)), 0);
    if (rules >= SPLIT_MIN_POLICY_RULES && steps >= SPLIT_MIN_PROCEDURE_STEPS) evidence = `Policy and procedure: ${rules} rules and a ${steps}-step procedure`;
  }
  if (!evidence) return null;
  return {
    code: 'split_candidate',
    severity: 'info',
    message: `Possible split candidate: "${section}".`,
    suggestion: SPLIT_SUGGESTION,
    evidence,
    range: sliceRange(p),
  };
}

/** Shifts a slice-relative warning to whole-document coordinates. */
export function shiftWarning(w: VerdictWarning, charBase: number, lineBase: number): VerdictWarning {
  if (!w.range) return w;
  return {
    ...w,
    range: {
      line_start: w.range.line_start + lineBase,
      line_end: w.range.line_end + lineBase,
      char_start: w.range.char_start + charBase,
      char_end: w.range.char_end + charBase,
    },
  };
}

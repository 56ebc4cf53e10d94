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
/** Near-duplicate rules: Jaccard similarity of word sets at or above this, both with ≥ 4 distinct words. */
export const NEAR_DUPLICATE_JACCARD = 0.8;
export const NEAR_DUPLICATE_MIN_WORDS = 4;
/** Bound on near-duplicate comparisons per rule (candidates share a MinHash anchor). */
export const NEAR_DUPLICATE_MAX_CANDIDATES = 6;
/** At most this many (most recent) rules per MinHash bucket (a word shared by thousands of rules adds nothing). */
export const NEAR_DUPLICATE_BUCKET_MAX = 32;
/** split_candidate: this many distinct trigger openings in one section. */
export const SPLIT_MIN_TRIGGERS = 3;
export const SPLIT_MIN_POLICY_RULES = 3;
export const SPLIT_MIN_PROCEDURE_STEPS = 3;

/**
 * Vague phrases (case-insensitive). Strong ones make a unit vague whatever else it says; weak ones
 * (hedges such as "where possible", "gracefully", "high quality") only when the unit has no concrete
 * handle (inline code, a path, a number). A phrase inside quotation marks or backticks is an example
 * being talked about, not an instruction, and never counts. Precision on the corpus: docs/engine.md.
 */
export const VAGUE_PHRASES: readonly RegExp[] = [
  /\bbe (?:careful|smart|helpful|thoughtful|mindful|sensible|reasonable)\b/gi,
  /\bsmart about\b/gi,
  /\buse (?:good|your|best|sound) judg(?:e)?ment\b/gi,
  /\buse common sense\b/gi,
  /\bdo the right thing\b/gi,
  /\bmake (?:it|this|that|things|everything|the \w+) better\b/gi,
];
export const WEAK_VAGUE_PHRASES: readonly RegExp[] = [
  /\b(?:as|when|where|if) (?:appropriate|possible|needed|necessary)\b/gi,
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
  return matchesUnquoted(WEAK_VAGUE_PHRASES, text, spans) && !CONCRETE_HANDLE.test(text);
}

const DUP_SUGGESTION = 'Merge these rules or keep only the version with the clearest action and scope.';
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

/** Rules of one slice with the offsets that make their positions whole-document. */
export interface RuleGroup {
  rules: RuleRef[];
  charBase: number;
  lineBase: number;
}

export interface RuleRef {
  norm: string;
  words: string[];
  /** The words' FNV-1a hashes, sorted and distinct (built once per rule, shared by every comparison). */
  wordHashes: Uint32Array;
  /** MinHash LSH band keys (near-duplicate candidates share one). */
  anchors: string[];
  unit: TextUnit;
  /** Display name of the section holding the rule. */
  section: string;
}

function unitRange(u: TextUnit, charBase: number, lineBase: number): WarningRange {
  return { line_start: u.lineStart + 1 + lineBase, line_end: u.lineEnd + 1 + lineBase, char_start: u.start + charBase, char_end: u.end + charBase };
}

function jaccard(a: RuleRef, b: RuleRef): number {
  const x = a.wordHashes;
  const y = b.wordHashes;
  // Jaccard ≥ t needs |small| / |big| ≥ t: many pairs stop here.
  if (Math.min(x.length, y.length) < NEAR_DUPLICATE_JACCARD * Math.max(x.length, y.length)) return 0;
  // Merge of two sorted hash arrays (distinct words; a 32-bit collision can only raise the score).
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < x.length && j < y.length) {
    if (x[i]! === y[j]!) {
      inter++;
      i++;
      j++;
    } else if (x[i]! < y[j]!) i++;
    else j++;
  }
  return inter / (x.length + y.length - inter);
}

/**
 * duplicate_rule over rules in source order: a rule equal (after normalization) to an earlier
 * one, or a near-duplicate of one. Near-duplicate candidates come from an inverted index on
 * each rule's rarest words, bounded per rule, so the pass stays linear on big documents.
 */
/**
 * Memo for document-level duplicate detection: which rules were repeats depends only on the
 * sequence of normalized rules, so an edit that changes no rule reuses the last answer.
 */
export interface DuplicateMemo {
  norms: string[][];
  hits: [number, number][];
}

function sameNorms(groups: RuleGroup[], memo: DuplicateMemo): boolean {
  if (memo.norms.length !== groups.length) return false;
  for (let g = 0; g < groups.length; g++) {
    const a = groups[g]!.rules;
    const b = memo.norms[g]!;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (a[i]!.norm !== b[i]) return false;
  }
  return true;
}

function unchangedPrefix(groups: RuleGroup[], memo: DuplicateMemo): number {
  const n = Math.min(groups.length, memo.norms.length);
  for (let g = 0; g < n; g++) {
    const a = groups[g]!.rules;
    const b = memo.norms[g]!;
    if (a.length !== b.length) return g;
    for (let i = 0; i < a.length; i++) if (a[i]!.norm !== b[i]) return g;
  }
  return n;
}

function duplicateWarning(r: RuleRef, g: RuleGroup): VerdictWarning {
  return {
    code: 'duplicate_rule',
    severity: 'warning',
    message: `Possible duplicate rule in "${r.section}".`,
    suggestion: DUP_SUGGESTION,
    evidence: r.unit.text,
    range: unitRange(r.unit, g.charBase, g.lineBase),
  };
}

export function duplicateRuleWarnings(groups: RuleGroup[] | RuleRef[], memo?: { last?: DuplicateMemo }): VerdictWarning[] {
  const gs: RuleGroup[] = groups.length > 0 && 'rules' in groups[0]! ? (groups as RuleGroup[]) : [{ rules: groups as RuleRef[], charBase: 0, lineBase: 0 }];
  if (memo?.last && sameNorms(gs, memo.last)) return memo.last.hits.map(([g, i]) => duplicateWarning(gs[g]!.rules[i]!, gs[g]!));
  // Groups before the first changed one keep their answers (a rule's status depends only on
  // earlier rules); their rules are replayed into the state without comparisons.
  const prefix = memo?.last ? unchangedPrefix(gs, memo.last) : 0;
  const hits: [number, number][] = memo?.last ? memo.last.hits.filter(([g]) => g < prefix) : [];
  const out: VerdictWarning[] = hits.map(([g, i]) => duplicateWarning(gs[g]!.rules[i]!, gs[g]!));
  const exact = new Set<string>();
  // MinHash buckets: the most recent rules sharing an anchor.
  const index = new Map<string, RuleRef[]>();
  const remember = (r: RuleRef, anchors: string[]) => {
    exact.add(r.norm);
    for (const w of anchors) {
      let l = index.get(w);
      if (!l) index.set(w, (l = []));
      if (l.length >= NEAR_DUPLICATE_BUCKET_MAX) l.splice(0, l.length >> 1);
      l.push(r);
    }
  };
  for (let gi = 0; gi < prefix; gi++) {
    for (const r of gs[gi]!.rules) remember(r, r.words.length >= NEAR_DUPLICATE_MIN_WORDS ? r.anchors : []);
  }
  for (let gi = prefix; gi < gs.length; gi++) {
    const g = gs[gi]!;
    for (let ri = 0; ri < g.rules.length; ri++) {
      const r = g.rules[ri]!;
      let dup = exact.has(r.norm);
      const anchors = r.words.length >= NEAR_DUPLICATE_MIN_WORDS ? r.anchors : [];
      if (!dup && anchors.length) {
        let budget = NEAR_DUPLICATE_MAX_CANDIDATES;
        outer: for (const w of anchors) {
          const bucket = index.get(w);
          if (!bucket) continue;
          for (let k = bucket.length - 1; k >= 0; k--) {
            if (jaccard(r, bucket[k]!) >= NEAR_DUPLICATE_JACCARD) {
              dup = true;
              break outer;
            }
            if (--budget <= 0) break outer;
          }
        }
      }
      if (dup) {
        out.push(duplicateWarning(r, g));
        hits.push([gi, ri]);
      }
      remember(r, anchors);
    }
  }
  if (memo) memo.last = { norms: gs.map((g) => g.rules.map((r) => r.norm)), hits };
  return out;
}

const MINHASH_SEEDS = [0x811c9dc5, 0x9747b28c, 0x5bd1e995, 0x27d4eb2f, 0x165667b1, 0x85ebca6b];

/**
 * MinHash LSH band keys: six min-hashes (fixed seeds) in three bands of two. Two rule word sets
 * with Jaccard J share a band with probability 1 − (1 − J²)³ (≥ 0.95 at J = 0.8, 0.58 at
 * J = 0.5), so near-duplicates meet in a bucket while unrelated rules rarely do.
 */
export function minHashAnchors(words: string[]): string[] {
  const mins: string[] = [];
  for (let k = 0; k < MINHASH_SEEDS.length; k++) {
    let best = '';
    let bestH = Infinity;
    for (const w of words) {
      const h = fnv1a(w, MINHASH_SEEDS[k]!);
      if (h < bestH || (h === bestH && w < best)) {
        bestH = h;
        best = w;
      }
    }
    mins.push(best);
  }
  return [0, 1, 2].map((b) => `${b}\u0001${mins[2 * b]}\u0001${mins[2 * b + 1]}`);
}

/** Rules of a parsed slice (list items and sentences carrying a rule keyword). */
export function sliceRules(p: ParsedSlice, section: string): RuleRef[] {
  const out: RuleRef[] = [];
  for (const u of p.units) {
    if (!isRuleText(u)) continue;
    const norm = normalizeRule(u.text);
    if (!norm) continue;
    const words = ruleWords(norm);
    const wordHashes = Uint32Array.from(new Set(words.map((w) => fnv1a(w, 0x811c9dc5)))).sort();
    out.push({ norm, words, wordHashes, anchors: minHashAnchors(words), unit: u, section });
  }
  return out;
}

export function vagueRuleWarnings(p: ParsedSlice, section: string): VerdictWarning[] {
  const out: VerdictWarning[] = [];
  for (const u of p.units) {
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

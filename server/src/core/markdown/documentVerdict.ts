/**
 * The whole-document verdict (profile, convert, and the plan's schema 1.1 verdict): the slices' analyses
 * composed into the document's candidate, profile and warnings, decided per mode.
 */
import { encode } from '@toon-format/toon';
import { type Tokenizer } from '../tokens';
import { analyzeSliceAt, countTokens, derivedModel, rulesOf, sliceSourceTokens, type SliceAnalysis } from './analysis';
import { decodesTo, delimitersFor, type CandidateSet, type DelimiterChar } from './candidate';
import { coverageRatio } from './coverage';
import type { JsonObject, JsonValue } from './model';
import { profileName, addStats, emptyStats } from './stats';
import { sliceDocument, type Slice } from './slices';
import { buildVerdict, lowCoverageWarning, LOSSY_APPLIED, LOW_COVERAGE_THRESHOLD, type EngineMode, type SourceType, type VerdictProfile, type VerdictV1 } from './verdict';
import { duplicateFinding, duplicateRuleWarning, findDuplicates, shiftWarning, type DuplicateFinding, type DuplicateMemo, type RuleRef, type VerdictWarning } from './warnings';
import { detach } from './text';
import type { EngineOptions } from './engineTypes';
import { hasTarget, minTokenSavingsOf, minTokenSavingsPctOf, ratiosOf, targetMet, tokenizerOf } from './engineOptions';

export type Analyze = (text: string, s: Slice) => SliceAnalysis;

export const freshAnalyze: Analyze = (text, s) => analyzeSliceAt(text, s.charStart, s.charEnd - s.charStart, s.kind, s.headingEnd - s.charStart);

export interface DocAnalysis {
  text: string;
  slices: Slice[];
  analyses: SliceAnalysis[];
  /** The cache's memo for document-level duplicate detection, when there is a cache. */
  duplicateMemo?: { last?: DuplicateMemo };
}

export function analyzeDocument(text: string, analyze: Analyze, duplicateMemo?: { last?: DuplicateMemo }, slices: Slice[] = sliceDocument(text)): DocAnalysis {
  const analyses = slices.map((s) => analyze(text, s));
  return { text, slices, analyses, duplicateMemo };
}

/** Slices that contribute to the document model (a preamble of blank lines does not). */
function modelEntries(d: DocAnalysis): SliceAnalysis[] {
  return d.analyses.filter((a) => !(a.kind === 'preamble' && a.emptyBody));
}

/** A composed document candidate: its length, known without building the text; the text and its check on demand. */
interface Composed {
  length: number;
  text: () => string;
  valid: () => boolean;
}

/**
 * The document candidate for one delimiter, composed from per-slice encodings:
 * distinct keys → the object form (slice encodings joined by newlines); repeated
 * headings → the array form (`[N]:` and each slice as a list item). The length is
 * known without building the text, so plans (which never show the document
 * candidate) do not join a megabyte of strings on every keystroke.
 */
function composeCandidate(sets: CandidateSet[], unique: boolean, d: DelimiterChar): Composed | null {
  if (sets.length >= 2 && unique && sets.every((s) => isPlainNonEmptyObject(Object.values(s.model as JsonObject)[0]))) {
    // TOON encodes a root object whose values are all uniform objects as a keyed table, so the
    // slices' encodings do not compose: encode the document model directly.
    const model: JsonObject = {};
    for (const s of sets) Object.assign(model, s.model as JsonObject);
    let text: string;
    try {
      text = encode(model, { delimiter: d });
    } catch {
      return null;
    }
    return { length: text.length, text: () => text, valid: () => decodesTo(text, JSON.stringify(model)) };
  }
  let length = 0;
  for (const s of sets) {
    const t = s.text(d);
    if (t === null) return null;
    length += t.length;
  }
  // Each slice's encoding decodes to its own model, and root keys encode independently.
  const valid = () => sets.every((s) => s.valid(d));
  if (unique) {
    length += Math.max(0, sets.length - 1);
    return { length, text: () => sets.map((s) => s.text(d)!).join('\n'), valid };
  }
  const header = `[${sets.length}${d === ',' ? '' : d}]:`;
  // Per slice: a newline, "  - " before its first line, four spaces before every other line.
  for (const s of sets) length += 1 + 4 + 4 * s.lineBreaks(d);
  length += header.length;
  const text = () => {
    const items = sets.map((s) => {
      const [first, ...rest] = s.text(d)!.split('\n');
      return ['  - ' + first, ...rest.map((l) => '    ' + l)].join('\n');
    });
    return [header, ...items].join('\n');
  };
  return { length, text, valid };
}

function isPlainNonEmptyObject(v: JsonValue | undefined): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length > 0;
}

interface DocCandidate {
  length: number;
  text: () => string;
  delimiter: DelimiterChar;
  valid: boolean;
  tokens: () => number;
}

/** `warnings` plus low_coverage when the candidate keeps too little of the source's letters and digits. */
function withCoverage(warnings: VerdictWarning[], sourceAlnum: number, keptAlnum: number): VerdictWarning[] {
  const cov = coverageRatio(sourceAlnum, keptAlnum);
  if (cov !== null && cov < LOW_COVERAGE_THRESHOLD) warnings.push(lowCoverageWarning(cov));
  return warnings;
}

/** The verdict fields a document candidate decides. */
function candidateFields(c: DocCandidate) {
  return { candidateChars: c.length, candidateText: c.text, candidateTokens: c.tokens, valid: c.valid, delimiter: c.delimiter };
}

/**
 * The shortest valid document candidate. When nothing encodes (TOON refuses unpaired
 * surrogates), the source itself stands in with valid false: savings 0, so it never converts.
 */
function bestDocCandidate(entries: SliceAnalysis[], sets: CandidateSet[], delims: DelimiterChar[], source: string, tok: Tokenizer): DocCandidate {
  const unique = new Set(entries.map((a) => a.key)).size === entries.length;
  // Token counts are summed per slice (memoized with the slice; the line breaks joining slices are not counted).
  const tokensOf = (d: DelimiterChar) => () => entries.reduce((n, a, i) => n + countTokens(a, tok, sets[i]!.text(d) ?? ''), 0);
  // Real tokens decide with a real tokenizer, lengths with the estimate; ties in delimiter order (comma first).
  // Tokens are counted only where they can change the answer: some slice encodes differently per delimiter
  // and some encoding saves characters (else the verdict is keep_markdown whatever the tokens).
  // Decode checks run only until the first valid one.
  const built = delims.map((d) => ({ d, c: composeCandidate(sets, unique, d) })).filter((x): x is { d: DelimiterChar; c: Composed } => x.c !== null);
  // Slices that encode alike under every delimiter add the same to every sum: only the others are compared.
  const differs = built.length > 1 ? sets.map((s) => built.some((x) => s.text(x.d) !== s.text(built[0]!.d))) : [];
  const byTokens = tok.real && built.some((x) => x.c.length < source.length) && differs.some(Boolean);
  const differingTokens = (d: DelimiterChar) => entries.reduce((n, a, i) => (differs[i] ? n + countTokens(a, tok, sets[i]!.text(d) ?? '') : n), 0);
  const composed = built.map((x) => ({ ...x, cost: byTokens ? differingTokens(x.d) : x.c.length })).sort((a, b) => a.cost - b.cost || delims.indexOf(a.d) - delims.indexOf(b.d));
  for (const { d, c } of composed) if (c.valid()) return { length: c.length, text: c.text, delimiter: d, valid: true, tokens: tokensOf(d) };
  const first = composed[0];
  if (first) return { length: first.c.length, text: first.c.text, delimiter: first.d, valid: false, tokens: tokensOf(first.d) };
  return { length: source.length, text: () => source, delimiter: delims[0] ?? ',', valid: false, tokens: () => entries.reduce((n, a) => n + sliceSourceTokens(a, tok), 0) };
}

function docProfile(d: DocAnalysis, sourceType: SourceType): VerdictProfile {
  let stats = emptyStats();
  for (const a of d.analyses) stats = addStats(stats, a.stats);
  const title = d.analyses.find((a) => a.title !== null)?.title ?? null;
  return { name: profileName(stats), title, source_type: sourceType, stats };
}

/** The document's repeated rules, each with the earlier one it repeats (rules read only for the slices that hold one). */
export function docDuplicates(d: DocAnalysis): DuplicateFinding[] {
  const steps = docDuplicateSteps(d);
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/** What a duplicate finding reads of one rule of a slice: its unit (a flat copy of its text) and its key. */
type FindingUnit = Pick<RuleRef, 'unit' | 'key'>;

/**
 * The units of each slice's rules that duplicate findings have read, by rule index, kept with the slice's analysis
 * (which the engine cache reuses for an unchanged slice): after an edit only a slice whose rules were never read
 * is parsed again. Flat copies of a few numbers and a text per unit; never the slice's detail.
 */
const findingUnits = new WeakMap<SliceAnalysis, Map<number, FindingUnit>>();

function unitsOf(a: SliceAnalysis, wanted: readonly number[]): { units: Map<number, FindingUnit>; parsed: boolean } {
  let units = findingUnits.get(a);
  if (!units) findingUnits.set(a, (units = new Map()));
  if (wanted.every((i) => units.has(i))) return { units, parsed: false };
  // The slice's rules are parsed for this read and dropped with it.
  const rules = rulesOf(a);
  for (const i of wanted) {
    if (units.has(i)) continue;
    const r = rules[i]!;
    const u = r.unit;
    units.set(i, { key: r.key, unit: { text: detach(u.text), source: u.source, start: u.start, end: u.end, lineStart: u.lineStart, lineEnd: u.lineEnd } });
  }
  return { units, parsed: true };
}

/**
 * {@link docDuplicates} as steps: a yield after each slice whose rules had to be parsed, so the first read of a
 * large document's duplicates is many short turns of a time-sliced caller, and a later read parses only the
 * slices an edit changed.
 */
export function* docDuplicateSteps(d: DocAnalysis): Generator<void, DuplicateFinding[], void> {
  const hits = findDuplicates(d.analyses.map((a) => a.dupKeys), d.duplicateMemo);
  if (hits.length === 0) return [];
  const wanted = new Map<number, number[]>();
  const want = (g: number, i: number) => {
    const l = wanted.get(g);
    if (l) l.push(i);
    else wanted.set(g, [i]);
  };
  for (const [g, i, fg, fi] of hits) {
    want(g, i);
    want(fg, fi);
  }
  const read = new Map<number, { rules: FindingUnit[]; charBase: number; lineBase: number; section: string }>();
  for (const [g, indexes] of wanted) {
    const a = d.analyses[g]!;
    const s = d.slices[g]!;
    const { units, parsed } = unitsOf(a, indexes);
    const rules: FindingUnit[] = [];
    for (const i of indexes) rules[i] = units.get(i)!;
    read.set(g, { rules, charBase: s.charStart, lineBase: s.lineStart - 1, section: a.section });
    if (parsed) yield;
  }
  return hits.map((h) => duplicateFinding(h, (g) => read.get(g)!));
}

/** Analysis warnings of the whole document, in whole-document coordinates. */
function docWarnings(d: DocAnalysis): VerdictWarning[] {
  const out: VerdictWarning[] = docDuplicates(d).map(duplicateRuleWarning);
  d.analyses.forEach((a, i) => {
    const s = d.slices[i]!;
    for (const w of a.ownWarnings) out.push(shiftWarning(w, s.charStart, s.lineStart - 1));
  });
  return out;
}

const LOSSY_STEPS = ['lossy1', 'lossy2', 'lossy3', 'lossy4'];

/** The whole-document verdict for a mode (schema 1.0 unless the caller upgrades it). */
export function documentVerdict(d: DocAnalysis, opts: EngineOptions, includeCandidate: boolean): VerdictV1 {
  const mode: EngineMode = opts.mode ?? 'lossless';
  const delims = delimitersFor(opts.delimiter);
  const entries = modelEntries(d);
  const profile = docProfile(d, opts.sourceType ?? 'markdown');
  const analysisWarnings = docWarnings(d);
  const sourceChars = d.text.length;
  const tok = tokenizerOf(opts);
  const sourceTokens = () => d.analyses.reduce((n, a) => n + sliceSourceTokens(a, tok), 0);
  const ratios = ratiosOf(opts);
  const base = { schemaVersion: '1.0' as const, profile, sourceChars, sourceTokens, ratios, includeCandidate, tokenizer: tok, minTokenSavings: minTokenSavingsOf(opts), minTokenSavingsPct: minTokenSavingsPctOf(opts) };

  const outcome = documentOutcome(entries, mode, opts, delims, d.text, analysisWarnings, tok);
  return buildVerdict({ ...base, ...candidateFields(outcome.candidate), mode, ...outcome.fields });
}

/** What a mode decides for a whole document: the candidate measured, and the verdict fields that follow. */
interface DocOutcome {
  candidate: DocCandidate;
  fields: { warnings: VerdictWarning[]; lossless: boolean; targetReached: boolean | null; refused: boolean };
}

/**
 * The document candidate and flags of each mode: lossless as is; record with its coverage; budget lossless
 * when that meets the target (or none is set), refused when it does not and lossy output is not allowed,
 * else the first lossy step that meets the target (the last one tried otherwise).
 */
function documentOutcome(
  entries: SliceAnalysis[],
  mode: EngineMode,
  opts: EngineOptions,
  delims: DelimiterChar[],
  text: string,
  analysisWarnings: VerdictWarning[],
  tok: Tokenizer,
): DocOutcome {
  const target = hasTarget(opts);
  const losslessOutcome = (targetReached: boolean | null, refused = false): DocOutcome => ({
    candidate: bestDocCandidate(entries, entries.map((a) => a.candidates), delims, text, tok),
    fields: { warnings: analysisWarnings, lossless: true, targetReached, refused },
  });
  const sourceAlnum = entries.reduce((n, a) => n + a.sourceAlnum, 0);
  if (mode === 'lossless') return losslessOutcome(null);
  if (mode === 'record') {
    const derived = entries.map((a) => derivedModel(a, 'record'));
    const c = bestDocCandidate(entries, derived.map((x) => x.candidates), delims, text, tok);
    const warnings = withCoverage([...analysisWarnings], sourceAlnum, derived.reduce((n, x) => n + x.alnum, 0));
    return { candidate: c, fields: { warnings, lossless: true, targetReached: target ? targetMet(opts, c.length, c.tokens) : null, refused: false } };
  }
  // Budget.
  const lossless = losslessOutcome(target ? true : null);
  if (!target || targetMet(opts, lossless.candidate.length, lossless.candidate.tokens)) return lossless;
  if (!opts.allowLossy) return { candidate: lossless.candidate, fields: { ...lossless.fields, targetReached: false, refused: true } };
  let chosen: { c: DocCandidate; alnum: number } | null = null;
  for (const step of LOSSY_STEPS) {
    const derived = entries.map((a) => derivedModel(a, step));
    const c = bestDocCandidate(entries, derived.map((x) => x.candidates), delims, text, tok);
    chosen = { c, alnum: derived.reduce((n, x) => n + x.alnum, 0) };
    if (targetMet(opts, c.length, c.tokens)) break;
  }
  const { c, alnum } = chosen!;
  const warnings = withCoverage([...analysisWarnings, LOSSY_APPLIED], sourceAlnum, alnum);
  return { candidate: c, fields: { warnings, lossless: false, targetReached: targetMet(opts, c.length, c.tokens), refused: false } };
}

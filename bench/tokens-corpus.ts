/**
 * Corpus token figures (shared by bench/tokens.bench.ts): what our plans and the producer's plans save
 * in real tokens on the same documents, whether every convert's claimed figures equal what it writes, and the
 * oracle (the best lossless saving per section) beside our converts.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { decode, encode } from '@toon-format/toon';
import { planDocument, sectionConvertEdit, type PlanResult } from '../server/src/core/markdown/engine';
import { tokenizer, type TokenizerName } from '../server/src/core/tokens';
import { analyzeSlice } from '../server/src/core/markdown/analysis';
import { parseSlice } from '../server/src/core/markdown/blocks';
import { bodyValue } from '../server/src/core/markdown/model';
import { blockParser } from '../server/src/core/markdown/parser';
import { convertedSegment } from '../server/src/core/markdown/plan';
import { blocksConvertDespiteSplit } from '../server/src/core/markdown/blockConvert';

export interface CorpusDoc {
  name: string;
  text: string;
  /** The producer's plan on it, when the corpus has one. */
  producerPlan?: ProducerPlan;
  /** The producer's whole-document convert response (its candidate holds every section's encoding). */
  producerConvert?: { toon_candidate: string | null; delimiter: string | null };
}
interface ProducerSection {
  heading: string | null;
  kind: string;
  action: string;
  range: { char_start: number; char_end: number };
  measured_chars: { toon: number } | null;
}
interface ProducerPlan {
  context_plan: { sections: ProducerSection[]; recommend_hybrid: boolean };
}

/** Every markdown file of the corpus inputs, the examples and test/fixtures/markdown. */
export function corpusDocs(root: string): CorpusDoc[] {
  const out: CorpusDoc[] = [];
  const inputs = path.join(root, 'test', 'fixtures', 'corpus', 'doc2toon-inputs');
  const verdicts = path.join(root, 'test', 'fixtures', 'corpus', 'doc2toon');
  const dirs = [inputs, path.join(root, 'examples', 'markdown'), path.join(root, 'test', 'fixtures', 'markdown')];
  for (const dir of dirs) {
    for (const f of readdirSync(dir).filter((x) => /\.md$/i.test(x) && x !== 'LICENSE.md').sort()) {
      const doc: CorpusDoc = { name: path.relative(root, path.join(dir, f)), text: readFileSync(path.join(dir, f), 'utf8') };
      const plan = path.join(verdicts, `${f}.plan.json`);
      const conv = path.join(verdicts, `${f}.convert.json`);
      if (dir === inputs && existsSync(plan)) doc.producerPlan = JSON.parse(readFileSync(plan, 'utf8'));
      if (dir === inputs && existsSync(conv)) doc.producerConvert = JSON.parse(readFileSync(conv, 'utf8'));
      out.push(doc);
    }
  }
  return out;
}

function backtickFence(s: string): string {
  let best = 0;
  let cur = 0;
  for (const ch of s) {
    cur = ch === '`' ? cur + 1 : 0;
    best = Math.max(best, cur);
  }
  return '`'.repeat(Math.max(3, best + 1));
}

/**
 * The producer's hybrid segment for one of its convert sections, rebuilt from its whole-document candidate:
 * the section's value re-encoded under its key with the producer's delimiter (checked against the producer's
 * measured_chars.toon), fenced below the kept heading line. Null when it cannot be rebuilt exactly.
 */
function producerSegment(doc: CorpusDoc, s: ProducerSection): string | null {
  const c = doc.producerConvert;
  if (!c?.toon_candidate || !s.measured_chars) return null;
  const raw = doc.text.slice(s.range.char_start, s.range.char_end);
  const nl = raw.search(/\r?\n/);
  const heading = nl < 0 ? raw + '\n' : raw.slice(0, raw.indexOf('\n', nl) + 1);
  const trailing = /[\r\n]*$/.exec(raw)![0];
  const segment = (cand: string) => `${heading}${backtickFence(cand)}toon\n${cand}\n${backtickFence(cand)}${trailing}`;
  // A one-section document: the producer's section candidate is its document candidate.
  if (c.toon_candidate.length === s.measured_chars.toon) return segment(c.toon_candidate);
  const model = decode(c.toon_candidate) as unknown;
  const entries: [string, unknown][] = Array.isArray(model) ? model.flatMap((x) => Object.entries(x as object)) : Object.entries(model as object);
  const delimiter = (c.delimiter ?? ',') as ',' | '\t' | '|';
  for (const [k, v] of entries) {
    if (!k.startsWith('#') || k.replace(/^#+ /, '') !== s.heading) continue;
    const cand = encode({ [k]: v } as never, { delimiter });
    if (cand.length !== s.measured_chars.toon) continue;
    return segment(cand);
  }
  return null;
}

export interface CorpusFigures {
  tokenizer: TokenizerName;
  docs: number;
  sections: number;
  converts: number;
  /** Converts whose written segment does not lower the document's token count. */
  convertsCostingTokens: number;
  /** Converts whose measured_chars.savings differs from the change in document length Convert makes. */
  claimedNotWritten: number;
  charsSavedByConverts: number;
  tokensSavedByConverts: number;
  /** Docs whose plan recommends the hybrid, and the tokens those hybrids save. */
  recommendedHybrids: number;
  tokensSavedByHybrids: number;
  charsSavedByHybrids: number;
  /** The producer's convert sections on the same documents, rebuilt; and what they save in real tokens. */
  producerConverts: number;
  producerRebuilt: number;
  producerTokensSaved: number;
  /** Characters the producer claims for the converts that could not be rebuilt (no real count possible). */
  producerUnrebuiltChars: number;
  /** Our converts' savings on the documents the producer has plans for (the like-for-like comparison). */
  oursOnProducerDocs: number;
}

export function corpusFigures(docs: CorpusDoc[], tok: TokenizerName): CorpusFigures {
  const t = tokenizer(tok);
  const f: CorpusFigures = { tokenizer: tok, docs: docs.length, sections: 0, converts: 0, convertsCostingTokens: 0, claimedNotWritten: 0, charsSavedByConverts: 0, tokensSavedByConverts: 0, recommendedHybrids: 0, tokensSavedByHybrids: 0, charsSavedByHybrids: 0, producerConverts: 0, producerRebuilt: 0, producerTokensSaved: 0, producerUnrebuiltChars: 0, oursOnProducerDocs: 0 };
  for (const doc of docs) {
    const plan: PlanResult = planDocument(doc.text, { tokenizer: tok });
    const docTokens = t.count(doc.text);
    f.sections += plan.sections.length;
    for (const s of plan.sections) {
      if (s.action !== 'convert' || (s.candidate === null && s.blockSummary === null)) continue;
      f.converts++;
      // (whole body or by block: exactly what the section's Convert writes)
      const e = sectionConvertEdit(s);
      const written = doc.text.slice(0, e.start) + e.newText + doc.text.slice(e.end);
      if (doc.text.length - written.length !== s.verdict!.measured_chars.savings) f.claimedNotWritten++;
      const saved = docTokens - t.count(written);
      if (saved <= 0) f.convertsCostingTokens++;
      f.charsSavedByConverts += s.verdict!.measured_chars.savings;
      f.tokensSavedByConverts += saved;
      if (doc.producerPlan) f.oursOnProducerDocs += saved;
    }
    const cp = plan.verdict.context_plan!;
    if (cp.recommend_hybrid) {
      f.recommendedHybrids++;
      f.tokensSavedByHybrids += docTokens - t.count(plan.hybrid);
      f.charsSavedByHybrids += cp.net.savings;
    }
    for (const s of doc.producerPlan?.context_plan.sections ?? []) {
      if (s.action !== 'convert') continue;
      f.producerConverts++;
      const seg = producerSegment(doc, s);
      if (seg === null) {
        f.producerUnrebuiltChars += s.measured_chars ? doc.text.slice(s.range.char_start, s.range.char_end).length - s.measured_chars.toon : 0;
        continue;
      }
      f.producerRebuilt++;
      const written = doc.text.slice(0, s.range.char_start) + seg + doc.text.slice(s.range.char_end);
      f.producerTokensSaved += docTokens - t.count(written);
    }
  }
  return f;
}

/**
 * The oracle: per section, the best lossless saving in real tokens any rendering this engine can write reaches,
 * beside what ToonLens's converts save. Two renderings are tried for every section (whatever its verdict):
 * - the whole body: the engine's own body model, fenced below the kept heading, with every delimiter;
 * - per block: each top-level table or list fenced alone as its own TOON (every delimiter), the prose kept as
 *   markdown, a block fenced only where that lowers the section's count.
 * A section's oracle is the better of the two (0 when neither saves). Frontmatter never converts.
 */
export interface OracleFigures {
  tokenizer: TokenizerName;
  sections: number;
  /** Sections the oracle saves tokens on, and what it saves. */
  oracleSections: number;
  oracleTokens: number;
  /** Of which by fencing blocks alone (the per-block rendering beat the whole body). */
  oracleByBlock: number;
  /** The oracle's sections that save at least 5 % of their tokens (what the token floor would accept), and their tokens. */
  oracleAboveFloor: number;
  oracleTokensAboveFloor: number;
  converts: number;
  tokensSavedByConverts: number;
  /** Of the converts, those by block (tables and lists fenced, the prose kept). */
  blockConverts: number;
  /** split_first sections whose tables and lists convert by block (their action lens; out of the hybrid), and their tokens. */
  splitBlockOffers: number;
  splitBlockTokens: number;
  /** Converts saving under 5 % of their section's tokens (with the default floor), and without the floor. */
  marginalConverts: number;
  marginalWithoutFloor: number;
  convertsWithoutFloor: number;
  tokensWithoutFloor: number;
  /** Per section the oracle saves tokens on: what it saves, what ToonLens decides and which gate keeps the rest. */
  rows: OracleRow[];
}

/** One section of the oracle's breakdown. */
export interface OracleRow {
  doc: string;
  heading: string;
  /** The section's tokens, what the oracle saves, and by which rendering. */
  source: number;
  oracle: number;
  by: 'whole' | 'block';
  /** ToonLens's verdict and what its convert saves (0 when it keeps the section). */
  verdict: string;
  saved: number;
  /** Why ToonLens saves less than the oracle here (or `converts`). */
  gate: string;
}

const DELIMS = [',', '\t', '|'] as const;

/** The section with each top-level table or list fenced alone where that lowers its count; its tokens. */
function blockOracle(raw: string, headingEnd: number, count: (s: string) => number): number {
  let best = count(raw);
  // CR line ends: the per-block rendering is not tried (the line arithmetic below is LF only).
  if (raw.includes('\r')) return best;
  const head = raw.slice(0, headingEnd);
  const lines = raw.slice(headingEnd).split('\n');
  const tokens = blockParser().parse(lines.join('\n'), {});
  const blocks = tokens.filter((t) => t.level === 0 && t.map && (t.type === 'table_open' || t.type === 'bullet_list_open' || t.type === 'ordered_list_open'));
  // Last block first, so the line numbers of the earlier ones stay valid.
  for (const t of blocks.reverse()) {
    const [from, to] = t.map!;
    const parsed = parseSlice(lines.slice(from, to).join('\n'), false);
    if (parsed.blocks.length !== 1 || parsed.blocks[0]!.kind === 'm') continue;
    const value = bodyValue(parsed.blocks);
    const json = JSON.stringify(value);
    let keep: string[] | null = null;
    for (const d of DELIMS) {
      let enc: string;
      try {
        enc = encode(value as never, { delimiter: d });
        if (JSON.stringify(decode(enc, { strict: true })) !== json) continue;
      } catch {
        continue;
      }
      const fence = backtickFence(enc);
      const next = [...lines.slice(0, from), `${fence}toon`, ...enc.split('\n'), fence, ...lines.slice(to)];
      const n = count(head + next.join('\n'));
      if (n < best) {
        best = n;
        keep = next;
      }
    }
    if (keep) lines.splice(0, lines.length, ...keep);
  }
  return best;
}

type PlannedSection = PlanResult['sections'][number];

/**
 * The gate that keeps ToonLens's saving on a section below the oracle's, in the order the decision policy reads
 * them (docs/engine.md#decision-policy): the section's own floor first (no rendering saves 5 % of its tokens),
 * then the rules that keep a section markdown whatever it saves, then the measurement of what ToonLens writes.
 */
function oracleGate(s: PlannedSection, oracle: number, source: number): string {
  if (s.action === 'convert') return s.tokens!.savings >= oracle ? 'converts' : 'converts, less than the oracle';
  if (oracle * 100 < 5 * source) return 'token floor: no rendering saves 5 % of the section';
  const v = s.verdict!;
  const codes = v.warnings.map((w) => w.code);
  if (codes.includes('keep_marker')) return 'keep marker';
  const md = v.warnings.find((w) => w.code === 'markdown_only');
  if (md) return `readability: ${/holds (.*), which/.exec(md.message)?.[1] ?? 'markdown_only'}`;
  if (v.verdict === 'split_first') {
    if (s.blockSummary && blocksConvertDespiteSplit(v)) return 'split_first (policy): blocks offered by the action lens';
    return `split_first (policy): ${s.blockSummary ? 'its blocks miss the character 5 %' : 'no block conversion'}`;
  }
  const mc = v.measured_chars;
  if (mc.savings <= 0) {
    // A body of paragraphs alone: the fence's saving is its soft line breaks joined (the same words, one line).
    const prose = s.analysis.parsed?.blocks.every((b) => b.kind === 'p');
    return prose ? 'characters grow: prose only (the tokens saved are soft line breaks joined)' : `characters grow (${s.blockSummary ? 'block' : 'whole body'} written)`;
  }
  if (codes.includes('token_regression')) return `ToonLens's ${s.blockSummary ? 'blocks' : 'whole body'} under the token floor`;
  if (mc.savings * 100 < 5 * mc.source) return 'character 5 % policy';
  const w = v.warnings[0];
  return w ? `warning → review (${w.code})` : v.verdict;
}

export function oracleFigures(docs: CorpusDoc[], tok: TokenizerName): OracleFigures {
  const t = tokenizer(tok);
  const count = (s: string) => t.count(s);
  const f: OracleFigures = { tokenizer: tok, sections: 0, oracleSections: 0, oracleTokens: 0, oracleByBlock: 0, oracleAboveFloor: 0, oracleTokensAboveFloor: 0, converts: 0, tokensSavedByConverts: 0, blockConverts: 0, splitBlockOffers: 0, splitBlockTokens: 0, marginalConverts: 0, marginalWithoutFloor: 0, convertsWithoutFloor: 0, tokensWithoutFloor: 0, rows: [] };
  const marginal = (s: PlanResult['sections'][number]) => s.tokens!.savings * 100 < 5 * s.tokens!.source;
  for (const doc of docs) {
    const plan = planDocument(doc.text, { tokenizer: tok });
    const noFloor = planDocument(doc.text, { tokenizer: tok, minTokenSavingsPct: 0 });
    plan.sections.forEach((s, i) => {
      f.sections++;
      if (s.action === 'convert') {
        f.converts++;
        f.tokensSavedByConverts += s.tokens!.savings;
        if (s.blockSummary) f.blockConverts++;
        if (marginal(s)) f.marginalConverts++;
      } else if (s.blockSummary && s.verdict && blocksConvertDespiteSplit(s.verdict)) {
        f.splitBlockOffers++;
        f.splitBlockTokens += s.tokens!.savings;
      }
      const o = noFloor.sections[i]!;
      if (o.action === 'convert') {
        f.convertsWithoutFloor++;
        f.tokensWithoutFloor += o.tokens!.savings;
        if (marginal(o)) f.marginalWithoutFloor++;
      }
      if (s.slice.kind === 'frontmatter') return;
      const raw = doc.text.slice(s.slice.charStart, s.slice.charEnd);
      const headingEnd = s.slice.headingEnd - s.slice.charStart;
      const source = count(raw);
      const a = analyzeSlice(raw, s.slice.kind, headingEnd);
      let whole = source;
      for (const d of DELIMS) {
        if (!a.bodyCandidates.valid(d)) continue;
        whole = Math.min(whole, count(convertedSegment(raw, headingEnd, a.bodyCandidates.text(d)!)));
      }
      const byBlock = blockOracle(raw, headingEnd, count);
      const saved = source - Math.min(whole, byBlock);
      if (saved <= 0) return;
      f.oracleSections++;
      f.oracleTokens += saved;
      if (byBlock < whole) f.oracleByBlock++;
      if (saved * 100 >= 5 * source) {
        f.oracleAboveFloor++;
        f.oracleTokensAboveFloor += saved;
      }
      f.rows.push({ doc: doc.name, heading: s.slice.heading ?? '(preamble)', source, oracle: saved, by: byBlock < whole ? 'block' : 'whole', verdict: s.verdict!.verdict, saved: s.action === 'convert' ? s.tokens!.savings : 0, gate: oracleGate(s, saved, source) });
    });
  }
  return f;
}

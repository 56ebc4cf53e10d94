/**
 * Real tokens: over every markdown file of the corpus inputs, the examples and test/fixtures/markdown,
 * what the converts and the recommended hybrids save in o200k_base and cl100k_base tokens beside the
 * character figures, against the producer's own plans on the same documents; the oracle (the best lossless
 * saving per section, whole body or per table/list block) beside ToonLens's converts; and what counting costs
 * (ms per MB) beside markdown-it's parse of the same 1 MB document. Figures only, never assertions.
 *
 *   node --import tsx bench/tokens.bench.ts        (also run by `npm run bench`, group `tokens`)
 *   node --import tsx bench/tokens.bench.ts --oracle   (the oracle tables alone)
 */
import MarkdownIt from 'markdown-it';
import { tokenizer } from '../server/src/core/tokens';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DATA_DIR, REPO_ROOT, markdown1MB, type Input } from './data';
import { corpusDocs, corpusFigures, oracleFigures, type CorpusFigures, type OracleFigures } from './tokens-corpus';
import { row as benchRow, time, type BenchRow } from './stats';

const nf = new Intl.NumberFormat('en-US');

/** The corpus table (markdown), one column per tokenizer. */
export function corpusTable(figs: CorpusFigures[]): string {
  const row = (label: string, get: (f: CorpusFigures) => string) => `| ${label} | ${figs.map(get).join(' | ')} |`;
  const lines = [
    `| corpus (${figs[0]!.docs} markdown files, ${figs[0]!.sections} sections) | ${figs.map((f) => `\`${f.tokenizer}\``).join(' | ')} |`,
    `|---|${figs.map(() => '---:').join('|')}|`,
    row('sections that convert', (f) => nf.format(f.converts)),
    row('converts that cost tokens', (f) => nf.format(f.convertsCostingTokens)),
    row('converts whose claimed savings ≠ the written change', (f) => nf.format(f.claimedNotWritten)),
    row('characters saved by converts', (f) => nf.format(f.charsSavedByConverts)),
    row('tokens saved by converts (counted on the written documents)', (f) => nf.format(f.tokensSavedByConverts)),
    row('recommended hybrids', (f) => nf.format(f.recommendedHybrids)),
    row('characters / tokens saved by the recommended hybrids', (f) => `${nf.format(f.charsSavedByHybrids)} / ${nf.format(f.tokensSavedByHybrids)}`),
    row('on the producer-planned docs: our converts save (tokens)', (f) => nf.format(f.oursOnProducerDocs)),
    row('the producer\'s converts save (tokens; rebuilt exactly / all)', (f) => `${nf.format(f.producerTokensSaved)} (${f.producerRebuilt} / ${f.producerConverts})`),
    row('characters the producer claims for converts that cannot be rebuilt', (f) => nf.format(f.producerUnrebuiltChars)),
    row('ours ÷ producer (rebuilt converts)', (f) => (f.producerTokensSaved > 0 ? `${(f.oursOnProducerDocs / f.producerTokensSaved).toFixed(2)}×` : '—')),
  ];
  return lines.join('\n');
}

/**
 * Whether a gate is policy: a rule that keeps a section (or its whole body) markdown whatever it saves, by design —
 * a long section is split first, markdown a fence would not keep readable stays, a keep marker is obeyed, and
 * prose alone is not fenced for the soft line breaks it would join.
 */
function isPolicyGate(gate: string): boolean {
  return gate.startsWith('split_first') || gate.startsWith('readability') || gate === 'keep marker' || gate.startsWith('characters grow: prose only');
}

/** The oracle table (markdown): ToonLens's converts beside the best lossless saving per section, per tokenizer. */
export function oracleTable(figs: OracleFigures[]): string {
  const row = (label: string, get: (f: OracleFigures) => string) => `| ${label} | ${figs.map(get).join(' | ')} |`;
  const ratio = (a: number, b: number) => (b > 0 ? (a / b).toFixed(2) : '—');
  return [
    `| oracle (${figs[0]!.sections} sections) | ${figs.map((f) => `\`${f.tokenizer}\``).join(' | ')} |`,
    `|---|${figs.map(() => '---:').join('|')}|`,
    row('sections the best lossless rendering saves tokens on', (f) => nf.format(f.oracleSections)),
    row('… of which by fencing tables/lists alone (prose kept)', (f) => nf.format(f.oracleByBlock)),
    row('tokens the best lossless rendering saves', (f) => nf.format(f.oracleTokens)),
    row('… of which saving ≥ 5 % of their section\'s tokens: sections / tokens', (f) => `${nf.format(f.oracleAboveFloor)} / ${nf.format(f.oracleTokensAboveFloor)}`),
    row('ToonLens converts (of which by block: tables/lists fenced, prose kept)', (f) => `${nf.format(f.converts)} (${nf.format(f.blockConverts)})`),
    row('tokens saved by ToonLens converts', (f) => nf.format(f.tokensSavedByConverts)),
    row('ratio to the oracle (all / ≥ 5 % sections)', (f) => `${ratio(f.tokensSavedByConverts, f.oracleTokens)} / ${ratio(f.tokensSavedByConverts, f.oracleTokensAboveFloor)}`),
    row('converts under 5 % of their section\'s tokens', (f) => nf.format(f.marginalConverts)),
    row('split-first sections whose tables/lists convert by block (action lens, not in the hybrid): sections / tokens / ratio with them', (f) => `${nf.format(f.splitBlockOffers)} / ${nf.format(f.splitBlockTokens)} / ${ratio(f.tokensSavedByConverts + f.splitBlockTokens, f.oracleTokens)}`),
    row('≥ 5 % sections: ratio with the split-first block lenses', (f) => ratio(f.tokensSavedByConverts + f.splitBlockTokens, f.oracleTokensAboveFloor)),
    row('≥ 5 % sections: tokens the oracle saves beyond ToonLens, kept by policy (split_first, readability, keep marker, prose only) / by the engine', (f) => {
      const gap = (policy: boolean) => f.rows.filter((r) => r.oracle * 100 >= 5 * r.source && isPolicyGate(r.gate) === policy).reduce((a, r) => a + Math.max(0, r.oracle - r.saved), 0);
      return `${nf.format(gap(true))} / ${nf.format(gap(false))}`;
    }),
    row('with minTokenSavingsPct 0 (no token share; the character 5 % decides): converts / tokens / under 5 % / ratio', (f) => `${nf.format(f.convertsWithoutFloor)} / ${nf.format(f.tokensWithoutFloor)} / ${nf.format(f.marginalWithoutFloor)} / ${ratio(f.tokensWithoutFloor, f.oracleTokens)}`),
  ].join('\n');
}

/**
 * Where the oracle's saving goes, per gate (markdown, one column per tokenizer): the sections the oracle saves
 * tokens on, grouped by what ToonLens does with them (`converts`, or the gate that keeps it: oracleGate), with
 * what the oracle saves there and what ToonLens's converts save. Policy gates (the floor, split_first, the
 * readability rules) are named as such.
 */
export function oracleGapTable(figs: OracleFigures[]): string {
  const gates = [...new Set(figs.flatMap((f) => f.rows.map((r) => r.gate)))];
  const sum = (f: OracleFigures, g: string) => {
    const rs = f.rows.filter((r) => r.gate === g);
    return { n: rs.length, oracle: rs.reduce((a, r) => a + r.oracle, 0), saved: rs.reduce((a, r) => a + r.saved, 0) };
  };
  const order = gates.map((g) => ({ g, key: Math.max(...figs.map((f) => sum(f, g).oracle - sum(f, g).saved)) })).sort((a, b) => b.key - a.key || a.g.localeCompare(b.g));
  return [
    `| where the oracle's saving goes: sections / oracle tokens / ToonLens tokens | ${figs.map((f) => `\`${f.tokenizer}\``).join(' | ')} |`,
    `|---|${figs.map(() => '---:').join('|')}|`,
    ...order.map(({ g }) => `| ${g} | ${figs.map((f) => {
      const x = sum(f, g);
      return x.n === 0 ? '—' : `${nf.format(x.n)} / ${nf.format(x.oracle)} / ${nf.format(x.saved)}`;
    }).join(' | ')} |`),
  ].join('\n');
}

/** Per section (markdown): the oracle's sections where ToonLens saves less, largest gap first; `all` adds the rest. */
export function oracleSectionTable(f: OracleFigures, all = false): string {
  const rows = f.rows.filter((r) => all || r.oracle > r.saved).sort((a, b) => b.oracle - b.saved - (a.oracle - a.saved) || a.doc.localeCompare(b.doc));
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  return [
    `| \`${f.tokenizer}\` document :: section | tokens | oracle saves (by) | ToonLens: verdict, saves | gate |`,
    '|---|---:|---:|---|---|',
    ...rows.map((r) => `| ${cell(path.basename(r.doc))} :: ${cell(r.heading)} | ${nf.format(r.source)} | ${nf.format(r.oracle)} (${(r.oracle * 100 / r.source).toFixed(1)} %, ${r.by}) | ${r.verdict}, ${nf.format(r.saved)} | ${cell(r.gate)} |`),
  ].join('\n');
}

/**
 * The oracle tables for the corpus, o200k and cl100k: the summary, where the gap is per gate, and per section the
 * sections that save ≥ 5 % of their tokens where ToonLens saves less (every section goes to .bench-data/).
 */
export function oracleReport(log: (s: string) => void): void {
  const docs = corpusDocs(REPO_ROOT);
  const figs = (['o200k_base', 'cl100k_base'] as const).map((t) => oracleFigures(docs, t));
  log(oracleTable(figs) + '\n');
  log(oracleGapTable(figs) + '\n');
  mkdirSync(DATA_DIR, { recursive: true });
  for (const f of figs) {
    const above = { ...f, rows: f.rows.filter((r) => r.oracle * 100 >= 5 * r.source) };
    log(oracleSectionTable(above) + '\n');
    writeFileSync(path.join(DATA_DIR, `oracle-sections-${f.tokenizer}.md`), oracleSectionTable(f, true) + '\n');
  }
  log(`(every section the oracle saves tokens on: ${path.relative(REPO_ROOT, DATA_DIR)}/oracle-sections-<tokenizer>.md)`);
}

/** Cost of counting the 1 MB benchmark document, next to markdown-it's parse of it. */
export async function tokenRows(input: Input, runs: number, log: (s: string) => void): Promise<BenchRow[]> {
  const text = input.text;
  const md = new MarkdownIt();
  const parse = await time(() => md.parse(text, {}), runs);
  const mb = input.bytes / 1e6;
  const rows: BenchRow[] = [];
  for (const name of ['o200k_base', 'cl100k_base'] as const) {
    const t = tokenizer(name);
    t.count('warm up the ranks');
    const s = await time(() => t.count(text), runs);
    log(`    ${name} count of ${mb.toFixed(1)} MB   median ${s.median.toFixed(1)} ms (${(s.median / mb).toFixed(0)} ms per MB)`);
    rows.push(benchRow('Markdown', `${name} token count, ${mb.toFixed(1)} MB markdown`, s, 'ms', { name: 'markdown-it parse', value: parse }));
  }
  log(`    markdown-it parse          median ${parse.median.toFixed(1)} ms`);
  const docs = corpusDocs(REPO_ROOT);
  const figs = (['o200k_base', 'cl100k_base', 'estimate'] as const).map((t) => corpusFigures(docs, t));
  log('\n' + corpusTable(figs) + '\n');
  oracleReport(log);
  return rows;
}

if (require.main === module) {
  const log = (s: string) => console.log(s);
  // `--oracle`: only the oracle tables (no large-document counts, no corpus table).
  if (process.argv.includes('--oracle')) oracleReport(log);
  else tokenRows(markdown1MB(), 5, log).catch((err) => {
    console.error(err);
    process.exit(1);
  });
}

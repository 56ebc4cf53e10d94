/**
 * Verdict-engine benchmark: a deterministic ~1 MB, ~2000-section markdown document with
 * tables, lists, prose and fences.
 *   - cold plan (fresh EngineCache) vs markdown-it's plain parse of the whole text
 *   - re-plan after a one-character edit (warm EngineCache)
 * Medians of ≥ 5 runs with min–max. Run: node --import tsx bench/engine.bench.ts
 * With --corpus: per-document savings of ToonLens vs the producer on the corpus in test/fixtures/corpus.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import MarkdownIt from 'markdown-it';
import { EngineCache, convertDocument, planDocument } from '../server/src/core/markdown/engine';
import { CORPUS_DIR, CORPUS_INPUTS } from '../test/paths';

/** Small deterministic PRNG (mulberry32) so every run measures the same document. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = 'agent context rule must should never always table value config stack deploy review test build release docs schema field index cache parser token budget section heading list fence code prose the a of to and in for with on'.split(' ');

export function generateDocument(targetChars = 1_000_000, seed = 42): string {
  const r = rng(seed);
  const pick = () => WORDS[Math.floor(r() * WORDS.length)]!;
  const sentence = (n: number) => {
    const w = Array.from({ length: n }, pick);
    w[0] = w[0]!.charAt(0).toUpperCase() + w[0]!.slice(1);
    return w.join(' ') + '.';
  };
  const parts: string[] = ['# Generated agent handbook\n\nThis document is generated for the benchmark.\n'];
  let size = parts[0]!.length;
  let i = 0;
  while (size < targetChars) {
    i++;
    const kind = i % 4;
    let s = `${i % 10 === 0 ? '##' : '###'} Section ${i} ${pick()} ${pick()}\n\n`;
    if (kind === 0) {
      s += '| Name | Kind | Default | Notes |\n| --- | --- | --- | --- |\n';
      for (let k = 0; k < 8; k++) s += `| ${pick()}_${k} | ${pick()} | ${Math.floor(r() * 100)} | ${sentence(5)} |\n`;
    } else if (kind === 1) {
      for (let k = 0; k < 9; k++) s += `- ${sentence(8 + Math.floor(r() * 6))}\n`;
    } else if (kind === 2) {
      s += `${sentence(20)} ${sentence(15)}\n${sentence(18)} ${sentence(22)}\n\n${sentence(25)}\n`;
    } else {
      s += `${sentence(10)}\n\n\`\`\`ts\nconst ${pick()} = ${Math.floor(r() * 1000)};\n// # not a heading\n\`\`\`\n`;
    }
    s += '\n';
    parts.push(s);
    size += s.length;
  }
  return parts.join('');
}

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const med = s[Math.floor(s.length / 2)]!;
  return `${med.toFixed(1)} ms (min ${s[0]!.toFixed(1)} – max ${s[s.length - 1]!.toFixed(1)})`;
}

function main(): void {
  const runs = Number(process.env.RUNS ?? 5);
  const text = generateDocument();
  const sections = (text.match(/^#{1,6} /gm) ?? []).length;
  console.log(`document: ${text.length} chars, ${sections} sections, ${runs} runs`);

  const md = MarkdownIt();
  const parse: number[] = [];
  const cold: number[] = [];
  const edit: number[] = [];
  const typing: number[] = [];
  let sample: ReturnType<EngineCache['plan']> | null = null;
  // Interleaved, so machine load affects both sides of each ratio alike.
  for (let k = 0; k < runs; k++) {
    let t = performance.now();
    md.parse(text, {});
    parse.push(performance.now() - t);
    const cache = new EngineCache();
    t = performance.now();
    sample = cache.plan(text);
    cold.push(performance.now() - t);
    // One-character edit in the middle of the document, right after the cold plan
    // (includes collecting the cold plan's garbage)…
    const at = Math.floor(text.length / 2) + k;
    let current = text.slice(0, at) + 'x' + text.slice(at);
    t = performance.now();
    cache.plan(current);
    edit.push(performance.now() - t);
    // …and while typing: the next keystroke on the warm cache.
    current = current.slice(0, at + 1) + 'y' + current.slice(at + 1);
    t = performance.now();
    cache.plan(current);
    typing.push(performance.now() - t);
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`markdown-it plain parse:  ${stats(parse)}`);
  console.log(`cold plan:                ${stats(cold)}  → ${(med(cold) / med(parse)).toFixed(2)}× parse`);
  console.log(`re-plan after 1-char edit: ${stats(edit)}  → ${((med(edit) / med(cold)) * 100).toFixed(1)}% of cold`);
  console.log(`next keystroke (warm):    ${stats(typing)}  → ${((med(typing) / med(cold)) * 100).toFixed(1)}% of cold`);
  const cp = sample!.verdict.context_plan!;
  console.log(`plan: ${cp.sections.length} sections, ${cp.sections.filter((s) => s.action === 'convert').length} convert, net ${cp.net.savings_pct}%`);
}

/** `--corpus`: ToonLens vs the producer on every corpus document (the figures quoted in docs/engine.md). */
function corpus(): void {
  const inputs = CORPUS_INPUTS;
  console.log('| document | chars | producer convert | ToonLens convert | producer plan net (sections converted) | ToonLens plan net (sections converted) | ToonLens verdict |');
  console.log('|---|---:|---:|---:|---:|---:|---|');
  let sums = [0, 0, 0, 0];
  for (const f of readdirSync(inputs).filter((x) => x.startsWith('upstream')).sort()) {
    const text = readFileSync(path.join(inputs, f), 'utf8');
    const prodConvert = JSON.parse(readFileSync(path.join(CORPUS_DIR, `${f}.convert.json`), 'utf8'));
    const prodPlan = JSON.parse(readFileSync(path.join(CORPUS_DIR, `${f}.plan.json`), 'utf8')).context_plan;
    const ours = convertDocument(text);
    const plan = planDocument(text).verdict.context_plan!;
    const conv = (p: { sections: { action: string }[] }) => p.sections.filter((s) => s.action === 'convert').length;
    sums = [sums[0]! + prodPlan.net.savings, sums[1]! + plan.net.savings, sums[2]! + conv(prodPlan), sums[3]! + conv(plan)];
    console.log(
      `| ${f.replace(/^upstream__/, '').replace(/__/g, '/')} | ${text.length} | ${prodConvert.measured_chars.savings} (${prodConvert.measured_chars.savings_pct}%) | ${ours.measured_chars.savings} (${ours.measured_chars.savings_pct}%) | ${prodPlan.net.savings} (${prodPlan.net.savings_pct}%, ${conv(prodPlan)}) | ${plan.net.savings} (${plan.net.savings_pct}%, ${conv(plan)}) | ${ours.verdict} |`,
    );
  }
  console.log(`\nplan net savings, all documents: producer ${sums[0]} chars in ${sums[2]} converted sections; ToonLens ${sums[1]} chars in ${sums[3]} converted sections`);
}

if (process.argv[1]?.endsWith('engine.bench.ts')) {
  if (process.argv.includes('--corpus')) corpus();
  else main();
}

/**
 * Markdown: code lenses (EngineCache.plan + markdownCodeLenses) of a 1 MB document of ~1,500 sections,
 * cold (a fresh cache) next to markdown-it's plain parse of the same text, and after a one-character
 * edit inside one section with the cache warm (as the server sees a keystroke).
 */
import MarkdownIt from 'markdown-it';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { EngineCache } from '../server/src/core/markdown/engine';
import { markdownCodeLenses } from '../server/src/features/markdown/lenses';
import type { Input } from './data';
import type { EditPoints } from './markdown-gen';
import { row, sample, timePair, type BenchRow } from './stats';

export function lensesCold(text: string): number {
  const cache = new EngineCache();
  const doc = TextDocument.create('file:///bench/doc.md', 'markdown', 1, text);
  return markdownCodeLenses(doc, cache.plan(doc.getText()), { minSavingsPct: 0, sections: 'all' }).length;
}

/** Offsets of `count` distinct one-character edit points, each inside the body of a different section in the middle of the document. */
function editPoints(text: string, count: number): number[] {
  const heads = [...text.matchAll(/^## .*\n\n/gm)].map((m) => m.index! + m[0].length);
  const out: number[] = [];
  const from = Math.floor(heads.length / 3);
  for (let i = 0; i < count; i++) {
    const h = heads[from + i * 7]!;
    const nl = text.indexOf('\n', h + 2);
    out.push(Math.max(h + 2, nl - 3)); // inside the section's first body line
  }
  return out;
}

/**
 * The cold and edit rows for one input; `points` says where its edits go (the default suits the generated
 * documents; real markdown uses paragraphEditPoints, whose edits never open or break a fence or a table).
 */
export async function markdownRows(input: Input, runs: number, log: (s: string) => void, points: EditPoints = editPoints): Promise<BenchRow[]> {
  const text = input.text;
  const md = new MarkdownIt();
  const n = lensesCold(text);
  // The anchor and the figure alternate run by run: timed one after the other, a change of the machine's load
  // between the two moved the ratio (3.55–4.21× over five runs of the same code on one evening).
  const [parse, cold] = await timePair(() => md.parse(text, {}), () => lensesCold(text), runs);
  log(`  ${input.name}: ${(input.bytes / 1e6).toFixed(1)} MB, ${input.detail}`);
  log(`    markdown-it parse    median ${parse.median.toFixed(1)} ms`);
  log(`    lenses cold          median ${cold.median.toFixed(1)} ms (${n} lenses)`);

  // Warm: one cache and one TextDocument primed with the text; every run edits another section.
  const cache = new EngineCache();
  let doc = TextDocument.create('file:///bench/doc.md', 'markdown', 1, text);
  markdownCodeLenses(doc, cache.plan(doc.getText()), { minSavingsPct: 0, sections: 'all' });
  const at = points(text, runs + 1);
  const edits: number[] = [];
  let shift = 0;
  for (let i = 0; i < at.length; i++) {
    const pos = doc.positionAt(at[i]! + shift);
    const t0 = performance.now();
    doc = TextDocument.update(doc, [{ range: { start: pos, end: pos }, text: 'x' }], doc.version + 1);
    const lenses = markdownCodeLenses(doc, cache.plan(doc.getText()), { minSavingsPct: 0, sections: 'all' });
    const dt = performance.now() - t0;
    shift += 1;
    if (lenses.length !== n) throw new Error(`a one-character edit changed the lens count (${n} → ${lenses.length})`);
    edits.push(dt); // the first edit after the cold pass included
  }
  const edit = sample(edits);
  log(`    lenses after edit    median ${edit.median.toFixed(1)} ms`);
  return [
    row('Markdown', `code lenses cold in-process, ${(input.bytes / 1e6).toFixed(1)} MB ${input.kind ?? 'markdown'} (${input.detail})`, cold, 'ms', { name: 'markdown-it parse', value: parse }, { max: 4, label: '≤ 4× markdown-it' }),
    row('Markdown', `code lenses after a one-character edit in-process, ${(input.bytes / 1e6).toFixed(1)} MB ${input.kind ?? 'markdown'} (the first edit after open included)`, edit, 'ms', { name: 'lenses cold', value: cold }, { max: 0.05, label: '≤ 5% of cold' }),
  ];
}

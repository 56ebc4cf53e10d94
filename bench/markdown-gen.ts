/**
 * Deterministic markdown for the benchmarks: a document of N `##` sections mixing tables, key/value and
 * plain lists, prose, fenced code, numbered rules and definitions — the shapes agent-context files have.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { CORPUS_INPUTS } from '../test/paths';
import { LineIndex } from '../server/src/core/lineIndex';
import { Rng, ident, sentence, words } from './prng';

export type SectionShape = 'table' | 'kv-list' | 'list' | 'prose' | 'fence' | 'rules' | 'definitions';
const SHAPES: readonly SectionShape[] = ['table', 'kv-list', 'list', 'prose', 'fence', 'rules', 'definitions'];

export function markdownSection(r: Rng, index: number, targetChars: number, shape: SectionShape = r.pick(SHAPES)): string {
  const title = words(r, r.int(1, 3));
  const lines: string[] = [`## ${title.charAt(0).toUpperCase() + title.slice(1)} ${index}`, ''];
  const body: string[] = [];
  const size = () => body.reduce((n, l) => n + l.length + 1, 0);
  switch (shape) {
    case 'table': {
      const cols = r.int(2, 5);
      const head = Array.from({ length: cols }, (_, c) => (c === 0 ? 'name' : ident(r)));
      body.push(`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`);
      while (size() < targetChars) body.push(`| ${head.map((_, c) => (c === 0 ? ident(r) : r.chance(0.3) ? String(r.int(0, 9999)) : words(r, r.int(1, 3)))).join(' | ')} |`);
      break;
    }
    case 'kv-list':
      while (size() < targetChars) body.push(`- ${ident(r)}: ${r.chance(0.4) ? String(r.int(0, 99999)) : words(r, r.int(1, 6))}`);
      break;
    case 'list':
      while (size() < targetChars) body.push(`- ${sentence(r, 4, 12)}`);
      break;
    case 'prose':
      while (size() < targetChars) body.push(sentence(r) + ' ' + sentence(r) + ' ' + sentence(r), '');
      if (body[body.length - 1] === '') body.pop();
      break;
    case 'fence': {
      body.push(sentence(r), '', '```ts');
      while (size() < targetChars) body.push(`const ${ident(r)} = ${r.int(0, 999)}; // ${words(r, 3)}`);
      body.push('```');
      break;
    }
    case 'rules': {
      let n = 1;
      while (size() < targetChars) body.push(`${n++}. ${r.pick(['Always', 'Never', 'You must', 'Do not', 'Prefer to'])} ${words(r, r.int(4, 10))}.`);
      break;
    }
    case 'definitions':
      while (size() < targetChars) {
        body.push(`Definition: ${sentence(r)}`, `Example: ${sentence(r, 4, 8)}`, `Tags: ${words(r, 3).replace(/ /g, ', ')}`, '');
      }
      if (body[body.length - 1] === '') body.pop();
      break;
  }
  return [...lines, ...body, ''].join('\n');
}

/** A document of about `totalChars` characters in `sections` sections (plus a title and a short preamble). */
export function markdownDocument(seed: number, sections: number, totalChars: number): string {
  const r = new Rng(seed);
  const per = Math.max(40, Math.floor(totalChars / sections) - 40);
  const parts = [`# Generated agent context ${seed}`, '', sentence(r), ''];
  for (let i = 0; i < sections; i++) {
    const target = Math.max(40, Math.round(per * (0.4 + r.next() * 1.2)));
    parts.push(markdownSection(r, i + 1, target));
  }
  return parts.join('\n');
}

/**
 * Real markdown at scale: the producer's own inputs (test/fixtures/corpus/doc2toon-inputs, doc2toon's MIT
 * corpus: agent-context files, READMEs, an RFC, a config reference …) in name order, repeated until the
 * document is at least `totalChars` long. Every heading of copy k gets ` k` appended, so no section repeats
 * (a repeated section would be answered by the engine's memo, which a real document does not get). Headings
 * are found by markdown-it (`heading_open` and its source line), not by a line prefix: a `#` line in a fence
 * stays as it is.
 */
export function corpusMarkdownDocument(totalChars: number): string {
  const md = new MarkdownIt();
  const files = readdirSync(CORPUS_INPUTS).filter((n) => n.endsWith('.md') && n !== 'LICENSE.md').sort();
  const docs = files.map((n) => {
    const lines = readFileSync(join(CORPUS_INPUTS, n), 'utf8').split('\n');
    const headingLines = md.parse(lines.join('\n'), {}).filter((t) => t.type === 'heading_open' && t.map).map((t) => t.map![0]);
    return { lines, headingLines };
  });
  const parts: string[] = [];
  let length = 0;
  for (let copy = 0; length < totalChars; copy++) {
    for (const { lines, headingLines } of docs) {
      const out = lines.slice();
      for (const l of headingLines) out[l] = `${out[l]!.trimEnd()} ${copy}`;
      const text = out.join('\n');
      parts.push(text);
      length += text.length + 1;
    }
  }
  return parts.join('\n');
}

/** Where `count` one-character edits go, in order (offsets into the unedited text). */
export type EditPoints = (text: string, count: number) => number[];

/**
 * For real markdown, where a section's first body line may open a fence or a table: the end of the first line of
 * `count` top-level paragraphs (found by markdown-it) spread over the middle of the document, so a typed character
 * never changes the document's structure.
 */
export const paragraphEditPoints: EditPoints = (text, count) => {
  const lines = new LineIndex(text);
  const ends = new MarkdownIt()
    .parse(text, {})
    .filter((t) => t.type === 'paragraph_open' && t.level === 0 && t.map)
    .map((t) => lines.contentEnd(t.map![0]));
  const from = Math.floor(ends.length / 3);
  const step = Math.max(1, Math.floor(ends.length / 3 / count));
  return Array.from({ length: count }, (_, i) => ends[from + i * step]!);
};

/**
 * Deterministic markdown for the benchmarks: a document of N `##` sections mixing tables, key/value and
 * plain lists, prose, fenced code, numbered rules and definitions — the shapes agent-context files have.
 */
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

/**
 * Mutation recipes for the fuzzers: small data a fast-check arbitrary generates (and shrinks), applied by
 * pure functions to seed documents. JSON gets value-level mutations (wrong types everywhere, dropped,
 * added and duplicated members) and text-level ones (truncations, byte flips, duplicated keys, deep
 * nesting, huge strings, CRLF/BOM); markdown gets text and line mutations (unbalanced fences, CRLF/BOM/NUL,
 * lone surrogates, long sections, TOON fences).
 */
import fc from 'fast-check';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

// ───────────── JSON value mutations ─────────────

export type ValueMut =
  | { op: 'retype'; sel: number; value: Json }
  | { op: 'drop'; sel: number }
  | { op: 'add'; sel: number; key: string; value: Json }
  | { op: 'dup'; sel: number };

/** Odd values that rules are likely to mishandle. */
const ODD_VALUES: Json[] = [
  null, true, false, 0, -0, -1, 1.5, 1e308, -1e308, 5e-324, 2 ** 53 + 1, '', ' ', '1.0', '2.0', '99.0', 'NaN', '\u0000', '\uD800', '../../etc/passwd',
  '/etc/passwd', 'C:\\Windows', 'x'.repeat(300), [], [null], {}, { kind: 'delete' }, { path: '../x' }, 'convert', 'keep_markdown', 'refused', 'auto', 'confirm',
  'deterministic', 'generative', 'lossless', 'budget', '\t', ',', '|',
];

const jsonLeaf = fc.oneof(
  { arbitrary: fc.constantFrom(...ODD_VALUES), weight: 3 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>, weight: 1 },
);

export const valueMut: fc.Arbitrary<ValueMut> = fc.oneof(
  { arbitrary: fc.record({ op: fc.constant('retype' as const), sel: fc.nat(), value: jsonLeaf }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('drop' as const), sel: fc.nat() }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('add' as const), sel: fc.nat(), key: fc.constantFrom('extra', '__proto__', 'constructor', '$schema', 'schema_version', 'kind', 'path', ''), value: jsonLeaf }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('dup' as const), sel: fc.nat() }), weight: 1 },
);

interface Slot {
  parent: Json[] | { [k: string]: Json } | null;
  key: string | number | null;
  node: Json;
}

function slots(root: Json): Slot[] {
  const out: Slot[] = [{ parent: null, key: null, node: root }];
  const stack: Json[] = [root];
  while (stack.length && out.length < 5000) {
    const n = stack.pop()!;
    if (n === null || typeof n !== 'object') continue;
    const children: [string | number, Json][] = Array.isArray(n) ? n.map((c, i) => [i, c]) : Object.entries(n);
    for (const [key, node] of children) {
      out.push({ parent: n, key, node });
      stack.push(node);
    }
  }
  return out;
}

const clone = (v: Json): Json => JSON.parse(JSON.stringify(v)) as Json;

export function applyValueMuts(value: Json, muts: ValueMut[]): Json {
  let root = clone(value);
  for (const m of muts) {
    const all = slots(root);
    const s = all[m.sel % all.length]!;
    const set = (v: Json) => {
      if (s.parent === null) root = v;
      else if (Array.isArray(s.parent)) s.parent[s.key as number] = v;
      else Object.defineProperty(s.parent, s.key as string, { value: v, enumerable: true, writable: true, configurable: true });
    };
    if (m.op === 'retype') set(clone(m.value));
    else if (m.op === 'drop') {
      if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 1);
      else if (s.parent) delete s.parent[s.key as string];
    } else if (m.op === 'add') {
      if (s.node !== null && typeof s.node === 'object' && !Array.isArray(s.node))
        Object.defineProperty(s.node, m.key, { value: clone(m.value), enumerable: true, writable: true, configurable: true });
      else if (Array.isArray(s.node)) s.node.push(clone(m.value));
    } else if (Array.isArray(s.parent)) s.parent.splice(s.key as number, 0, clone(s.node));
  }
  return root;
}

// ───────────── text mutations (both JSON and markdown) ─────────────

export type TextMut =
  | { op: 'truncate'; at: number }
  | { op: 'flip'; at: number; ch: string }
  | { op: 'insert'; at: number; s: string }
  | { op: 'delete'; at: number; len: number }
  | { op: 'crlf' }
  | { op: 'cr' }
  | { op: 'bom' }
  | { op: 'surrogate'; at: number; ch: string }
  | { op: 'dupKey'; nth: number; value: string }
  | { op: 'nest'; at: number; depth: number; open: string }
  | { op: 'hugeString'; nth: number; size: number; ch: string }
  | { op: 'line'; nth: number; line: string }
  | { op: 'dupSection'; nth: number }
  | { op: 'longSection'; nth: number; lines: number; line: string }
  | { op: 'toonFence'; nth: number; body: string };

const FLIP_CHARS = ['\u0000', '\n', '\r', '"', '\\', '{', '}', '[', ']', ',', ':', '#', '`', '|', '-', '*', '>', ' ', '\t', '~', '\uFEFF', '\uD800', '\uDFFF', 'é', '😀', 'x', '0', '\u2028'];

const pos = fc.nat({ max: 1_000_000 });
const common: { arbitrary: fc.Arbitrary<TextMut>; weight: number }[] = [
  { arbitrary: fc.record({ op: fc.constant('truncate' as const), at: pos }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('flip' as const), at: pos, ch: fc.constantFrom(...FLIP_CHARS) }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('insert' as const), at: pos, s: fc.string({ unit: 'binary', maxLength: 12 }) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('delete' as const), at: pos, len: fc.integer({ min: 1, max: 400 }) }), weight: 2 },
  { arbitrary: fc.constant({ op: 'crlf' as const }), weight: 1 },
  { arbitrary: fc.constant({ op: 'cr' as const }), weight: 1 },
  { arbitrary: fc.constant({ op: 'bom' as const }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('surrogate' as const), at: pos, ch: fc.constantFrom('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uDFFF\uD800') }), weight: 1 },
];

export const jsonTextMut: fc.Arbitrary<TextMut> = fc.oneof(
  ...common,
  { arbitrary: fc.record({ op: fc.constant('dupKey' as const), nth: fc.nat(), value: fc.constantFrom('null', '1', '"dup"', '[]', '{}', '"convert"', 'true') }), weight: 3 },
  { arbitrary: fc.record({ op: fc.constant('nest' as const), at: pos, depth: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 200 }), weight: 9 }, { arbitrary: fc.constant(100_000), weight: 1 }), open: fc.constantFrom('[', '{"a":', '[{"b":') }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('hugeString' as const), nth: fc.nat(), size: fc.oneof({ arbitrary: fc.integer({ min: 1000, max: 100_000 }), weight: 9 }, { arbitrary: fc.constant(3_000_000), weight: 1 }), ch: fc.constantFrom('x', 'é', '\\n', '\\u0000', ' ') }), weight: 1 },
);

const MD_LINES = ['```', '```toon', '~~~', '````', '# Heading', '## Sub', '###### Deep', '---', '===', '| a | b |', '|---|---|', '- item', '1. first', '> quote', '<div>', '</div>', '<!--', '    indented', '\t', 'key: value', 'Definition: x', 'Always do it.', 'Never do it.', '+++', '[2]{a,b}:', '  1,2', '', '\\', '* * *', '- [ ] task', '<!-- toonlens-disable -->', '<!-- toonlens-disable-next-line toon/vague-rule -->', '- <!-- toonlens-enable -->', '<!-- toonlens: keep -->'];

export const markdownTextMut: fc.Arbitrary<TextMut> = fc.oneof(
  ...common,
  { arbitrary: fc.record({ op: fc.constant('line' as const), nth: fc.nat(), line: fc.constantFrom(...MD_LINES) }), weight: 6 },
  { arbitrary: fc.record({ op: fc.constant('dupSection' as const), nth: fc.nat() }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('longSection' as const), nth: fc.nat(), lines: fc.integer({ min: 100, max: 3000 }), line: fc.constantFrom('- a b', '| a | b |', 'word word', '', 'k: v', '```') }), weight: 1 },
  {
    arbitrary: fc.record({
      op: fc.constant('toonFence' as const),
      nth: fc.nat(),
      body: fc.oneof(fc.constantFrom('a: 1', 'items[2]{id,name}:\n  1,x\n  2,y', 'items[3]{id}:\n  1\n  2', 'x: "unterminated', '[1]: a', 'a:\n  b: 1\n c: 2', ''), fc.string({ maxLength: 40 })),
    }),
    weight: 2,
  },
);

/** 100,000-line sections (the engine's worst case; see the regression tests). */
export const hugeSectionMut: fc.Arbitrary<TextMut> = fc.record({ op: fc.constant('longSection' as const), nth: fc.nat(), lines: fc.constant(100_000), line: fc.constantFrom('- a b', '| a | b |', 'word word', '', 'k: v', '```') });

function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

function headingStarts(text: string): number[] {
  return [...text.matchAll(/^#{1,6} /gm)].map((m) => m.index!);
}

export function applyTextMuts(text: string, muts: TextMut[]): string {
  let t = text;
  for (const m of muts) {
    const at = (n: number) => (t.length ? n % (t.length + 1) : 0);
    switch (m.op) {
      case 'truncate':
        t = t.slice(0, at(m.at));
        break;
      case 'flip': {
        const i = at(m.at);
        t = t.slice(0, i) + m.ch + t.slice(i + 1);
        break;
      }
      case 'insert':
      case 'surrogate': {
        const i = at(m.at);
        t = t.slice(0, i) + (m.op === 'insert' ? m.s : m.ch) + t.slice(i);
        break;
      }
      case 'delete': {
        const i = at(m.at);
        t = t.slice(0, i) + t.slice(i + m.len);
        break;
      }
      case 'crlf':
        t = t.replace(/\r?\n/g, '\r\n');
        break;
      case 'cr':
        t = t.replace(/\r?\n/g, '\r');
        break;
      case 'bom':
        t = '\uFEFF' + t;
        break;
      case 'dupKey': {
        const keys = [...t.matchAll(/[{,]\s*("(?:[^"\\]|\\.)*")\s*:/g)];
        if (!keys.length) break;
        const k = keys[m.nth % keys.length]!;
        const i = k.index! + 1;
        t = t.slice(0, i) + `${k[1]}: ${m.value}, ` + t.slice(i);
        break;
      }
      case 'nest': {
        const i = at(m.at);
        const close = m.open === '[' ? ']' : m.open === '{"a":' ? '}' : '}]';
        t = t.slice(0, i) + m.open.repeat(m.depth) + '0' + close.repeat(m.depth) + t.slice(i);
        break;
      }
      case 'hugeString': {
        const quotes = [...t.matchAll(/:\s*"/g)];
        const i = quotes.length ? quotes[m.nth % quotes.length]!.index! + quotes[m.nth % quotes.length]![0].length : 0;
        t = t.slice(0, i) + m.ch.repeat(Math.ceil(m.size / m.ch.length)) + t.slice(i);
        break;
      }
      case 'line': {
        const starts = lineStarts(t);
        const i = starts[m.nth % starts.length]!;
        t = t.slice(0, i) + m.line + '\n' + t.slice(i);
        break;
      }
      case 'dupSection': {
        const hs = headingStarts(t);
        if (!hs.length) break;
        const k = m.nth % hs.length;
        const sec = t.slice(hs[k]!, hs[k + 1] ?? t.length);
        t = t.slice(0, hs[k]!) + sec + (sec.endsWith('\n') ? '' : '\n') + t.slice(hs[k]!);
        break;
      }
      case 'longSection': {
        const hs = headingStarts(t);
        const i = hs.length ? hs[m.nth % hs.length]! : t.length;
        const head = m.line.startsWith('|') ? '| h | i |\n|---|---|\n' : '';
        const body = (m.line + '\n').repeat(m.lines);
        t = t.slice(0, i) + `## Long section\n\n${head}${body}\n` + t.slice(i);
        break;
      }
      case 'toonFence': {
        const starts = lineStarts(t);
        const i = starts[m.nth % starts.length]!;
        t = t.slice(0, i) + '```toon\n' + m.body + '\n```\n' + t.slice(i);
        break;
      }
    }
  }
  return t;
}

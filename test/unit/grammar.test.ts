// TextMate grammars (syntaxes/): tokenized with vscode-textmate + vscode-oniguruma, the engine VS Code uses.
import { test, describe, before } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { decode } from '@toon-format/toon';
import type { IGrammar } from 'vscode-textmate';
import { REPO_ROOT, hasScope, loadGrammar, tokenize, type Tok, type TokLine } from '../fixtures/toon/textmate';

const FIXTURES = join(REPO_ROOT, 'node_modules', '@toon-format', 'spec', 'tests', 'fixtures', 'decode');

interface Fixture {
  file: string;
  name: string;
  input: string;
  shouldError: boolean;
  options: { strict?: boolean; indent?: number; expandPaths?: 'off' | 'safe' };
}

function fixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const file of readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort()) {
    const suite = JSON.parse(readFileSync(join(FIXTURES, file), 'utf8')) as { tests: Record<string, unknown>[] };
    for (const t of suite.tests) {
      if (typeof t.input !== 'string') continue;
      out.push({
        file,
        name: String(t.name),
        input: t.input,
        shouldError: t.shouldError === true,
        options: (t.options ?? {}) as Fixture['options'],
      });
    }
  }
  return out;
}

/** The decoder's verdict on a fixture, with the fixture's own options. */
function decodeFixture(f: Fixture): { ok: true; value: unknown } | { ok: false; error: Error & { line?: number } } {
  try {
    return {
      ok: true,
      value: decode(f.input, { strict: f.options.strict ?? true, indentSize: f.options.indent ?? 2 }),
    };
  } catch (e) {
    return { ok: false, error: e as Error & { line?: number } };
  }
}

const ROOT = 'source.toon';
/** A scope that says what a character is (not the root, not a meta.* region). */
const isLeafScope = (s: string) => s !== ROOT && !s.startsWith('meta.');

function describeTok(t: Tok): string {
  return `${JSON.stringify(t.text)} [${t.start},${t.end}) ${t.scopes.join(' ')}`;
}

function assertCovered(l: TokLine, where: string): void {
  const { line, tokens } = l;
  assert.ok(tokens.length > 0, `${where}: no tokens for ${JSON.stringify(line)}`);
  assert.equal(tokens[0]!.start, 0, `${where}: first token does not start at 0`);
  for (let i = 1; i < tokens.length; i++) {
    assert.equal(tokens[i]!.start, tokens[i - 1]!.end, `${where}: gap or overlap before ${describeTok(tokens[i]!)} in ${JSON.stringify(line)}`);
  }
  assert.ok(tokens.at(-1)!.end >= line.length, `${where}: tokens stop before the end of ${JSON.stringify(line)}`);
  for (const t of tokens) {
    // vscode-textmate tokenizes the line plus an implicit "\n": the last token may end one past the line, never more,
    // and no token may start past the line (an empty line has one token at 0).
    assert.ok(t.start < Math.max(line.length, 1), `${where}: token starts beyond the line: ${describeTok(t)}`);
    assert.ok(t.end <= line.length + 1, `${where}: token ends beyond the line: ${describeTok(t)}`);
  }
  for (let i = 0; i < line.length; i++) {
    if (/\s/.test(line[i]!)) continue;
    const t = tokens.find((x) => x.start <= i && i < x.end)!;
    assert.ok(t.scopes.some(isLeafScope), `${where}: character ${i} (${JSON.stringify(line[i])}) of ${JSON.stringify(line)} has no scope of its own: ${describeTok(t)}`);
  }
}

const invalidTokens = (lines: TokLine[]) => lines.flatMap((l) => l.tokens.filter((t) => t.scopes.some((s) => s.startsWith('invalid.'))));
const tokensWith = (l: TokLine, scope: string) => l.tokens.filter((t) => hasScope(t.scopes, scope));

let toon: IGrammar;
before(async () => {
  toon = await loadGrammar(ROOT);
});

describe('source.toon on every decode fixture of @toon-format/spec', () => {
  const all = fixtures();

  test('the fixture set is the real one', () => {
    assert.ok(all.length >= 200, `only ${all.length} decode fixtures found in ${FIXTURES}`);
    assert.ok(all.some((f) => f.shouldError) && all.some((f) => !f.shouldError));
  });

  test('the decoder agrees with every strict-mode fixture (oracle sanity)', () => {
    // @toon-format/toon 4.4 rejects some inputs the spec lets non-strict decoders accept
    // (`foo[1][bar]: 10`) and has no path expansion (expandPaths); the grammar tests use the
    // decoder's own verdict, so only strict mode without path expansion must agree.
    const checked = all.filter((x) => x.options.strict !== false && (x.options.expandPaths ?? 'off') === 'off');
    assert.ok(checked.length >= 180);
    for (const f of checked) {
      const r = decodeFixture(f);
      assert.equal(!r.ok, f.shouldError, `${f.file} / ${f.name}: decoder ${r.ok ? 'accepts' : 'rejects: ' + r.error.message}`);
    }
  });

  test('every line is tokenized without a gap, nothing beyond the line, every visible character scoped', () => {
    for (const f of all) {
      for (const [i, l] of tokenize(toon, f.input).entries()) assertCovered(l, `${f.file} / ${f.name} line ${i + 1}`);
    }
  });

  test('no invalid.* scope on any input the decoder accepts', () => {
    let accepted = 0;
    for (const f of all) {
      if (!decodeFixture(f).ok) continue;
      accepted++;
      const bad = invalidTokens(tokenize(toon, f.input));
      assert.deepEqual(bad.map(describeTok), [], `${f.file} / ${f.name}: ${JSON.stringify(f.input)}`);
    }
    assert.ok(accepted > 150);
  });

  test('fixtures the decoder rejects for an invalid escape are flagged on the line it names', () => {
    let seen = 0;
    for (const f of all) {
      const r = decodeFixture(f);
      if (r.ok || !/^(Line \d+: )?Invalid escape sequence/.test(r.error.message)) continue;
      seen++;
      const lines = tokenize(toon, f.input);
      const line = lines[(r.error.line ?? 1) - 1]!;
      const bad = line.tokens.filter((t) => t.scopes.includes('invalid.illegal.escape.toon'));
      assert.ok(bad.length > 0, `${f.file} / ${f.name}: ${JSON.stringify(line.line)} has no invalid.illegal.escape.toon`);
      assert.ok(bad.every((t) => t.text.startsWith('\\')), bad.map(describeTok).join('; '));
    }
    assert.ok(seen >= 3, `expected the invalid-escape fixtures (\\x, truncated \\u, lone surrogate), saw ${seen}`);
  });

  test('tabular rows are split on the delimiter their header declares (comma, tab, pipe)', () => {
    const DELIM: Record<string, string> = { comma: ',', tab: '\t', pipe: '|' };
    const rowsSeen: Record<string, number> = { comma: 0, tab: 0, pipe: 0 };
    for (const f of all) {
      if (!decodeFixture(f).ok) continue;
      const lines = tokenize(toon, f.input);
      let fields = -1;
      let declared = '';
      for (const l of lines) {
        const header = l.tokens.find((t) => t.scopes.includes('punctuation.definition.fields.begin.toon'));
        if (header) {
          const marker = l.tokens.find((t) => /^keyword\.operator\.delimiter\.(tab|pipe)\.toon$/.test(t.scopes.at(-1)!));
          declared = marker ? marker.scopes.at(-1)!.split('.')[3]! : 'comma';
          if (marker) assert.equal(marker.text, DELIM[declared]);
          // A quoted field name is several tokens (quotes, text, escapes): count runs of field-name tokens.
          fields = l.tokens.filter((t, i) => hasScope(t.scopes, 'support.type.property-name.field') && !(i > 0 && hasScope(l.tokens[i - 1]!.scopes, 'support.type.property-name.field'))).length;
          // Field names are split on the same delimiter.
          assert.equal(tokensWith(l, `punctuation.separator.delimiter.${declared}`).length, fields - 1, `${f.name}: header ${JSON.stringify(l.line)}`);
          continue;
        }
        const row = l.tokens.filter((t) => t.scopes.some((s) => s.startsWith('meta.row.')));
        if (row.length === 0) continue;
        const kind = row[0]!.scopes.find((s) => s.startsWith('meta.row.'))!.split('.')[2]!;
        assert.equal(kind, declared, `${f.name}: row ${JSON.stringify(l.line)} is in a ${kind} region under a ${declared} header`);
        const delims = l.tokens.filter((t) => t.scopes.some((s) => s.startsWith('punctuation.separator.delimiter.')));
        assert.ok(delims.every((t) => hasScope(t.scopes, `punctuation.separator.delimiter.${declared}`) && t.text === DELIM[declared]), `${f.name}: ${delims.map(describeTok).join('; ')}`);
        // The decoder accepted the document in strict mode, so every row has exactly `fields` values.
        assert.equal(delims.length, fields - 1, `${f.name}: row ${JSON.stringify(l.line)}`);
        rowsSeen[kind]!++;
      }
    }
    for (const [k, n] of Object.entries(rowsSeen)) assert.ok(n >= 2, `no ${k}-delimited tabular rows were checked`);
  });

  test('single-line inline arrays are split on their declared delimiter, one separator fewer than the decoded length', () => {
    let checked = 0;
    for (const f of all) {
      const r = decodeFixture(f);
      if (!r.ok || f.input.includes('\n') || typeof r.value !== 'object' || r.value === null || Array.isArray(r.value)) continue;
      const entries = Object.entries(r.value);
      if (entries.length !== 1 || !Array.isArray(entries[0]![1]) || (entries[0]![1] as unknown[]).length === 0) continue;
      const arr = entries[0]![1] as unknown[];
      const [l] = tokenize(toon, f.input);
      const marker = l!.tokens.find((t) => /^keyword\.operator\.delimiter\./.test(t.scopes.at(-1)!));
      const declared = marker ? marker.scopes.at(-1)!.split('.')[3]! : 'comma';
      const delims = l!.tokens.filter((t) => t.scopes.some((s) => s.startsWith('punctuation.separator.delimiter.')));
      assert.equal(delims.length, arr.length - 1, `${f.name}: ${JSON.stringify(f.input)} → ${delims.map(describeTok).join('; ')}`);
      assert.ok(delims.every((t) => hasScope(t.scopes, `punctuation.separator.delimiter.${declared}`)), f.name);
      checked++;
    }
    assert.ok(checked >= 20, `only ${checked} inline arrays checked`);
  });
});

describe('source.toon scopes', () => {
  const one = (text: string) => tokenize(toon, text);
  const find = (l: TokLine, text: string) => {
    const t = l.tokens.find((x) => x.text === text);
    assert.ok(t, `no token ${JSON.stringify(text)} in ${l.tokens.map(describeTok).join(' | ')}`);
    return t;
  };

  test('keys, quoted keys, values by type', () => {
    const [a, b, c, d, e, f] = one('name: Ada\n"full name": 1.5e3\nok: true\nnone: null\nlz: 05\nitems: []');
    assert.ok(hasScope(find(a!, 'name').scopes, 'entity.name.tag'));
    assert.ok(hasScope(find(a!, ':').scopes, 'punctuation.separator.key-value'));
    assert.ok(hasScope(find(a!, 'Ada').scopes, 'string.unquoted'));
    const q = b!.tokens.filter((t) => hasScope(t.scopes, 'entity.name.tag'));
    assert.equal(q.map((t) => t.text).join(''), '"full name"');
    assert.ok(q.every((t) => hasScope(t.scopes, 'string.quoted.double')));
    assert.ok(hasScope(find(b!, '1.5e3').scopes, 'constant.numeric'));
    assert.ok(hasScope(find(c!, 'true').scopes, 'constant.language.boolean'));
    assert.ok(hasScope(find(d!, 'null').scopes, 'constant.language.null'));
    // Leading zeros make a string (SPEC §4), as the decoder reads it.
    assert.equal((decode('lz: 05') as { lz: unknown }).lz, '05');
    assert.ok(hasScope(find(e!, '05').scopes, 'string.unquoted'));
    assert.ok(hasScope(find(f!, '[').scopes, 'punctuation.definition.array.begin'));
  });

  test('array headers: length, delimiter marker, field list', () => {
    const [h] = one('key[3|]{a|"b c"|d}:');
    assert.ok(hasScope(find(h!, 'key').scopes, 'entity.name.tag'));
    assert.ok(hasScope(find(h!, '3').scopes, 'constant.numeric'));
    assert.ok(hasScope(find(h!, '|').scopes, 'keyword.operator.delimiter.pipe'));
    assert.ok(h!.tokens.filter((t) => t.start > 0 && t.end <= h!.line.length).every((t) => t.scopes.includes('meta.array.header.toon') || t.scopes.includes('meta.fields.toon') || hasScope(t.scopes, 'entity.name.tag')));
    assert.deepEqual(tokensWith(h!, 'punctuation.separator.delimiter.pipe').length, 2);
    const [t] = one('[2\t]{x\ty}:');
    assert.ok(hasScope(find(t!, '\t').scopes, 'keyword.operator.delimiter.tab'));
    const [r] = one('  - [2]: a,b');
    assert.ok(hasScope(find(r!, '-').scopes, 'punctuation.definition.list.item'));
    assert.ok(hasScope(find(r!, 'a').scopes, 'string.unquoted'));
  });

  test('rows under a pipe header split on | only; commas stay data', () => {
    const lines = one('items[2|]{id|note}:\n  1|a,b\n  2|"c|d"\nnext: x');
    const row = lines[1]!;
    assert.deepEqual(tokensWith(row, 'punctuation.separator.delimiter').map((t) => [t.text, t.scopes.at(-1)]), [['|', 'punctuation.separator.delimiter.pipe.toon']]);
    assert.ok(hasScope(find(row, 'a,b').scopes, 'string.unquoted'));
    const quoted = lines[2]!;
    assert.equal(tokensWith(quoted, 'punctuation.separator.delimiter').length, 1, 'the | inside quotes is data');
    // The key-value line at header depth ends the rows (SPEC §9.3).
    assert.ok(!lines[3]!.tokens.some((t) => t.scopes.some((s) => s.startsWith('meta.row.'))));
    assert.ok(hasScope(find(lines[3]!, 'next').scopes, 'entity.name.tag'));
  });

  test('rows under a tab header split on tabs; a list-item tabular array ends at the sibling field', () => {
    const tab = one('items[2\t]{id\tnote}:\n  1\ta,b\n  2\tc,d');
    assert.deepEqual(tokensWith(tab[1]!, 'punctuation.separator.delimiter').map((t) => t.text), ['\t']);
    assert.ok(hasScope(find(tab[1]!, 'a,b').scopes, 'string.unquoted'));
    const li = one('items[1]:\n  - users[2]{id,name}:\n      1,Ada\n      2,Bob\n    status: active');
    assert.ok(tokensWith(li[2]!, 'meta.row.comma').length > 0);
    assert.ok(!li[4]!.tokens.some((t) => t.scopes.some((s) => s.startsWith('meta.row.'))));
    assert.ok(hasScope(find(li[4]!, 'status').scopes, 'entity.name.tag'));
  });

  test('valid escapes are constant.character.escape, anything else invalid.illegal.escape.toon', () => {
    const [l] = one('s: "a\\\\b\\"c\\nd\\re\\tf\\u00e9 \\x \\u12 \\uD800"');
    const esc = (scope: string) => l!.tokens.filter((t) => t.scopes.includes(scope)).map((t) => t.text);
    assert.deepEqual(esc('constant.character.escape.toon'), ['\\\\', '\\"', '\\n', '\\r', '\\t']);
    assert.deepEqual(esc('constant.character.escape.unicode.toon'), ['\\u00e9']);
    assert.deepEqual(esc('invalid.illegal.escape.toon'), ['\\x', '\\u', '\\uD800']);
    // The same in a quoted key and in a tabular cell.
    const [k] = one('"a\\qb": 1');
    assert.deepEqual(k!.tokens.filter((t) => t.scopes.includes('invalid.illegal.escape.toon')).map((t) => t.text), ['\\q']);
    const cell = one('t[1]{a,b}:\n  1,"x\\yz"')[1]!;
    assert.deepEqual(cell.tokens.filter((t) => t.scopes.includes('invalid.illegal.escape.toon')).map((t) => t.text), ['\\y']);
    // And the decoder rejects exactly those.
    assert.throws(() => decode('s: "\\x"'), /Invalid escape/);
    assert.doesNotThrow(() => decode('s: "a\\\\b\\"c\\nd\\re\\tf\\u00e9"'));
  });

  test('a "#" line is tokenized as data: the TOON spec has no comments', () => {
    // (@toon-format/toon 4.4 happens to skip lines starting with "#"; the grammar follows the spec.)
    const [l] = one('# not a comment');
    assert.ok(!l!.tokens.some((t) => t.scopes.some((s) => s.startsWith('comment.'))));
  });
});

describe('markdown.toon.codeblock injection', () => {
  let md: IGrammar;
  before(async () => {
    md = await loadGrammar('text.html.markdown');
  });

  const inFence = (t: Tok) => t.scopes.includes('meta.embedded.block.toon');

  test('a ```toon fence gets meta.embedded.block.toon with source.toon scopes inside', () => {
    const text = '# Orders\n\nSome text.\n\n```toon\nitems[2|]{sku|qty}:\n  A1|2\n  B2|"x\\q"\n```\n\nAfter the fence.\n';
    const lines = tokenize(md, text);
    assert.ok(lines[4]!.tokens.some((t) => t.text === 'toon' && t.scopes.includes('fenced_code.block.language.markdown')));
    assert.ok(!lines[4]!.tokens.some(inFence), 'the opening fence line is not content');
    for (const i of [5, 6, 7]) {
      const visible = lines[i]!.tokens.filter((t) => t.text.trim() !== '');
      assert.ok(visible.length > 0 && visible.every(inFence), `line ${i} ${JSON.stringify(lines[i]!.line)}`);
    }
    assert.ok(lines[5]!.tokens.some((t) => t.text === 'items' && t.scopes.includes('entity.name.tag.toon')));
    assert.deepEqual(lines[6]!.tokens.filter((t) => t.scopes.includes('punctuation.separator.delimiter.pipe.toon')).map((t) => t.text), ['|']);
    assert.ok(lines[7]!.tokens.some((t) => t.text === '\\q' && t.scopes.includes('invalid.illegal.escape.toon')));
    assert.ok(!lines[8]!.tokens.some(inFence), 'closing fence');
    assert.ok(lines[10]!.tokens.some((t) => t.scopes.includes('meta.paragraph.markdown')), 'markdown resumes after the fence');
    assert.ok(!lines[10]!.tokens.some((t) => t.scopes.some((s) => s.endsWith('.toon'))));
  });

  test('~~~toon fences, attributes after the language, and other languages are left alone', () => {
    const lines = tokenize(md, '~~~toon\na: 1\n~~~\n\n```toon title="x"\nb: 2\n```\n\n```json\n{"c": 3}\n```\n');
    assert.ok(lines[1]!.tokens.some((t) => t.text === 'a' && inFence(t) && t.scopes.includes('entity.name.tag.toon')));
    assert.ok(lines[5]!.tokens.some((t) => t.text === 'b' && inFence(t) && t.scopes.includes('entity.name.tag.toon')));
    assert.ok(!lines[9]!.tokens.some((t) => t.scopes.some((s) => s.endsWith('.toon'))));
  });

  test('fences inside a list item and a block quote, and an unterminated fence', () => {
    const lines = tokenize(md, '- item\n  ```toon\n  k[2]{a,b}:\n    1,2\n  z: 1\n  ```\n\n> ```toon\n> q: 1\n> ```\n\n```toon\nlast: true');
    assert.ok(lines[3]!.tokens.some((t) => t.scopes.includes('punctuation.separator.delimiter.comma.toon')));
    assert.ok(lines[4]!.tokens.some((t) => t.text === 'z' && t.scopes.includes('entity.name.tag.toon')));
    assert.ok(lines[8]!.tokens.some((t) => t.text === 'q' && inFence(t) && t.scopes.includes('entity.name.tag.toon')));
    assert.ok(lines[12]!.tokens.some((t) => t.text === 'true' && inFence(t) && t.scopes.includes('constant.language.boolean.toon')));
  });
});

describe('grammar files', () => {
  test('toon.tmLanguage.json is what the generator produces', () => {
    const r = spawnSync(process.execPath, [join(REPO_ROOT, 'syntaxes', 'generate-toon-grammar.mjs'), '--check'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  test('scope names and the injection selector the manifest relies on', () => {
    const read = (f: string) => JSON.parse(readFileSync(join(REPO_ROOT, 'syntaxes', f), 'utf8'));
    assert.equal(read('toon.tmLanguage.json').scopeName, 'source.toon');
    const inj = read('toon-markdown-injection.tmLanguage.json');
    assert.equal(inj.scopeName, 'markdown.toon.codeblock');
    assert.equal(inj.injectionSelector, 'L:text.html.markdown');
    assert.ok(JSON.stringify(inj).includes('meta.embedded.block.toon'));
  });

  test('the manifest points at these files with these scope names', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
    const grammars = pkg.contributes.grammars as { language?: string; scopeName: string; path: string; injectTo?: string[]; embeddedLanguages?: Record<string, string> }[];
    const main = grammars.find((g) => g.scopeName === 'source.toon');
    assert.deepEqual(main && [main.language, main.path], ['toon', './syntaxes/toon.tmLanguage.json']);
    const inj = grammars.find((g) => g.scopeName === 'markdown.toon.codeblock');
    assert.ok(inj);
    assert.equal(inj.path, './syntaxes/toon-markdown-injection.tmLanguage.json');
    assert.deepEqual(inj.injectTo, ['text.html.markdown']);
    assert.deepEqual(inj.embeddedLanguages, { 'meta.embedded.block.toon': 'toon' });
    const lang = (pkg.contributes.languages as { id: string; extensions?: string[]; configuration?: string }[]).find((l) => l.id === 'toon');
    assert.ok(lang);
    assert.deepEqual(lang.extensions, ['.toon']);
    assert.equal(lang.configuration, './syntaxes/toon.language-configuration.json');
    for (const f of [main!.path, inj.path, lang.configuration!]) JSON.parse(readFileSync(join(REPO_ROOT, f), 'utf8'));
  });

  test('language configuration: off-side folding, brackets, indent after a line ending in ":"', () => {
    const cfg = JSON.parse(readFileSync(join(REPO_ROOT, 'syntaxes', 'toon.language-configuration.json'), 'utf8'));
    assert.deepEqual(cfg.folding, { offSide: true });
    assert.deepEqual(cfg.brackets, [['[', ']'], ['{', '}']]);
    assert.deepEqual(cfg.autoClosingPairs.map((p: { open: string; close: string }) => p.open + p.close).sort(), ['""', '[]', '{}']);
    const increase = new RegExp(cfg.indentationRules.increaseIndentPattern);
    const onEnter = cfg.onEnterRules.find((r: { action: { indent: string } }) => r.action.indent === 'indent');
    const before = new RegExp(onEnter.beforeText);
    for (const line of ['user:', '  - items[2]{id,name}:', '[3]:', '"a:b":', 'pairs[2|]:']) {
      assert.ok(increase.test(line) && before.test(line), line);
    }
    for (const line of ['a: 1', 'tags[2]: a,b', 'note: "ends with:"', '"a:"']) {
      assert.ok(!increase.test(line) && !before.test(line), line);
    }
    assert.ok(!new RegExp(cfg.indentationRules.decreaseIndentPattern).test(''));
  });
});

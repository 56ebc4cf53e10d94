/**
 * Context diagnostics (duplicates, over budget, unreachable, import cycles) on the mixed fixture and on small
 * in-memory repositories; the pieces under them (frontmatter, imports, instructions) on their edge cases; and
 * `toonlens context` in its three formats, its JSON against schemas/context.v1.json.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import AjvDraft07 from 'ajv';
import fc from 'fast-check';
import { contextModel } from '../../server/src/core/context/model';
import { contextDiagnostics } from '../../server/src/core/context/diagnostics';
import { parseFrontmatter, stringList } from '../../server/src/core/context/frontmatter';
import { findImports, resolveImport } from '../../server/src/core/context/imports';
import { instructions, duplicatesAcross } from '../../server/src/core/context/duplicates';
import { run } from '../../server/src/cli/context';
import { run as runCheck, type FileReport } from '../../server/src/cli/check';
import { main } from '../../server/src/cli/main';
import type { CliIO } from '../../server/src/cli/io';
import { FIXTURES, REPO_ROOT } from '../paths';

const count = (t: string) => t.split(/\s+/).filter(Boolean).length;
const MIXED = join(FIXTURES, 'context', 'mixed');

async function cli(args: string[], cwd = MIXED) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { cwd, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readStdin: async () => '' };
  const code = await run(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

describe('frontmatter, imports, instructions', () => {
  test('frontmatter: scalars, quoted values, flow and block lists, comments, no closing line', () => {
    const head = '---\nname: deploy # the name\ndescription: "Deploy: staging"\nalwaysApply: true\nglobs: src/**/*.{ts,tsx}, test/**\npaths:\n  - "a/**"\n  - b/*.md\napplyTo: [\'**/*.ts\', "**/*.js"]\n---\n';
    const fm = parseFrontmatter(head + 'body\n');
    assert.equal(fm.present, true);
    assert.equal(fm.data.name, 'deploy');
    assert.equal(fm.data.description, 'Deploy: staging');
    assert.equal(fm.data.alwaysApply, true);
    assert.deepEqual(stringList(fm.data.globs), ['src/**/*.{ts,tsx}', 'test/**']);
    assert.deepEqual(stringList(fm.data.paths), ['a/**', 'b/*.md']);
    assert.deepEqual(stringList(fm.data.applyTo), ['**/*.ts', '**/*.js']);
    assert.equal(fm.bodyStart, head.length);
    assert.equal(parseFrontmatter('---\nname: x\nno closing line\n').present, false);
    assert.equal(parseFrontmatter('# Title\n---\n').present, false);
  });

  test('imports: outside code only, emails and handles are prose, paths resolve inside the repository', () => {
    const text = 'See @docs/a.md and @./b.md, mail me@x.org, ping @alice.\n`@c.md` is code.\n```\n@d.md\n```\n~~~\n@e.md\n~~~\n(@f.md)\n';
    // An `@` must start a line or follow whitespace: `(@f.md)` stays prose, as in Claude Code.
    assert.deepEqual(findImports(text).map((r) => r.spec), ['docs/a.md', './b.md']);
    assert.equal(resolveImport('x/CLAUDE.md', '../docs/a.md'), 'docs/a.md');
    assert.equal(resolveImport('CLAUDE.md', '../a.md'), undefined);
    assert.equal(resolveImport('CLAUDE.md', '~/a.md'), undefined);
    assert.equal(resolveImport('CLAUDE.md', '/etc/a.md'), undefined);
  });

  test('instructions: list items and sentences; code, headings, tables and comments are not instructions', () => {
    const text = '# Heading words here\n\n- Run the tests first.\n1. Build the image now.\nWrite small commits. Review every diff twice!\n\n| a table | row here | x |\n<!--\nhidden words in a comment\n-->\n```\ncode block line here\n```\n';
    assert.deepEqual(instructions(text).map((u) => u.exact), ['run the tests first', 'build the image now', 'write small commits', 'review every diff twice']);
  });

  test('duplicate search is linear: 8× the instructions take at most 8× the work, however many copies', () => {
    // One instruction in every file, and only one file an anchor: each copy must find it without a scan.
    const make = (n: number) => Array.from({ length: n }, (_, i) => ({ path: `f${i}.md`, instructions: instructions(`- Rule number ${i} keeps the build green.\n- Shared rule for every file here.\n`) }));
    let calls = 0;
    const together = { eligible: () => (calls++, true), anchor: (p: string) => (calls++, p === 'f0.md') };
    duplicatesAcross(make(1000), together);
    const small = calls;
    calls = 0;
    duplicatesAcross(make(8000), together);
    assert.ok(calls <= small * 8 * 1.5, `${calls} vs ${small}`);
  });
});

/** Fastest CPU time of `f` over a few runs, in ms (CPU time, so a preempted process does not inflate a sample). */
function fastest(f: (run: number) => void, runs = 5): number {
  let best = Infinity;
  for (let k = 0; k < runs; k++) {
    const s = process.cpuUsage();
    f(k);
    const d = process.cpuUsage(s);
    best = Math.min(best, (d.user + d.system) / 1000);
  }
  return best;
}

describe('instruction keys', () => {
  // The normalization as first written with regexes: the scanners must give the same key on any text.
  const reference = (s: string) => {
    let t = s.toLowerCase();
    if (/[*_`~]/.test(t)) t = t.replace(/[*_`~]/g, '');
    if (t.includes('](')) t = t.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
    return t.replace(/\s+/g, ' ').replace(/[\s.;:!?,]+$/, '').trim();
  };

  test('the exact key equals the regex normalization on any list item', () => {
    const piece = fc.constantFrom('[', ']', '(', ')', '](', 'a', 'Word', ' ', '  ', '\t', '.', ',', ';', '!', '?', ':', '*', '_', '`', '~', 'é', '\u00a0', 'x1');
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (parts) => {
        const body = `alpha beta gamma ${parts.join('')}`;
        const [unit] = instructions(`- ${body}\n`);
        assert.equal(unit?.exact, reference(body));
      }),
      { numRuns: 2000 },
    );
  });

  for (const [name, make] of [
    ['end punctuation runs', (n: number) => `keep these words ${',;'.repeat(n / 2)} then more`],
    ['unclosed link brackets', (n: number) => `keep these words ${'['.repeat(n)}](target`],
    ['link brackets without a target', (n: number) => `keep these words ${'[a]'.repeat(n / 3)}(`],
  ] as const) {
    test(`${name}: time(160,000 chars) / time(20,000 chars) stays near 8 (linear)`, () => {
      // A new first word each run: keys are memoized by text, and each run must compute its own.
      const small = make(20_000);
      const large = make(160_000);
      instructions(`- warm ${small}\n`);
      const ts = fastest((k) => void instructions(`- run${k} ${small}\n`));
      const tl = fastest((k) => void instructions(`- run${k} ${large}\n`));
      assert.ok(tl / Math.max(ts, 0.5) < 24, `ratio ${(tl / ts).toFixed(1)} (${ts.toFixed(2)} ms → ${tl.toFixed(2)} ms)`);
    });
  }
});

describe('context diagnostics', () => {
  test('the mixed fixture: duplicates, over budget, a broken import, a cycle', async () => {
    const r = await cli(['--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { diagnostics: { file: string; code: string; range: { start: { line: number } }; related?: { file: string }[] }[] };
    const got = out.diagnostics.map((d) => `${d.file}:${d.range.start.line + 1} ${d.code}`);
    assert.deepEqual(got, [
      '.cursor/rules/style.mdc:6 context/duplicate-instruction',
      '.github/copilot-instructions.md:3 context/duplicate-instruction',
      'AGENTS.md:3 context/duplicate-instruction',
      'AGENTS.md:4 context/duplicate-instruction',
      'CLAUDE.md:1 context/over-budget',
      'CLAUDE.md:5 context/duplicate-instruction',
      'CLAUDE.md:6 context/duplicate-instruction',
      'CLAUDE.md:7 context/unreachable',
      'docs/b.md:3 context/import-cycle',
      'src/CLAUDE.md:3 context/duplicate-instruction',
    ]);
    const agentsDup = out.diagnostics.find((d) => d.file === 'AGENTS.md' && d.range.start.line === 2)!;
    assert.deepEqual(agentsDup.related!.map((x) => x.file), ['.github/copilot-instructions.md', '.cursor/rules/style.mdc']);
  });

  test('the quick fix removes this copy only, and the other file is untouched', () => {
    const files = [
      { path: 'AGENTS.md', text: '# Rules\n\n- Never push directly to the main branch.\n- Keep it short.\n' },
      { path: '.github/copilot-instructions.md', text: 'Use tabs. Never push directly to the main branch. Thanks.\n' },
    ];
    const m = contextModel({ files, count, agents: ['copilot'] });
    const d = contextDiagnostics(m);
    assert.equal(d.length, 2);
    for (const one of d) {
      const text = files.find((f) => f.path === one.path)!.text;
      const e = one.fix!.edits[0]!;
      const after = text.slice(0, e.start) + e.newText + text.slice(e.end);
      assert.ok(!/never push/i.test(after), after);
      const other = files.find((f) => f.path !== one.path)!;
      assert.equal(one.related![0]!.path, other.path);
    }
    const [inList, inParagraph] = [d.find((x) => x.path === 'AGENTS.md')!, d.find((x) => x.path !== 'AGENTS.md')!];
    const apply = (t: string, x: typeof inList) => t.slice(0, x.fix!.edits[0]!.start) + t.slice(x.fix!.edits[0]!.end);
    assert.equal(apply(files[0]!.text, inList), '# Rules\n\n- Keep it short.\n');
    assert.equal(apply(files[1]!.text, inParagraph), 'Use tabs. Thanks.\n');
  });

  test('no duplicate between two files an agent never loads together', () => {
    const files = [
      { path: '.github/instructions/a.instructions.md', text: '---\napplyTo: "a/**"\n---\n- Log every request with its id.\n' },
      { path: '.github/instructions/b.instructions.md', text: '---\napplyTo: "b/**"\n---\n- Log every request with its id.\n' },
    ];
    const m = contextModel({ files, count, agents: ['copilot'], allPaths: ['a/x.ts', 'b/y.ts', ...files.map((f) => f.path)] });
    assert.deepEqual(contextDiagnostics(m), []);
  });

  test('only files an agent loads with another are split into instructions; the cache forgets the rest', () => {
    const rule = '- Never push directly to the main branch.\n';
    const cache = new Map();
    const alone = [{ path: 'AGENTS.md', text: `# Rules\n\n${rule}${rule}` }];
    assert.deepEqual(contextDiagnostics(contextModel({ files: alone, count, agents: ['copilot'] }), {}, cache), []);
    assert.equal(cache.size, 0, 'one file has no other copy to find: nothing is scanned');
    const both = [...alone, { path: '.github/copilot-instructions.md', text: rule }];
    assert.equal(contextDiagnostics(contextModel({ files: both, count, agents: ['copilot'] }), {}, cache).length, 3);
    assert.deepEqual([...cache.keys()].sort(), ['.github/copilot-instructions.md', 'AGENTS.md']);
    contextDiagnostics(contextModel({ files: alone, count, agents: ['copilot'] }), {}, cache);
    assert.equal(cache.size, 0, 'a file that can no longer pair leaves the cache');
  });

  test('over budget names the agent, the total and the budget; under budget says nothing', () => {
    const files = [{ path: 'CLAUDE.md', text: 'one two three four five six\n' }];
    const m = contextModel({ files, count, agents: ['claude-code'] });
    assert.deepEqual(contextDiagnostics(m, { 'claude-code': 6 }), []);
    const [d] = contextDiagnostics(m, { 'claude-code': 5 });
    assert.equal(d!.code, 'context/over-budget');
    assert.match(d!.message, /Claude Code pays 6 tokens on every request, over its contextBudget of 5/);
  });
});

describe('toonlens context', () => {
  test('text: one table per agent with classes and tokens, then imports and diagnostics', async () => {
    const r = await cli([]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Claude Code: \d+ tokens on every request$/m);
    assert.match(r.stdout, /^ {2}always +\d+ {2}AGENTS\.md {2}\(imported by CLAUDE\.md\)$/m);
    assert.match(r.stdout, /^ {2}matching +\d+ {2}src\/CLAUDE\.md {2}\(when src\/\*\*\)$/m);
    assert.match(r.stdout, /cycle: docs\/a\.md → docs\/b\.md → docs\/a\.md/);
    const forTs = await cli(['--for', 'src/index.ts', '--agent', 'claude-code']);
    assert.match(forTs.stdout, /src\/CLAUDE\.md {2}\(loaded: src\/\*\*\)/);
    assert.doesNotMatch(forTs.stdout, /^Codex/m);
  });

  test('json validates against schemas/context.v1.json; sarif carries the same results', async () => {
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'context.v1.json'), 'utf8')) as object;
    const validate = new AjvDraft07({ strict: false, allErrors: true }).compile(schema);
    for (const args of [['--json'], ['--format', 'json', '--for', 'src/index.ts'], ['--json', '--agent', 'codex,gemini']]) {
      const r = await cli(args);
      const v: unknown = JSON.parse(r.stdout);
      assert.equal(validate(v), true, JSON.stringify(validate.errors));
    }
    const sarif = JSON.parse((await cli(['--format', 'sarif'])).stdout) as { runs: { results: unknown[] }[] };
    assert.equal(sarif.runs[0]!.results.length, 10);
  });

  test('repeated --agent, tokenizer choice, and one-line errors', async () => {
    const two = JSON.parse((await cli(['--json', '--agent', 'codex', '--agent', 'cursor'])).stdout) as { agents: { agent: string }[]; tokenizer: string };
    assert.deepEqual(two.agents.map((a) => a.agent), ['codex', 'cursor']);
    const est = JSON.parse((await cli(['--json', '--tokenizer', 'estimate'])).stdout) as { tokenizer: string };
    assert.match(est.tokenizer, /^tokenx@/);
    const bad = await cli(['--agent', 'bard']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^toonlens context: --agent must be claude-code, codex, copilot, cursor or gemini, not 'bard'/);
    const missing = await cli(['no-such-folder']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /folder not found: no-such-folder/);
    const outside = await cli(['--for', '../elsewhere']);
    assert.equal(outside.code, 2);
    assert.match(outside.stderr, /is outside/);
    const viaMain: string[] = [];
    assert.equal(await main(['context', '--help'], { cwd: MIXED, stdout: (t) => void viaMain.push(t), stderr: () => undefined, readStdin: async () => '' }), 0);
    assert.match(viaMain.join(''), /^Usage: toonlens context/);
  });
});

describe('toonlens check carries the context diagnostics', () => {
  test('on the markdown files it checks, with the root .toonlens.json budget, rules and ignore globs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonlens-context-check-'));
    try {
      cpSync(MIXED, dir, { recursive: true });
      mkdirSync(join(dir, '.git'));
      const check = async (args: string[]) => {
        const out: string[] = [];
        const io: CliIO = { cwd: dir, stdout: (t) => void out.push(t), stderr: () => undefined, readStdin: async () => '' };
        const code = await runCheck(['--format', 'json', ...args], io);
        return { code, reports: JSON.parse(out.join('')) as FileReport[] };
      };
      const codesOf = (rs: FileReport[], file: string) => (rs.find((r) => r.file === file)?.diagnostics ?? []).filter((d) => d.code.startsWith('context/')).map((d) => `${d.range.start.line + 1}:${d.code}`);
      const all = await check(['.']);
      assert.deepEqual(codesOf(all.reports, 'CLAUDE.md'), ['1:context/over-budget', '5:context/duplicate-instruction', '6:context/duplicate-instruction', '7:context/unreachable']);
      assert.deepEqual(codesOf(all.reports, 'docs/b.md'), ['3:context/import-cycle']);
      // A file named alone still gets what the whole repository says about it.
      const one = await check(['AGENTS.md']);
      assert.deepEqual(codesOf(one.reports, 'AGENTS.md'), ['3:context/duplicate-instruction', '4:context/duplicate-instruction']);
      writeFileSync(join(dir, '.toonlens.json'), JSON.stringify({ contextBudget: { 'claude-code': 50 }, rules: { 'context/duplicate-instruction': 'off' }, ignore: ['src/'] }));
      const tuned = await check(['CLAUDE.md']);
      assert.deepEqual(codesOf(tuned.reports, 'CLAUDE.md'), ['1:context/over-budget', '7:context/unreachable']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** The CLI's argv layer: one parser, the producer's error codes, one-line errors, --help with examples, aligned tables. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main, COMMANDS } from '../../server/src/cli/main';
import type { CliIO } from '../../server/src/cli/io';
import { parseCommandArgs, CliError } from '../../server/src/cli/args';
import { displayWidth, truncateToWidth } from '../../server/src/cli/textWidth';
import { REPO_ROOT } from '../paths';

async function run(argv: string[], cwd = REPO_ROOT): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { cwd, stdout: (t) => void (out += t), stderr: (t) => void (err += t), readStdin: async () => '' };
  const code = await main(argv, io);
  return { code, out, err };
}

const md = path.join(REPO_ROOT, 'examples', 'markdown', 'AGENTS.md');

describe('argv parsing (node:util parseArgs)', () => {
  test('--opt=value, --opt value, -h and -- all parse; unknown options and missing values are bad_request', () => {
    const defs = { format: { type: 'string' as const, choices: ['text', 'json'] }, fix: { type: 'boolean' as const } };
    assert.deepEqual(parseCommandArgs(['--format=json', 'a', '--', '--fix'], defs).positionals, ['a', '--fix']);
    assert.equal(parseCommandArgs(['--format', 'json'], defs).values.format, 'json');
    assert.equal(parseCommandArgs(['-h', '--bogus'], defs).help, true, '--help wins over other problems');
    for (const [argv, message] of [
      [['--bogus'], "unknown option '--bogus'"],
      [['--format'], "option '--format' needs a value"],
      [['--fix=yes'], "option '--fix' takes no value"],
      [['--format', 'xml'], "--format must be text or json, not 'xml'"],
    ] as const) {
      assert.throws(() => parseCommandArgs([...argv], defs), (e: unknown) => e instanceof CliError && e.code === 'bad_request' && e.message === message, argv.join(' '));
    }
  });
});

describe("the producer's error codes (doc2toon)", () => {
  test('a missing input is input_not_found, a bad --mode or a budget without target is bad_request; exit 1 as the producer', async () => {
    const cases: [string[], string][] = [
      [['profile', 'no/such.md', '--json'], 'input_not_found'],
      [['convert', 'no/such.md', '--json'], 'input_not_found'],
      [['validate', 'no/such.toon', '--json'], 'input_not_found'],
      [['convert', md, '--json', '--mode', 'fast'], 'bad_request'],
      [['convert', md, '--json', '--mode', 'budget'], 'bad_request'],
      [['convert', md, '--json', '--target-chars', '0'], 'bad_request'],
      [['plan', md, '--json', '--fail-on', 'often'], 'bad_request'],
      [['plan', md, '--json', '--bogus'], 'bad_request'],
      [['profile', '--json'], 'bad_request'],
    ];
    for (const [argv, code] of cases) {
      const r = await run(argv);
      assert.equal(r.code, 1, argv.join(' '));
      const envelope = JSON.parse(r.out) as { error: { code: string; message: string } };
      assert.equal(envelope.error.code, code, argv.join(' '));
      assert.ok(envelope.error.message.length > 0);
      assert.equal(r.err, '', 'under --json stdout carries the envelope alone');
    }
  });

  test('without --json every error is one stderr line; check, apply and schema-diff exit 2', async () => {
    const cases: [string[], number, RegExp][] = [
      [['plan', 'no/such.md'], 1, /^toonlens plan: input file not found: no\/such\.md\n$/],
      [['convert', md, '--mode', 'fast'], 1, /^toonlens convert: --mode must be lossless, record or budget, not 'fast' \(see 'toonlens convert --help'\)\n$/],
      [['check', '--format', 'xml', '.'], 2, /^toonlens check: --format must be text, json or sarif, not 'xml' \(see 'toonlens check --help'\)\n$/],
      [['check'], 2, /^toonlens check: no files, directories or globs given/],
      [['apply', 'no/such.json'], 2, /^toonlens apply: input file not found: no\/such\.json\n$/],
      [['schema-diff', 'a.json'], 2, /^toonlens schema-diff: expected two schema files/],
      [['frobnicate'], 2, /^toonlens: unknown command 'frobnicate' \(commands: check, /],
    ];
    for (const [argv, exit, line] of cases) {
      const r = await run(argv);
      assert.equal(r.code, exit, argv.join(' '));
      assert.match(r.err, line, argv.join(' '));
      assert.equal(r.err.trimEnd().split('\n').length, 1, `one line: ${r.err}`);
    }
  });
});

describe('--help and --version', () => {
  test('every command has --help with examples and an exit status line, on stdout, exit 0', async () => {
    assert.deepEqual(COMMANDS, ['check', 'profile', 'convert', 'plan', 'validate', 'decode', 'apply', 'schema-diff', 'mcp', 'context']);
    for (const c of COMMANDS) {
      for (const h of ['--help', '-h']) {
        const r = await run([c, h]);
        assert.equal(r.code, 0, `${c} ${h}`);
        assert.match(r.out, new RegExp(`^Usage: toonlens ${c}`), c);
        assert.match(r.out, new RegExp(`\\nExamples:\\n  toonlens ${c} `), `${c} has examples`);
        assert.match(r.out, /Exit status:/, c);
      }
      assert.equal((await run(['help', c])).out, (await run([c, '--help'])).out);
    }
    const top = await run(['--help']);
    assert.equal(top.code, 0);
    for (const c of COMMANDS) assert.match(top.out, new RegExp(`\\n  ${c} `));
    const none = await run([]);
    assert.equal(none.code, 2);
    assert.equal(none.out, '');
    assert.match(none.err, /^toonlens \d/);
  });

  test('--version everywhere prints the package version', async () => {
    const { version } = (await import('../../package.json', { with: { type: 'json' } })).default as { version: string };
    for (const argv of [['--version'], ['-v'], ['check', '--version'], ['plan', '--version']]) {
      const r = await run(argv);
      assert.equal(r.code, 0);
      assert.equal(r.out, `${version}\n`);
    }
  });
});

describe('plan table with wide characters', () => {
  test('display width: CJK and emoji two cells, combining marks none', () => {
    assert.equal(displayWidth('abc'), 3);
    assert.equal(displayWidth('設定'), 4);
    assert.equal(displayWidth('한국어'), 6);
    assert.equal(displayWidth('e\u0301'), 1);
    assert.equal(displayWidth('🚀 go'), 5);
    assert.equal(displayWidth(truncateToWidth('設定設定設定設定設定設定設定設定設定設定設定設定', 40)), 39);
  });

  test('columns line up in terminal cells with CJK headings', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toonlens-cjk-'));
    const file = path.join(dir, 'cjk.md');
    writeFileSync(
      file,
      '# 設定ガイド\n\n| キー | 値 |\n| --- | --- |\n| a | 1 |\n| b | 2 |\n\n## 한국어 섹션\n\n- 항목 하나\n- 항목 둘\n\n## Plain section\n\nSome text here.\n\n## 非常に長い見出しはここで表の幅を超えてしまうので切り詰められる必要がある\n\nBody.\n',
    );
    const r = await run(['plan', file], dir);
    assert.equal(r.code, 0, r.err);
    const lines = r.out.split('\n');
    const header = lines[1]!;
    const rows = lines.slice(3, lines.indexOf(''));
    assert.equal(rows.length, 4);
    const json = JSON.parse((await run(['plan', file, '--json'], dir)).out) as { context_plan: { sections: { profile: string; verdict: string }[] } };
    for (const col of ['profile', 'verdict'] as const) {
      const at = displayWidth(header.slice(0, header.indexOf(col)));
      rows.forEach((row, i) => {
        const value = json.context_plan.sections[i]![col];
        const idx = row.indexOf(`  ${value}`) + 2;
        assert.equal(displayWidth(row.slice(0, idx)), at, `${col} column of row ${i}: ${row}`);
      });
    }
    assert.ok(rows.every((r) => displayWidth(r.split('  ')[0]!) <= 40));
  });
});

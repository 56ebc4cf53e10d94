/**
 * Long pieces and deep nesting through `toonlens plan` and `toonlens check`: every shape grows linearly. Each
 * shape is planned at 20 K and at 160 K characters through the CLI's own plan command, in this process; linear
 * work grows about 8×, the quadratic steps these shapes used to hit grew about 64×, and the test fails above 10×.
 * Only a ratio of CPU times measured in one run, never a wall time: the least time of several runs of each size
 * (noise only ever adds time), the small size repeated within each run so its figure is not one timer tick.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run as runPlan } from '../../server/src/cli/plan';
import { run as runCheck, type FileReport } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { EngineCache } from '../../server/src/core/markdown/engine';
import { clearTokenMergeCaches, PIECE_BOUND, pieceCounter, tokenizer } from '../../server/src/core/tokens';

let dir: string;

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'toonlens-linear-plan-'));
  mkdirSync(join(dir, '.git'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function captureIO(): { io: CliIO; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { cwd: dir, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readStdin: async () => '' }, out, err };
}

/** CPU milliseconds (user + system) of `fn`. */
async function cpuMs(fn: () => Promise<unknown>): Promise<number> {
  const c0 = process.cpuUsage();
  await fn();
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000;
}

/** `toonlens plan <file>` in this process, the BPE merge cache emptied first (a repeated piece would hit it). */
async function plan(file: string): Promise<void> {
  clearTokenMergeCaches();
  const { io, err } = captureIO();
  const code = await runPlan([file], io);
  assert.equal(code, 0, err.join(''));
}

/** Least CPU time per run of `fn`, each measurement repeating it until `floorMs` of CPU have passed. */
async function leastMs(fn: () => Promise<unknown>, rounds: number, floorMs: number): Promise<number> {
  let best = Infinity;
  for (let k = 0; k < rounds; k++) {
    let runs = 0;
    let ms = 0;
    do {
      ms += await cpuMs(fn);
      runs++;
    } while (ms < floorMs);
    best = Math.min(best, ms / runs);
  }
  return best;
}

const LIMIT = 10;

async function assertLinear(name: string, make: (chars: number) => string): Promise<void> {
  const small = join(dir, `${name}-20k.md`);
  const large = join(dir, `${name}-160k.md`);
  writeFileSync(small, make(20_000));
  writeFileSync(large, make(160_000));
  await plan(small); // warm-up: the JIT and the tokenizer's ranks
  // A busy machine only ever adds time, to either size: the least ratio of a few attempts is kept. A quadratic
  // step exceeds the limit in every attempt, so retrying never hides one.
  let ratio = Infinity;
  for (let attempt = 0; attempt < 3 && ratio > LIMIT; attempt++) {
    const s = await leastMs(() => plan(small), 3, 30);
    const l = await leastMs(() => plan(large), 3, 0);
    ratio = Math.min(ratio, l / s);
  }
  if (ratio <= LIMIT) return;
  // A step in cost that is not growth: markdown-it's per-line arrays leave V8's young generation once a
  // document has some tens of thousands of lines, which one shape of 20 K lines and the other of 160 K straddle.
  // Past that step the cost must be linear: doubling the large size (both sides past the step) costs about 2×;
  // a quadratic step costs 4× there, as it costs 64× over the 8× range.
  const larger = join(dir, `${name}-320k.md`);
  writeFileSync(larger, make(320_000));
  let doubling = Infinity;
  for (let attempt = 0; attempt < 3 && doubling > DOUBLING_LIMIT; attempt++) {
    const l = await leastMs(() => plan(large), 3, 0);
    const xl = await leastMs(() => plan(larger), 3, 0);
    doubling = Math.min(doubling, xl / l);
  }
  assert.ok(
    doubling <= DOUBLING_LIMIT,
    `${name}: cpu(160 K) / cpu(20 K) = ${ratio.toFixed(1)}× (linear ≈ 8×, limit ${LIMIT}×) and cpu(320 K) / cpu(160 K) = ${doubling.toFixed(1)}× (linear ≈ 2×, limit ${DOUBLING_LIMIT}×)`,
  );
}

const DOUBLING_LIMIT = 2.8;

const times = (s: string, chars: number) => s.repeat(Math.max(1, Math.round(chars / s.length)));

/** The shapes, each about `chars` characters long. */
const SHAPES: Record<string, (chars: number) => string> = {
  'one word of letters': (n) => '# Notes\n\n' + 'a'.repeat(n) + '\n',
  'a run of spaces': (n) => '# Notes\n\nx' + ' '.repeat(n) + 'y\n',
  backslashes: (n) => '# Notes\n\n' + '\\'.repeat(n) + '\n',
  '= in a table cell': (n) => '# Table\n\n| a | b |\n| --- | --- |\n| ' + '='.repeat(n) + ' | x |\n',
  'a long sentence': (n) => '# Rules\n\nThe agent must ' + times('check the file before it writes and ', n) + 'stop.\n',
  'a long sentence without spaces (CJK)': (n) => '# 规则\n\n' + times('代理必须在写入之前检查文件', n) + '。\n',
  'a heading with spaces': (n) => '# a' + ' '.repeat(n) + 'b\n\ntext\n',
  'a CRLF fence': (n) => '# Code\r\n\r\n```\r\n' + times('code line\r\n', n / 2) + '\r\n'.repeat(n / 4) + '```\r\n',
  'an unclosed <!--': (n) => '# Notes\n\n<!--' + times('hidden text\n', n / 2) + '-'.repeat(n / 2) + '\n',
  'nested brackets': (n) => '# Links\n\n' + '['.repeat(n / 2) + 'a' + ']'.repeat(n / 2) + '\n',
  'many headings on a line': (n) => '# ' + times('# a ', n / 2) + '#'.repeat(n / 2) + '\n',
  'nested > markers': (n) => '# Quote\n\n' + '> '.repeat(n / 2) + 'x\n',
  'nested list markers': (n) => '# List\n\n' + times('- ', n / 2) + 'x' + ' '.repeat(n / 2) + '\n',
  'nested ordered items and quotes': (n) => '# Mixed\n\ntext\n' + times('1. > ', n) + 'x -\n',
};

describe('linear planning of long pieces and deep nesting (toonlens plan, 20 K → 160 K characters)', () => {
  for (const [name, make] of Object.entries(SHAPES)) {
    test(name, async () => {
      await assertLinear(name.replace(/[^a-z0-9]+/gi, '-'), make);
    });
  }
});

describe('long pre-tokens are counted in bounded chunks', () => {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const lib = require('gpt-tokenizer/encoding/o200k_base') as {
    countTokens(t: string, o: object): number;
    default: { bytePairEncodingCoreProcessor: { tokenSplitRegex: RegExp; getBpeRankFromString(p: string): number | undefined; bytePairEncode(p: string): number[] } };
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const core = lib.default.bytePairEncodingCoreProcessor;
  const plain = { disallowedSpecial: new Set<string>() };

  test('no BPE call ever sees more than PIECE_BOUND characters; pieces up to it are counted exactly', () => {
    let longest = 0;
    const spy = {
      tokenSplitRegex: core.tokenSplitRegex,
      getBpeRankFromString: (p: string) => core.getBpeRankFromString(p),
      bytePairEncode: (p: string) => {
        longest = Math.max(longest, p.length);
        return core.bytePairEncode(p);
      },
    };
    const count = pieceCounter(spy)!;
    for (const make of Object.values(SHAPES)) count(make(20_000));
    assert.ok(longest <= PIECE_BOUND, `a BPE call on ${longest} characters`);
    for (const n of [PIECE_BOUND - 1, PIECE_BOUND]) {
      for (const t of ['a'.repeat(n), 'x' + ' '.repeat(n - 1), '\\'.repeat(n), '='.repeat(n), '['.repeat(n), '🧪'.repeat(n / 2), 'zq'.repeat(n / 2)]) {
        assert.equal(count(t), lib.countTokens(t, plain), `${JSON.stringify(t.slice(0, 4))}… of ${t.length}`);
      }
    }
  });

  test('a longer piece: within one token per chunk of the exact count; a surrogate pair is never cut', () => {
    const o = tokenizer('o200k_base');
    let seed = 7;
    const pick = (alphabet: string) => alphabet[((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % alphabet.length]!;
    const random = (alphabet: string, n: number) => Array.from({ length: n }, () => pick(alphabet)).join('');
    const texts = ['a'.repeat(3000), ' '.repeat(3000) + 'x', '\\'.repeat(3000), '='.repeat(3000), random('abcdefghijklmnopqrstuvwxyz', 3000), random('=-*#[]\\/|', 3000), random('代理必须在写入之前检查文件', 3000)];
    for (const t of texts) {
      const exact = lib.countTokens(t, plain);
      const chunks = Math.ceil(t.length / PIECE_BOUND);
      assert.ok(Math.abs(o.count(t) - exact) <= chunks, `${JSON.stringify(t.slice(0, 6))}…: ${o.count(t)} vs exact ${exact}`);
    }
    // An emoji is two UTF-16 units; cut between them, each half would count as replacement bytes.
    const emoji = 'x' + '🧪'.repeat(2000);
    assert.equal(o.count(emoji), lib.countTokens(emoji, plain));
  });
});

describe('deep nesting in toonlens check', () => {
  async function check(args: string[]): Promise<{ code: number; reports: FileReport[]; stderr: string }> {
    const { io, out, err } = captureIO();
    const code = await runCheck(['--format', 'json', ...args], io);
    return { code, reports: JSON.parse(out.join('')) as FileReport[], stderr: err.join('') };
  }
  const OTHER = JSON.stringify({ schema_version: '1.0', verdict: 'maybe' }, null, 2);

  test('5,000 nested > or list markers: the file is checked and so is the next one', async () => {
    writeFileSync(join(dir, 'other.verdict.json'), OTHER);
    for (const [name, text] of [
      ['quotes.md', '# Q\n\n' + '>'.repeat(5000) + ' x\n'],
      ['spaced-quotes.md', '# Q\n\ntext\n' + '> '.repeat(5000) + 'x\n'],
      ['lists.md', '# L\n\n' + '- '.repeat(5000) + 'x\n'],
      ['ordered.md', '# L\n\n' + '1. '.repeat(5000) + 'x\n'],
    ] as const) {
      writeFileSync(join(dir, name), text);
      const r = await check([name, 'other.verdict.json']);
      assert.equal(r.stderr.includes('call stack'), false, r.stderr);
      assert.deepEqual(r.reports.map((x) => x.file), [name, 'other.verdict.json'], name);
      assert.ok(r.reports[1]!.diagnostics.some((d) => d.severity === 'error'), 'the verdict file is reported');
    }
  });

  test('a file whose check throws is named on stderr, and the other files are still reported (exit 2)', async () => {
    writeFileSync(join(dir, 'boom.md'), '# Boom\n\nTHROW-HERE\n');
    writeFileSync(join(dir, 'fine.md'), '# Fine\n\nThe agent must run the tests.\n');
    writeFileSync(join(dir, 'other.verdict.json'), OTHER);
    const original = EngineCache.prototype.plan;
    EngineCache.prototype.plan = function (this: EngineCache, text: string, ...rest: unknown[]) {
      if (text.includes('THROW-HERE')) throw new RangeError('Maximum call stack size exceeded');
      return (original as (...a: unknown[]) => ReturnType<EngineCache['plan']>).call(this, text, ...rest);
    } as EngineCache['plan'];
    try {
      const r = await check(['boom.md', 'fine.md', 'other.verdict.json']);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /boom\.md: not checked, internal error: Maximum call stack size exceeded/);
      assert.deepEqual(r.reports.map((x) => x.file), ['fine.md', 'other.verdict.json']);
    } finally {
      EngineCache.prototype.plan = original;
    }
  });
});

/**
 * `toonlens check`'s command-line conventions, on real files in a temporary folder: standard input (`-`,
 * `--stdin-filename`), `.gitignore` (and `--no-gitignore`), `--ignore`, `--quiet`, `--max-warnings`,
 * `--output-file`, colors (NO_COLOR / FORCE_COLOR), the summary line, progress on a terminal, and the exit codes
 * every command gives for the same failure.
 */
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, summaryLine, PROGRESS_AFTER_MS } from '../../server/src/cli/check';
import { main } from '../../server/src/cli/main';
import { colorWanted, type CliIO } from '../../server/src/cli/io';
import { isGitIgnored, parseGitignore } from '../../server/src/core/gitignore';
import { REPO_ROOT } from '../paths';

let dir: string;
const ESC = String.fromCharCode(27);
const BROKEN_FENCE = '# Data\n\n```toon\nitems[3]: a,b\n```\n';

function capture(extra: Partial<CliIO> = {}, stdin = ''): CliIO & { out: () => string; err: () => string } {
  const out: string[] = [];
  const err: string[] = [];
  return { cwd: dir, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readStdin: async () => stdin, ...extra, out: () => out.join(''), err: () => err.join('') };
}

async function check(args: string[], extra: Partial<CliIO> = {}, stdin = '') {
  const io = capture(extra, stdin);
  const code = await run(args, io);
  return { code, stdout: io.out(), stderr: io.err() };
}

const files = (stdout: string) => [...new Set(stdout.split('\n').filter(Boolean).map((l) => l.split(':')[0]))].sort();

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'toonlens-conventions-'));
  mkdirSync(join(dir, '.git'));
  cpSync(join(REPO_ROOT, 'examples', 'markdown'), join(dir, 'docs'), { recursive: true });
  mkdirSync(join(dir, 'build', 'out'), { recursive: true });
  writeFileSync(join(dir, 'build', 'out', 'broken.md'), BROKEN_FENCE);
  mkdirSync(join(dir, 'vendor'));
  writeFileSync(join(dir, 'vendor', 'broken.md'), BROKEN_FENCE);
  writeFileSync(join(dir, 'docs', 'keep-broken.md'), BROKEN_FENCE);
  writeFileSync(join(dir, 'docs', 'drop-broken.md'), BROKEN_FENCE);
  writeFileSync(join(dir, '.gitignore'), '# build output\nbuild/\n*-broken.md\n!keep-broken.md\n');
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('standard input', () => {
  test("'-' with --stdin-filename is checked as that file", async () => {
    const r = await check(['--stdin-filename', 'notes/AGENTS.md', '-'], {}, BROKEN_FENCE);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^notes\/AGENTS\.md:4:1 error toon\/fence-decode /m);
    assert.match(r.stderr, /1 document checked: 1 error/);
  });
  test('--stdin without a name checks agent JSON by its content, reported as <stdin>', async () => {
    const verdict = readFileSync(join(REPO_ROOT, 'examples', 'agent-json', 'unknown-verdict.verdict.json'), 'utf8');
    const r = await check(['--stdin', '--kind', 'verdict'], {}, verdict);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /^<stdin>:\d+:\d+ error /m);
  });
  test('bad combinations are usage errors (exit 2)', async () => {
    for (const args of [['-', 'docs'], ['-', '-'], ['--stdin-filename', 'a.md', 'docs'], ['--fix', '-']]) {
      const r = await check(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.stderr, /^toonlens check: .+ \(see 'toonlens check --help'\)\n$/, args.join(' '));
    }
  });
});

describe('.gitignore and --ignore', () => {
  test('a walk honours .gitignore: folders, globs at any depth, negation; named files are still read', async () => {
    const r = await check(['.']);
    const seen = files(r.stdout);
    assert.ok(seen.includes('docs/keep-broken.md'), seen.join(', '));
    assert.ok(!seen.includes('docs/drop-broken.md'), 'a *-broken.md at any depth is ignored');
    assert.ok(!seen.some((f) => f!.startsWith('build/')), 'build/ is ignored');
    assert.ok(seen.includes('vendor/broken.md'));
    const named = await check(['docs/drop-broken.md']);
    assert.match(named.stdout, /^docs\/drop-broken\.md:4:1 error/m);
  });
  test('--no-gitignore walks everything; a walk started below the root still reads the root .gitignore', async () => {
    const all = files((await check(['--no-gitignore', '.'])).stdout);
    assert.ok(all.includes('docs/drop-broken.md') && all.includes('build/out/broken.md'), all.join(', '));
    const sub = files((await check(['docs'])).stdout);
    assert.ok(!sub.includes('docs/drop-broken.md'), sub.join(', '));
  });
  test('--ignore (repeatable) skips walked and glob-matched files; a bare name matches at any depth', async () => {
    const r = await check(['--ignore', 'vendor', '--ignore', 'docs/keep-*', '.']);
    const seen = files(r.stdout);
    assert.ok(!seen.includes('vendor/broken.md') && !seen.includes('docs/keep-broken.md'), seen.join(', '));
    assert.ok(seen.includes('docs/AGENTS.md') || seen.includes('docs/long-section.md'), seen.join(', '));
    const glob = await check(['--ignore', '**/keep-*', 'docs/*.md']);
    assert.ok(!files(glob.stdout).includes('docs/keep-broken.md'));
  });
  test('gitignore parsing: comments, escapes, anchored and dir-only patterns', () => {
    const f = parseGitignore('# c\n\\#lit\n/top.md\nsub/x.md\nlogs/\n*.tmp\n!keep.tmp\n', '');
    assert.ok(isGitIgnored([f], '#lit', false));
    assert.ok(isGitIgnored([f], 'top.md', false) && !isGitIgnored([f], 'a/top.md', false));
    assert.ok(isGitIgnored([f], 'sub/x.md', false) && !isGitIgnored([f], 'a/sub/x.md', false));
    assert.ok(isGitIgnored([f], 'a/logs', true) && !isGitIgnored([f], 'a/logs', false));
    assert.ok(isGitIgnored([f], 'a/b.tmp', false) && !isGitIgnored([f], 'a/keep.tmp', false));
    const deeper = parseGitignore('!b.tmp\n', 'a');
    assert.ok(!isGitIgnored([f, deeper], 'a/b.tmp', false), 'a deeper file re-includes');
  });
});

describe('output and exit status', () => {
  test('--quiet reports errors only; the summary still counts every severity', async () => {
    const full = await check(['docs']);
    const quiet = await check(['--quiet', 'docs']);
    assert.match(full.stdout, / (warning|info) /);
    assert.doesNotMatch(quiet.stdout, / (warning|info|hint) toon/);
    assert.match(quiet.stdout, / error /);
    assert.equal(full.stderr.replace(/ \(only errors shown: --quiet\)/, ''), quiet.stderr.replace(/ \(only errors shown: --quiet\)/, ''));
    assert.match(full.stderr, /^\d+ documents checked: \d+ errors?, \d+ warnings?, \d+ infos?, \d+ hints?\n$/);
  });
  test('--max-warnings N: exit 1 above N warnings, 0 at or below (with no error)', async () => {
    const warnOnly = join(dir, 'warn');
    mkdirSync(warnOnly, { recursive: true });
    cpSync(join(REPO_ROOT, 'examples', 'markdown', 'duplicate-rules.md'), join(warnOnly, 'AGENTS.md')); // duplicate-rule: advice for agent files
    const base = await check(['warn']);
    const warnings = Number(/(\d+) warnings?/.exec(base.stderr)![1]);
    assert.ok(warnings > 0 && base.code === 0, base.stderr);
    assert.equal((await check(['--max-warnings', String(warnings), 'warn'])).code, 0);
    const over = await check(['--max-warnings', String(warnings - 1), 'warn']);
    assert.equal(over.code, 1);
    assert.match(over.stderr, /more than --max-warnings/);
    assert.equal((await check(['--max-warnings', 'x', 'warn'])).code, 2);
  });
  test('--output-file writes the report there, nothing to stdout', async () => {
    const r = await check(['--format', 'sarif', '--output-file', 'out.sarif', 'vendor']);
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    const log = JSON.parse(readFileSync(join(dir, 'out.sarif'), 'utf8')) as { version: string; runs: { results: unknown[] }[] };
    assert.equal(log.version, '2.1.0');
    assert.equal(log.runs[0]!.results.length, 1);
    const bad = await check(['--output-file', join(dir, 'no', 'such', 'dir', 'x.txt'), 'vendor']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /cannot write/);
    assert.ok(!existsSync(join(dir, 'no')));
  });
  test('colors only when asked for: a TTY or FORCE_COLOR, never NO_COLOR', async () => {
    const colored = await check(['vendor'], { color: true });
    assert.ok(colored.stdout.includes(`${ESC}[31merror${ESC}[39m`), colored.stdout);
    assert.ok(!(await check(['vendor'])).stdout.includes(ESC));
    assert.ok(!(await check(['--format', 'json', 'vendor'], { color: true })).stdout.includes(ESC));
    assert.equal(colorWanted({}, true), true);
    assert.equal(colorWanted({}, false), false);
    assert.equal(colorWanted({ NO_COLOR: '1' }, true), false);
    assert.equal(colorWanted({ NO_COLOR: '' }, true), true);
    assert.equal(colorWanted({ FORCE_COLOR: '1' }, false), true);
    assert.equal(colorWanted({ FORCE_COLOR: '0' }, true), false);
    assert.equal(colorWanted({ TERM: 'dumb' }, true), false);
  });
  test('progress on a terminal once a run passes the threshold, erased at the end; none off a terminal', async () => {
    let t = 0;
    const now = () => (t += PROGRESS_AFTER_MS / 2);
    const tty = await check(['--no-gitignore', '.'], { stderrIsTTY: true, now });
    assert.match(tty.stderr, /\rtoonlens check: \d+\/\d+ files…/);
    assert.match(tty.stderr, new RegExp(`\\r${ESC}\\[K\\d+ documents checked`));
    t = 0;
    const pipe = await check(['--no-gitignore', '.'], { stderrIsTTY: false, now });
    assert.doesNotMatch(pipe.stderr, /files…/);
    t = 0;
    const fast = await check(['--no-gitignore', '.'], { stderrIsTTY: true, now: () => 0 });
    assert.doesNotMatch(fast.stderr, /files…/);
  });
  test('summaryLine counts every severity', () => {
    assert.equal(summaryLine(1, { error: 0, warning: 2, info: 1, hint: 0 }), '1 document checked: 0 errors, 2 warnings, 1 info, 0 hints');
  });
  test('the same failure gives the same exit status in every command, but the engine commands (docs/cli.md)', async () => {
    const status = async (argv: string[]) => main(argv, capture());
    // A missing input: 2 for check, apply and schema-diff; 1 for the producer-compatible engine commands.
    assert.equal(await status(['check', 'nope.md']), 2);
    assert.equal(await status(['apply', 'nope.json']), 2);
    assert.equal(await status(['schema-diff', 'nope.json', 'nope2.json']), 2);
    for (const c of ['profile', 'convert', 'plan', 'validate', 'decode']) assert.equal(await status([c, 'nope.md']), 1, c);
    // A bad option: the same split.
    assert.equal(await status(['check', '--nope', '.']), 2);
    assert.equal(await status(['plan', '--nope', 'x.md']), 1);
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'cli.md'), 'utf8');
    assert.match(doc, /## Exit status/);
    assert.match(doc, /`profile`, `convert`, `plan`, `validate` and `decode` are drop-ins[^]*?so they exit 1/);
  });
});

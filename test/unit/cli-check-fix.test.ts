/**
 * `check --fix` with the opt-in fixes of `.toonlens.json` `fix` (compactTables), `--fix-dry-run`, and the MCP `fix`
 * tool on the same files: what is written renders the same HTML (markdown-it), nothing is written without the key,
 * to a file that is not markdown or has no table, to a file that changed meanwhile, or on a second run.
 */
import { describe, test, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import MarkdownIt from 'markdown-it';
import { run, summaryLine, type FileReport } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { fixText } from '../../server/src/mcp/check';
import { configDiagnostics, parseConfig } from '../../server/src/core/config';
import { writeHooks } from '../../server/src/node/safeWrite';
import { FIXTURES, REPO_ROOT } from '../paths';

const md = MarkdownIt('commonmark').enable(['table', 'strikethrough']);
const FIXTURE = join(FIXTURES, 'markdown', 'padded-tables.md');
const ENABLED = '{ "fix": { "compactTables": true } }\n';

let dir: string;

async function check(args: string[], stdin = '') {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIO = { cwd: dir, stdout: (t) => void out.push(t), stderr: (t) => void err.push(t), readStdin: async () => stdin };
  const code = await run(args, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

/** Each top-level table of a text as markdown-it renders it alone, in document order. */
function renderedTables(text: string): string[] {
  const lines = text.split('\n');
  return md
    .parse(text, {})
    .filter((t) => t.type === 'table_open' && t.level === 0 && t.map)
    .map((t) => md.render(lines.slice(t.map![0], t.map![1]).join('\n')));
}

const read = (rel: string) => readFileSync(join(dir, rel));

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'toonlens-fix-'));
  mkdirSync(join(dir, '.git')); // the project root: config lookup and writes stay inside it
  mkdirSync(join(dir, 'docs'));
  cpSync(FIXTURE, join(dir, 'docs', 'service.md'));
  writeFileSync(join(dir, 'docs', 'notes.md'), '# Notes\n\nNo table here, only   padded   prose.\n');
  // Not markdown: a table-shaped .toon file and a verdict JSON are never compacted.
  writeFileSync(join(dir, 'docs', 'rows.toon'), 'rows[2]{a,b}:\n  1,  2\n  3,  4\n');
  cpSync(join(REPO_ROOT, 'examples', 'agent-json', 'unknown-verdict.verdict.json'), join(dir, 'docs', 'plan.verdict.json'));
});
afterEach(() => {
  writeHooks.beforeRename = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('check --fix with "fix": { "compactTables": true }', () => {
  test('compacts every top-level table: the same HTML, table by table and whole, and a smaller file', async () => {
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const before = read('docs/service.md').toString('utf8');
    const r = await check(['--fix', 'docs']);
    assert.equal(r.code, 1, r.stderr); // the verdict fixture's schema error remains
    const after = read('docs/service.md').toString('utf8');
    assert.ok(after.length < before.length, `${after.length} < ${before.length} bytes`);
    assert.equal(md.render(after), md.render(before));
    const tables = renderedTables(before);
    assert.equal(tables.length, 2, 'the fixture has two top-level tables (a third sits in a list)');
    assert.deepEqual(renderedTables(after), tables);
    assert.match(after, /^\|Method\|Path\|Auth\|Notes\|\n\|:-\|:-\|:-:\|-:\|$/m);
    assert.match(after, /^ {3}\| Metric {4}\| Target {2}\|$/m, 'a table inside a list keeps its padding');
    assert.match(r.stderr, /^toonlens check: fixed docs\/service\.md \(2 tables compacted\)$/m);
    assert.match(r.stderr, /; 2 fixes applied in 1 file$/m);
    assert.ok(!readdirSync(join(dir, 'docs')).some((f) => f.includes('.toonlens-')), 'no temp file left');

    // Idempotent: a second run writes nothing.
    const mtime = statSync(join(dir, 'docs', 'service.md')).mtimeMs;
    const again = await check(['--fix', 'docs']);
    assert.equal(read('docs/service.md').toString('utf8'), after);
    assert.equal(statSync(join(dir, 'docs', 'service.md')).mtimeMs, mtime);
    assert.doesNotMatch(again.stderr, /fixed/);
    assert.match(again.stderr, /; 0 fixes applied$/m);
  });

  test('a file that is not markdown, or markdown without a table, is left byte for byte', async () => {
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const untouched = ['docs/notes.md', 'docs/rows.toon', 'docs/plan.verdict.json'];
    const before = untouched.map((f) => [read(f), statSync(join(dir, f)).mtimeMs] as const);
    await check(['--fix', 'docs']);
    untouched.forEach((f, i) => {
      assert.deepEqual(read(f), before[i]![0], f);
      assert.equal(statSync(join(dir, f)).mtimeMs, before[i]![1], f);
    });
  });

  test('without the key (or with it false) nothing is written, and plain check never writes', async () => {
    const original = read('docs/service.md');
    for (const config of [undefined, '{}\n', '{ "fix": {} }\n', '{ "fix": { "compactTables": false } }\n']) {
      if (config === undefined) rmSync(join(dir, '.toonlens.json'), { force: true });
      else writeFileSync(join(dir, '.toonlens.json'), config);
      const r = await check(['--fix', 'docs/service.md']);
      assert.deepEqual(read('docs/service.md'), original, String(config));
      assert.doesNotMatch(r.stderr, /fixed/);
    }
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const plain = await check(['docs/service.md']);
    assert.equal(plain.code, 0, plain.stderr);
    assert.deepEqual(read('docs/service.md'), original, 'check without --fix writes nothing');
    assert.doesNotMatch(plain.stderr, /fix/);
  });

  test('a file changed after it was checked is not overwritten: the change is kept, the run exits 2', async () => {
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const theirs = '# Saved by someone else\n\n| a   | b   |\n| --- | --- |\n| 1   | 2   |\n';
    writeHooks.beforeRename = (real) => writeFileSync(real, theirs);
    const r = await check(['--fix', 'docs/service.md']);
    writeHooks.beforeRename = undefined;
    assert.equal(r.code, 2);
    assert.equal(read('docs/service.md').toString('utf8'), theirs);
    assert.match(r.stderr, /not fixed 'docs\/service\.md': /);
    assert.ok(!readdirSync(join(dir, 'docs')).some((f) => f.includes('.toonlens-')), 'no temp file left');
  });

  test('a file that is not valid UTF-8 is never rewritten (its bytes would be lost)', async () => {
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const bytes = Buffer.concat([Buffer.from('# Caf'), Buffer.from([0xe9]), Buffer.from('\n\n| a   | b   |\n| --- | --- |\n| 1   | 2   |\n')]);
    writeFileSync(join(dir, 'docs', 'latin1.md'), bytes);
    const r = await check(['--fix', 'docs/latin1.md']);
    assert.equal(r.code, 2);
    assert.deepEqual(read('docs/latin1.md'), bytes);
    assert.match(r.stderr, /not fixed 'docs\/latin1\.md': not valid UTF-8/);
  });

  test('CRLF line endings and a BOM are kept', async () => {
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const text = '\ufeff# T\r\n\r\n| a   | b   |\r\n| --- | --- |\r\n| 1   | 2   |\r\n';
    writeFileSync(join(dir, 'docs', 'crlf.md'), text);
    await check(['--fix', 'docs/crlf.md']);
    assert.equal(read('docs/crlf.md').toString('utf8'), '\ufeff# T\r\n\r\n|a|b|\r\n|-|-|\r\n|1|2|\r\n');
  });
});

describe('check --fix-dry-run', () => {
  test('writes nothing, says what it would fix, and gives the text --fix would write (JSON: output)', async () => {
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const original = read('docs/service.md');
    const dry = await check(['--fix-dry-run', '--format', 'json', 'docs/service.md', 'docs/notes.md']);
    assert.deepEqual(read('docs/service.md'), original);
    assert.match(dry.stderr, /^toonlens check: would fix docs\/service\.md \(2 tables compacted\)$/m);
    const [service, notes] = JSON.parse(dry.stdout) as FileReport[];
    assert.equal(notes!.output, undefined, 'no output for a file no fix applies to');
    const text = await check(['--fix-dry-run', 'docs/service.md']);
    assert.match(text.stderr, /; 2 fixes would apply in 1 file$/m);
    await check(['--fix', 'docs/service.md']);
    assert.equal(service!.output, read('docs/service.md').toString('utf8'));
  });

  test('works on standard input; --fix and --fix-dry-run together are a usage error', async () => {
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const r = await check(['--fix-dry-run', '--format', 'json', '--stdin-filename', 'docs/in.md', '-'], '| a   | b   |\n| --- | --- |\n| 1   | 2   |\n');
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as FileReport[])[0]!.output, '|a|b|\n|-|-|\n|1|2|\n');
    const both = await check(['--fix', '--fix-dry-run', 'docs']);
    assert.equal(both.code, 2);
    assert.match(both.stderr, /--fix and --fix-dry-run cannot be used together/);
  });
});

describe('the fix key in .toonlens.json, and the MCP fix tool', () => {
  test('"fix" is an object of known switches: a boolean or an unknown key is a config problem', () => {
    assert.deepEqual(parseConfig(ENABLED).config.fix, { compactTables: true });
    assert.deepEqual(parseConfig(ENABLED).problems, []);
    assert.deepEqual(configDiagnostics('{ "fix": true }').map((d) => d.code), ['schema']);
    assert.match(configDiagnostics('{ "fix": { "compactTable": true } }')[0]!.message, /unknown property "compactTable"/);
  });

  test('the MCP fix tool returns exactly what check --fix writes, and leaves a file without the key alone', async () => {
    writeFileSync(join(dir, '.toonlens.json'), ENABLED);
    const abs = join(dir, 'docs', 'service.md');
    const text = read('docs/service.md').toString('utf8');
    const fixed = fixText(text, { abs, shown: 'docs/service.md', root: dir });
    assert.equal(read('docs/service.md').toString('utf8'), text, 'the tool never writes');
    assert.equal(fixed.changed, true);
    assert.equal(fixed.fixes, 2);
    const r = await check(['--fix', '--format', 'json', 'docs/service.md']);
    assert.equal(fixed.text, read('docs/service.md').toString('utf8'));
    assert.deepEqual(fixed.remaining, (JSON.parse(r.stdout) as FileReport[])[0]);
    writeFileSync(join(dir, '.toonlens.json'), '{}\n');
    const off = fixText(text, { abs, shown: 'docs/service.md', root: dir });
    assert.deepEqual([off.changed, off.fixes, off.text], [false, 0, text]);
  });

  test('the summary line counts fixes only on a fixing run', () => {
    const counts = { error: 0, warning: 1, info: 0, hint: 0 };
    assert.equal(summaryLine(2, counts), '2 documents checked: 0 errors, 1 warning, 0 infos, 0 hints');
    assert.equal(summaryLine(2, counts, false, { fixes: 1, files: 1, dryRun: false }), '2 documents checked: 0 errors, 1 warning, 0 infos, 0 hints; 1 fix applied in 1 file');
  });
});

import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { decode } from '@toon-format/toon';
import { main } from '../../server/src/cli/main';
import type { CliIO } from '../../server/src/cli/io';
import { SPECS, CORPUS_INPUTS } from '../paths';

const repoRoot = path.resolve(__dirname, '..', '..');
const inputs = CORPUS_INPUTS;
const ajv = new Ajv2020({ strict: false });
type Json = any;
const validateVerdict = ajv.compile(JSON.parse(readFileSync(path.join(SPECS, 'verdict.v1.schema.json'), 'utf8')));

async function run(argv: string[], opts: { stdin?: string; cwd?: string } = {}): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    readStdin: async () => opts.stdin ?? '',
    cwd: opts.cwd ?? repoRoot,
  };
  const code = await main(argv, io);
  return { code, out, err };
}

const split = path.join(inputs, 'upstream__fixtures__agent-context__problematic__split-candidate.md');
const config = path.join(inputs, 'upstream__fixtures__agent-context__realistic__config-reference.md');

describe('toonlens profile/convert/plan', () => {
  test('profile --json prints a schema-valid 1.0 verdict with toon_candidate null', async () => {
    const r = await run(['profile', split, '--json']);
    assert.equal(r.code, 0);
    const v: Json = JSON.parse(r.out);
    assert.equal(validateVerdict(v), true);
    assert.equal(v.schema_version, '1.0');
    assert.equal(v.toon_candidate, null);
    assert.equal(v.verdict, 'split_first');
    assert.equal(v.profile.source_type, 'markdown');
  });

  test('--fail-on matches a verdict or a severity → exit 1; otherwise 0', async () => {
    assert.equal((await run(['profile', split, '--json', '--fail-on', 'split_first'])).code, 1);
    assert.equal((await run(['profile', split, '--fail-on', 'info'])).code, 1);
    assert.equal((await run(['profile', split, '--fail-on', 'refused'])).code, 0);
    const bad = await run(['profile', split, '--json', '--fail-on', 'nonsense']);
    assert.equal(bad.code, 1);
    assert.equal(JSON.parse(bad.out).error.code, 'bad_request');
  });

  test('convert --out writes the candidate atomically; refused budget exits 0 with a null candidate', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toonlens-cli-'));
    const r = await run(['convert', config, '--json', '--out', 'out.toon'], { cwd: dir });
    assert.equal(r.code, 0);
    const v: Json = JSON.parse(r.out);
    assert.equal(v.verdict, 'convert');
    assert.equal(readFileSync(path.join(dir, 'out.toon'), 'utf8'), v.toon_candidate + '\n');
    assert.deepEqual(readdirSync(dir), ['out.toon']);
    const refused = await run(['convert', config, '--json', '--mode', 'budget', '--target-chars', '10']);
    assert.equal(refused.code, 0);
    const rv = JSON.parse(refused.out);
    assert.equal(rv.verdict, 'refused');
    assert.equal(validateVerdict(rv), true);
    const lossy = JSON.parse((await run(['convert', config, '--json', '--mode', 'budget', '--target-tokens', '100', '--allow-lossy', '--delimiter', 'pipe', '--chars-per-token', '3,5'])).out);
    assert.equal(lossy.flags.lossless, false);
    assert.deepEqual(lossy.token_estimates.ratio_estimates.map((x: { chars_per_token: number }) => x.chars_per_token), [3, 5]);
  });

  test('argument and I/O errors exit 1 with {"error":{code,message}} under --json', async () => {
    const missing = await run(['profile', 'no/such/file.md', '--json']);
    assert.equal(missing.code, 1);
    assert.equal(JSON.parse(missing.out).error.code, 'input_not_found');
    const budget = await run(['convert', split, '--json', '--mode', 'budget']);
    assert.equal(budget.code, 1);
    assert.equal(JSON.parse(budget.out).error.code, 'bad_request');
    const unknown = await run(['plan', split, '--bogus']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.err, /unknown option/);
  });

  test('plan prints a table with the net figure; --json is schema 1.1; --out writes the hybrid', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toonlens-cli-'));
    const table = await run(['plan', config, '--out', path.join(dir, 'hybrid.md')]);
    assert.equal(table.code, 0);
    assert.match(table.out, /section\s+profile\s+verdict/);
    assert.match(table.out, /net: 32,319 → [\d,]+ chars/);
    assert.match(table.out, /hybrid recommended: yes/);
    const json: Json = JSON.parse((await run(["plan", config, "--json"])).out);
    assert.equal(json.schema_version, '1.1');
    assert.equal(validateVerdict(json), true);
    assert.equal(readFileSync(path.join(dir, 'hybrid.md'), 'utf8').length, json.context_plan.net.hybrid);
  });

  test('--stdin reads standard input and reports source_type stdin', async () => {
    const r = await run(['convert', '--stdin', '--json'], { stdin: '# T\n\n| a | b |\n| - | - |\n| 1 | 2 |\n' });
    assert.equal(r.code, 0);
    assert.equal(JSON.parse(r.out).profile.source_type, 'stdin');
  });

  test('--help per command exits 0', async () => {
    for (const c of ['profile', 'convert', 'plan', 'validate', 'decode']) {
      const r = await run([c, '--help']);
      assert.equal(r.code, 0);
      assert.match(r.out, new RegExp(`Usage: toonlens ${c}`));
    }
  });
});

describe('toonlens validate/decode', () => {
  test('validate: valid → 0, invalid → 1 with the failing line', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toonlens-cli-'));
    writeFileSync(path.join(dir, 'ok.toon'), 'a[2]: x,y\n');
    writeFileSync(path.join(dir, 'bad.toon'), 'a[3]: x,y\n');
    assert.equal((await run(['validate', 'ok.toon'], { cwd: dir })).code, 0);
    const bad = await run(['validate', 'bad.toon', '--json'], { cwd: dir });
    assert.equal(bad.code, 1);
    assert.equal(JSON.parse(bad.out).error.code, 'invalid_toon');
  });

  test('decode prints JSON or writes it with --out', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'toonlens-cli-'));
    writeFileSync(path.join(dir, 'ok.toon'), 'a[2]: x,y\n');
    const r = await run(['decode', 'ok.toon'], { cwd: dir });
    assert.deepEqual(JSON.parse(r.out), decode('a[2]: x,y'));
    assert.equal((await run(['decode', 'ok.toon', '--out', 'ok.json'], { cwd: dir })).code, 0);
    assert.deepEqual(JSON.parse(readFileSync(path.join(dir, 'ok.json'), 'utf8')), { a: ['x', 'y'] });
  });
});

// Every numeric setting is clamped to one documented range (core/settingRanges.ts) in the editor, in
// .toonlens.json and on the CLI; the risky settings are restricted in untrusted workspaces; the CLI reads
// only .toonlens.json (never .vscode/settings.json); prototype keys in .toonlens.json are refused.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, ftruncateSync, readFileSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { SETTING_RANGES, clampSetting, type NumericRange, type NumericSetting } from '../../server/src/core/settingRanges';
import { normalizeSettings } from '../../server/src/lsp/settings';
import { configDiagnostics, parseConfig } from '../../server/src/core/config';
import { REPO_ROOT } from '../paths';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'toonlens-ranges-'));
  dirs.push(d);
  return d;
};

async function check(args: string[], cwd: string) {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { cwd, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), readStdin: async () => '' };
  const code = await run(args, io);
  return { code, stdout, stderr };
}

const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
const properties: Record<string, Record<string, unknown>> = manifest.contributes.configuration.properties ?? manifest.contributes.configuration[0].properties;

describe('setting ranges', () => {
  test('every numeric setting in package.json has its range in the one table, with the same bounds and default', () => {
    const numeric = Object.entries(properties).filter(([, p]) => p.type === 'number' || p.type === 'integer');
    assert.ok(numeric.length >= 3);
    for (const [key, p] of numeric) {
      const name = key.replace(/^toonlens\./, '') as NumericSetting;
      const r: NumericRange | undefined = SETTING_RANGES[name];
      assert.ok(r, `${key} has no range in core/settingRanges.ts`);
      assert.equal(p.default, r.default, key);
      assert.equal(p.maximum, r.max, key);
      if (r.minExclusive) assert.equal(p.exclusiveMinimum, r.min, key);
      else assert.equal(p.minimum, r.min, key);
    }
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'toonlens-config.v1.json'), 'utf8'));
    assert.equal(schema.properties.minTokenSavings.maximum, SETTING_RANGES.minTokenSavings.max);
  });

  test('maxFileSizeMB, schemaBaselines and documentKinds are restricted in untrusted workspaces', () => {
    const restricted = manifest.capabilities.untrustedWorkspaces.restrictedConfigurations as string[];
    for (const key of ['toonlens.maxFileSizeMB', 'toonlens.schemaBaselines', 'toonlens.documentKinds']) assert.ok(restricted.includes(key), key);
    for (const key of restricted) assert.ok(properties[key], `${key} is a declared setting`);
  });

  test('the editor settings are clamped: 1e308 and Infinity to the maximum, negatives to the minimum, junk to the default', () => {
    assert.equal(normalizeSettings({ maxFileSizeMB: 1e308 }).maxFileSizeMB, 64);
    assert.equal(normalizeSettings({ maxFileSizeMB: Infinity }).maxFileSizeMB, 64);
    assert.equal(normalizeSettings({ maxFileSizeMB: 0 }).maxFileSizeMB, 50);
    assert.equal(normalizeSettings({ maxFileSizeMB: -1 }).maxFileSizeMB, 50);
    assert.equal(normalizeSettings({ maxFileSizeMB: '99' }).maxFileSizeMB, 50);
    assert.equal(normalizeSettings({ maxFileSizeMB: 0.5 }).maxFileSizeMB, 0.5);
    assert.equal(normalizeSettings({ codeLens: { minSavingsPct: 1e9 } }).codeLens.minSavingsPct, 100);
    assert.equal(normalizeSettings({ 'codeLens.minSavingsPct': -20 }).codeLens.minSavingsPct, 0);
    assert.equal(normalizeSettings({ minTokenSavings: 1e308 }).minTokenSavings, 100_000);
    assert.equal(normalizeSettings({ minTokenSavings: -3 }).minTokenSavings, -3);
    assert.equal(normalizeSettings({ minTokenSavings: -1e308 }).minTokenSavings, -100_000);
    assert.equal(normalizeSettings({ minTokenSavings: NaN }).minTokenSavings, 1);
    assert.equal(clampSetting('maxFileSizeMB', Number.MAX_VALUE), 64);
  });

  test('--min-token-savings on the engine commands is clamped the same way', async () => {
    const { main } = await import('../../server/src/cli/main');
    let out = '';
    const io: CliIO = { cwd: REPO_ROOT, stdout: (t) => void (out += t), stderr: () => undefined, readStdin: async () => '| a | b |\n| --- | --- |\n| 1 | 2 |\n' };
    assert.equal(await main(['convert', '--stdin', '--json', `--min-token-savings=${'9'.repeat(400)}`], io), 0);
    assert.ok(JSON.parse(out).warnings.some((w: { code: string }) => w.code === 'token_regression'), 'a 400-digit gate is accepted (taken as the maximum) and applies');
  });

  test('.toonlens.json minTokenSavings is clamped the same way (and the schema says so)', () => {
    const parsed = parseConfig('{ "minTokenSavings": 1e12 }');
    assert.equal(parsed.config.minTokenSavings, 100_000);
    assert.match(parsed.problems.join('\n'), /minTokenSavings: must be <= 100000/);
    assert.equal(parseConfig('{ "minTokenSavings": 5 }').config.minTokenSavings, 5);
  });
});

describe('the CLI reads only .toonlens.json, clamped', () => {
  /** A markdown file just over the size ceiling, sparse (nothing but its size is ever read when the limit holds). */
  function bigMarkdown(dir: string) {
    const fd = openSync(join(dir, 'huge.md'), 'w');
    ftruncateSync(fd, 65 * 1024 * 1024);
    closeSync(fd);
  }

  test('.vscode/settings.json with maxFileSizeMB 1e308 does not raise the limit: the 65 MB markdown is not read', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.git'));
    mkdirSync(join(dir, '.vscode'));
    writeFileSync(join(dir, '.vscode', 'settings.json'), '{ "toonlens.maxFileSizeMB": 1e308 }');
    bigMarkdown(dir);
    const r = await check(['--format', 'json', 'huge.md'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Not checked: 65\.0 MB is over the 50 MB limit/);
  });

  test('--max-file-size-mb 1e308 is taken as the 64 MB ceiling', async () => {
    const dir = tempDir();
    bigMarkdown(dir);
    const r = await check(['--format', 'json', '--max-file-size-mb', '1e308', 'huge.md'], dir);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Not checked: 65\.0 MB is over the 64 MB limit/);
  });
});

describe('prototype keys in .toonlens.json', () => {
  const BROKEN = '{ "schema_version": ';

  for (const key of ['__proto__', 'constructor', 'prototype']) {
    test(`a "${key}" key is refused with a diagnostic; it configures nothing`, async () => {
      const text = `{\n  "${key}": { "rules": { "json-syntax": "off" } },\n  "rules": {}\n}\n`;
      const parsed = parseConfig(text);
      assert.deepEqual(parsed.config.rules, {});
      assert.equal(parsed.problems.length, 1);
      assert.match(parsed.problems[0]!, new RegExp(`line 2: "${key}" is not allowed as a key`));
      const ds = configDiagnostics(text);
      assert.equal(ds.length, 1);
      assert.equal(ds[0]!.code, 'schema');
      assert.equal(text.slice(ds[0]!.range.start, ds[0]!.range.end), `"${key}"`);
    });
  }

  test('check: a __proto__ config neither hides the error nor passes (1 error stays, invalid config exits 2)', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, '.git'));
    writeFileSync(join(dir, 'plan.verdict.json'), BROKEN);
    const clean = await check(['plan.verdict.json'], dir);
    assert.equal(clean.code, 1, clean.stdout + clean.stderr);
    writeFileSync(join(dir, '.toonlens.json'), '{ "__proto__": { "rules": { "json-syntax": "off" }, "ignore": ["**"] } }');
    const r = await check(['--format', 'json', 'plan.verdict.json'], dir);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /invalid config \.toonlens\.json: line 1: "__proto__" is not allowed as a key/);
    const reports = JSON.parse(r.stdout) as { diagnostics: { code: string }[] }[];
    assert.deepEqual(reports[0]!.diagnostics.map((d) => d.code), ['json-syntax']);
  });
});

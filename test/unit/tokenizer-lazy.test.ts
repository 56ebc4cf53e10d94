// The BPE ranks are loaded only by a run that counts real tokens: the built CLI (dist/cli.js, as `npm run build`
// leaves it) runs each command in a child process whose require cache is read at exit. The encodings are their
// own bundles (dist/tokenizer-<encoding>.js, esbuild.mjs), so a run that never counts never requires one. The
// commands that count (`plan`, a markdown `check`) are checked too: the observation does see a load.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';

const CLI_BUNDLE = join(REPO_ROOT, 'dist', 'cli.js');

/** Runs the built CLI with `args` in a child process; the encoding bundles (and any gpt-tokenizer module) it required. */
function tokenizerModulesLoaded(args: string[]): { status: number | null; loaded: string[]; stderr: string } {
  assert.ok(existsSync(CLI_BUNDLE), 'dist/cli.js is not built: run npm run build first');
  const probe = `
process.argv = [process.argv[0], 'toonlens', ...JSON.parse(process.env.TOONLENS_ARGS)];
process.on('exit', () => {
  const loaded = Object.keys(require.cache).filter((k) => /tokenizer-|bpeRanks|gpt-tokenizer/.test(k)).map((k) => k.split(/[\\\\/]/).pop());
  process.stderr.write('\\nLOADED ' + JSON.stringify(loaded) + '\\n');
});
require(${JSON.stringify(CLI_BUNDLE)}).runFromProcess();
`;
  const r = spawnSync(process.execPath, ['-e', probe], { cwd: REPO_ROOT, encoding: 'utf8', env: { ...process.env, TOONLENS_ARGS: JSON.stringify(args) }, timeout: 120_000 });
  const line = /^LOADED (.*)$/m.exec(r.stderr);
  assert.ok(line, `the probe reported no module list (status ${r.status}): ${r.stderr}`);
  return { status: r.status, loaded: JSON.parse(line[1]!) as string[], stderr: r.stderr };
}

const TOON = join('examples', 'toon', 'orders.toon');
const MARKDOWN = join('examples', 'markdown', 'AGENTS.md');
const SCHEMA = join('schemas', 'verdict.v1.json');

const NO_COUNTING: string[][] = [
  ['--version'],
  ['--help'],
  ['plan', '--help'],
  ['validate', TOON],
  ['decode', TOON],
  ['schema-diff', SCHEMA, SCHEMA],
  ['check', '--exit-zero', join('examples', 'agent-json')],
  ['plan', '--tokenizer', 'estimate', MARKDOWN],
  ['plan', '--json', '--tokenizer', 'estimate', MARKDOWN],
  ['profile', '--tokenizer', 'estimate', MARKDOWN],
  ['convert', '--json', '--tokenizer', 'estimate', MARKDOWN],
];

test('commands that count no real tokens never load the BPE ranks', () => {
  for (const args of NO_COUNTING) {
    const r = tokenizerModulesLoaded(args);
    assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
    assert.deepEqual(r.loaded, [], `toonlens ${args.join(' ')} loaded ${r.loaded.join(', ')}`);
  }
});

test('a command that counts loads exactly the encoding it counts with', () => {
  assert.deepEqual(tokenizerModulesLoaded(['plan', MARKDOWN]).loaded, ['tokenizer-o200k_base.js']);
  assert.deepEqual(tokenizerModulesLoaded(['plan', '--json', '--tokenizer', 'cl100k_base', MARKDOWN]).loaded, ['tokenizer-cl100k_base.js']);
  assert.deepEqual(tokenizerModulesLoaded(['check', MARKDOWN]).loaded, ['tokenizer-o200k_base.js']);
});

// Bundles the three entry points: the VS Code client (vscode stays external),
// the language server and the CLI. All CommonJS for Node 20.
import * as esbuild from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const watch = process.argv.includes('--watch');
const production = process.argv.includes('--production');

/** @type {import('esbuild').BuildOptions} */
const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: !production,
  minify: production,
  // vscode-json-languageservice ships a UMD "main" that esbuild cannot follow.
  mainFields: ['module', 'main'],
  logLevel: 'warning',
  loader: { '.json': 'json' },
};

/**
 * gpt-tokenizer's BPE ranks (o200k_base 2.4 MB, cl100k_base 1.2 MB of source) are their own bundles,
 * `dist/tokenizer-<encoding>.js`, required by the server and the CLI on the first token count
 * (core/tokens.ts): a `toonlens check` of JSON files, a pre-commit run or a server start no longer reads
 * and compiles 6 MB of ranks it never uses (`toonlens --version`: ~175 → ~120 ms on this machine).
 */
const ENCODINGS = ['o200k_base', 'cl100k_base'];

/**
 * Each encoding's bundle reads its ranks from `dist/tokenizer-<encoding>.json` (written here from the package's
 * own rank list) instead of compiling the package's 200,000-element array literal: same ranks, same
 * `GptEncoding` (the package's public `getEncodingApi`), but `JSON.parse` builds the array without a parse tree,
 * and the process keeps ~20 MB less RSS once the tokenizer is loaded (o200k_base: 97 → 77 MB for a bare Node,
 * 204 → 156 ms to load). JSON has no holes, so the unused ranks (null there) are deleted again on load.
 */
const encodingEntry = (e) => `const { GptEncoding } = require('gpt-tokenizer/GptEncoding');
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
module.exports = GptEncoding.getEncodingApi(${JSON.stringify(e)}, () => {
  const ranks = JSON.parse(readFileSync(join(__dirname, ${JSON.stringify(`tokenizer-${e}.json`)}), 'utf8'));
  for (let i = 0; i < ranks.length; i++) if (ranks[i] === null) delete ranks[i];
  return ranks;
});
`;
function writeRanks() {
  const require = createRequire(import.meta.url);
  mkdirSync('dist', { recursive: true });
  for (const e of ENCODINGS) writeFileSync(`dist/tokenizer-${e}.json`, JSON.stringify(require(`gpt-tokenizer/cjs/bpeRanks/${e}`).default));
}
const lazyEncodings = {
  name: 'lazy-encodings',
  setup(build) {
    build.onResolve({ filter: /^gpt-tokenizer\/encoding\/(o200k_base|cl100k_base)$/ }, (args) => ({ path: `./tokenizer-${args.path.split('/').pop()}.js`, external: true }));
  },
};

const entries = [
  { entryPoints: ['client/src/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] },
  { entryPoints: ['server/src/server.ts'], outfile: 'dist/server.js', plugins: [lazyEncodings] },
  { entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli.js', plugins: [lazyEncodings] },
  ...ENCODINGS.map((e) => ({ stdin: { contents: encodingEntry(e), resolveDir: process.cwd(), sourcefile: `tokenizer-${e}.js`, loader: 'js' }, outfile: `dist/tokenizer-${e}.js` })),
  // The language server's JSON worker thread (large documents are checked off the request thread).
  { entryPoints: ['server/src/node/jsonWorker.ts'], outfile: 'dist/jsonWorker.js' },
];

writeRanks();
if (watch) {
  const ctxs = await Promise.all(entries.map((e) => esbuild.context({ ...common, ...e })));
  await Promise.all(ctxs.map((c) => c.watch()));
} else {
  await Promise.all(entries.map((e) => esbuild.build({ ...common, ...e })));
}

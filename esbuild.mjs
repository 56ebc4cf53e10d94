// Bundles the three entry points: the VS Code client (vscode stays external),
// the language server and the CLI. All CommonJS for Node 20.
import * as esbuild from 'esbuild';

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
  ...ENCODINGS.map((e) => ({ entryPoints: [`gpt-tokenizer/encoding/${e}`], outfile: `dist/tokenizer-${e}.js` })),
  // The language server's JSON worker thread (large documents are checked off the request thread).
  { entryPoints: ['server/src/node/jsonWorker.ts'], outfile: 'dist/jsonWorker.js' },
];

if (watch) {
  const ctxs = await Promise.all(entries.map((e) => esbuild.context({ ...common, ...e })));
  await Promise.all(ctxs.map((c) => c.watch()));
} else {
  await Promise.all(entries.map((e) => esbuild.build({ ...common, ...e })));
}

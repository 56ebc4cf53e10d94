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

const entries = [
  { entryPoints: ['client/src/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] },
  { entryPoints: ['server/src/server.ts'], outfile: 'dist/server.js' },
  { entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli.js' },
  // The language server's JSON worker thread (large documents are checked off the request thread).
  { entryPoints: ['server/src/node/jsonWorker.ts'], outfile: 'dist/jsonWorker.js' },
];

if (watch) {
  const ctxs = await Promise.all(entries.map((e) => esbuild.context({ ...common, ...e })));
  await Promise.all(ctxs.map((c) => c.watch()));
} else {
  await Promise.all(entries.map((e) => esbuild.build({ ...common, ...e })));
}

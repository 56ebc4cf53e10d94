// Bundles the entry points: the VS Code client (vscode stays external), the language server, the CLI and the
// library (dist/lib.js, `require('toonlens')`). All CommonJS for Node 20, every dependency bundled, so the
// installed package needs no runtime dependency. `--production` (npm pack, `npm run release`) also writes the
// library's declarations (dist/lib.d.ts over dist/types/).
import * as esbuild from 'esbuild';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
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

/**
 * The CLI's commands are their own bundles, `dist/cli-<module>.js`, one per module the command table of
 * server/src/cli/main.ts imports on demand (`import('./check')` …): dist/cli.js holds only the entry (arguments,
 * help, version), so a run reads and compiles the code of its own command and no other (`--version` compiles no
 * command at all). A command bundle carries its own copy of the core it uses; only one is loaded per process.
 */
const CLI_MAIN = 'server/src/cli/main.ts';
const cliCommandModules = [...new Set([...readFileSync(CLI_MAIN, 'utf8').matchAll(/\bimport\('\.\/([A-Za-z0-9_-]+)'\)/g)].map((m) => m[1]))];
const cliCommands = {
  name: 'cli-commands',
  setup(build) {
    build.onResolve({ filter: /^\.\/[A-Za-z0-9_-]+$/ }, (args) =>
      args.kind === 'dynamic-import' && resolve(args.importer) === resolve(CLI_MAIN) && cliCommandModules.includes(args.path.slice(2)) ? { path: `./cli-${args.path.slice(2)}.js`, external: true } : undefined,
    );
  },
};

const entries = [
  { entryPoints: ['client/src/extension.ts'], outfile: 'dist/client.js', external: ['vscode'] },
  { entryPoints: ['server/src/server.ts'], outfile: 'dist/server.js', plugins: [lazyEncodings] },
  // (`dynamic-import: false`: a command bundle is required, not imported through Node's ESM loader)
  { entryPoints: [CLI_MAIN], outfile: 'dist/cli.js', plugins: [lazyEncodings, cliCommands], supported: { 'dynamic-import': false } },
  ...cliCommandModules.map((m) => ({ entryPoints: [`server/src/cli/${m}.ts`], outfile: `dist/cli-${m}.js`, plugins: [lazyEncodings, cliCommands], supported: { 'dynamic-import': false } })),
  // The library: read by people, so never minified.
  { entryPoints: ['server/src/core/index.ts'], outfile: 'dist/lib.js', plugins: [lazyEncodings], minify: false },
  ...ENCODINGS.map((e) => ({ stdin: { contents: encodingEntry(e), resolveDir: process.cwd(), sourcefile: `tokenizer-${e}.js`, loader: 'js' }, outfile: `dist/tokenizer-${e}.js` })),
  // The language server's JSON worker thread (large documents are checked off the request thread).
  { entryPoints: ['server/src/node/jsonWorker.ts'], outfile: 'dist/jsonWorker.js' },
];

/**
 * The library's declarations: tsc (tsconfig.lib.json, emitDeclarationOnly) writes one .d.ts per core file into
 * dist/types/; only the files the entry's declarations reach are kept (a type-only closure that imports no
 * package), and dist/lib.d.ts re-exports the entry.
 */
function writeDeclarations() {
  rmSync('dist/types', { recursive: true, force: true });
  execFileSync(process.execPath, [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.lib.json'], { stdio: 'inherit' });
  const entry = resolve('dist/types/core/index.d.ts');
  const keep = new Set();
  const external = new Set();
  const visit = (file) => {
    if (keep.has(file)) return;
    keep.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/(?:import|export)[^'";]*?from\s+['"]([^'"]+)['"]|import\(['"]([^'"]+)['"]\)/g)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith('.')) {
        external.add(spec);
        continue;
      }
      const base = resolve(dirname(file), spec);
      visit(existsSync(`${base}.d.ts`) ? `${base}.d.ts` : join(base, 'index.d.ts'));
    }
  };
  visit(entry);
  if (external.size) throw new Error(`the library's declarations import packages a user may not have: ${[...external].join(', ')}`);
  const prune = (dir) => {
    for (const n of readdirSync(dir)) {
      const p = join(dir, n);
      if (statSync(p).isDirectory()) {
        prune(p);
        if (readdirSync(p).length === 0) rmSync(p, { recursive: true });
      } else if (!keep.has(resolve(p))) rmSync(p);
    }
  };
  prune('dist/types');
  writeFileSync('dist/lib.d.ts', `export * from './${relative('dist', entry).split('\\').join('/').replace(/\.d\.ts$/, '')}';\n`);
}

writeRanks();
if (watch) {
  const ctxs = await Promise.all(entries.map((e) => esbuild.context({ ...common, ...e })));
  await Promise.all(ctxs.map((c) => c.watch()));
} else {
  await Promise.all(entries.map((e) => esbuild.build({ ...common, ...e })));
  if (production || process.argv.includes('--types')) writeDeclarations();
}

/**
 * Where the time goes: bundles a small driver with esbuild (real function names and lines), runs it under
 * `node --cpu-prof`, and prints the top self-time functions.
 *
 *   node --import tsx bench/profile.ts report|plan|producer|markdown|edit [iterations]
 * With PROFILE_REAL=1, `markdown` and `edit` run on the real markdown document (the producer corpus repeated) instead of the generated one.
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR, REPO_ROOT, corpusMarkdown1MB, markdown1MB, plan15MB, producerPlan14MB, report10MB } from './data';
import { summarize } from './cpuprofile';

const what = process.argv[2] ?? 'report';
const iterations = Number(process.argv[3] ?? 5);
const input = what === 'report' ? report10MB() : what === 'plan' ? plan15MB() : what === 'producer' ? producerPlan14MB() : process.env.PROFILE_REAL ? corpusMarkdown1MB() : markdown1MB();
const dir = join(DATA_DIR, 'profile');
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const driver = join(dir, 'driver.ts');
const body =
  what === 'report' || what === 'plan' || what === 'producer'
    ? `import { checkDocument } from ${JSON.stringify(join(REPO_ROOT, 'server/src/core/agentJson/check'))};
const text = readFileSync(${JSON.stringify(input.path)}, 'utf8');
checkDocument(text, { kind: ${JSON.stringify(what === 'report' ? 'report' : 'verdict')} });
for (let i = 0; i < ${iterations}; i++) checkDocument(text, { kind: ${JSON.stringify(what === 'report' ? 'report' : 'verdict')} });`
    : what === 'markdown'
      ? `import { EngineCache } from ${JSON.stringify(join(REPO_ROOT, 'server/src/core/markdown/engine'))};
import { markdownCodeLenses } from ${JSON.stringify(join(REPO_ROOT, 'server/src/features/markdown/lenses'))};
import { TextDocument } from 'vscode-languageserver-textdocument';
const text = readFileSync(${JSON.stringify(input.path)}, 'utf8');
for (let i = 0; i < ${iterations}; i++) markdownCodeLenses(TextDocument.create('file:///a.md', 'markdown', 1, text), new EngineCache().plan(text), 0);`
      : `import { EngineCache } from ${JSON.stringify(join(REPO_ROOT, 'server/src/core/markdown/engine'))};
import { markdownCodeLenses } from ${JSON.stringify(join(REPO_ROOT, 'server/src/features/markdown/lenses'))};
import { TextDocument } from 'vscode-languageserver-textdocument';
const text = readFileSync(${JSON.stringify(input.path)}, 'utf8');
const cache = new EngineCache();
cache.plan(text);
const at = text.indexOf('\\n', Math.floor(text.length / 2)) - 2;
for (let i = 0; i < ${iterations * 10}; i++) {
  const t = text.slice(0, at) + String.fromCharCode(97 + (i % 26)) + text.slice(at);
  markdownCodeLenses(TextDocument.create('file:///a.md', 'markdown', 1, t), cache.plan(t), 0);
}`;
writeFileSync(driver, `import { readFileSync } from 'node:fs';\n${body}\n`);
void (async () => {
await build({ entryPoints: [driver], bundle: true, platform: 'node', format: 'cjs', outfile: join(dir, 'driver.cjs'), mainFields: ['module', 'main'], logLevel: 'error', loader: { '.json': 'json' } });
execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, join(dir, 'driver.cjs')], { stdio: 'inherit' });
const prof = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
console.log(summarize(join(dir, prof), 30));
})();

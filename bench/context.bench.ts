/**
 * Agent context at repository scale: a generated repository of 10,000 markdown files (per-folder AGENTS.md,
 * CLAUDE.md, GEMINI.md and README.md, plus Cursor rules, Copilot instruction files and skills, their
 * instructions drawn from a shared pool so duplicates abound), cached in .bench-data/context-10k/.
 *
 * Rows: the whole context model (walk, bounded reads, every agent's loading rules, imports, o200k counts,
 * duplicate search, diagnostics) against listing, reading and o200k-counting the same 10,000 files once, timed
 * in alternation; and the recomputation after one file's edit with the other files' counts kept (what the editor
 * does) against the full run. Figures only, never assertions.
 *
 *   node --expose-gc --import tsx bench/context.bench.ts      (also run by `npm run bench`, group `context`)
 */
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR } from './data';
import { Rng, sentence } from './prng';
import { row, time, timePair, type BenchRow } from './stats';
import { contextModel } from '../server/src/core/context/model';
import { contextDiagnostics } from '../server/src/core/context/diagnostics';
import { readRepositoryContext } from '../server/src/node/contextFiles';
import { readRegularText } from '../server/src/node/files';
import { tokenizer } from '../server/src/core/tokens';

export const CONTEXT_REPO = join(DATA_DIR, 'context-10k');
const FOLDERS = 2_400;

/** Writes the repository once (10,000 markdown files), deterministically from seed 30. */
export function contextRepository(): { root: string; files: number } {
  const marker = join(CONTEXT_REPO, '.complete');
  if (!existsSync(marker)) {
    const r = new Rng(30);
    const pool = Array.from({ length: 400 }, () => sentence(r, 6, 14));
    const doc = (title: string, items: number) => `# ${title}\n\n${Array.from({ length: items }, () => `- ${r.pick(pool)}`).join('\n')}\n\n${sentence(r)} ${sentence(r)}\n`;
    const put = (rel: string, text: string) => {
      const p = join(CONTEXT_REPO, rel);
      mkdirSync(join(p, '..'), { recursive: true });
      writeFileSync(p, text);
    };
    put('AGENTS.md', doc('Repository', 30));
    put('CLAUDE.md', `${doc('Claude', 20)}\n@AGENTS.md\n`);
    put('GEMINI.md', doc('Gemini', 20));
    put('.github/copilot-instructions.md', doc('Copilot', 20));
    for (let i = 0; i < FOLDERS - 1; i++) {
      const d = `packages/p${Math.floor(i / 40)}/m${i}`;
      put(`${d}/AGENTS.md`, doc(`Module ${i}`, r.int(4, 12)));
      put(`${d}/CLAUDE.md`, doc(`Module ${i} for Claude`, r.int(3, 8)));
      put(`${d}/GEMINI.md`, doc(`Module ${i} for Gemini`, r.int(3, 8)));
      put(`${d}/README.md`, doc(`Module ${i} readme`, r.int(5, 15)));
      put(`${d}/index.ts`, 'export {};\n');
    }
    for (let i = 0; i < 150; i++) put(`.cursor/rules/r${i}.mdc`, `---\n${i % 3 === 0 ? 'alwaysApply: true' : i % 3 === 1 ? `globs: packages/p${i % 60}/**/*.ts` : 'description: ' + sentence(r)}\n---\n${doc(`Rule ${i}`, 6)}`);
    for (let i = 0; i < 150; i++) put(`.github/instructions/i${i}.instructions.md`, `---\napplyTo: "packages/p${i % 60}/**"\n---\n${doc(`Instructions ${i}`, 6)}`);
    for (let i = 0; i < 100; i++) put(`.claude/skills/s${i}/SKILL.md`, `---\nname: s${i}\ndescription: ${sentence(r)}\n---\n${doc(`Skill ${i}`, 8)}`);
    writeFileSync(marker, '');
  }
  return { root: CONTEXT_REPO, files: markdownFiles(CONTEXT_REPO).length };
}

function markdownFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) markdownFiles(p, out);
    else if (/\.(md|mdc)$/.test(name)) out.push(p);
  }
  return out;
}

export async function contextRows(runs: number, log: (s: string) => void): Promise<BenchRow[]> {
  const { root, files } = contextRepository();
  const tok = tokenizer('o200k_base');
  tok.count('warm up the ranks');
  // The anchor lists the files too (a synchronous recursive readdir): reading a repository's files starts there.
  const readAndCount = () => {
    let n = 0;
    for (const p of markdownFiles(root)) {
      const r = readRegularText(p);
      if (r.ok) n += tok.count(r.text);
    }
    return n;
  };
  let diagnostics = 0;
  const full = async () => {
    const repo = await readRepositoryContext(root);
    const model = contextModel({ files: repo.files, allPaths: repo.allPaths, read: repo.read, count: (t) => tok.count(t), options: repo.options });
    diagnostics = contextDiagnostics(model).length;
    return model;
  };
  const [model, anchor] = await timePair(full, readAndCount, runs);
  log(`    context model of ${files.toLocaleString('en-US')} markdown files: median ${model.median.toFixed(0)} ms vs listing, reading + o200k counting them ${anchor.median.toFixed(0)} ms (${(model.median / anchor.median).toFixed(2)}×, ${diagnostics.toLocaleString('en-US')} diagnostics)`);

  // One edit: the texts are held and every other file's count is kept, as the editor's model does.
  const repo = await readRepositoryContext(root);
  const counts = new Map<string, number>();
  const count = (t: string) => {
    let n = counts.get(t);
    if (n === undefined) counts.set(t, (n = tok.count(t)));
    return n;
  };
  const units = new Map();
  const input = { files: repo.files, allPaths: repo.allPaths, read: repo.read, count, options: repo.options, cache: new Map() };
  contextDiagnostics(contextModel(input), {}, units);
  const target = repo.files.findIndex((f) => f.path.endsWith('m7/AGENTS.md'));
  let k = 0;
  const edit = await time(() => {
    repo.files[target] = { path: repo.files[target]!.path, text: `${repo.files[target]!.text}- An edited line number ${k++}.\n` };
    return contextDiagnostics(contextModel(input), {}, units).length;
  }, runs);
  log(`    after one file's edit (other files' parses and counts kept): median ${edit.median.toFixed(0)} ms`);
  return [
    row('Context', `context model, ${files.toLocaleString('en-US')} markdown files (walk, read, rules, o200k counts, duplicates, diagnostics)`, model, 'ms', { name: 'list + read + o200k count', value: anchor }, { max: 2, label: '≤ 2× reading + counting' }),
    row('Context', `context model after one file's edit, ${files.toLocaleString('en-US')} files (other files' parses and counts kept)`, edit, 'ms', { name: 'full model', value: model }),
  ];
}

if (require.main === module) {
  void contextRows(Number(process.argv[2] ?? 5), (s) => console.log(s)).then((rows) => console.log(rows));
}

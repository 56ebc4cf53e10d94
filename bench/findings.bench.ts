/**
 * Findings worth reading (docs/precision.md): findings per file and precision per rule on the labelled sample
 * (test/fixtures/precision), and on a large collection of real markdown how many findings are left once
 * agent-file advice goes to agent files only and token notes to converted files, against every finding shown on
 * every file. Figures only, never assertions.
 *
 *   node --import tsx bench/findings.bench.ts [--collection DIR]…   (also run by `npm run bench`, group `findings`)
 *
 * Default collection: every markdown file under node_modules/, docs/, examples/ and test/fixtures/ (package
 * READMEs and changelogs, the project's docs, the fixtures), plus each --collection folder.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { markdownDiagnostics } from '../server/src/core/markdown/diagnostics';
import { EngineCache } from '../server/src/core/markdown/engine';
import { isAgentFile, isMarkdownPath } from '../server/src/core/files';
import { LineIndex } from '../server/src/core/lineIndex';
import type { CoreDiagnostic } from '../server/src/core/types';
import { REPO_ROOT } from './data';

const SAMPLE = join(REPO_ROOT, 'test', 'fixtures', 'precision');
type Label = 'true' | 'false' | 'not-actionable';

/** Markdown files under `dir` (symlinks and .git not followed), sorted. */
function markdownFiles(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length) {
    const d = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      if (n === '.git') continue;
      const p = join(d, n);
      let st;
      try {
        st = statSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) stack.push(p);
      else if (st.isFile() && st.size < 4 * 1024 * 1024 && isMarkdownPath(n)) out.push(p);
    }
  }
  return out.sort();
}

function findings(file: string, options: { path?: string; tokenNotes?: boolean }): CoreDiagnostic[] {
  const text = readFileSync(file, 'utf8');
  return markdownDiagnostics(text, new EngineCache().plan(text, {}), options);
}

/** The sample's findings per file and the labels' precision per code. */
export function sampleReport(log: (s: string) => void): void {
  const labels = (JSON.parse(readFileSync(join(SAMPLE, 'labels.json'), 'utf8')) as { labels: Record<string, Record<string, Label>> }).labels;
  log(`  labelled sample: ${Object.keys(labels).length} files (test/fixtures/precision)`);
  for (const file of markdownFiles(SAMPLE)) {
    const rel = relative(SAMPLE, file).split(sep).join('/');
    const text = readFileSync(file, 'utf8');
    const index = new LineIndex(text);
    const ds = markdownDiagnostics(text, new EngineCache().plan(text, {}), { path: file });
    const byCode = new Map<string, number>();
    for (const d of ds) byCode.set(d.code, (byCode.get(d.code) ?? 0) + 1);
    const unlabelled = ds.filter((d) => labels[rel]?.[`${index.positionAt(d.range.start).line + 1}:${d.code}`] === undefined).length;
    log(`    ${rel}: ${ds.length} finding${ds.length === 1 ? '' : 's'}${byCode.size ? ` (${[...byCode].map(([c, n]) => `${n} ${c}`).join(', ')})` : ''}${unlabelled ? `, ${unlabelled} unlabelled` : ''}`);
  }
  const per = new Map<string, Record<Label, number>>();
  for (const l of Object.values(labels)) {
    for (const [k, v] of Object.entries(l)) {
      const code = k.slice(k.indexOf(':') + 1);
      const c = per.get(code) ?? { true: 0, false: 0, 'not-actionable': 0 };
      c[v]++;
      per.set(code, c);
    }
  }
  log('  precision per rule (true ÷ all findings; not-actionable counts against):');
  for (const [code, c] of [...per].sort()) {
    const all = c.true + c.false + c['not-actionable'];
    log(`    ${code}: ${c.true} of ${all} (${((100 * c.true) / all).toFixed(0)} %; ${c.false} false, ${c['not-actionable']} not actionable)`);
  }
}

/** On a large collection: every finding on every file against what is shown now (agent files, token notes). */
export function collectionReport(log: (s: string) => void, extra: readonly string[] = []): void {
  const dirs = [join(REPO_ROOT, 'node_modules'), join(REPO_ROOT, 'docs'), join(REPO_ROOT, 'examples'), join(REPO_ROOT, 'test', 'fixtures'), ...extra];
  const files = [...new Set(dirs.flatMap(markdownFiles))];
  let everything = 0;
  let now = 0;
  let agentFiles = 0;
  const lost = new Map<string, number>();
  for (const f of files) {
    let all: CoreDiagnostic[];
    let shown: CoreDiagnostic[];
    try {
      all = findings(f, { tokenNotes: true });
      shown = findings(f, { path: f });
    } catch {
      continue;
    }
    if (isAgentFile(f)) agentFiles++;
    everything += all.length;
    now += shown.length;
    const kept = new Set(shown.map((d) => `${d.range.start}:${d.code}`));
    for (const d of all) if (!kept.has(`${d.range.start}:${d.code}`)) lost.set(d.code, (lost.get(d.code) ?? 0) + 1);
  }
  const drop = everything ? (100 * (everything - now)) / everything : 0;
  log(`  collection: ${files.length} markdown files (${agentFiles} agent files) under ${dirs.map((d) => relative(REPO_ROOT, d) || d).join(', ')}`);
  log(`    findings with every rule on every file: ${everything}; shown now: ${now} (${drop.toFixed(0)} % fewer)`);
  log(`    not shown now, by code: ${[...lost].sort().map(([c, n]) => `${c} ${n}`).join(', ') || 'none'}`);
}

if (process.argv[1] && /findings\.bench\.ts$/.test(process.argv[1])) {
  const extra: string[] = [];
  process.argv.forEach((a, i) => {
    if (a === '--collection' && process.argv[i + 1]) extra.push(process.argv[i + 1]!);
  });
  sampleReport(console.log);
  collectionReport(console.log, extra);
}

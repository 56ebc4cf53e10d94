/**
 * The benchmark inputs, generated deterministically from fixed seeds and cached in `.bench-data/`
 * (git-ignored; regenerated when the generator version or the engine's output changes shape).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planJson, reportJson } from './json-gen';
import { corpusMarkdownDocument, markdownDocument } from './markdown-gen';
import { producerPlanJson } from './producer-plan';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
export const DATA_DIR = join(REPO_ROOT, '.bench-data');
/** Bump when a generator changes. */
const GENERATOR_VERSION = 2;

function cached(name: string, make: () => string): { text: string; path: string } {
  mkdirSync(DATA_DIR, { recursive: true });
  const path = join(DATA_DIR, `v${GENERATOR_VERSION}-${name}`);
  if (existsSync(path)) return { text: readFileSync(path, 'utf8'), path };
  const text = make();
  writeFileSync(path, text);
  return { text, path };
}

export interface Input {
  name: string;
  text: string;
  path: string;
  /** UTF-8 bytes. */
  bytes: number;
  detail: string;
  /** What the rows call it after its size, when not plain "markdown". */
  kind?: string;
}

function input(name: string, detail: (text: string) => string, make: () => string): Input {
  const { text, path } = cached(name, make);
  return { name, text, path, bytes: Buffer.byteLength(text), detail: detail(text) };
}

const sectionsOf = (text: string) => `${(JSON.parse(text) as { context_plan: { sections: unknown[] } }).context_plan.sections.length.toLocaleString('en-US')} sections`;
const entriesOf = (text: string) => `${(JSON.parse(text) as { entries: unknown[] }).entries.length.toLocaleString('en-US')} entries`;

/** ~1 MB verdict plan (schema 1.1, ~890 sections). */
export const plan1MB = () => input('plan-1mb.verdict.json', sectionsOf, () => planJson(101, 880).text);
/** ~15 MB verdict plan (~9,500 sections). */
export const plan15MB = () => input('plan-15mb.verdict.json', sectionsOf, () => planJson(115, 9_500).text);
/**
 * ~14.5 MB plan derived from a real producer plan (its sections repeated, with ~1,800 planted producer-style
 * defects: see producer-plan.ts) — the findings-heavy case.
 */
export const producerPlan14MB = () => input('producer-plan-14mb.verdict.json', (t) => `${sectionsOf(t)} from the producer's realistic/AGENTS.md plan`, () => producerPlanJson(14.5e6).text);
/** ~10 MB docs-hygiene report (~12,500 entries). */
export const report10MB = () => input('report-10mb.report.json', entriesOf, () => reportJson(210, 12_500));
/** ~1 MB docs-hygiene report (~1,250 entries). */
export const report1MB = () => input('report-1mb.report.json', entriesOf, () => reportJson(201, 1_250));
/** ~1 MB markdown of ~1,500 sections. */
export const markdown1MB = () =>
  input('agent-context-1mb.md', (t) => `${(t.match(/^## /gm) ?? []).length.toLocaleString('en-US')} sections`, () => markdownDocument(301, 1_500, 1_000_000));
/** ~1 MB of real markdown: the producer's corpus inputs repeated (bench/markdown-gen.ts corpusMarkdownDocument). */
export const corpusMarkdown1MB = (): Input => ({
  ...input('corpus-markdown-1mb.md', (t) => `${(t.match(/^#{1,6} /gm) ?? []).length.toLocaleString('en-US')} headings`, () => corpusMarkdownDocument(1_000_000)),
  kind: 'real markdown, the producer corpus repeated',
});

/**
 * Small agent-JSON documents for the LSP tests: one valid base per kind (a real producer verdict from
 * the shared corpus for verdict.v1) and helpers that apply one defect and locate the expected range.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Range } from 'vscode-languageserver-protocol/node';
import { positionAt } from './harness';
import { CORPUS_DIR } from '../paths';

export { CORPUS_DIR };

type Json = Record<string, any>;
type Mutate = (doc: Json) => void;

/** The corpus verdict files (real producer output: no error-severity diagnostic expected on any). */
export function corpusVerdictFiles(): string[] {
  try {
    return readdirSync(CORPUS_DIR)
      .filter((n) => n.endsWith('.json'))
      .map((n) => join(CORPUS_DIR, n));
  } catch {
    return [];
  }
}

/** A lossless keep_markdown convert response from the producer (schema 1.0). */
export const VALID_VERDICT_PATH = join(CORPUS_DIR, 'upstream__examples__definitions.md.convert.json');

function render(base: Json, mutate?: Mutate): string {
  const doc = structuredClone(base);
  mutate?.(doc);
  return JSON.stringify(doc, null, 2) + '\n';
}

export function verdictText(mutate?: Mutate): string {
  return render(JSON.parse(readFileSync(VALID_VERDICT_PATH, 'utf8')), mutate);
}

export const VALID_REPORT: Json = {
  schema_version: '1.0',
  tool_version: '0.1.0',
  generated_at: '2026-01-01T00:00:00Z',
  scan: { project_root: '.', scope_globs: ['**/*.md'], excluded_dirs: [], files_scanned: 0 },
  shortlist: [],
  entries: [],
  promotion_candidates: [],
};

export const VALID_CRITIQUE: Json = {
  skillFolder: 'skills/demo',
  prompt: 'Do the thing',
  sessionId: 's-1',
  outDir: 'out',
  fidelity: 'hostloop',
  selfReportStatus: 'captured',
  verdictProvenance: { kind: 'self-run', advisory: true, caveat: 'self-run lead' },
  evaluatorModel: 'model-x',
  items: [],
};

const REVISION = 'a'.repeat(64);

export const VALID_RECIPE_INPUT: Json = {
  build_ref: 'build_1',
  revision: REVISION,
  idempotency_key: 'k-1',
  ops: [{ op: 'replace_spec', spec: {} }],
};

export const VALID_RECIPE_OUTPUT: Json = {
  outcome: 'queued',
  activity_ref: 'act_1',
  state: 'queued',
  revision: REVISION,
  poll_after_seconds: 5,
};

export const reportText = (m?: Mutate) => render(VALID_REPORT, m);
export const critiqueText = (m?: Mutate) => render(VALID_CRITIQUE, m);
export const recipeInputText = (m?: Mutate) => render(VALID_RECIPE_INPUT, m);
export const recipeOutputText = (m?: Mutate) => render(VALID_RECIPE_OUTPUT, m);

/**
 * The range of the value in the (unique) occurrence of `"key": <valueJson>` in a text rendered by
 * JSON.stringify(…, null, 2), computed independently of the server.
 */
export function valueRange(text: string, key: string, valueJson: string): Range {
  const needle = `${JSON.stringify(key)}: ${valueJson}`;
  const at = text.indexOf(needle);
  if (at < 0 || text.indexOf(needle, at + 1) >= 0) throw new Error(`fixture: ${needle} not found exactly once`);
  const start = at + needle.length - valueJson.length;
  return { start: positionAt(text, start), end: positionAt(text, start + valueJson.length) };
}

/** The range of the document's opening brace (where a missing top-level property is reported). */
export function openingBrace(text: string): Range {
  const at = text.indexOf('{');
  return { start: positionAt(text, at), end: positionAt(text, at + 1) };
}

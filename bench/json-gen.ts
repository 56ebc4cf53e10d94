/**
 * Deterministic, VALID agent JSON at scale for the benchmarks:
 * - a verdict.v1 plan (schema 1.1 with context_plan) produced by the real engine on a generated markdown
 *   document: sections drawn from a pool are repeated, so EngineCache measures each distinct section once
 *   and the plan's ranges, lines and arithmetic are the engine's own;
 * - a docs-hygiene report (shape of examples/golden/valid-report.json) with thousands of entries.
 * Both are printed like agents print them (2-space indent).
 */
import { createHash } from 'node:crypto';
import { EngineCache } from '../server/src/core/markdown/engine';
import { markdownSection, type SectionShape } from './markdown-gen';
import { Rng, sentence, words } from './prng';

/** Markdown whose engine plan serializes to roughly `targetBytes`. Repeated sections keep generation fast. */
export function planMarkdown(seed: number, sections: number): string {
  const r = new Rng(seed);
  // No `rules` sections: repeated rules would make every copy a duplicate_rule warning of every other.
  const shapes: SectionShape[] = ['table', 'kv-list', 'list', 'prose', 'fence', 'definitions'];
  const pool = Array.from({ length: Math.min(sections, 400) }, (_, i) => markdownSection(r, i + 1, r.int(150, 900), r.pick(shapes)));
  const parts = [`# Generated plan source ${seed}`, '', sentence(r), ''];
  for (let i = 0; i < sections; i++) parts.push(pool[i % pool.length]!);
  return parts.join('\n');
}

export function planJson(seed: number, sections: number): { text: string; sections: number; markdownChars: number } {
  const md = planMarkdown(seed, sections);
  const plan = new EngineCache(1_000_000).plan(md);
  return { text: JSON.stringify(plan.verdict, null, 2) + '\n', sections: plan.sections.length, markdownChars: md.length };
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** A valid docs-hygiene report of `n` entries (deterministic auto-tier edits and generative confirm-tier ops). */
export function reportJson(seed: number, n: number): string {
  const r = new Rng(seed);
  const entries: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const dir = `docs/${words(r, 1)}-${i % 97}`;
    const path = `${dir}/${words(r, 1)}-${i}.md`;
    const start = r.int(1, 400);
    const anchor = { start_line: start, end_line: start + r.int(0, 40) };
    const raw = r.int(10, 5000);
    const kind = r.int(0, 3);
    const base = { path, signals: [sentence(r, 3, 8), ...(r.chance(0.5) ? [sentence(r, 3, 8)] : [])], op: sentence(r, 4, 10) };
    const deterministic = (exact: Record<string, unknown>, cls: string, subtype: string) => ({
      ...base,
      category: { class: cls, subtype },
      op_type: 'deterministic',
      is_destructive: false,
      is_reversible: true,
      safety_tier: 'auto',
      token_estimate: { raw_tokens: raw, injection_frequency: null, weighted_tokens: null },
      exact_edit: { ...exact, expected_sha256: sha(`${seed}:${i}`) },
    });
    if (kind === 0) entries.push(deterministic({ kind: 'move-to-archive', anchor, dest_path: `docs/archive/${words(r, 1)}-${i}.md` }, 'stale', 'completed-in-place'));
    else if (kind === 1) entries.push(deterministic({ kind: 'insert-frontmatter', key: 'hygiene', value: 'frozen' }, 'stale', 'completed-in-place'));
    else if (kind === 2) entries.push(deterministic({ kind: 'replace-text', anchor, match: words(r, 3), replacement: words(r, 2) }, 'stale', 'completed-in-place'));
    else
      entries.push({
        ...base,
        category: { class: 'bloat', subtype: 'distill' },
        op_type: 'generative',
        is_destructive: false,
        is_reversible: true,
        safety_tier: 'confirm',
        token_estimate: { raw_tokens: raw },
      });
  }
  const report = {
    schema_version: '1.0',
    tool_version: '0.4.2',
    generated_at: '2026-11-29T10:00:00Z',
    scan: { project_root: '.', scope_globs: ['docs/**/*.md'], excluded_dirs: ['node_modules'], files_scanned: n },
    shortlist: entries.map((e) => e.path),
    entries,
    promotion_candidates: [],
  };
  return JSON.stringify(report, null, 2) + '\n';
}

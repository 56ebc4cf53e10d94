/**
 * Hover explanations for critique reports: the derived cost total, what an item's classification
 * and citation status mean for acting on it, and what the evaluator canaries say.
 * Returns undefined wherever the schema description is the better answer.
 */
import type { JsonPath } from '../../types';
import { COST_PARTS, COST_TOLERANCE, describeParts, isObject, summarizeCost } from './critique';

/** What each classification tells the skill author to do. */
export const CLASSIFICATION_MEANINGS: Readonly<Record<string, string>> = {
  'grounded-and-actionable': 'the evidence supports the idea and acting on it is worth it — the one class to act on.',
  'grounded-but-not-worth-it': 'the evidence supports the idea, but the change would cost more than it gains.',
  confabulated: 'the evidence does not support the idea: the model invented it.',
  'already-covered': 'the skill already handles this (SKILL.md or its references say so); no change needed.',
  'not-adjudicable': 'the evidence package cannot decide either way (also the forced downgrade of already-covered when SKILL.md is missing or unreadable).',
};

/** Markdown explaining the value at `path` of a critique report, or undefined. */
export function explainCritique(value: unknown, path: JsonPath): string | undefined {
  try {
    if (!isObject(value)) return undefined;
    const [a, b, c] = path;
    if (a === 'costUsd' && (path.length === 1 || (path.length === 2 && (b === 'totalUsd' || b === 'complete')))) return explainCost(value);
    if (a === 'evaluatorIntegrity' && (path.length === 1 || (path.length === 2 && (b === 'pass1Canary' || b === 'pass2Canary')))) {
      return explainIntegrity(value);
    }
    if (a === 'items' && typeof b === 'number' && path.length === 3 && Array.isArray(value.items)) {
      const item = value.items[b];
      if (!isObject(item)) return undefined;
      if (c === 'classification') return explainClassification(value, item);
      if (c === 'citationResolved') return explainCitation(item);
    }
  } catch {
    // A hover never breaks the editor.
  }
  return undefined;
}

function explainCost(root: Record<string, unknown>): string | undefined {
  const c = summarizeCost(root);
  if (!c) return undefined;
  const lines = ['**costUsd.totalUsd** — the sum of the four model workloads', '', '| part | USD |', '|---|---|'];
  for (const name of COST_PARTS) {
    const p = c.parts.find((x) => x.name === name);
    lines.push(`| ${name} | ${p ? p.value : '— (absent)'} |`);
  }
  lines.push(`| **sum** | **${c.sum}** |`, '');
  if (c.totalUsd !== undefined) {
    lines.push(
      c.matches
        ? `totalUsd ${c.totalUsd} equals the sum of ${describeParts(c.parts)} (±${COST_TOLERANCE}).`
        : `totalUsd ${c.totalUsd} ≠ ${c.sum}, the sum of ${describeParts(c.parts)}.`,
      '',
    );
  }
  if (c.complete === true) {
    lines.push(
      c.matches === false
        ? 'complete is true, but the total does not add up: do not trust it until it is fixed.'
        : 'complete is true: every workload was priced, the total can be trusted.',
    );
  } else if (c.complete === false) {
    lines.push('complete is **false**: one or more workloads were unpriced, so totalUsd **undercounts** true spend. Do not use it for budget pacing as-is.');
  } else {
    lines.push('complete is missing or not a boolean: gate on `complete` before trusting totalUsd.');
  }
  return lines.join('\n');
}

function explainIntegrity(root: Record<string, unknown>): string | undefined {
  const integrity = root.evaluatorIntegrity;
  if (!isObject(integrity)) return undefined;
  const lines = ['**evaluatorIntegrity** — a mechanical canary per evaluator pass: did the pass obey a trusted instruction planted in its prompt?', ''];
  const describe = (key: string, pass: string): string => {
    const v = integrity[key];
    if (v === true) return `- ${pass}: canary honoured — the pass followed the trusted instruction.`;
    if (v === false) return `- ${pass}: canary **failed** — the pass ignored a trusted instruction; its findings (or their absence) may be adversarial silencing, not a clean skill.`;
    if (v === undefined) {
      return root.selfReportStatus === 'unavailable'
        ? `- ${pass}: not recorded — pass 2 was skipped (selfReportStatus unavailable).`
        : `- ${pass}: not recorded.`;
    }
    return `- ${pass}: not a boolean.`;
  };
  lines.push(describe('pass1Canary', 'pass 1'), describe('pass2Canary', 'pass 2'));
  return lines.join('\n');
}

function explainClassification(root: Record<string, unknown>, item: Record<string, unknown>): string | undefined {
  const cls = item.classification;
  if (typeof cls !== 'string') return undefined;
  const meaning = CLASSIFICATION_MEANINGS[cls];
  const lines = [`**classification: ${cls}** — ${meaning ?? 'not one of the five known classes.'}`];
  if (item.citationResolved === false) lines.push('', 'The citation did not resolve (DROPPED section): transparency only, do not act on it as-is.');
  if (cls === 'already-covered' && (root.skillMdStatus === 'missing' || root.skillMdStatus === 'unreadable')) {
    lines.push('', `skillMdStatus is ${root.skillMdStatus}: already-covered should have been downgraded to not-adjudicable.`);
  }
  if (item.source === 'self-report') lines.push('', "Source: the graded agent's own reflection (self-report, pass 2), not the evaluator.");
  return lines.join('\n');
}

function explainCitation(item: Record<string, unknown>): string | undefined {
  const v = item.citationResolved;
  if (v === true) return '**citationResolved: true** — the cited excerpt was found verbatim in the evidence package.';
  if (v === false) {
    return '**citationResolved: false** — the cited excerpt did not resolve verbatim against the evidence package. The item is in the DROPPED section: transparency only, do not act on it as-is.';
  }
  return undefined;
}

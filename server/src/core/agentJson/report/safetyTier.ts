/**
 * THE single derivation of a report entry's safety tier (report-schema spec, "Safety-Tier Is Derived
 * Deterministically"; report-shape.md, derive_safety_tier). The validator rule, the quick fix, the
 * lenses and the apply planner all call this function; there is no second tier-deriving code path.
 */
import type { LifecycleEvidence } from './shape';

export type SafetyTier = 'auto' | 'confirm';

export interface GitState {
  tracked: boolean;
  clean: boolean;
}

/**
 * derive_safety_tier(op_type, is_destructive, is_reversible, lifecycle, git).
 *
 * `lifecycle` is given (an object, possibly empty) exactly for delete / extract-then-delete ops and is
 * null/undefined for every other op. For a lifecycle op the result is `auto` only when op_type is
 * deterministic AND the evidence is scanner-proven (a non-empty served_when_path without a
 * classifier-judged served_when, or lifetime temporary) AND git says tracked AND clean; is_destructive
 * and is_reversible do not matter. For every other op: `auto` only when deterministic AND not destructive
 * AND reversible. Unknown or mistyped inputs never prove anything: they derive to `confirm`.
 */
export function deriveSafetyTier(
  opType: unknown,
  isDestructive: unknown,
  isReversible: unknown,
  lifecycle: LifecycleEvidence | null | undefined,
  git: GitState | null | undefined,
): SafetyTier {
  if (opType !== 'deterministic') return 'confirm';
  if (lifecycle !== null && lifecycle !== undefined) {
    return isScannerProven(lifecycle) && git?.tracked === true && git.clean === true ? 'auto' : 'confirm';
  }
  return isDestructive === false && isReversible === true ? 'auto' : 'confirm';
}

/** Scanner-proven lifecycle evidence: a served_when_path (and no classifier-judged served_when), or lifetime temporary. */
export function isScannerProven(lifecycle: LifecycleEvidence): boolean {
  if (typeof lifecycle !== 'object' || lifecycle === null) return false;
  const judged = lifecycle.served_when !== undefined && lifecycle.served_when !== null;
  if (judged) return false;
  if (typeof lifecycle.served_when_path === 'string' && lifecycle.served_when_path.length > 0) return true;
  return lifecycle.lifetime === 'temporary';
}

/** Short reason for a derived tier, for messages and quick-fix titles. */
export function explainSafetyTier(
  opType: unknown,
  isDestructive: unknown,
  isReversible: unknown,
  lifecycle: LifecycleEvidence | null | undefined,
  git: GitState | null | undefined,
): string {
  const tier = deriveSafetyTier(opType, isDestructive, isReversible, lifecycle, git);
  if (opType !== 'deterministic') return 'a generative op always needs confirmation';
  if (lifecycle !== null && lifecycle !== undefined) {
    return tier === 'auto'
      ? 'scanner-proven evidence on a tracked, clean file'
      : 'delete needs scanner-proven evidence and a tracked, clean file';
  }
  if (tier === 'auto') return 'deterministic, non-destructive and reversible';
  if (isDestructive !== false) return 'the op is destructive';
  return 'the op is not reversible';
}

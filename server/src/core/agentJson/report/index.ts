/** The docs-hygiene report core: tier derivation, containment, edit planning and lens data (no LSP, no fs). */
export { deriveSafetyTier, explainSafetyTier, isScannerProven, type SafetyTier, type GitState } from './safetyTier';
export { unsafePathReason, resolveInsideRoot, locateProjectRoot, isInside, type ReportLocation, type ResolvedPath } from './paths';
export { planExactEdit, isSafetyRefusal, yamlScalar, type PlanOptions, type PlanResult, type RefusalCode, type TierAllowed } from './exactEdit';
export { reportLenses, locatedReportLenses, planApplyAllAuto, planBatch, APPLY_EDIT_COMMAND, type ReportLens, type LocatedReportLens, type ApplyEditArgs, type BatchPlan, type BatchApplied, type BatchSkipped } from './lenses';
export { applyTextEdits, writtenPaths, type FileChange, type TextEdit, type WorkspaceWriter } from './changes';
export { sha256Hex } from './text';

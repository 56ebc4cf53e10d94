/**
 * Kind-specific hover explanations (derived fields, cross-field rules).
 * The hover facade asks these first and falls back to the schema description.
 */
import type { DocumentKind, JsonPath } from '../../types';
import { explainVerdict } from './verdictExplain';
import { explainCritique } from './critiqueExplain';

/** Markdown explaining the value at `path`, or undefined to fall back to the schema description. */
export type Explainer = (value: unknown, path: JsonPath) => string | undefined;

export const EXPLAINERS: Partial<Record<DocumentKind, Explainer>> = {
  verdict: explainVerdict,
  critique: explainCritique,
};

/**
 * The shape of a markdown rule (one file per engine warning under this folder, markdownlint's lib/mdNNN
 * layout): its wire code, where it is decided, its severity, what it does to a verdict, and how it is shown.
 * The engine's registries (policy's severities and split codes, the warning order, the diagnostic codes) are
 * read off these rows, so a new warning is its rule file, its line in ./index.ts, its catalogue entry in
 * core/codes.ts and a scenario fixture under test/fixtures/markdown-rules/.
 */
import type { DiagnosticCode } from '../../codes';
import type { ParsedSlice } from '../blocks';
import type { DuplicateMemo, RuleGroup, RuleRef, VerdictWarning } from '../warnings';

export type WarningSeverity = 'info' | 'warning';

/**
 * - `slice`: decided from one section's text alone (cached with the section's analysis);
 * - `document`: decided across the sections of a document (the whole-document verdict, the findings);
 * - `measurement`: added by the engine while it measures a TOON candidate (no text of its own).
 */
export type RuleScope = 'slice' | 'document' | 'measurement';

/**
 * What the rule's warning does to a verdict that would otherwise convert (docs/engine.md#decision-policy); `convert`:
 * it sends nothing to review, and lifts the character 5 % (the floor was decided on real tokens).
 */
export type VerdictEffect = 'review' | 'split_first' | 'keep_markdown' | 'convert';

/** What a slice rule reads: the section's parse and text, its heading end and display name. */
export interface SliceRuleInput {
  parsed: ParsedSlice;
  raw: string;
  headingEnd: number;
  section: string;
}

/** How a warning is shown as a diagnostic (Problems, `toonlens check`, SARIF). */
export interface RuleDiagnostic {
  code: DiagnosticCode;
  /** `range`: where the warning points (it needs a range); `heading`: on the section's heading line (a preamble's first line). */
  at: 'range' | 'heading';
  /** The diagnostic's severity when it is not the warning's own. */
  severity?: WarningSeverity;
  /** Whether the warning's suggestion is appended to its message. */
  withSuggestion: boolean;
  /**
   * Advice about instructions an agent reads: shown only on files agents load (see core/files.ts), since on a
   * README or a code of conduct it is not actionable.
   */
  agentAdvice?: true;
  /**
   * Advice about what an agent reads on every request (move detail into an on-demand skill): not shown on agent
   * files loaded on demand (skills, prompts, commands: core/files.ts isOnDemandAgentFile).
   */
  alwaysOnAdvice?: true;
  /**
   * A note about what a TOON conversion would cost: lens and hover content, shown as a diagnostic only where the
   * document holds a ```toon fence (the author converted) or the user asked for it (`reportTokenNotes`).
   */
  tokenNote?: true;
}

interface RuleBase {
  /** The verdict.v1 warning code (snake_case). */
  warning: string;
  scope: RuleScope;
  /** The warning's severity on the wire (what safe_to_auto_apply reads). */
  severity: WarningSeverity;
  decides: VerdictEffect;
  /** One line, markdown: when the warning is raised. */
  description: string;
  diagnostic?: RuleDiagnostic;
}

export interface SliceRule extends RuleBase {
  scope: 'slice';
  check(input: SliceRuleInput): VerdictWarning | VerdictWarning[] | null | undefined;
  /** `check` in steps (yielding every few thousand units, items or cells), for a rule whose walk grows with the section. */
  checkSteps?(input: SliceRuleInput): Generator<void, VerdictWarning | VerdictWarning[] | null | undefined, void>;
}

export interface DocumentRule extends RuleBase {
  scope: 'document';
  check(groups: RuleGroup[] | RuleRef[], memo?: { last?: DuplicateMemo }): VerdictWarning[];
}

export interface MeasurementRule extends RuleBase {
  scope: 'measurement';
}

export type MarkdownRule = SliceRule | DocumentRule | MeasurementRule;

/**
 * The one catalogue of ToonLens diagnostic codes: code, default severity, one-line description, the
 * document kinds that can carry it, and the group it is listed under in docs/diagnostics.md.
 *
 * Every rule takes its code and severity from here (`ruleCode`, `finding`), docs/diagnostics.md is
 * generated from it (`npm run docs:codes`, checked by test/unit/codes.test.ts), and per-rule severity
 * settings start from `defaultSeverity`. Codes are added, never renamed.
 */
export type Severity = 'error' | 'warning' | 'info' | 'hint';

/** The agent-JSON kinds ToonLens understands. */
export type DocumentKind = 'verdict' | 'report' | 'critique' | 'recipe-input' | 'recipe-output';

/** Where a code can appear: an agent-JSON kind, any JSON ToonLens checks, a JSON Schema file, markdown, `.toon`. */
export type CodeScope = DocumentKind | 'json' | 'json-schema' | 'markdown' | 'toon';

/** The groups of docs/diagnostics.md, in the order they are listed. */
export const CODE_GROUPS = {
  json: 'Every JSON kind',
  verdict: 'Verdict (verdict.v1)',
  report: 'Docs-hygiene report',
  critique: 'Critique report',
  recipe: 'Recipe-build MCP payloads and tool schemas',
  markdown: 'Markdown',
  context: 'Agent context',
} as const;
export type CodeGroup = keyof typeof CODE_GROUPS;

export interface CodeInfo {
  readonly severity: Severity;
  /** One line, markdown: when the code is reported. */
  readonly description: string;
  readonly scopes: readonly CodeScope[];
  readonly group: CodeGroup;
  /**
   * The rule says in the spec's own terms what a schema error there only says generically (the subtype closed
   * per class, the fields an edit kind needs): where it reports exactly a schema error's target, it is reported
   * instead of that error, and speaks first as the schema would.
   */
  readonly replacesSchemaError?: true;
}

const JSON_KINDS: readonly CodeScope[] = ['verdict', 'report', 'critique', 'recipe-input', 'recipe-output'];
const e = (group: CodeGroup, scopes: readonly CodeScope[], description: string): CodeInfo => ({ severity: 'error', description, scopes, group });
const w = (group: CodeGroup, scopes: readonly CodeScope[], description: string): CodeInfo => ({ severity: 'warning', description, scopes, group });
const i = (group: CodeGroup, scopes: readonly CodeScope[], description: string): CodeInfo => ({ severity: 'info', description, scopes, group });
const V = ['verdict'] as const;
const R = ['report'] as const;
const C = ['critique'] as const;

export const CODES = {
  'json-syntax': e('json', JSON_KINDS, 'the text does not parse as JSON'),
  schema: e('json', JSON_KINDS, 'the document breaks its JSON Schema (the message names the keyword and what is allowed)'),
  'unsupported-version': w('json', JSON_KINDS, '`schema_version` has a major version ToonLens does not know; only syntax is checked then'),
  'limits/too-large': i('json', [...JSON_KINDS, 'markdown', 'toon'], 'the document is larger than `toonlens.maxFileSizeMB` (default 50): nothing is parsed'),
  internal: e('json', JSON_KINDS, 'a rule set threw on this document; the failure stays with its document'),
  'limits/too-many-diagnostics': i('json', [...JSON_KINDS, 'json-schema', 'markdown', 'toon'], 'the editor shows at most 1,000 diagnostics per document (the most severe first); this one, on the first line, says how many more there are (`toonlens check` lists them all)'),

  'verdict/safe-to-auto-apply': e('verdict', V, "the recorded value differs from the schema's formula over verdict, mode, flags and warnings"),
  'verdict/savings': e('verdict', V, '`measured_chars.savings` is not `source − toon`'),
  'verdict/savings-pct': e('verdict', V, '`savings_pct` is not `savings / source × 100` to one decimal (±0.05)'),
  'verdict/token-arithmetic': w('verdict', V, '`token_estimates` or a `ratio_estimates` row disagrees with its own arithmetic'),
  'verdict/candidate-length': e('verdict', V, '`toon_candidate` is present and its length is not `measured_chars.toon`'),
  'verdict/candidate-decode': e('verdict', V, '`flags.valid` is true but the candidate fails a strict TOON decode (a warning when `valid` is false yet it decodes)'),
  'verdict/refused-shape': e('verdict', V, 'a refused verdict without a null candidate and delimiter, or a null delimiter on a verdict that is not refused (a null candidate alone is a profile response)'),
  'verdict/decision': e('verdict', V, 'the verdict is not what the decision policy ([engine.md](engine.md#decision-policy)) gives for the recorded counts and warning codes'),
  'verdict/lossless-flag': e('verdict', V, 'lossless mode with `flags.lossless` false, or a `lossy_applied` warning with `flags.lossless` true'),
  'verdict/target-reached': e('verdict', V, 'a `target_not_reached` warning while `flags.target_reached` is not false, or `target_reached` false without `target_not_reached` or `budget_refused`'),
  'verdict/unknown-warning-code': i('verdict', V, "a warning code outside the v1 registry (tolerated: the registry is open); ToonLens's own `token_regression` (severity warning), `token_savings` (info) and `markdown_only` (info) ([engine.md](engine.md#5-warnings)) are known and never raise it"),
  'verdict/schema-version': e('verdict', V, '`context_plan` is present exactly when `schema_version` is at least 1.1, and that does not hold'),
  'plan/partition': e('verdict', V, "the sections' ranges do not tile `[0, net.source)`: a gap, an overlap, out of order, or lines that disagree"),
  'plan/frontmatter-shape': e('verdict', V, 'a frontmatter section whose profile, verdict and measured_chars are not null or whose action is not `keep`, or another section with them null'),
  'plan/action': e('verdict', V, '`action: convert` and a section verdict of `convert` do not go together'),
  'plan/section-arithmetic': e('verdict', V, "a section's `measured_chars` arithmetic is wrong"),
  'plan/section-safe-to-auto-apply': e('verdict', V, "a section's recorded safety differs from the whole-document formula applied to that section"),
  'plan/net-arithmetic': e('verdict', V, '`net.savings` is not `source − hybrid`, or its percentage is wrong'),
  'plan/recommend-hybrid': e('verdict', V, '`recommend_hybrid` is not "the net saving clears the minimum convert percentage and some section converts"'),
  'plan/safe-to-auto-apply': e('verdict', V, "the plan's safety is not `recommend_hybrid ∧ converted > 0 ∧ every converted section safe ∧ reassembly_verified`"),
  'plan/warning-range': w('verdict', V, "a section warning's range lies outside its section"),

  'report/entry-not-in-shortlist': e('report', R, "an entry's `path` is not in the shortlist"),
  'report/exact-edit-biconditional': e('report', R, '`exact_edit` is present exactly when `op_type` is `deterministic`, and that does not hold'),
  'report/safety-tier': e('report', R, '`safety_tier` is not what the tier derivation gives ([report-shape.md](report-shape.md#safety-tier))'),
  'report/kind-characterization': e('report', R, '`is_destructive` / `is_reversible` contradict the fixed character of the edit kind'),
  'report/category': { ...e('report', R, 'the subtype does not belong to its class'), replacesSchemaError: true },
  'report/kind-fields': { ...e('report', R, 'a field the edit kind needs is missing'), replacesSchemaError: true },
  'report/lifecycle-served': e('report', R, "the lifecycle's served fields break the exactly-one rule"),
  'report/extraction-target': { ...e('report', R, 'extract-then-delete without `extraction_target`, or a repo-durable target without `target_ref`'), replacesSchemaError: true },
  'report/promotion-candidate': w('report', R, "a promotion candidate's path is not an entry whose `served_when` a classifier judged"),
  'report/generated-at': e('report', R, '`generated_at` is not an ISO-8601 UTC timestamp'),
  'report/unsafe-path': e('report', R, 'a path is absolute, leaves the project root, or enters `.git` or a folder hooks run from (`core.hooksPath`, `.husky`, `.githooks`)'),
  'report/stale-edit': w('report', R, "the target's sha256 is not `expected_sha256`: the file changed since the check"),
  'report/missing-target': w('report', R, 'the target file does not exist'),
  'report/anchor-out-of-range': e('report', R, "an anchor's `start_line` is after its `end_line`, or past the target's last line"),
  'report/dedupe-not-duplicate': e('report', R, 'a dedupe span is not byte-identical to its `canonical_ref`'),

  'critique/outcome': e('critique', C, 'not exactly one of `infraFailure` / `evaluatorError` / `evaluatorModel`, or `items` not empty on a failure branch'),
  'critique/cost-total': e('critique', C, '`costUsd.complete` is true and the parts present do not add up to `totalUsd` (±1e-9)'),
  'critique/cost-incomplete': i('critique', C, '`costUsd.complete` is false: `totalUsd` counts less than was spent'),
  'critique/canary': w('critique', C, 'an `evaluatorIntegrity` canary is false'),
  'critique/self-report': e('critique', C, "`selfReportStatus` is unavailable yet an item's source is `self-report`"),
  'critique/fidelity-mismatch': w('critique', C, '`gradedEffectiveFidelity` is present and differs from `fidelity`'),
  'critique/fingerprint-format': e('critique', C, '`findingFingerprint` is not 16 lowercase hex digits'),
  'critique/citation-unresolved': i('critique', C, 'an item has `citationResolved: false`'),
  'critique/skill-not-invoked': w('critique', C, '`skillInvocationObserved` is false'),

  'recipe/payload-size': w('recipe', ['recipe-input'], 'the serialized tool arguments reach 32 KiB: send them as begin/append/commit chunks'),
  'recipe/append-size': w('recipe', ['recipe-input'], 'one `append_chunk` request reaches 12 KiB'),
  'recipe/chunk-seq': e('recipe', ['recipe-input'], "within one document, the `seq` values of a chunk's appends do not run 0, 1, 2, …"),
  'recipe/chunk-sha': e('recipe', ['recipe-input'], "a `commit_chunk`'s sha256 is not the SHA-256 of the UTF-8 text its appends assemble (when all are in the document)"),
  'schema-drift/breaking': w('recipe', ['json-schema'], 'against its baseline, a schema removed a property, changed a type, dropped an accepted value, added a required field, tightened `additionalProperties`, or (output schemas) added an enum value closed consumers reject'),
  'schema-drift/additive': i('recipe', ['json-schema'], 'an additive change: a new optional property, a loosened constraint'),

  'toon/fence-decode': e('markdown', ['markdown', 'toon'], 'a ```` ```toon ```` fence or a `.toon` file fails a strict TOON decode; the range is the failing line'),
  'toon/duplicate-rule': w('markdown', ['markdown'], "a rule that repeats an earlier one anywhere in the file: the same text after normalization (case, spacing, list marker, final punctuation), or a near-duplicate that differs only in filler words and inflections (docs/engine.md); names the earlier occurrence; files agents load only"),
  'toon/vague-rule': w('markdown', ['markdown'], "an instruction without an action, condition or check (\"be careful\", \"as appropriate\" without a concrete handle), where it stands; files agents load only"),
  'toon/long-section': i('markdown', ['markdown'], "a section too long for one instruction block (characters, lines or bullets), on its heading line; files agents load only"),
  'toon/split-candidate': i('markdown', ['markdown'], "a section mixing several triggers, or policy with procedure (it decides `split_first` like `long_section`), on its heading line; files agents load only"),
  'toon/token-regression': i('markdown', ['markdown'], "the engine's `token_regression` warning: the section's TOON saves characters but fewer real tokens than `toonlens.minTokenSavings`, or under `toonlens.minTokenSavingsPct` (default 5) % of the section's real tokens, so the verdict is `review`, not `convert`; the message gives both counts and the tokenizer (`TOON saves characters but costs 1 token in o200k_base (154 → 155).`); on the heading line; a diagnostic only in a file holding a ```` ```toon ```` fence or with `toonlens.tokenNotesAsDiagnostics` (else lens and hover content); none with `toonlens.tokenizer: estimate`"),

  'context/duplicate-instruction': w('context', ['markdown'], 'the same instruction (a normalized sentence or list item, or the same content words) is in two files one agent loads together; the other copy is related information, the quick fix removes this one ([agent-context.md](agent-context.md#duplicates))'),
  'context/over-budget': w('context', ['markdown'], "an agent's always-paid tokens exceed its `contextBudget` in `.toonlens.json`; on the costliest always-loaded file"),
  'context/unreachable': w('context', ['markdown'], 'an agent file no agent loads (wrong folder or extension, a glob that matches no file), or an `@import` whose target is missing or past the depth limit'),
  'context/import-cycle': i('context', ['markdown'], 'an `@import` that closes a cycle of imports (each file is still loaded once)'),
} as const satisfies Record<string, CodeInfo>;

export type DiagnosticCode = keyof typeof CODES;

export const DIAGNOSTIC_CODES = Object.keys(CODES) as DiagnosticCode[];

export function isDiagnosticCode(code: string): code is DiagnosticCode {
  return Object.prototype.hasOwnProperty.call(CODES, code);
}

/** The repository's web address (package.json `repository.url` without `.git`; a unit test keeps them in step). */
export const REPOSITORY_URL = 'https://github.com/toonlens/toonlens';

/** The page every code is documented on: docs/diagnostics.md on the repository's default branch. */
export const DIAGNOSTICS_DOC_URL = `${REPOSITORY_URL}/blob/main/docs/diagnostics.md`;

/** The anchor of a code's row in docs/diagnostics.md: the code in lower case, every run of other characters a `-` (`toon/duplicate-rule` → `toon-duplicate-rule`). */
export function codeAnchor(code: string): string {
  return code.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

const docUrls = new Map<string, string>();

/**
 * Where a code is documented (its row in docs/diagnostics.md), or undefined for a string that is not a ToonLens
 * code. The one link every face gives: LSP `codeDescription.href`, SARIF `helpUri`.
 */
export function codeDocumentationUrl(code: string): string | undefined {
  if (!isDiagnosticCode(code)) return undefined;
  let url = docUrls.get(code);
  if (url === undefined) docUrls.set(code, (url = `${DIAGNOSTICS_DOC_URL}#${codeAnchor(code)}`));
  return url;
}

/** Whether a finding with this code is reported instead of the schema error on its target ({@link CodeInfo.replacesSchemaError}). */
export function replacesSchemaError(code: string): boolean {
  return isDiagnosticCode(code) && CODES[code].replacesSchemaError === true;
}

/** The default severity of a code, or undefined for a string that is not a ToonLens code. */
export function defaultSeverity(code: string): Severity | undefined {
  return isDiagnosticCode(code) ? CODES[code].severity : undefined;
}

/** A rule's identity: its code and that code's default severity, spread into a rule row. */
export function ruleCode<K extends DiagnosticCode>(code: K): { code: K; severity: Severity } {
  return { code, severity: CODES[code].severity };
}

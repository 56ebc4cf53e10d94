/**
 * The project configuration file, `.toonlens.json` (JSON with comments): its shape, its validation against
 * `schemas/toonlens-config.v1.json`, and what it does to diagnostics — rule severities (`off` removes a
 * diagnostic) and ignore globs. Finding the file on disk is the Node loader's job (node/config.ts); this
 * module is pure and shared by the CLI and the language server. Precedence: docs/config.md.
 */
import AjvDraft07 from 'ajv';
import type { ErrorObject } from 'ajv';
import { findNodeAtLocation, parse as parseJsonc, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { compileGlob } from './glob';
import configSchema from '../../../schemas/toonlens-config.v1.json';
import { CODES, DIAGNOSTIC_CODES, ruleCode } from './codes';
import { DOCUMENT_KINDS, type CoreDiagnostic, type DocumentKind, type Severity } from './types';
import { isObject } from './json/value';
import { fromPointer } from './json/pointer';
import { clampSetting } from './settingRanges';
import { isAgentId, type AgentId } from './context/agents';
import { errorMessage } from './errors';

export { CONFIG_FILE_NAME } from './files';
/**
 * The config schema as the editor uses it: the file's schema with one `rules` property per code of the catalogue
 * (description and default severity), so completion offers every code and hovers explain it.
 */
export const CONFIG_SCHEMA: Record<string, unknown> = withCatalogue(configSchema as Record<string, unknown>);

function withCatalogue(schema: Record<string, unknown>): Record<string, unknown> {
  const props = schema.properties as Record<string, Record<string, unknown>>;
  const rules = props.rules!;
  const codes: Record<string, unknown> = {};
  for (const code of DIAGNOSTIC_CODES) {
    const info = CODES[code];
    codes[code] = { $ref: '#/definitions/level', markdownDescription: `${info.description} (default: \`${info.severity}\`)` };
  }
  return { ...schema, properties: { ...props, rules: { ...rules, properties: codes } } };
}

export const RULE_LEVELS = ['off', 'info', 'warning', 'error'] as const;
export type RuleLevel = (typeof RULE_LEVELS)[number];
export const TOKENIZERS = ['o200k_base', 'cl100k_base', 'estimate'] as const;
export type Tokenizer = (typeof TOKENIZERS)[number];

export interface ToonLensConfig {
  /** Diagnostic code → level. */
  rules: Record<string, RuleLevel>;
  /** Glob → kind, as the `toonlens.documentKinds` setting. */
  documentKinds: Record<string, DocumentKind>;
  tokenizer?: Tokenizer;
  minTokenSavings?: number;
  /** The token floor in percent of a section's real tokens (0–100). */
  minTokenSavingsPct?: number;
  /** Agent → tokens it may pay on every request (docs/agent-context.md). */
  contextBudget?: Partial<Record<AgentId, number>>;
  /** Token notes (`toon/token-regression`) as diagnostics in every markdown file, not only in converted ones. */
  tokenNotesAsDiagnostics?: boolean;
  /** Globs relative to the config file's folder. */
  ignore: string[];
  /**
   * Globs (relative to the config file's folder, as `ignore`) of more files agents load, beyond the ones known
   * by name and location (core/files.ts isAgentFile): they get the agent-file advice too.
   */
  agentFiles: string[];
  /** The opt-in fixes `toonlens check --fix` applies beyond the unattended ones (docs/config.md#fix). */
  fix?: FixConfig;
}

/** `.toonlens.json` `fix`: each key turns on one fix that changes a file's form, never its meaning. */
export interface FixConfig {
  /** Compact table on every markdown table whose rendered HTML stays identical. */
  compactTables?: boolean;
}

export const EMPTY_CONFIG: Readonly<ToonLensConfig> = Object.freeze({ rules: {}, documentKinds: {}, ignore: [], agentFiles: [] });

export interface ParsedConfig {
  /** What the file validly says (invalid entries are dropped, so a typo does not disable everything). */
  config: ToonLensConfig;
  /** One line per problem (syntax or schema), empty when the file is valid. */
  problems: string[];
}

let validator: ReturnType<AjvDraft07['compile']> | undefined;
function validate(value: unknown): ErrorObject[] {
  validator ??= new AjvDraft07({ allErrors: true, strict: false }).compile(CONFIG_SCHEMA);
  return validator(value) ? [] : [...(validator.errors ?? [])];
}

function describe(e: ErrorObject): string {
  const at = e.instancePath ? fromPointer(e.instancePath).join('.') : '(root)';
  if (e.keyword === 'additionalProperties') return `${at}: unknown property "${(e.params as { additionalProperty: string }).additionalProperty}"`;
  if (e.keyword === 'enum') return `${at}: must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'propertyNames') return `${at}: "${(e.params as { propertyName: string }).propertyName}" is not a diagnostic code`;
  return `${at}: ${e.message ?? e.keyword}`;
}


/** Line (1-based) of an offset, for syntax-error messages. */
function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** Keys that name an object's prototype machinery: a JSON parser assigning them would reconfigure every lookup. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Every property key node named `__proto__`, `constructor` or `prototype`, at any depth (an explicit stack, no recursion). */
export function forbiddenKeyNodes(tree: Node): Node[] {
  const out: Node[] = [];
  const stack: Node[] = [tree];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'property') {
      const key = node.children?.[0];
      if (key && typeof key.value === 'string' && FORBIDDEN_KEYS.has(key.value)) out.push(key);
    }
    if (node.children) for (const c of node.children) stack.push(c);
  }
  return out.sort((a, b) => a.offset - b.offset);
}

export function forbiddenKeyMessage(key: string): string {
  return `"${key}" is not allowed as a key (it names the prototype machinery of a JavaScript object); the whole file is ignored until it is removed`;
}

/** Parses and validates a config file's text. Never throws. */
export function parseConfig(text: string): ParsedConfig {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const empty = (): ToonLensConfig => ({ ...EMPTY_CONFIG, rules: {}, documentKinds: {}, ignore: [], agentFiles: [] });
  const errors: ParseError[] = [];
  let tree: Node | undefined;
  try {
    tree = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false });
  } catch (err) {
    return { config: empty(), problems: [`cannot be parsed: ${errorMessage(err)}`] };
  }
  const problems: string[] = errors.map((e) => `line ${lineOf(body, e.offset)}: ${printParseErrorCode(e.error)}`);
  if (problems.length) return { config: empty(), problems };
  // jsonc-parser assigns keys (obj[key] = value), so a "__proto__" key would set the prototype and configure
  // silently through inherited properties: such a file is refused as a whole, before it is turned into values.
  const forbidden = tree ? forbiddenKeyNodes(tree) : [];
  if (forbidden.length) return { config: empty(), problems: forbidden.map((k) => `line ${lineOf(body, k.offset)}: ${forbiddenKeyMessage(String(k.value))}`) };
  const raw: unknown = parseJsonc(body, [], { allowTrailingComma: true, disallowComments: false });
  problems.push(...validate(raw).map(describe));
  return { config: normalizeConfig(raw), problems };
}

/** The valid parts of a config value (the same lenient reading the settings get). */
export function normalizeConfig(raw: unknown): ToonLensConfig {
  const o = isObject(raw) ? raw : {};
  return {
    rules: normalizeRules(o.rules),
    documentKinds: isObject(o.documentKinds)
      ? (Object.fromEntries(Object.entries(o.documentKinds).filter(([, k]) => (DOCUMENT_KINDS as readonly unknown[]).includes(k))) as Record<string, DocumentKind>)
      : {},
    ...(typeof o.tokenizer === 'string' && (TOKENIZERS as readonly string[]).includes(o.tokenizer) ? { tokenizer: o.tokenizer as Tokenizer } : {}),
    // Clamped to the documented range (core/settingRanges.ts), as the editor's setting is.
    ...(typeof o.minTokenSavings === 'number' && Number.isInteger(o.minTokenSavings) && o.minTokenSavings >= 0 ? { minTokenSavings: clampSetting('minTokenSavings', o.minTokenSavings)! } : {}),
    // Out of its range (0–100) it is a problem and the default applies, as the schema says.
    ...(typeof o.minTokenSavingsPct === 'number' && Number.isFinite(o.minTokenSavingsPct) && o.minTokenSavingsPct >= 0 && o.minTokenSavingsPct <= 100 ? { minTokenSavingsPct: o.minTokenSavingsPct } : {}),
    ...(typeof o.tokenNotesAsDiagnostics === 'boolean' ? { tokenNotesAsDiagnostics: o.tokenNotesAsDiagnostics } : {}),
    ignore: Array.isArray(o.ignore) ? o.ignore.filter((g): g is string => typeof g === 'string' && g !== '') : [],
    agentFiles: Array.isArray(o.agentFiles) ? o.agentFiles.filter((g): g is string => typeof g === 'string' && g !== '') : [],
    ...(isObject(o.contextBudget) ? { contextBudget: normalizeBudget(o.contextBudget) } : {}),
    ...(isObject(o.fix) && typeof o.fix.compactTables === 'boolean' ? { fix: { compactTables: o.fix.compactTables } } : {}),
  };
}

function normalizeBudget(raw: Record<string, unknown>): Partial<Record<AgentId, number>> {
  const out: Partial<Record<AgentId, number>> = {};
  for (const [k, v] of Object.entries(raw)) if (isAgentId(k) && typeof v === 'number' && Number.isInteger(v) && v >= 0) out[k] = v;
  return out;
}

/** `rules` as given (config file or the `toonlens.rules` setting): unknown levels are dropped. */
export function normalizeRules(raw: unknown): Record<string, RuleLevel> {
  if (!isObject(raw)) return {};
  const out: Record<string, RuleLevel> = {};
  for (const [code, level] of Object.entries(raw)) if (typeof level === 'string' && (RULE_LEVELS as readonly string[]).includes(level)) out[code] = level as RuleLevel;
  return out;
}

/**
 * Diagnostics with the rule levels applied: `off` removes the diagnostic, another level replaces its severity;
 * codes the rules do not name keep their default severity.
 */
export function applyRuleLevels<T extends { code: string; severity: Severity }>(diagnostics: T[], rules: Readonly<Record<string, RuleLevel>>): T[] {
  if (Object.keys(rules).length === 0) return diagnostics;
  const out: T[] = [];
  for (const d of diagnostics) {
    const level = Object.prototype.hasOwnProperty.call(rules, d.code) ? rules[d.code] : undefined;
    if (level === 'off') continue;
    out.push(level === undefined || level === d.severity ? d : { ...d, severity: level });
  }
  return out;
}

const matchers = new Map<string, (path: string) => boolean>();

/** Whether a path (relative to the config file's folder, `/`-separated) matches one of the ignore globs. */
export function isIgnored(ignore: readonly string[], relPath: string): boolean {
  if (ignore.length === 0 || relPath.startsWith('../') || relPath === '..') return false;
  const key = ignore.join('\0');
  let m = matchers.get(key);
  if (!m) {
    // A glob without a slash matches the file name anywhere (as .gitignore), "dir/" a whole folder.
    const globs = ignore.flatMap((g) => {
      const t = g.replace(/^\.\//, '');
      if (t.endsWith('/')) return [`${t}**`, `**/${t}**`];
      return t.includes('/') ? [t, `${t}/**`] : [`**/${t}`, `**/${t}/**`];
    });
    const each = globs.map((g) => compileGlob(g));
    m = (p: string) => each.some((one) => one(p));
    if (matchers.size > 100) matchers.clear();
    matchers.set(key, m);
  }
  return m(relPath);
}

/** JSON-pointer segments of an ajv instancePath. */
function pointerSegments(instancePath: string): (string | number)[] {
  return fromPointer(instancePath).map((x) => (/^\d+$/.test(x) ? Number(x) : x));
}

/**
 * The diagnostics of a `.toonlens.json` in the editor: `json-syntax` for what does not parse (comments and
 * trailing commas are fine), `schema` for what breaks schemas/toonlens-config.v1.json, at the offending value
 * (an unknown property at its key). Offsets refer to the text as given (a BOM counts one). Never throws.
 */
export function configDiagnostics(text: string): CoreDiagnostic[] {
  try {
    const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
    const body = bom ? text.slice(1) : text;
    const errors: ParseError[] = [];
    const tree = parseTree(body, errors, { allowTrailingComma: true, disallowComments: false });
    if (errors.length || !tree) {
      return errors.map((e): CoreDiagnostic => ({ ...ruleCode('json-syntax'), message: printParseErrorCode(e.error), range: { start: e.offset + bom, end: e.offset + bom + Math.max(1, e.length) } }));
    }
    const forbidden = forbiddenKeyNodes(tree);
    if (forbidden.length) return forbidden.map((k): CoreDiagnostic => ({ ...ruleCode('schema'), message: forbiddenKeyMessage(String(k.value)), range: { start: k.offset + bom, end: k.offset + bom + k.length } }));
    const value: unknown = parseJsonc(body, [], { allowTrailingComma: true });
    const found = validate(value).map((e): CoreDiagnostic => {
      const segs = pointerSegments(e.instancePath);
      let node: Node | undefined = findNodeAtLocation(tree, segs) ?? tree;
      if (e.keyword === 'additionalProperties' || e.keyword === 'propertyNames') {
        const key = e.keyword === 'additionalProperties' ? (e.params as { additionalProperty: string }).additionalProperty : (e.params as { propertyName: string }).propertyName;
        const prop = node?.children?.find((c) => c.type === 'property' && c.children?.[0]?.value === key);
        node = prop?.children?.[0] ?? node;
      }
      const start = (node?.offset ?? 0) + bom;
      return { ...ruleCode('schema'), message: describe(e).replace(/^[^:]*: /, ''), range: { start, end: start + (node?.length ?? 0) } };
    });
    return found.sort((a, b) => a.range.start - b.range.start);
  } catch (err) {
    return [{ ...ruleCode('internal'), message: `Internal error while checking the config: ${errorMessage(err)}`, range: { start: 0, end: 0 } }];
  }
}

/**
 * The one entry point for diagnosing agent JSON, shared by the language server and the CLI:
 * size limit → kind → parse → schema → version → the kind's rule set → ranges.
 */
import type { CoreDiagnostic, DocumentKind, Finding, JsonTarget, WorkspaceReader } from '../types';
import { SETTING_RANGES } from '../settingRanges';
import { RULES } from './rules/index';
import { replacesSchemaError, ruleCode } from '../codes';
import { detectKind, kindFromTextPrefix } from './kinds';
import { parseJson } from '../json/parse';
import { JsonLocator } from '../json/locate';
import { validateAgainstSchema } from '../json/schema';
import { memoizeWorkspace } from './workspaceMemo';
import { pushAll } from '../arrays';
import type { LineHints } from '../lineIndex';
import { errorMessage } from '../errors';

/** The user settings that shape a check (`toonlens.documentKinds`, `toonlens.maxFileSizeMB`). */
export interface CheckSettings {
  /** glob → kind (the `toonlens.documentKinds` setting). */
  documentKinds?: Record<string, DocumentKind>;
  /** Documents larger than this are not parsed (default 50). */
  maxFileSizeMB?: number;
}

/** Where the document lives and how to treat it. */
export interface CheckOptions {
  fsPath?: string;
  settings?: CheckSettings;
  workspace?: WorkspaceReader;
  /** Forces the kind (skips association). */
  kind?: DocumentKind;
}

/** The kind found (undefined: not a ToonLens document), its diagnostics sorted by offset, and the parsed value. */
export interface CheckResult {
  kind: DocumentKind | undefined;
  diagnostics: CoreDiagnostic[];
  /** The parsed value, when the text is JSON. */
  value?: unknown;
  /** The text the offsets refer to (for checkBytes: the decoded bytes, BOM included). */
  text?: string;
  /**
   * The line of every offset the diagnostics' ranges start or end at, as the locator's scan counted them —
   * in the text without its BOM (offsets and line starts minus the BOM): {@link hintedPositions} turns ranges
   * into positions with them without a line table of the document.
   */
  lineHints?: LineHints;
}

/** Code of the info diagnostic for a document over the size limit. */
export const TOO_LARGE_CODE = 'limits/too-large' as const;
/** Code of the error diagnostic for a rule set that threw. */
export const INTERNAL_CODE = 'internal' as const;
/** Documents above this many MB are not parsed unless `maxFileSizeMB` says otherwise. */
export const DEFAULT_MAX_FILE_SIZE_MB: number = SETTING_RANGES.maxFileSizeMB.default;

/** Schema majors ToonLens knows, per kind that carries a `schema_version`. */
const KNOWN_MAJORS: Partial<Record<DocumentKind, readonly number[]>> = { verdict: [1], report: [1] };

/**
 * Diagnoses a document as the editor has it. Offsets refer to `text` as given (a leading BOM counts one).
 * Documents that are not ToonLens documents get no diagnostics. Never throws.
 */
export function checkDocument(text: string, opts: CheckOptions = {}): CheckResult {
  try {
    return checkDocumentUnguarded(text, opts);
  } catch (err) {
    // Every stage guards itself; this is the last line, so an editor never loses its diagnostics loop.
    const reason = errorMessage(err);
    return { kind: opts.kind, diagnostics: [{ ...ruleCode(INTERNAL_CODE), message: `Internal error while checking: ${reason}`, range: { start: 0, end: 0 } }], text };
  }
}

function checkDocumentUnguarded(text: string, opts: CheckOptions): CheckResult {
  const limitMB = opts.settings?.maxFileSizeMB ?? DEFAULT_MAX_FILE_SIZE_MB;
  if (text.length > limitMB * 1024 * 1024) {
    // Too large to parse: the kind comes from the name or its first bytes; unrelated files stay silent.
    const kind = opts.kind ?? kindFromTextPrefix(text, kindOpts(opts));
    return { kind, diagnostics: kind ? [tooLarge(text.length, limitMB)] : [], text };
  }

  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? text.slice(1) : text;
  const parsed = parseJson(body);
  const kind = opts.kind ?? detectKind(body, parsed.ok ? parsed.value : parsed.partial, kindOpts(opts));
  if (!kind) return { kind: undefined, diagnostics: [], value: parsed.ok ? parsed.value : undefined, text };

  if (!parsed.ok) {
    const { offset, length, message } = parsed.problem;
    return {
      kind,
      diagnostics: [{ ...ruleCode('json-syntax'), message, range: { start: offset + bom, end: offset + bom + length } }],
      text,
    };
  }

  const value = parsed.value;
  const findings: Finding[] = [];
  const version = versionFinding(kind, value);
  if (version) {
    // A new major is a new contract (the producers say so): our v1 schema and the v1 rules would only produce noise.
    findings.push(version);
  } else {
    pushAll(findings, guarded(() => validateAgainstSchema(kind, value), 'schema validation'));
    // One memo per check: a report's entries ask for the same real paths, git states and files many times.
    const workspace = opts.workspace && memoizeWorkspace(opts.workspace);
    pushAll(findings, guarded(() => RULES[kind](value, { text: body, fsPath: opts.fsPath, workspace }), `${kind} rules`));
  }

  const { diagnostics, lineHints } = resolveFindings(body, bom, withoutExplainedSchemaErrors(findings));
  return lineHints ? { kind, diagnostics, value, text, lineHints } : { kind, diagnostics, value, text };
}

function targetKey(t: JsonTarget): string {
  return JSON.stringify([t.path, t.part ?? 'value', t.part === 'missing' ? t.property : '']);
}

/** The findings without the schema errors a rule reported in its own terms (`replacesSchemaError` in the catalogue), once. */
function withoutExplainedSchemaErrors(findings: Finding[]): Finding[] {
  let explained: Set<string> | undefined;
  for (const f of findings) if (replacesSchemaError(f.code)) (explained ??= new Set()).add(targetKey(f.target));
  if (!explained) return findings;
  const seen = explained;
  return findings.filter((f) => f.code !== 'schema' || !seen.has(targetKey(f.target)));
}

/** Runs a finding producer; a throw (a bug, or a stack overflow on absurd nesting) becomes one `internal` finding. */
function guarded(produce: () => Finding[], what: string): Finding[] {
  try {
    return produce();
  } catch (err) {
    const reason = err instanceof RangeError ? 'the document nests too deeply' : errorMessage(err);
    return [{ ...ruleCode(INTERNAL_CODE), message: `Internal error in ${what}: ${reason}`, target: { path: [] } }];
  }
}

function kindOpts(opts: CheckOptions) {
  return { fsPath: opts.fsPath, settings: opts.settings, root: opts.workspace?.root };
}

function versionFinding(kind: DocumentKind, value: unknown): Finding | undefined {
  const majors = KNOWN_MAJORS[kind];
  if (!majors || value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = (value as Record<string, unknown>).schema_version;
  if (typeof v !== 'string') return undefined; // absence or a wrong type is the schema's business
  const m = /^(\d+)(?:\.\d+)*$/.exec(v);
  if (!m) return undefined;
  const major = Number(m[1]);
  if (majors.includes(major)) return undefined;
  return {
    ...ruleCode('unsupported-version'),
    message: `schema_version "${v}" is an unknown major version; ToonLens knows ${majors.map((x) => `${x}.x`).join(', ')}, so only JSON syntax is checked`,
    target: { path: ['schema_version'] },
  };
}

function resolveFindings(body: string, bom: number, findings: Finding[]): { diagnostics: CoreDiagnostic[]; lineHints?: LineHints } {
  if (findings.length === 0) return { diagnostics: [] };
  const locator = new JsonLocator(body, bom, findings.map((f) => f.target));
  const diags = findings.map((f) => {
    const d: CoreDiagnostic = { code: f.code, severity: f.severity, message: f.message, range: locator.rangeOf(f.target), path: f.target.path };
    if (f.fixes && f.fixes.length) d.fixes = f.fixes;
    return d;
  });
  // Otherwise the schema speaks first: a rule finding on exactly the range of a schema error restates it
  // (a dest_path of "" is both a minLength violation and report/unsafe-path), so only the schema error is kept.
  // A rule that replaced a schema error speaks as the schema would have (a target_ref of "" is
  // report/extraction-target alone, not also report/unsafe-path).
  const speaks = (d: CoreDiagnostic) => d.code === 'schema' || replacesSchemaError(d.code);
  const schemaRanges = new Set(diags.filter(speaks).map((d) => `${d.range.start}:${d.range.end}`));
  const kept = diags.filter((d) => speaks(d) || d.code === 'unsupported-version' || !schemaRanges.has(`${d.range.start}:${d.range.end}`));
  // Array.prototype.sort is stable: equal offsets keep producer order.
  return { diagnostics: kept.sort((a, b) => a.range.start - b.range.start || a.range.end - b.range.end), lineHints: locator.lineHints() };
}

function tooLarge(size: number, limitMB: number): CoreDiagnostic {
  const mb = (size / (1024 * 1024)).toFixed(1);
  return {
    ...ruleCode(TOO_LARGE_CODE),
    message: `Not checked: ${mb} MB is over the ${limitMB} MB limit (toonlens.maxFileSizeMB)`,
    range: { start: 0, end: 0 },
  };
}

/**
 * The result for a file over the size limit, from its first bytes and its size (the file is never read
 * whole): not decoded, the kind comes from the name or the head. The diagnostic is returned even without
 * a kind, so a caller that named the file (the CLI) can say why it was not checked.
 */
export function checkTooLarge(head: Uint8Array, size: number, opts: CheckOptions = {}): CheckResult {
  const limitMB = opts.settings?.maxFileSizeMB ?? DEFAULT_MAX_FILE_SIZE_MB;
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head.subarray(0, 65536));
  const kind = opts.kind ?? kindFromTextPrefix(text, kindOpts(opts));
  return { kind, diagnostics: [tooLarge(size, limitMB)] };
}

/**
 * Diagnoses a file's bytes (the CLI path): binary content (NUL) or invalid UTF-8 gives one `json-syntax`
 * error and nothing else; a UTF-8 BOM is kept in the decoded text (offsets count it) and ignored by the parser.
 */
export function checkBytes(bytes: Uint8Array, opts: CheckOptions = {}): CheckResult {
  const limitMB = opts.settings?.maxFileSizeMB ?? DEFAULT_MAX_FILE_SIZE_MB;
  if (bytes.length > limitMB * 1024 * 1024) return checkTooLarge(bytes.subarray(0, 65536), bytes.length, opts);
  const nul = bytes.indexOf(0);
  if (nul >= 0) return undecodable(opts, `Not JSON: binary content (NUL byte at byte ${nul})`);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undecodable(opts, `Not JSON: invalid UTF-8 at byte ${firstInvalidUtf8Byte(bytes)}`);
  }
  return checkDocument(text, opts);
}

function undecodable(opts: CheckOptions, message: string): CheckResult {
  const kind = opts.kind ?? (opts.fsPath ? detectKind('', undefined, kindOpts(opts)) : undefined);
  return { kind, diagnostics: [{ ...ruleCode('json-syntax'), message, range: { start: 0, end: 0 } }] };
}

/** Byte offset of the first byte that breaks UTF-8 (only called once the native decoder has refused). */
export function firstInvalidUtf8Byte(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i]!;
    let need: number;
    let min: number;
    if (c < 0x80) { i++; continue; }
    else if (c >= 0xc2 && c <= 0xdf) { need = 1; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { need = 2; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { need = 3; min = 0x10000; }
    else return i;
    let cp = c & (0x3f >> need);
    for (let k = 1; k <= need; k++) {
      const cc = b[i + k];
      if (cc === undefined || (cc & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += need + 1;
  }
  return b.length;
}

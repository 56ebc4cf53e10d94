/**
 * `schema-drift/*` diagnostics of a JSON Schema document against a baseline version of itself (its git
 * HEAD, or a file named in `toonlens.schemaBaselines`). Pure: the caller supplies the baseline text.
 */
import { JsonLocator } from '../json/locate';
import { schemaDriftFindings, schemaRoleFromFileName, type SchemaRole } from './schemaDiff';
import type { CoreDiagnostic } from '../types';

/** Whether a document is a JSON Schema: named `*.schema.json`, or its `$schema` names a JSON Schema meta-schema. */
export function isSchemaDocument(fsPath: string, value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  if (/\.schema\.json$/i.test(fsPath)) return true;
  const s = (value as Record<string, unknown>).$schema;
  return typeof s === 'string' && /json-schema\.org\/(draft|schema)/.test(s);
}

/**
 * The drift of `text` against `baselineText`; the role comes from the file name (`*.input.schema.json` →
 * input) unless given. Either text failing to parse yields nothing: json-syntax is reported elsewhere.
 */
export function schemaDriftDiagnostics(text: string, baselineText: string, fsPath: string, role?: SchemaRole): CoreDiagnostic[] {
  const bom = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const body = bom ? text.slice(1) : text;
  let now: unknown;
  let before: unknown;
  try {
    now = JSON.parse(body);
    before = JSON.parse(baselineText.replace(/^\uFEFF/, ''));
  } catch {
    return [];
  }
  const findings = schemaDriftFindings(before, now, role ?? schemaRoleFromFileName(fsPath) ?? 'both');
  if (findings.length === 0) return [];
  const locator = new JsonLocator(body, bom, findings.map((f) => f.target));
  return findings.map((f) => ({ code: f.code, severity: f.severity, message: f.message, range: locator.rangeOf(f.target), path: f.target.path }));
}

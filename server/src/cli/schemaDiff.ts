/**
 * `toonlens schema-diff <old.json> <new.json> [--role input|output] [--format text|json]`
 *
 * Classifies every change between two versions of a JSON Schema as breaking or additive for the
 * schema's role (see core/schemaDiff.ts). Without --role, the role is read from the new file's name
 * (a `input` or `output` word in it, as in `update_recipe_build.input.schema.json`); when the name
 * says neither, a change counts as breaking if it breaks either role.
 *
 * Exit: 1 when any change is breaking, 0 otherwise, 2 on an error (bad_request, input_not_found, io).
 */
import { resolve } from 'node:path';
import { defineCommand, stringValue, usageError } from './args';
import { readInputText } from './input';
import { diffSchemas, formatChangeLine, hasBreaking, schemaRoleFromFileName, type SchemaChange, type SchemaRole } from '../core/agentJson/schemaDiff';
import { printJson } from './jsonOut';
import { errorMessage } from '../core/errors';

export const SCHEMA_DIFF_HELP = `Usage: toonlens schema-diff <old.json> <new.json> [--role input|output] [--format text|json]

Classifies every change from <old.json> to <new.json> as breaking or additive.

Options:
  --role input    the schema judges what callers send: tightening breaks
  --role output   the schema describes what consumers read: loosening (an added enum value, a
                  loosened additionalProperties, an added oneOf branch) breaks
                  (default: from the new file's name; when it names neither, breaking for either role)
  --format text   one line per change: breaking|additive <pointer> <description> (default)
  --format json   an array of { pointer, kind, classification, before, after, message }
  -h, --help      show this help

Examples:
  toonlens schema-diff old/tool.input.schema.json tool.input.schema.json
  git show HEAD:schema.json > /tmp/old.json && toonlens schema-diff /tmp/old.json schema.json --role output

Exit status: 1 when anything is breaking, 0 otherwise, 2 on an error (bad_request, input_not_found, io).
`;

/** The rows `schema-diff --format json` prints (shared with the MCP server's schema_diff tool). */
export function schemaDiffRows(changes: SchemaChange[]): { pointer: string; kind: string; classification: string; before: unknown; after: unknown; message: string }[] {
  return changes.map((c) => ({
    pointer: c.pointer,
    kind: c.kind,
    classification: c.classification,
    before: c.before ?? null,
    after: c.after ?? null,
    message: c.message,
  }));
}

function readSchema(file: string, cwd: string): unknown {
  const abs = resolve(cwd, file);
  const text = readInputText(file, abs);
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw usageError(`${file} is not JSON: ${errorMessage(err)}`);
  }
}

export const run = defineCommand(
  { name: 'schema-diff', help: SCHEMA_DIFF_HELP, errorExit: 2, options: { role: { type: 'string', choices: ['input', 'output'] }, format: { type: 'string', choices: ['text', 'json'] } } },
  async (p, io) => {
    if (p.positionals.length !== 2) throw usageError(`expected two schema files (old, new), got ${p.positionals.length}`);
    const [oldFile, newFile] = p.positionals as [string, string];
    const oldSchema = readSchema(oldFile, io.cwd);
    const newSchema = readSchema(newFile, io.cwd);
    const format = stringValue(p, 'format') ?? 'text';
    const role: SchemaRole = (stringValue(p, 'role') as 'input' | 'output' | undefined) ?? schemaRoleFromFileName(newFile) ?? schemaRoleFromFileName(oldFile) ?? 'both';
    const changes = diffSchemas(oldSchema, newSchema, role);
    if (format === 'json') {
      printJson(io, schemaDiffRows(changes));
    } else {
      for (const c of changes) io.stdout(formatChangeLine(c) + '\n');
    }
    return hasBreaking(changes) ? 1 : 0;
  },
);

/**
 * `toonlens schema-diff <old.json> <new.json> [--role input|output] [--format text|json]`
 *
 * Classifies every change between two versions of a JSON Schema as breaking or additive for the
 * schema's role (see core/schemaDiff.ts). Without --role, the role is read from the new file's name
 * (a `input` or `output` word in it, as in `update_recipe_build.input.schema.json`); when the name
 * says neither, a change counts as breaking if it breaks either role.
 *
 * Exit: 1 when any change is breaking, 0 otherwise, 2 on a usage or I/O error.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliIO } from './io';
import { diffSchemas, formatChangeLine, hasBreaking, schemaRoleFromFileName, type SchemaRole } from '../core/schemaDiff';

export const SCHEMA_DIFF_HELP = `Usage: toonlens schema-diff <old.json> <new.json> [--role input|output] [--format text|json]

Classifies every change from <old.json> to <new.json> as breaking or additive.
  --role input    the schema judges what callers send: tightening breaks
  --role output   the schema describes what consumers read: loosening (an added enum value, a
                  loosened additionalProperties, an added oneOf branch) breaks
                  (default: from the new file's name; when it names neither, breaking for either role)
  --format text   one line per change: breaking|additive <pointer> <description> (default)
  --format json   an array of { pointer, kind, classification, before, after, message }

Exit status: 1 when anything is breaking, 0 otherwise, 2 on a usage or I/O error.
`;

interface Options {
  files: string[];
  role?: 'input' | 'output';
  format: 'text' | 'json';
  help: boolean;
}

class UsageProblem extends Error {}

function parseArgs(argv: string[]): Options {
  const opts: Options = { files: [], format: 'text', help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline]: [string, string | undefined] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const valueOf = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new UsageProblem(`${flag} needs a value`);
      return v;
    };
    if (flag === '--help' || flag === '-h') opts.help = true;
    else if (flag === '--role') {
      const v = valueOf();
      if (v !== 'input' && v !== 'output') throw new UsageProblem(`--role must be input or output, not '${v}'`);
      opts.role = v;
    } else if (flag === '--format') {
      const v = valueOf();
      if (v !== 'text' && v !== 'json') throw new UsageProblem(`--format must be text or json, not '${v}'`);
      opts.format = v;
    } else if (flag.startsWith('-') && flag !== '-') throw new UsageProblem(`unknown option '${flag}'`);
    else opts.files.push(arg);
  }
  if (!opts.help && opts.files.length !== 2) throw new UsageProblem(`expected two schema files (old, new), got ${opts.files.length}`);
  return opts;
}

function readSchema(file: string, cwd: string): unknown {
  const abs = resolve(cwd, file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageProblem(`cannot read ${file}: ${code === 'ENOENT' ? 'no such file' : code ?? String(err)}`);
  }
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (err) {
    throw new UsageProblem(`${file} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export async function run(argv: string[], io: CliIO): Promise<number> {
  let opts: Options;
  try {
    opts = parseArgs(argv);
  } catch (err) {
    io.stderr(`toonlens schema-diff: ${(err as Error).message}\n\n${SCHEMA_DIFF_HELP}`);
    return 2;
  }
  if (opts.help) {
    io.stdout(SCHEMA_DIFF_HELP);
    return 0;
  }
  const [oldFile, newFile] = opts.files as [string, string];
  let oldSchema: unknown;
  let newSchema: unknown;
  try {
    oldSchema = readSchema(oldFile, io.cwd);
    newSchema = readSchema(newFile, io.cwd);
  } catch (err) {
    io.stderr(`toonlens schema-diff: ${(err as Error).message}\n`);
    return 2;
  }
  const role: SchemaRole = opts.role ?? schemaRoleFromFileName(newFile) ?? schemaRoleFromFileName(oldFile) ?? 'both';
  const changes = diffSchemas(oldSchema, newSchema, role);
  if (opts.format === 'json') {
    const rows = changes.map((c) => ({
      pointer: c.pointer,
      kind: c.kind,
      classification: c.classification,
      before: c.before ?? null,
      after: c.after ?? null,
      message: c.message,
    }));
    io.stdout(JSON.stringify(rows, null, 2) + '\n');
  } else {
    for (const c of changes) io.stdout(formatChangeLine(c) + '\n');
  }
  return hasBreaking(changes) ? 1 : 0;
}

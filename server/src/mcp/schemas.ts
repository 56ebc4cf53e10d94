/**
 * The JSON Schemas of the MCP tools' arguments and results (what `tools/list` shows). Results are kept loose where
 * a full schema exists as a resource (`toonlens://schemas/…`): the verdict schema inlined in every listing would
 * cost each client's context more than it tells it.
 */
import { DOCUMENT_KINDS } from '../core/types';
import { TOKENIZERS } from '../core/tokens';

export type JsonSchema = Record<string, unknown>;

const str = (description: string): JsonSchema => ({ type: 'string', description });

export const TEXT = str('The document as text (instead of `path`).');
export const PATH = str('A file inside the server\'s roots (relative paths from the first root), instead of `text`.');
export const FILE_NAME = str('With `text`: the file name the text stands for (decides markdown, .toon or JSON, and the .toonlens.json that applies); relative to the first root.');

/*
 * No oneOf / allOf / anyOf at the top of an input schema: several clients' model APIs refuse them there. "Exactly one
 * of text and path" (and the like) is checked by the tools, with a message naming both.
 */

const ENGINE: Record<string, JsonSchema> = {
  tokenizer: { type: 'string', enum: TOKENIZERS, description: 'How tokens are counted (default o200k_base; estimate = the producer\'s estimate, token gate off).' },
  min_token_savings: { type: 'integer', description: 'Token gate: saving fewer real tokens gives token_regression (default 1).' },
  chars_per_token: { type: 'array', items: { type: 'number', exclusiveMinimum: 0 }, minItems: 1, description: 'Ratios for the advisory ratio estimates (default 3.5, 4, 4.5).' },
};
const DELIMITER: JsonSchema = { type: 'string', enum: ['auto', 'comma', 'tab', 'pipe'], description: 'TOON delimiter (default auto: the shortest valid).' };

function input(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', properties, additionalProperties: false, ...extra };
}

const VERDICT_OUT: JsonSchema = {
  type: 'object',
  required: ['schema_version', 'verdict', 'safe_to_auto_apply', 'measured_chars'],
  properties: { schema_version: { type: 'string' }, verdict: { type: 'string' }, safe_to_auto_apply: { type: 'boolean' }, measured_chars: { type: 'object' } },
  additionalProperties: true,
  description: 'A verdict.v1 object exactly as `toonlens … --json` prints it (full schema: resource toonlens://schemas/verdict.v1).',
};

const POSITION: JsonSchema = { type: 'object', required: ['line', 'character'], properties: { line: { type: 'integer', minimum: 0 }, character: { type: 'integer', minimum: 0 } } };
const FILE_REPORT: JsonSchema = {
  type: 'object',
  required: ['file', 'kind', 'diagnostics'],
  properties: {
    file: { type: 'string' },
    kind: { type: ['string', 'null'] },
    diagnostics: {
      type: 'array',
      items: {
        type: 'object',
        required: ['code', 'severity', 'message', 'range'],
        properties: {
          code: { type: 'string' },
          severity: { type: 'string', enum: ['error', 'warning', 'info', 'hint'] },
          message: { type: 'string' },
          range: { type: 'object', required: ['start', 'end'], properties: { start: POSITION, end: POSITION }, description: '0-based line and UTF-16 character, as LSP' },
          location: { type: 'object', description: 'With details: 1-based line and column of the start and end', properties: { line: { type: 'integer' }, column: { type: 'integer' }, end_line: { type: 'integer' }, end_column: { type: 'integer' } } },
          fixes: { type: 'array', description: 'With details: the fixes the diagnostic offers; unattended ones are what `fix` applies', items: { type: 'object', required: ['title', 'unattended'], properties: { title: { type: 'string' }, unattended: { type: 'boolean' } } } },
        },
      },
    },
  },
};

const KIND: JsonSchema = { type: 'string', enum: [...DOCUMENT_KINDS, 'markdown', 'toon'], description: 'Treat the document as this kind (else by its name, `$schema` or content).' };

export const SCHEMAS = {
  check: {
    input: input({ text: TEXT, path: PATH, file_name: FILE_NAME, kind: KIND, details: { type: 'boolean', description: 'Also give each diagnostic its 1-based location and the fixes it offers (a single file only).' } }),
    output: { type: 'object', required: ['files'], properties: { files: { type: 'array', items: FILE_REPORT, description: 'Exactly what `toonlens check --format json` prints.' } } },
  },
  fix: {
    input: input({ text: TEXT, path: PATH, file_name: FILE_NAME, kind: KIND }),
    output: {
      type: 'object',
      required: ['text', 'changed', 'fixes', 'remaining'],
      properties: {
        text: { type: 'string', description: 'The document with every unattended fix applied (nothing is written).' },
        changed: { type: 'boolean' },
        fixes: { type: 'integer', minimum: 0 },
        remaining: FILE_REPORT,
      },
    },
  },
  profile: { input: input({ text: TEXT, path: PATH, ...ENGINE }), output: VERDICT_OUT },
  convert: {
    input: input(
      {
        text: TEXT,
        path: PATH,
        mode: { type: 'string', enum: ['lossless', 'record', 'budget'], description: 'Default lossless; budget needs target_chars and/or target_tokens.' },
        delimiter: DELIMITER,
        target_chars: { type: 'integer', exclusiveMinimum: 0 },
        target_tokens: { type: 'integer', exclusiveMinimum: 0 },
        allow_lossy: { type: 'boolean', description: 'Let budget mode compress semantically when lossless misses the target.' },
        ...ENGINE,
      },
    ),
    output: VERDICT_OUT,
  },
  plan: { input: input({ text: TEXT, path: PATH, delimiter: DELIMITER, ...ENGINE }), output: VERDICT_OUT },
  convert_section: {
    input: input(
      {
        text: TEXT,
        path: PATH,
        heading: str('The section\'s heading text (as written, without the `#` marks); the first match wins.'),
        line: { type: 'integer', minimum: 1, description: 'A 1-based line inside the section (instead of heading).' },
        delimiter: DELIMITER,
        ...ENGINE,
      },
    ),
    output: {
      type: 'object',
      required: ['section', 'action', 'convertible', 'verdict', 'candidate', 'text'],
      properties: {
        section: {
          type: 'object',
          required: ['kind', 'heading', 'level', 'line_start', 'line_end'],
          properties: { kind: { type: 'string' }, heading: { type: ['string', 'null'] }, level: { type: ['integer', 'null'] }, line_start: { type: 'integer' }, line_end: { type: 'integer' } },
        },
        action: { type: 'string', enum: ['convert', 'keep'], description: 'What the plan does with the section.' },
        convertible: { type: 'boolean', description: 'Whether Convert may replace it (its candidate decodes and it is not marked keep).' },
        verdict: { type: ['object', 'null'], description: 'The section\'s standalone verdict.v1 (null for frontmatter).' },
        candidate: { type: ['string', 'null'] },
        text: { type: ['string', 'null'], description: 'The whole document with this section converted (what Convert writes), or null when not convertible. Nothing is written.' },
      },
    },
  },
  validate_toon: {
    input: input({ text: str('TOON text (instead of `path`).'), path: PATH }),
    output: { type: 'object', required: ['valid', 'file'], properties: { valid: { const: true }, file: { type: ['string', 'null'] } } },
  },
  decode_toon: {
    input: input({ text: str('TOON text (instead of `path`).'), path: PATH }),
    output: { type: 'object', required: ['value'], properties: { value: { description: 'The decoded JSON value, as `toonlens decode` prints it.' } } },
  },
  schema_diff: {
    input: input(
      {
        old_schema: { type: ['object', 'boolean'], description: 'The old JSON Schema (instead of old_path).' },
        new_schema: { type: ['object', 'boolean'], description: 'The new JSON Schema (instead of new_path).' },
        old_path: PATH,
        new_path: PATH,
        role: { type: 'string', enum: ['input', 'output', 'both'], description: 'input: tightening breaks; output: loosening breaks; default from the file names, else both.' },
      },
    ),
    output: {
      type: 'object',
      required: ['role', 'breaking', 'changes'],
      properties: {
        role: { type: 'string', enum: ['input', 'output', 'both'] },
        breaking: { type: 'boolean' },
        changes: {
          type: 'array',
          description: 'Exactly what `toonlens schema-diff --format json` prints.',
          items: { type: 'object', required: ['pointer', 'kind', 'classification', 'message'], properties: { pointer: { type: 'string' }, kind: { type: 'string' }, classification: { type: 'string', enum: ['breaking', 'additive'] }, message: { type: 'string' } } },
        },
      },
    },
  },
  context: {
    input: input({
      path: str('The repository folder, inside the server\'s roots (default: the first root).'),
      agent: { type: 'array', items: { type: 'string', enum: ['claude-code', 'codex', 'copilot', 'cursor', 'gemini'] }, uniqueItems: true, description: 'Only these agents (default: every one).' },
      for: str('The working path (a file or folder in the repository): applies globs and nested files.'),
      tokenizer: ENGINE.tokenizer!,
    }),
    output: {
      type: 'object',
      required: ['schema_version', 'for', 'tokenizer', 'agents', 'diagnostics'],
      properties: { schema_version: { type: 'string' }, for: { type: 'string' }, tokenizer: { type: 'string' }, agents: { type: 'array' }, diagnostics: { type: 'array' } },
      additionalProperties: true,
      description: 'Exactly what `toonlens context --json` prints (full schema: resource toonlens://schemas/context.v1).',
    },
  },
  apply_report: {
    input: input(
      {
        path: str('The docs-hygiene report file, inside the server\'s roots.'),
        confirm: { type: 'boolean', description: 'true writes (the server must run with --allow-writes); otherwise a dry run.' },
        confirm_entries: { type: 'array', items: { type: 'integer', minimum: 0 }, uniqueItems: true, description: 'Indices of confirm-tier entries to include; confirm-tier entries not named are skipped.' },
      },
      { required: ['path'] },
    ),
    output: {
      type: 'object',
      required: ['report', 'root', 'tier', 'dryRun', 'results', 'applied', 'wouldApply', 'skipped', 'refused', 'failed'],
      description: 'Exactly what `toonlens apply --format json` prints for the same entries.',
      properties: {
        report: { type: 'string' },
        root: { type: 'string' },
        tier: { type: 'string', enum: ['auto', 'confirm', 'all'] },
        dryRun: { type: 'boolean' },
        results: {
          type: 'array',
          items: {
            type: 'object',
            required: ['entryIndex', 'path', 'kind', 'status'],
            properties: {
              entryIndex: { type: 'integer' },
              path: { type: ['string', 'null'] },
              kind: { type: ['string', 'null'] },
              status: { type: 'string', enum: ['applied', 'would-apply', 'skipped', 'refused', 'failed'] },
              tier: { type: 'string', enum: ['auto', 'confirm'], description: 'The effective safety tier.' },
              changes: {
                type: 'array',
                description: 'Per file: what the entry does, read before anything is written (the sha256 guard passed for a planned entry).',
                items: { type: 'object', required: ['file', 'lines', 'action', 'preview'], properties: { file: { type: 'string' }, lines: { type: 'string' }, action: { type: 'string' }, preview: { type: 'string', description: '"- " removed lines, "+ " added lines' } } },
              },
              summary: { type: 'string' },
              reason: { type: 'string' },
            },
          },
        },
        applied: { type: 'integer' },
        wouldApply: { type: 'integer' },
        skipped: { type: 'integer' },
        refused: { type: 'integer' },
        failed: { type: 'integer' },
      },
    },
  },
} satisfies Record<string, { input: JsonSchema; output: JsonSchema }>;

export type ToolName = keyof typeof SCHEMAS;

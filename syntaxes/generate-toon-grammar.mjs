#!/usr/bin/env node
// Generates syntaxes/toon.tmLanguage.json (scopeName source.toon).
//
// The grammar repeats the same rules once per TOON delimiter (comma, tab, pipe): a tabular
// array header opens a begin/end region whose rows are split on the delimiter declared in the
// header's bracket segment, and inline array values are split the same way. Writing those
// copies by hand invites drift, so they are generated here.
//
//   node syntaxes/generate-toon-grammar.mjs          rewrite the JSON
//   node syntaxes/generate-toon-grammar.mjs --check  exit 1 when the JSON is out of date
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = join(dirname(fileURLToPath(import.meta.url)), 'toon.tmLanguage.json');

/** name: scope suffix; cls: the delimiter inside a character class; re: the delimiter as a regex atom; marker: its header marker. */
const DELIMS = [
  { name: 'comma', cls: ',', re: ',', marker: '' },
  { name: 'tab', cls: '\\t', re: '\\t', marker: '\\t' },
  { name: 'pipe', cls: '|', re: '\\|', marker: '\\|' },
];

const QUOTED = String.raw`"(?:[^"\\]|\\.)*"`;
/** A quoted string that may be unterminated (runs to the end of the line). */
const QUOTED_OPEN = String.raw`"(?:[^"\\]|\\.)*(?:"|$)`;
/** Key in an array header: quoted, or an unquoted run without spaces, quotes, brackets, braces or colons. */
const HEADER_KEY = String.raw`${QUOTED}|[^\s"\[\]{}:\-][^\s"\[\]{}:]*`;
/** Key of a key-value line: quoted, or unquoted text (inner spaces allowed) up to the first colon. */
const KV_KEY = String.raw`${QUOTED}|[^\s"\[\]{}:\-](?:[^"\[\]{}:]*[^\s"\[\]{}:])?`;
/** Field list content: quoted names, one level of nested groups (`user{name,age}`), anything but quotes and braces. */
const FIELDS = String.raw`(?:${QUOTED}|\{(?:${QUOTED}|[^"{}])*\}|[^"{}])*`;
const NUMBER = String.raw`-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?`;
const LIST_MARKER = String.raw`(?:(-)( +))?`;
/**
 * Start of a line. `\G` as well as `^` so the rules also anchor where a host grammar's `while` rule
 * resumes mid-line: a ```toon fence inside a Markdown list item or block quote.
 */
const BOL = String.raw`(?:^|\G)`;

/**
 * The header of an array: [key][N<keyed?><delim?>]{fields}:
 * Groups: 1 indent, 2 "-", 3 spaces after "-", 4 whole header, 5 key, 6 "[", 7 length, 8 keyed ":",
 * 9 delimiter marker, 10 "]", 11 "{", 12 fields, 13 "}", 14 ":".
 */
function headerRegex(d, fields /* 'required' | 'optional' */) {
  const fieldSeg = String.raw`(\{)(${FIELDS})(\})`;
  return (
    String.raw`${BOL}( *)${LIST_MARKER}((${HEADER_KEY})?(\[)([0-9]+)(:)?(${d.marker})(\])` +
    (fields === 'required' ? fieldSeg : `(?:${fieldSeg})?`) +
    String.raw`(:))`
  );
}

function headerCaptures(d) {
  return {
    '2': { name: 'punctuation.definition.list.item.toon' },
    '4': { name: 'meta.array.header.toon' },
    '5': { name: 'entity.name.tag.toon', patterns: [{ include: '#string-quoted' }] },
    '6': { name: 'punctuation.definition.array.begin.toon' },
    '7': { name: 'constant.numeric.integer.length.toon' },
    '8': { name: 'keyword.operator.keyed.toon' },
    '9': { name: `keyword.operator.delimiter.${d.name}.toon` },
    '10': { name: 'punctuation.definition.array.end.toon' },
    '11': { name: 'punctuation.definition.fields.begin.toon' },
    '12': { name: 'meta.fields.toon', patterns: [{ include: `#fields-${d.name}` }] },
    '13': { name: 'punctuation.definition.fields.end.toon' },
    '14': { name: 'punctuation.separator.key-value.toon' },
  };
}

/** Typed primitive tokens, each ending where the active delimiter (or the line) ends. */
function valuePatterns(d) {
  const stop = d ? String.raw`(?=[ ]*(?:${d.re}|$))` : String.raw`(?=\s*$)`;
  const notDelim = d ? d.cls : '';
  const patterns = [];
  if (d) patterns.push({ include: `#delimiter-${d.name}` });
  else {
    patterns.push({
      match: String.raw`(\[)(\])(?=\s*$)`,
      name: 'meta.array.empty.toon',
      captures: {
        '1': { name: 'punctuation.definition.array.begin.toon' },
        '2': { name: 'punctuation.definition.array.end.toon' },
      },
    });
  }
  patterns.push(
    { include: '#string-quoted' },
    { match: `(?:true|false)${stop}`, name: 'constant.language.boolean.toon' },
    { match: `null${stop}`, name: 'constant.language.null.toon' },
    { match: `${NUMBER}${stop}`, name: 'constant.numeric.toon' },
    { match: `[^${notDelim}"\\s](?:[^${notDelim}"]*[^${notDelim}"\\s])?`, name: 'string.unquoted.toon' },
  );
  return { patterns };
}

function fieldPatterns(d) {
  return {
    patterns: [
      { include: `#delimiter-${d.name}` },
      { match: '[{}]', name: 'punctuation.definition.fields.nested.toon' },
      {
        match: QUOTED_OPEN,
        name: 'support.type.property-name.field.toon',
        captures: { '0': { patterns: [{ include: '#string-quoted' }] } },
      },
      { match: `[^${d.cls}"\\s{}](?:[^${d.cls}"{}]*[^${d.cls}"\\s{}])?`, name: 'support.type.property-name.field.toon' },
    ],
  };
}

/** A line that is a tabular row of this delimiter: no unquoted colon, or the delimiter before the first unquoted colon. */
function rowLookahead(d) {
  return `(?:${QUOTED_OPEN}|[^"${d.cls}:])*(?:${d.re}|$)`;
}

function build() {
  const repository = {};
  const linePatterns = [];

  for (const d of DELIMS) {
    // Tabular array: header line with a field list and nothing after the colon; the rows below
    // (deeper than the header's indentation, and row-shaped per SPEC §9.3) are split on d.
    repository[`tabular-${d.name}`] = {
      name: `meta.array.tabular.${d.name}.toon`,
      begin: headerRegex(d, 'required') + '[ ]*$',
      beginCaptures: headerCaptures(d),
      // Rows end at a non-blank line that is not indented deeper than the header, or is not row-shaped.
      end: String.raw`^(?=[ \t]*\S)(?!\1 +${rowLookahead(d)})`,
      patterns: [
        {
          // begin/end rather than a match with captures: no re-scan of every row as a substring.
          begin: String.raw`${BOL}( *)(?=\S)(?=${rowLookahead(d)})`,
          end: '$',
          contentName: `meta.row.${d.name}.toon`,
          patterns: [{ include: `#values-${d.name}` }],
        },
        // Only reached where a host grammar's `while` rule resumed mid-line (a fence in a Markdown list,
        // whose `while` eats 2-4 spaces of every line): `^` cannot end the rows there, so other lines
        // are tokenized in place and the rows end with the fence.
        { include: '$self' },
      ],
    };
    linePatterns.push({ include: `#tabular-${d.name}` });
  }
  for (const d of DELIMS) {
    // Any other array header, with its inline values split on d.
    repository[`header-${d.name}`] = {
      match: headerRegex(d, 'optional') + '(.*)$',
      captures: {
        ...headerCaptures(d),
        '15': { name: `meta.array.inline.${d.name}.toon`, patterns: [{ include: `#values-${d.name}` }] },
      },
    };
    linePatterns.push({ include: `#header-${d.name}` });
  }

  repository['key-value'] = {
    name: 'meta.key-value.toon',
    match: String.raw`${BOL}( *)${LIST_MARKER}(${KV_KEY})[ ]*(:)(.*)$`,
    captures: {
      '2': { name: 'punctuation.definition.list.item.toon' },
      '4': { name: 'entity.name.tag.toon', patterns: [{ include: '#string-quoted' }] },
      '5': { name: 'punctuation.separator.key-value.toon' },
      '6': { patterns: [{ include: '#values-none' }] },
    },
  };
  // Non-strict decoders read malformed headers such as `foo[1][bar]: 10` as a key-value line whose key is a literal token.
  repository['key-value-literal'] = {
    name: 'meta.key-value.toon',
    match: String.raw`${BOL}( *)${LIST_MARKER}([^\s"][^":]*?)(:)(?=\s|$)(.*)$`,
    captures: {
      '2': { name: 'punctuation.definition.list.item.toon' },
      '4': { name: 'entity.name.tag.toon' },
      '5': { name: 'punctuation.separator.key-value.toon' },
      '6': { patterns: [{ include: '#values-none' }] },
    },
  };
  repository['list-item'] = {
    match: String.raw`${BOL}( *)(-)(?:( +)(.*))?$`,
    captures: {
      '2': { name: 'punctuation.definition.list.item.toon' },
      '4': { patterns: [{ include: '#values-none' }] },
    },
  };
  repository['primitive-line'] = {
    match: String.raw`${BOL}([ \t]*)(\S.*)$`,
    captures: { '2': { patterns: [{ include: '#values-none' }] } },
  };
  linePatterns.push(
    { include: '#key-value' },
    { include: '#key-value-literal' },
    { include: '#list-item' },
    { include: '#primitive-line' },
  );

  for (const d of DELIMS) {
    repository[`delimiter-${d.name}`] = { match: d.re, name: `punctuation.separator.delimiter.${d.name}.toon` };
    repository[`values-${d.name}`] = valuePatterns(d);
    repository[`fields-${d.name}`] = fieldPatterns(d);
  }
  repository['values-none'] = valuePatterns(null);

  repository['string-quoted'] = {
    name: 'string.quoted.double.toon',
    begin: '"',
    beginCaptures: { '0': { name: 'punctuation.definition.string.begin.toon' } },
    // TOON strings never span lines: an unterminated string ends with its line (the decoder rejects it).
    end: '(")|$',
    endCaptures: { '1': { name: 'punctuation.definition.string.end.toon' } },
    patterns: [
      // Surrogate code points must be literal UTF-8, never \uXXXX (SPEC §7.1).
      { match: String.raw`\\u[dD][89a-fA-F][0-9a-fA-F]{2}`, name: 'invalid.illegal.escape.toon' },
      { match: String.raw`\\u[0-9a-fA-F]{4}`, name: 'constant.character.escape.unicode.toon' },
      { match: String.raw`\\["\\nrt]`, name: 'constant.character.escape.toon' },
      { match: String.raw`\\.?`, name: 'invalid.illegal.escape.toon' },
    ],
  };

  return {
    information_for_contributors: ['Generated by syntaxes/generate-toon-grammar.mjs; edit the generator, not this file.'],
    name: 'TOON',
    scopeName: 'source.toon',
    fileTypes: ['toon'],
    patterns: linePatterns,
    repository,
  };
}

const json = JSON.stringify(build(), null, 2) + '\n';
if (process.argv.includes('--check')) {
  let current = '';
  try { current = readFileSync(OUT, 'utf8'); } catch { /* missing */ }
  if (current !== json) {
    console.error('syntaxes/toon.tmLanguage.json is out of date: run node syntaxes/generate-toon-grammar.mjs');
    process.exit(1);
  }
} else {
  writeFileSync(OUT, json);
}

/**
 * Stats and profile (docs/engine.md#2-stats-and-profile). Constants are documented in docs/engine.md.
 */
import type { ParsedSlice, TextUnit } from './blocks';

export interface Stats {
  lines: number;
  headings: number;
  paragraphs: number;
  list_items: number;
  tables: number;
  table_rows: number;
  definitions: number;
  rules: number;
}
export type ProfileName = 'raw_prose' | 'definitions' | 'requirements' | 'table' | 'mixed';

/** Rule keywords: a list item or sentence carrying one of these is a rule. */
export const RULE_RE = /\b(?:must(?: not)?|should|shall|required|never|always|do not|don't|prohibited|ensure)\b/i;

/** Frozen profile thresholds (docs/engine.md). */
export const PROFILE_TABLE_SHARE = 0.6;
export const PROFILE_RECORD_SHARE = 0.5;
/** Heading-definition test: a short heading followed by exactly one paragraph of at most this many characters. */
export const HEADING_DEFINITION_MAX_CHARS = 600;

export function isRuleText(u: TextUnit): boolean {
  return RULE_RE.test(u.text);
}

/** Stats of one parsed slice. */
export function sliceStats(p: ParsedSlice, lineCount: number): Stats {
  let definitions = p.definitionLines;
  if (p.heading && p.bodyIsOneParagraph) {
    const b = p.blocks[0]!;
    const words = p.heading.text.split(/\s+/).filter(Boolean).length;
    if (b.kind === 'p' && words >= 1 && words <= 6 && b.text.length <= HEADING_DEFINITION_MAX_CHARS && !RULE_RE.test(b.text) && p.definitionLines === 0) {
      definitions++;
    }
  }
  return {
    lines: lineCount,
    headings: p.headingCount,
    paragraphs: p.paragraphs,
    list_items: p.listItems,
    tables: p.tables,
    table_rows: p.tableRows,
    definitions,
    rules: p.units.filter(isRuleText).length,
  };
}

export function emptyStats(): Stats {
  return { lines: 0, headings: 0, paragraphs: 0, list_items: 0, tables: 0, table_rows: 0, definitions: 0, rules: 0 };
}

export function addStats(a: Stats, b: Stats): Stats {
  return {
    lines: a.lines + b.lines,
    headings: a.headings + b.headings,
    paragraphs: a.paragraphs + b.paragraphs,
    list_items: a.list_items + b.list_items,
    tables: a.tables + b.tables,
    table_rows: a.table_rows + b.table_rows,
    definitions: a.definitions + b.definitions,
    rules: a.rules + b.rules,
  };
}

/**
 * Profile name from stats, first match wins:
 * table (≥ 1 table and table rows ≥ 60% of paragraphs + list items + table rows),
 * definitions (≥ 2 and ≥ 50% of paragraphs + list items), requirements (rules ≥ 2 and ≥ 50%),
 * raw_prose (no list items and no tables), else mixed.
 */
export function profileName(s: Stats): ProfileName {
  const units = s.paragraphs + s.list_items;
  if (s.tables >= 1 && s.table_rows >= PROFILE_TABLE_SHARE * (units + s.table_rows)) return 'table';
  if (s.definitions >= 2 && s.definitions >= PROFILE_RECORD_SHARE * units) return 'definitions';
  if (s.rules >= 2 && s.rules >= PROFILE_RECORD_SHARE * units) return 'requirements';
  if (s.list_items === 0 && s.tables === 0) return 'raw_prose';
  return 'mixed';
}

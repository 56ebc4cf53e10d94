/**
 * Shared vocabulary of the ToonLens core. Pure data: no `vscode`, no LSP.
 *
 * Offsets are JavaScript string offsets (UTF-16 code units), the unit LSP uses.
 * Rule sets never compute text positions themselves: they return {@link Finding}s
 * that point into the JSON value by path, and the facade resolves the paths to
 * offsets only for the findings that exist (a valid large document never pays
 * for a position AST).
 */

import type { DiagnosticCode, DocumentKind, Severity } from './codes';

// Declared in codes.ts (the catalogue needs them and must not import this file back); re-exported here.
export type { DocumentKind, Severity } from './codes';

export const DOCUMENT_KINDS: readonly DocumentKind[] = ['verdict', 'report', 'critique', 'recipe-input', 'recipe-output'];

/** A JSON pointer as segments: object keys are strings, array indexes numbers. */
export type JsonPath = readonly (string | number)[];

/**
 * Where a finding points inside a JSON document.
 * - `value` (default): the value node at `path`.
 * - `key`: the property key of the last segment of `path` (e.g. an unexpected property).
 * - `missing`: the object at `path` lacks `property`; the range is the object's opening brace.
 */
export type JsonTarget =
  | { path: JsonPath; part?: 'value' }
  | { path: JsonPath; part: 'key' }
  | { path: JsonPath; part: 'missing'; property: string };

/** One change to a JSON document: set the value at `path` (creating the last key when absent), or remove it when `remove` is true. */
export interface JsonEdit {
  path: JsonPath;
  value?: unknown;
  remove?: boolean;
}

/** A quick fix expressed on the JSON value; the feature layer turns it into text edits. */
export interface JsonFix {
  /** Short, self-contained title that states the derivation, e.g. "Set safe_to_auto_apply to false — warning `duplicate_rule` has severity warning". */
  title: string;
  edits: JsonEdit[];
  /** Whether `source.fixAll.toonlens` and `check --fix` may apply it unattended (derived-field fixes: yes). */
  fixAll: boolean;
}

/** A rule or schema result, before positions are resolved. */
export interface Finding {
  /** A code of the catalogue (codes.ts). */
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  target: JsonTarget;
  fixes?: JsonFix[];
}

export interface OffsetRange {
  start: number;
  end: number;
}

/** A finding with its range resolved to offsets in the document text. */
export interface CoreDiagnostic {
  /** A code of the catalogue (codes.ts). */
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  range: OffsetRange;
  fixes?: JsonFix[];
  /** The JSON path the finding is about, when it came from a JSON document. */
  path?: JsonPath;
  /** Other places in the same text the finding is about (a repeated rule's first occurrence). */
  related?: { range: OffsetRange; message: string }[];
}

/** Read-only access to the workspace a document lives in; fakes are passed in tests. */
export interface WorkspaceReader {
  /** Absolute path of the workspace folder holding the document (the containment root), if any. */
  readonly root: string | undefined;
  /** The text of an open editor buffer for this absolute path, if the file is open. */
  openText(absPath: string): string | undefined;
  /** The file's bytes, or undefined when it does not exist or cannot be read. */
  readFile(absPath: string): Uint8Array | undefined;
  /** Resolved real path (symlinks followed), or undefined when it does not exist. */
  realpath(absPath: string): string | undefined;
  /** Live git state of a file, or undefined when unknown (no git, not a repository). */
  gitState(absPath: string): { tracked: boolean; clean: boolean } | undefined;
  /** What is at the path itself, symlinks not followed; undefined when nothing is there. Optional: fakes may omit it. */
  entryType?(absPath: string): EntryType | undefined;
  /** Whether a directory is a git directory (HEAD, objects/ and refs/ inside), whatever its name. Optional. */
  isGitDir?(absPath: string): boolean;
  /** The real folders git runs hooks from for the repository holding the existing folder `dirReal` (`core.hooksPath`). Optional. */
  hookDirs?(dirReal: string): readonly string[];
  /** Whether the file (symlinks followed) has an execute bit. Optional: fakes may omit it. */
  isExecutable?(absPath: string): boolean;
}

/** The type of a directory entry, as lstat sees it. */
export type EntryType = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'character device' | 'block device' | 'unknown';

/** Context handed to every rule set. */
export interface RuleContext {
  /** The raw document text (some rules measure serialized sizes). */
  text: string;
  /** Absolute file-system path of the document, when it has one. */
  fsPath?: string;
  /** Workspace access for rules that look at other files (report exact_edits); absent in pure checks. */
  workspace?: WorkspaceReader;
}

/** A rule set for one document kind: pure function of the parsed value. */
export type RuleSet = (value: unknown, ctx: RuleContext) => Finding[];

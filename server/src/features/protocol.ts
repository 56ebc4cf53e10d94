/**
 * The ToonLens-specific part of the client/server protocol: method names, command ids and payloads.
 * Plain constants and types with no imports, so the thin client can share them without pulling in
 * any server code.
 */

/** Server → client request: ask the user to confirm an action (modal); the answer is a boolean. */
export const CONFIRM_REQUEST = 'toonlens/confirm';
export interface ConfirmParams {
  /** The question, shown as the modal's message. */
  message: string;
  /** Secondary text under the message. */
  detail?: string;
  /** Label of the confirming button; defaults to "Continue". */
  confirmLabel?: string;
}

/** Server → client notification: the status-bar text (an empty `text` hides the item). */
export const STATUS_NOTIFICATION = 'toonlens/status';
export interface StatusParams {
  text: string;
  tooltip?: string;
  /** A command id run when the item is clicked. */
  command?: string;
}

/** Client → server notification: the user granted workspace trust after the server started. */
export const TRUST_GRANTED_NOTIFICATION = 'toonlens/trustGranted';

/** What the thin client passes as `initializationOptions`. */
export interface ToonLensInitializationOptions {
  /** Whether the workspace is trusted (untrusted: diagnostics and hovers only, no edits to other files). Default true. */
  trusted?: boolean;
  /**
   * The client registers the command ids below itself and forwards them to `workspace/executeCommand`,
   * so the server must not list them in `executeCommandProvider` (vscode-languageclient would register
   * them a second time and fail).
   */
  clientRegistersCommands?: boolean;
  /** Settings for clients that cannot answer `workspace/configuration`: the `toonlens` section's value. */
  settings?: unknown;
}

/** The command ids the client forwards to the server. */
export const COMMANDS = {
  convertSection: 'toonlens.convertSection',
  revertSection: 'toonlens.revertSection',
  convertAll: 'toonlens.convertAll',
  applyEdit: 'toonlens.applyEdit',
  applyAllAuto: 'toonlens.applyAllAuto',
  showVerdict: 'toonlens.showVerdict',
} as const;

export const FORWARDED_COMMANDS: readonly string[] = Object.values(COMMANDS);

/**
 * The argument the client sends when a forwarded command is run without arguments (from the command
 * palette or a key binding): the active editor's document and cursor. Lenses and code actions pass
 * their own arguments, which are forwarded unchanged.
 */
export interface ActiveEditorArg {
  uri: string;
  /** Zero-based line and UTF-16 character of the cursor. */
  position: { line: number; character: number };
}

/** The code action kind of "fix all ToonLens problems" (usable from editor.codeActionsOnSave). */
export const FIX_ALL_KIND = 'source.fixAll.toonlens';

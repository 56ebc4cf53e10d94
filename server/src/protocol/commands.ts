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
  /** Applying a report edit: the entry (1-based), the file it changes (workspace-relative), its line range and a preview (also in `detail`). */
  entry?: number;
  file?: string;
  lines?: string;
  preview?: string;
}

/** Server → client notification: the status-bar text (an empty `text` hides the item). */
export const STATUS_NOTIFICATION = 'toonlens/status';
export interface StatusParams {
  /**
   * The document this status is about: the client shows it only while that document is the active
   * editor, and hides the item for every other file. Absent: a window-wide status.
   */
  uri?: string;
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
  /**
   * Language ids served as markdown beyond {@link DEFAULT_MARKDOWN_LANGUAGES} (the client passes the
   * `toonlens.markdownLanguages` setting; clients without it may put `markdownLanguages` in `settings`).
   */
  markdownLanguages?: string[];
  /**
   * A directory the server may write to, the same for every window (VS Code: ExtensionContext.globalStorageUri):
   * Convert keeps each section's original markdown there, one file per workspace folder (named by the folder's
   * real path), keyed by the sha256 of the fence it became, so Revert gives back the exact bytes in later windows of
   * the same folder and never in another folder. Absent: originals last for the session.
   */
  storagePath?: string;
}

/**
 * The language ids ToonLens serves as markdown: VS Code's markdown and its agent-file languages
 * (`*.instructions.md`, `copilot-instructions.md`, `.claude/rules/**` → instructions; `*.prompt.md` → prompt;
 * `*.agent.md`, `.github/agents/*.md` → chatagent, formerly chatmode; `SKILL.md` → skill).
 */
export const DEFAULT_MARKDOWN_LANGUAGES: readonly string[] = ['markdown', 'instructions', 'prompt', 'chatagent', 'chatmode', 'skill'];

export { MARKDOWN_FILE_PATTERNS, WATCH_GLOB } from '../core/files';

/** The command ids the client forwards to the server. */
export const COMMANDS = {
  convertSection: 'toonlens.convertSection',
  revertSection: 'toonlens.revertSection',
  convertAll: 'toonlens.convertAll',
  applyEdit: 'toonlens.applyEdit',
  applyAllAuto: 'toonlens.applyAllAuto',
  showVerdict: 'toonlens.showVerdict',
  /** The whole-document plan of a markdown file: `[{ uri }]` → {@link PlanSummary} (VS Code shows it as a read-only markdown view). */
  showPlan: 'toonlens.showPlan',
  checkWorkspace: 'toonlens.checkWorkspace',
} as const;

/** What `toonlens.showPlan` answers: the plan of a markdown document as markdown, or null when it has none. */
export interface PlanSummary {
  title: string;
  markdown: string;
}

/** The URI scheme of the client's read-only plan views (the markdown document's URI is the query). */
export const PLAN_VIEW_SCHEME = 'toonlens-plan';

export const FORWARDED_COMMANDS: readonly string[] = Object.values(COMMANDS);

/** Commands the client handles alone (no server round trip). */
export const CLIENT_COMMANDS = {
  showOutput: 'toonlens.showOutput',
  restartServer: 'toonlens.restartServer',
  refreshAgentContext: 'toonlens.refreshAgentContext',
  /** Reveals the Agent Context view (what the status-bar entry runs). */
  showAgentContext: 'toonlens.showAgentContext',
} as const;

/**
 * Server command answering the agent context of a workspace folder (schemas/context.v1.json, plus `root`, the
 * folder's absolute path). Argument: `{ uri }` of a document in the folder (default: the first folder).
 */
export const AGENT_CONTEXT_COMMAND = 'toonlens.agentContext';
/**
 * Server command answering the status-bar entry of one file: which agents load it, as the text and tooltip to
 * show ({@link AgentStatusAnswer}), or null when no agent loads it (the entry is hidden). Argument: `{ uri }`.
 */
export const AGENT_STATUS_COMMAND = 'toonlens.agentStatus';

/** The status-bar entry of a file some agent loads, as the server words it (the client shows it as is). */
export interface AgentStatusAnswer {
  /** E.g. `$(hubot) Claude Code, Codex · 2,341 tok`. */
  text: string;
  /** One line per agent: agent → class, with what each request pays. */
  tooltip: string;
}

/** The id of the "Agent Context" view (package.json `contributes.views`). */
export const AGENT_CONTEXT_VIEW = 'toonlens.agentContextView';

/** What the view reads of the agent-context answer. */
export interface AgentContextAnswer {
  root?: string;
  error?: string;
  agents?: {
    agent: string;
    name: string;
    always_tokens: number;
    paid_tokens: number;
    files: { path: string; class: 'always' | 'matching' | 'on-use'; tokens: number; always_tokens: number; globs?: string[]; imported_by?: string }[];
  }[];
}

/**
 * Server command run by a Convert code action after its edit is applied: remembers the converted
 * section's original markdown (so Revert is exact). Argument: `{ nonce }`, the random name of a conversion the
 * server offered in that code action; the server records the original it computed itself, and only in a trusted
 * workspace once the converted text is in the document (no caller can hand it an original).
 */
export const REMEMBER_ORIGINALS_COMMAND = 'toonlens.rememberOriginals';

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

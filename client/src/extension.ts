// Thin client: starts the ToonLens language server and gives it a UI. Commands forward to
// workspace/executeCommand; the server asks for confirmations and sets the status-bar text.
// No rule, measurement or format knowledge lives here.
import * as path from 'node:path';
import { commands, Position, Selection, StatusBarAlignment, Uri, window, workspace, type ExtensionContext } from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import {
  COMMANDS,
  CONFIRM_REQUEST,
  FORWARDED_COMMANDS,
  STATUS_NOTIFICATION,
  TRUST_GRANTED_NOTIFICATION,
  type ActiveEditorArg,
  type ConfirmParams,
  type StatusParams,
  type ToonLensInitializationOptions,
} from '../../server/src/features/protocol';

let client: LanguageClient | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const serverModule = context.asAbsolutePath(path.join('dist', 'server.js'));
  // A smaller young generation (2 MB semi-spaces instead of V8's 16 MB). Measured 2026-11-30 over this IPC
  // transport, opening a 15.9 MB plan: peak RSS growth 93 MB instead of 105 MB (5.9x the file instead of 6.6x),
  // server CPU to first diagnostics unchanged (~0.78 s both). 1 MB semi-spaces (78 MB) cost ~25 % more CPU and
  // --optimize-for-size (63 MB) ~50 %, so neither is used.
  const execArgv = ['--max-semi-space-size=2'];
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc, options: { execArgv } },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: [...execArgv, '--nolazy', '--inspect=6009'] } },
  };
  const initializationOptions: ToonLensInitializationOptions = { trusted: workspace.isTrusted, clientRegistersCommands: true };
  const clientOptions: LanguageClientOptions = {
    documentSelector: ['json', 'jsonc', 'markdown', 'toon'].flatMap((language) =>
      ['file', 'untitled'].map((scheme) => ({ scheme, language })),
    ),
    synchronize: { fileEvents: workspace.createFileSystemWatcher('**/*.{json,md,toon}') },
    initializationOptions,
  };
  client = new LanguageClient('toonlens', 'ToonLens', serverOptions, clientOptions);

  const status = window.createStatusBarItem('toonlens.status', StatusBarAlignment.Right, 100);
  status.name = 'ToonLens';
  context.subscriptions.push(status);
  client.onNotification(STATUS_NOTIFICATION, (p: StatusParams) => {
    status.text = p.text;
    status.tooltip = p.tooltip;
    status.command = p.command;
    if (p.text) status.show();
    else status.hide();
  });
  client.onRequest(CONFIRM_REQUEST, async (p: ConfirmParams) => {
    const confirm = p.confirmLabel ?? 'Continue';
    return (await window.showWarningMessage(p.message, { modal: true, detail: p.detail }, confirm)) === confirm;
  });

  for (const command of FORWARDED_COMMANDS) {
    if (command === COMMANDS.showVerdict) continue;
    context.subscriptions.push(
      commands.registerCommand(command, async (...args: unknown[]) => {
        if (args.length === 0) {
          const editor = window.activeTextEditor;
          if (!editor) return undefined;
          const { line, character } = editor.selection.active;
          const arg: ActiveEditorArg = { uri: editor.document.uri.toString(), position: { line, character } };
          args = [arg];
        }
        const outcome = (await client?.sendRequest(ExecuteCommandRequest.type, { command, arguments: args })) as { applied?: boolean; message?: string } | undefined;
        if (outcome && outcome.applied === false && outcome.message) void window.showInformationMessage(`ToonLens: ${outcome.message}`);
        return outcome;
      }),
    );
  }
  // UI only: put the cursor on the section's heading and open its verdict hover (the server renders it).
  context.subscriptions.push(
    commands.registerCommand(COMMANDS.showVerdict, async (arg?: ActiveEditorArg) => {
      if (arg?.uri) {
        const editor = await window.showTextDocument(Uri.parse(arg.uri));
        const pos = new Position(arg.position.line, arg.position.character);
        editor.selection = new Selection(pos, pos);
      }
      await commands.executeCommand('editor.action.showHover');
    }),
  );
  context.subscriptions.push(workspace.onDidGrantWorkspaceTrust(() => void client?.sendNotification(TRUST_GRANTED_NOTIFICATION)));

  await client.start();
}

export function deactivate(): Thenable<void> | undefined {
  return client?.stop();
}

// Thin client: starts the language client. Placeholder until the client lands.
import type { ExtensionContext } from 'vscode';

export function activate(_context: ExtensionContext): void {}
export function deactivate(): void {}

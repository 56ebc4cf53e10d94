/**
 * What every feature's code actions share: the request's kind filter, and restricted mode. In a workspace VS Code
 * does not trust, ToonLens edits no file, whoever asks: an action that would edit is shown disabled with the
 * reason (the user sees what trusting the workspace would offer), a source action (fix all, which a workspace's
 * own `editor.codeActionsOnSave` can run on every save) is not offered at all, and a client that cannot show a
 * disabled action gets none.
 */
import type { CodeAction } from 'vscode-languageserver/node';
import type { FeatureContext } from './feature';

export const RESTRICTED_EDIT_REASON = 'restricted mode: ToonLens does not edit files in an untrusted workspace';

/** Whether a request's `only` filter admits `kind` (absent filter: every kind except source actions). */
export function wantsKind(only: string[] | undefined, kind: string): boolean {
  if (!only || only.length === 0) return !kind.startsWith('source');
  return only.some((k) => k === '' || kind === k || kind.startsWith(k + '.'));
}

/** The editing actions a feature computed, as the workspace's trust allows them (see the module comment). */
export function trustedEdits(ctx: Pick<FeatureContext, 'isTrusted' | 'clientCapabilities'>, actions: CodeAction[], reason = RESTRICTED_EDIT_REASON): CodeAction[] {
  if (ctx.isTrusted()) return actions;
  if (!ctx.clientCapabilities.textDocument?.codeAction?.disabledSupport) return [];
  const out: CodeAction[] = [];
  for (const a of actions) {
    if (a.kind?.startsWith('source')) continue;
    out.push({ title: a.title, ...(a.kind ? { kind: a.kind } : {}), ...(a.diagnostics ? { diagnostics: a.diagnostics } : {}), disabled: { reason } });
  }
  return out;
}

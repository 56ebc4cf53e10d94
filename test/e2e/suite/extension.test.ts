// Runs inside the real VS Code extension host and drives the installed extension through the vscode API only.
import * as assert from 'assert';
import * as vscode from 'vscode';

import { codeOf, diagnostics, file, installedExtension, lenses, open, waitFor } from './helpers';

/**
 * The code action of `kind` at `range` whose title matches, asked for until one does (the lightbulb asks again
 * as the editor moves on). The workbench can cancel the provider call right after a document opened: seen as a
 * `Canceled` error (once in five runs), and once in CI as an empty answer (the language client answers a
 * cancelled request with nothing). Each answer without the action is logged; the last one is in the failure.
 */
async function codeAction(doc: vscode.TextDocument, range: vscode.Range, kind: vscode.CodeActionKind, title: RegExp): Promise<vscode.CodeAction> {
  let last = 'no answer yet';
  try {
    return await waitFor(`a ${kind.value} code action`, async () => {
      let actions: vscode.CodeAction[] | undefined;
      try {
        actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, range, kind.value);
      } catch (err) {
        if (!(err instanceof Error) || err.message !== 'Canceled') throw err;
        last = 'Canceled';
        console.log(`      (code actions: ${last}; asking again)`);
        return undefined;
      }
      const fix = actions?.find((a) => a.edit && title.test(a.title));
      if (!fix) {
        last = `[${(actions ?? []).map((a) => a.title).join(' | ')}]`;
        console.log(`      (code actions: ${last}; asking again)`);
      }
      return fix;
    }, 15000);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('timed out')) throw err;
    throw new assert.AssertionError({ message: `no ${kind.value} code action matching ${title} (last answer: ${last})` });
  }
}

/** Waits for `code` on the document, applies the quick fix whose title matches, and waits for the diagnostic to go. */
async function applyQuickFix(doc: vscode.TextDocument, code: string, title: RegExp): Promise<void> {
  const ds = await diagnostics(doc.uri, (d) => d.some((x) => codeOf(x) === code));
  const diag = ds.find((x) => codeOf(x) === code)!;
  const fix = await codeAction(doc, diag.range, vscode.CodeActionKind.QuickFix, title);
  assert.ok(await vscode.workspace.applyEdit(fix.edit!));
  await diagnostics(doc.uri, (d) => !d.some((x) => codeOf(x) === code));
}

describe('ToonLens in a real VS Code', () => {
  before(async () => {
    await installedExtension();
  });

  it('lenses only where converting helps by default, one per heading with codeLens.sections "all"; the plan lens opens the plan', async () => {
    const doc = await open('AGENTS.md');
    const headings = doc.getText().split('\n').filter((l) => /^#{1,6} /.test(l)).length;
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.title === 'Convert to TOON'));
    const titles = ls.map((l) => l.command?.title ?? '');
    assert.ok(titles.some((t) => /^TOON saves [\d,]+ tokens? · .* · convert$/.test(t)), `a convert verdict lens: ${titles.join(' | ')}`);
    assert.ok(!titles.some((t) => / · keep markdown$/.test(t)), `no keep-markdown lens by default: ${titles.join(' | ')}`);
    assert.ok(!titles.some((t) => /[−+]\d/.test(t)), `one sign convention (saves/costs), no signed percentages: ${titles.join(' | ')}`);
    for (const l of ls) assert.ok(l.command?.tooltip, `a tooltip on “${l.command?.title}”`);
    // The plan lens opens the whole plan beside the document, rendered by the server.
    const plan = ls.find((l) => /^TOON plan:/.test(l.command?.title ?? ''))!;
    await vscode.commands.executeCommand(plan.command!.command, ...(plan.command!.arguments ?? []));
    const view = await waitFor('the plan view', () => vscode.window.visibleTextEditors.find((e) => e.document.uri.scheme === 'toonlens-plan')?.document);
    assert.match(view.getText(), /^# TOON plan: AGENTS\.md\n/);
    assert.match(view.getText(), /\| line \| section \| verdict \| tokens \| converting \|/);
    await vscode.commands.executeCommand('workbench.action.closeEditorsInOtherGroups');
    // Every heading with "all".
    const config = vscode.workspace.getConfiguration('toonlens');
    await config.update('codeLens.sections', 'all', vscode.ConfigurationTarget.Workspace);
    try {
      const all = await lenses(doc, (l) => l.filter((x) => x.command?.title && x.range.start.line > 0 && x.command.command === 'toonlens.showVerdict').length >= headings - 1);
      assert.ok(all.some((l) => / · keep markdown$/.test(l.command?.title ?? '')), `a keep-markdown lens with "all": ${all.map((l) => l.command?.title).join(' | ')}`);
    } finally {
      await config.update('codeLens.sections', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });

  it('explains a section verdict when a heading is hovered', async () => {
    const doc = await open('AGENTS.md');
    const line = doc.getText().split('\n').findIndex((l) => l.startsWith('## Services'));
    const hovers = await waitFor('hover', async () => {
      const h = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', doc.uri, new vscode.Position(line, 4));
      return h && h.length ? h : undefined;
    });
    const text = hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : c.value))).join('\n');
    assert.match(text, /convert/);
    assert.match(text, /gpt-tokenizer@4\.0\.0:o200k_base/);
  });

  it('converts a section to a toon fence with the lens command', async () => {
    const doc = await open('AGENTS.md');
    const before = doc.getText();
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertSection'));
    const lens = ls.find((x) => x.command?.command === 'toonlens.convertSection')!;
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    await waitFor('converted text', () => (doc.getText().includes('```toon') ? true : undefined));
    assert.notEqual(doc.getText(), before);
    await vscode.commands.executeCommand('undo');
    await waitFor('undo', () => (doc.getText() === before ? true : undefined));
  });

  it('reverts a toon fence to markdown with the refactor code action', async () => {
    const doc = await open('AGENTS.md');
    const before = doc.getText();
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertSection'));
    const lens = ls.find((x) => x.command?.command === 'toonlens.convertSection')!;
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    await waitFor('converted text', () => (doc.getText().includes('```toon') ? true : undefined));
    await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.revertSection'));
    const fenceLine = doc.getText().split('\n').findIndex((l) => l.startsWith('```toon'));
    const at = new vscode.Range(fenceLine + 1, 0, fenceLine + 1, 0);
    const revert = await codeAction(doc, at, vscode.CodeActionKind.RefactorRewrite, /^Revert to Markdown$/);
    assert.ok(await vscode.workspace.applyEdit(revert.edit!));
    await waitFor('reverted text', () => (!doc.getText().includes('```toon') ? true : undefined));
    assert.equal(doc.getText(), before, 'Revert gives back the exact original bytes');
    await vscode.commands.executeCommand('undo');
    await vscode.commands.executeCommand('undo');
    await waitFor('both undone', () => (doc.getText() === before ? true : undefined));
  });

  it('converts every recommended section with the plan lens, in one undoable edit', async () => {
    const doc = await open('AGENTS.md');
    const before = doc.getText();
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertAll'));
    const converting = ls.filter((x) => x.command?.command === 'toonlens.convertSection').length;
    const all = ls.find((x) => x.command?.command === 'toonlens.convertAll')!;
    assert.equal(all.command!.title, 'Convert all recommended sections');
    await vscode.commands.executeCommand(all.command!.command, ...(all.command!.arguments ?? []));
    const fences = await waitFor('converted sections', () => {
      const n = doc.getText().split('\n').filter((l) => l.startsWith('```toon')).length;
      return n > 0 ? n : undefined;
    });
    assert.equal(fences, converting, 'one fence per section whose lens said convert');
    await vscode.commands.executeCommand('undo');
    await waitFor('undo', () => (doc.getText() === before ? true : undefined));
  });

  it('reports a defective verdict and fixes it with a quick fix', async () => {
    const doc = await open('bad.verdict.json');
    await applyQuickFix(doc, 'verdict/safe-to-auto-apply', /safe_to_auto_apply/);
  });

  it('reports a defective hygiene report, fixes its tier and applies its exact_edit to the workspace file', async () => {
    const doc = await open('docs/hygiene-report.json');
    await applyQuickFix(doc, 'report/safety-tier', /safety_tier/);
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.title === 'Apply replace-text to docs/plan.md (auto)'));
    const lens = ls.find((x) => x.command?.title === 'Apply replace-text to docs/plan.md (auto)')!;
    const target = file('docs/plan.md');
    const before = Buffer.from(await vscode.workspace.fs.readFile(target)).toString('utf8');
    assert.match(before, /TEMPORARY NOTE/);
    await vscode.commands.executeCommand(lens.command!.command, ...(lens.command!.arguments ?? []));
    const after = await waitFor('edited target', async () => {
      const opened = vscode.workspace.textDocuments.find((d) => d.uri.toString() === target.toString());
      const text = opened ? opened.getText() : Buffer.from(await vscode.workspace.fs.readFile(target)).toString('utf8');
      return text.includes('The migration is done.') ? text : undefined;
    });
    assert.doesNotMatch(after, /TEMPORARY NOTE/);
  });

  it('serves the agent-file languages: .instructions.md, SKILL.md and Cursor .mdc rules get lenses', async () => {
    for (const rel of ['.github/instructions/services.instructions.md', 'skills/release/SKILL.md', '.cursor/rules/style.mdc']) {
      const doc = await open(rel);
      console.log(`      ${rel}: language ${doc.languageId}`);
      // Served: the plan lens (section lenses appear only where converting helps, which depends on real tokens).
      const ls = await lenses(doc, (l) => l.some((x) => /^TOON plan:/.test(x.command?.title ?? '')));
      assert.ok(ls.some((x) => x.command?.command === 'toonlens.showPlan'), `${rel}: ${ls.map((x) => x.command?.title).join(' | ')}`);
    }
  });

  it('a converted fence gets its own lenses, no verdict lens and no section warning, and Revert gives back the exact bytes', async () => {
    const doc = await open('.github/instructions/services.instructions.md');
    const before = doc.getText();
    assert.match(before, /\|----------\|------\|-------\|/);
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertSection'));
    const convert = ls.find((x) => x.command?.command === 'toonlens.convertSection')!;
    await vscode.commands.executeCommand(convert.command!.command, ...(convert.command!.arguments ?? []));
    await waitFor('converted text', () => (doc.getText().includes('```toon') ? true : undefined));
    const fenceLine = doc.getText().split('\n').findIndex((l) => l.startsWith('```toon'));
    const after = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.revertSection'));
    const onFence = after.filter((x) => x.range.start.line === fenceLine).map((x) => x.command?.title ?? '');
    assert.match(onFence[0] ?? '', /^TOON fence saves [\d,]+ tokens? · .* vs its original markdown$/, onFence.join(' | '));
    assert.equal(onFence[1], 'Revert to Markdown');
    assert.ok(!after.some((x) => x.range.start.line === fenceLine - 1 && x.command?.command === 'toonlens.showVerdict'), 'no verdict lens on the converted heading');
    const revert = after.find((x) => x.command?.command === 'toonlens.revertSection')!;
    assert.match(revert.command!.tooltip ?? '', /exact original/);
    await vscode.commands.executeCommand(revert.command!.command, ...(revert.command!.arguments ?? []));
    await waitFor('exact revert', () => (doc.getText() === before ? true : undefined));
  });

  it('puts toon/long-section on the heading line only', async () => {
    const rel = 'docs/long-procedure.instructions.md'; // an agent file: long-section is agent-file advice
    const text = '# Procedures\n\n' + Array.from({ length: 45 }, (_, i) => `- step ${i + 1}: check the deploy log for warnings`).join('\n') + '\n';
    await vscode.workspace.fs.writeFile(file(rel), Buffer.from(text, 'utf8'));
    const doc = await open(rel);
    const ds = await diagnostics(doc.uri, (d) => d.some((x) => codeOf(x) === 'toon/long-section'));
    const d = ds.find((x) => codeOf(x) === 'toon/long-section')!;
    assert.equal(d.range.start.line, 0);
    assert.equal(d.range.end.line, 0, 'never across the body');
  });

  it('shows the active markdown plan in the status bar, and nothing for other files', async () => {
    const api = vscode.extensions.all.find((e) => e.packageJSON?.name === 'toonlens')!.exports as { status(): { text: string; visible: boolean } };
    await open('AGENTS.md');
    const shown = await waitFor('status bar', () => {
      const st = api.status();
      return st.visible && /TOON saves [\d,]+ tokens? · \d+\.\d% fewer chars/.test(st.text) ? st : undefined;
    });
    console.log(`      status bar: ${shown.text}`);
    await open('bad.verdict.json');
    await waitFor('status hidden on JSON', () => (api.status().visible ? undefined : true));
    await open('AGENTS.md');
    await waitFor('status back on markdown', () => (api.status().visible ? true : undefined));
  });

  it('registers the MCP server for agent mode where VS Code has the API', async () => {
    const ext = vscode.extensions.all.find((e) => e.packageJSON?.name === 'toonlens')!;
    const api = ext.exports as { mcpRegistered: boolean };
    const lm = (vscode as unknown as { lm?: { registerMcpServerDefinitionProvider?: unknown } }).lm;
    const hasApi = typeof lm?.registerMcpServerDefinitionProvider === 'function';
    console.log(`      MCP provider API: ${hasApi ? 'present' : 'absent'} in VS Code ${vscode.version}`);
    assert.equal(api.mcpRegistered, hasApi);
    assert.deepEqual(ext.packageJSON.contributes.mcpServerDefinitionProviders, [{ id: 'toonlens.mcp', label: 'ToonLens' }]);
  });

  it('palette: every command has the ToonLens category and a distinct title; Show Output and Restart Server work', async () => {
    const ext = vscode.extensions.all.find((e) => e.packageJSON?.name === 'toonlens')!;
    const contributed = ext.packageJSON.contributes.commands as { command: string; title: string; category?: string }[];
    for (const c of contributed) assert.equal(c.category, 'ToonLens', c.command);
    assert.equal(new Set(contributed.map((c) => c.title)).size, contributed.length, 'distinct titles');
    const all = await vscode.commands.getCommands(true);
    for (const c of contributed) assert.ok(all.includes(c.command), `${c.command} is registered`);
    await vscode.commands.executeCommand('toonlens.showOutput');
    // The editor keeps asking for code actions while the server restarts; a request that reaches the old server
    // after its shutdown must end as a cancelled request, not as an error in the log (run.mjs reads the logs).
    const doc = await open('AGENTS.md');
    let restarted = false;
    const asked: Thenable<unknown>[] = [];
    const asking = (async () => {
      // A new request every turn of the extension host's loop, answered or not, until the new server is up.
      while (!restarted && asked.length < 5000) {
        // The editor cancels a request whose provider goes away; only an error logged for it would be a failure.
        asked.push(vscode.commands.executeCommand('vscode.executeCodeActionProvider', doc.uri, new vscode.Range(0, 0, 0, 0)).then(undefined, (err: Error) => {
          if (err?.name !== 'Canceled') throw err;
        }));
        await new Promise((r) => setImmediate(r));
      }
    })();
    await vscode.commands.executeCommand('toonlens.restartServer');
    restarted = true;
    await asking;
    await Promise.all(asked);
    console.log(`      code-action requests during the restart: ${asked.length}`);
    await lenses(doc, (l) => l.some((x) => /^TOON plan:/.test(x.command?.title ?? '')));
  });
});

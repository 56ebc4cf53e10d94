// Editor conventions in a real VS Code: one figure before and after Convert, report completions listed once,
// the "Disable … for this line" quick fix, codeDescription links, and report lens tooltips.
import * as assert from 'assert';
import { createHash } from 'crypto';
import * as vscode from 'vscode';

import { codeOf, diagnostics, file, installedExtension, lenses, open, waitFor } from './helpers';

const write = (rel: string, text: string) => vscode.workspace.fs.writeFile(file(rel), Buffer.from(text, 'utf8'));

/** tokens saved, chars before → after and the percent words of a verdict or fence lens title. */
function figures(title: string): string {
  const m = /(saves|costs) ([\d,]+) tokens? · ([\d,]+) → ([\d,]+) chars \(([^)]*)\)/.exec(title);
  assert.ok(m, `figures in "${title}"`);
  return `${m[1]} ${m[2]} · ${m[3]} → ${m[4]} (${m[5]})`;
}

const RULES = '# Support agent rules\n\n## Tone\n\n- Always greet the customer by name when it is known.\n- Never promise a delivery date that the order system does not show.\n- Always greet the customer by name when it is known.\n';

describe('ToonLens editor conventions in a real VS Code', () => {
  before(async () => {
    await installedExtension();
  });

  it('one figure before and after Convert: the fence lens repeats the verdict lens, and the file changes by exactly that', async () => {
    const source = new TextDecoder().decode(await vscode.workspace.fs.readFile(file('AGENTS.md')));
    await write('conventions/figures.md', source);
    const doc = await open('conventions/figures.md');
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.command === 'toonlens.convertSection'));
    const convert = ls.find((x) => x.command?.command === 'toonlens.convertSection')!;
    const line = convert.range.start.line;
    const verdict = ls.find((x) => x.range.start.line === line && x.command?.command === 'toonlens.showVerdict')!;
    assert.ok(verdict, ls.map((x) => x.command?.title).join(' | '));
    const before = figures(verdict.command!.title);
    const m = /([\d,]+) → ([\d,]+) chars/.exec(verdict.command!.title)!;
    const saved = Number(m[1]!.replace(/,/g, '')) - Number(m[2]!.replace(/,/g, ''));
    const length = doc.getText().length;
    await vscode.commands.executeCommand(convert.command!.command, ...(convert.command!.arguments ?? []));
    await waitFor('converted text', () => (doc.getText().includes('```toon') ? true : undefined));
    assert.equal(length - doc.getText().length, saved, 'the file changed by exactly the characters the lens said');
    const after = await lenses(doc, (l) => l.some((x) => x.command?.title.startsWith('TOON fence')));
    const fence = after.find((x) => x.command?.title.startsWith('TOON fence'))!;
    assert.equal(figures(fence.command!.title), before, `${verdict.command!.title}\n${fence.command!.title}`);
  });

  it('report completions are listed once (no second list from VS Code\'s JSON service)', async () => {
    const text = '{\n  "schema_version": "1.0",\n  "generated_at": "2026-11-29T10:00:00Z",\n  "shortlist": [],\n  "entries": [\n    {\n      "path": "docs/a.md",\n      \n    }\n  ]\n}\n';
    await write('conventions/complete.report.json', text);
    const doc = await open('conventions/complete.report.json');
    const pos = new vscode.Position(7, 6);
    const list = await waitFor('report completions', async () => {
      const r = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', doc.uri, pos);
      return r && r.items.length > 3 ? r : undefined;
    });
    const labels = list.items.map((i) => (typeof i.label === 'string' ? i.label : i.label.label).replace(/^"|"$/g, ''));
    const twice = labels.filter((l, i) => labels.indexOf(l) !== i);
    assert.deepEqual(twice, [], `each completion once: ${labels.join(', ')}`);
    assert.ok(labels.includes('op'), `the schema's keys: ${labels.join(', ')}`);
  });

  it('"Disable toon/duplicate-rule for this line" writes the comment and the diagnostic goes; diagnostics link their code\'s documentation', async () => {
    await write('conventions/AGENTS.md', RULES);
    const doc = await open('conventions/AGENTS.md');
    const ds = await diagnostics(doc.uri, (d) => d.some((x) => codeOf(x) === 'toon/duplicate-rule'));
    const d = ds.find((x) => codeOf(x) === 'toon/duplicate-rule')!;
    const code = d.code as { value: string; target: vscode.Uri };
    assert.equal(code.target.toString(true), 'https://github.com/toonlens/toonlens/blob/main/docs/diagnostics.md#toon-duplicate-rule');
    const fix = await waitFor('the disable quick fix', async () => {
      const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', doc.uri, d.range, vscode.CodeActionKind.QuickFix.value).then((a) => a, () => undefined);
      return actions?.find((a) => a.title === 'Disable toon/duplicate-rule for this line' && a.edit);
    }, 15000);
    assert.ok(await vscode.workspace.applyEdit(fix.edit!));
    assert.equal(doc.lineAt(d.range.start.line).text, '<!-- toonlens-disable-next-line toon/duplicate-rule -->');
    await diagnostics(doc.uri, (x) => !x.some((y) => codeOf(y) === 'toon/duplicate-rule'));
  });

  it('report lenses have tooltips and name files from the workspace folder', async () => {
    const target = '# Plan\n\n- ship the parser\n- done\n';
    await write('conventions/site/docs/plan.md', target);
    const sha = createHash('sha256').update(target).digest('hex');
    const report = {
      schema_version: '1.0', tool_version: '0.4.2', generated_at: '2026-11-29T10:00:00Z',
      scan: { project_root: '.', scope_globs: ['**/*.md'], excluded_dirs: ['node_modules'], files_scanned: 1 },
      shortlist: ['docs/plan.md'],
      entries: [{
        path: 'docs/plan.md', category: { class: 'stale', subtype: 'completed-in-place' }, signals: ['e2e'], op: 'move-to-archive', op_type: 'deterministic',
        is_destructive: false, is_reversible: true, safety_tier: 'auto', token_estimate: { raw_tokens: 10, injection_frequency: null, weighted_tokens: null },
        exact_edit: { kind: 'move-to-archive', expected_sha256: sha, anchor: { start_line: 1, end_line: 4 }, dest_path: 'docs/archive/plan.md' },
      }],
    };
    await write('conventions/site/hygiene.report.json', JSON.stringify(report, null, 2) + '\n');
    const doc = await open('conventions/site/hygiene.report.json');
    const ls = await lenses(doc, (l) => l.some((x) => x.command?.title.startsWith('Apply ')));
    const apply = ls.find((x) => x.command?.title.startsWith('Apply '))!;
    assert.equal(apply.command!.title, 'Apply move-to-archive to conventions/site/docs/plan.md (auto)');
    for (const l of ls) assert.ok((l.command?.tooltip ?? '').length > 20, `a tooltip on "${l.command?.title}"`);
  });
});

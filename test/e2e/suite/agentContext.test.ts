// Agent context in the real VS Code, on the mixed context fixture (test/fixtures/context/mixed, opened as the
// workspace folder by the runner): the first-line lens on agent files, the status-bar entry for the active file
// (hidden where no agent loads it), and the Agent Context view (agent → class → file → tokens, most expensive
// first; a click opens the file; an edit that changes a file's tokens shows in it once saved).
import * as assert from 'assert';
import * as vscode from 'vscode';

import { file, installedExtension, lenses, open, waitFor } from './helpers';

interface Row {
  depth: number;
  label: string;
  description: string;
  command?: { command: string; arguments: unknown[] };
}
interface AgentContextApi {
  agentStatus(): { text: string; tooltip: string | undefined; visible: boolean };
  agentContextView(): { visible: boolean; reads: number; rows: Row[] };
}

let api: AgentContextApi;
const view = () => api.agentContextView();
const tokensOf = (description: string): number => {
  const m = /^([\d,]+) tokens/.exec(description);
  assert.ok(m, `a token figure in “${description}”`);
  return Number(m[1]!.replace(/,/g, ''));
};
const dump = (rows: Row[]) => rows.map((r) => `${'  '.repeat(r.depth)}${r.label} — ${r.description}`).join('\n');

/** The agents of the view, each with its class rows and their file rows. */
function tree(rows: Row[]) {
  const agents: { name: string; tokens: number; classes: { label: string; description: string; files: { path: string; tokens: number; description: string; row: Row }[] }[] }[] = [];
  for (const r of rows) {
    if (r.depth === 0) agents.push({ name: r.label, tokens: tokensOf(r.description), classes: [] });
    else if (r.depth === 1) agents.at(-1)!.classes.push({ label: r.label, description: r.description, files: [] });
    else agents.at(-1)!.classes.at(-1)!.files.push({ path: r.label, tokens: tokensOf(r.description), description: r.description, row: r });
  }
  return agents;
}

/** The first-line lens of an agent file, once its title matches. */
async function firstLineLens(rel: string, title: RegExp): Promise<vscode.CodeLens> {
  const doc = await open(rel);
  const pick = (ls: vscode.CodeLens[]) => ls.find((x) => x.range.start.line === 0 && title.test(x.command?.title ?? ''));
  try {
    return pick(await lenses(doc, (ls) => pick(ls) !== undefined))!;
  } catch (err) {
    const ls = (await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', doc.uri, 100)) ?? [];
    throw new assert.AssertionError({ message: `${rel}: no first-line lens matching ${title} (${String(err)}; lenses: ${ls.map((x) => `${x.range.start.line}: ${x.command?.title}`).join(' | ')})` });
  }
}

describe('Agent context in a real VS Code (the mixed context fixture)', () => {
  before(async () => {
    const ext = await installedExtension();
    api = ext.exports as AgentContextApi;
  });

  it('the first-line lens says which agents load a file, how, its tokens and where it repeats itself', async () => {
    const claude = await firstLineLens('CLAUDE.md', /^loaded by /);
    console.log(`      CLAUDE.md: ${claude.command!.title}`);
    assert.match(claude.command!.title, /^loaded by Claude Code \(always\) · \d+ tokens · also in (AGENTS\.md|src\/CLAUDE\.md): 1 line$/);
    assert.match(claude.command!.tooltip ?? '', /^Claude Code: \d+ tokens on every request \(rule claude\//);
    const agents = await firstLineLens('AGENTS.md', /^loaded by /);
    console.log(`      AGENTS.md: ${agents.command!.title}`);
    assert.match(agents.command!.title, /^loaded by Claude Code, Codex, Copilot \(VS Code\), Cursor \(always\) · \d+ tokens · also in /);
    assert.match(agents.command!.tooltip ?? '', /^Claude Code: \d+ tokens on every request \(rule [^)]*, imported by CLAUDE\.md\)$/m);
    const nested = await firstLineLens('src/CLAUDE.md', /^loaded by /);
    assert.match(nested.command!.title, /^loaded by Claude Code \(when src\/\*\*\) · \d+ tokens · also in CLAUDE\.md: 1 line$/);
    const ts = await firstLineLens('.github/instructions/ts.instructions.md', /^loaded by /);
    assert.match(ts.command!.title, /^loaded by Copilot \(VS Code\) \(when \*\*\/\*\.ts\) · \d+ tokens$/);
  });

  it('the status-bar entry shows the active file’s agents, and hides on files no agent loads', async () => {
    await open('AGENTS.md');
    const shown = await waitFor('the agent status entry on AGENTS.md', () => (api.agentStatus().visible && /Cursor|\+2/.test(api.agentStatus().text) ? api.agentStatus() : undefined));
    console.log(`      status: ${shown.text}`);
    assert.match(shown.text, /^\$\(hubot\) Claude Code, Codex \+2 · \d+ tok$/);
    for (const agent of ['Claude Code', 'Codex', 'Copilot \\(VS Code\\)', 'Cursor']) assert.match(shown.tooltip ?? '', new RegExp(`^${agent} → always \\(\\d+ tokens on every request\\)$`, 'm'));
    assert.doesNotMatch(shown.tooltip ?? '', /Gemini/);
    await open('src/index.ts');
    await waitFor('the entry hidden on a source file', () => (api.agentStatus().visible ? undefined : true));
    await open('GEMINI.md');
    const gemini = await waitFor('the entry on GEMINI.md', () => (api.agentStatus().visible && /Gemini/.test(api.agentStatus().text) ? api.agentStatus() : undefined));
    assert.match(gemini.text, /^\$\(hubot\) Gemini CLI · \d+ tok$/);
    // A markdown file that no agent reads.
    await vscode.workspace.fs.writeFile(file('notes.md'), Buffer.from('# Notes\n\nThings to look at next week, for people.\n', 'utf8'));
    await open('notes.md');
    await waitFor('the entry hidden on a markdown file no agent loads', () => (api.agentStatus().visible ? undefined : true));
  });

  it('its command reveals the Agent Context view: agent → class → file → tokens, most expensive first', async () => {
    await open('CLAUDE.md');
    await vscode.commands.executeCommand('toonlens.showAgentContext');
    const shown = await waitFor('the Agent Context view', () => {
      const v = view();
      return v.visible && v.rows.some((r) => r.depth === 2 && r.label === 'CLAUDE.md') ? v : undefined;
    });
    console.log(dump(shown.rows).replace(/^/gm, '      | '));
    const agents = tree(shown.rows);
    assert.deepEqual(agents.map((a) => a.name).sort(), ['Claude Code', 'Codex', 'Copilot (VS Code)', 'Cursor', 'Gemini CLI']);
    for (let i = 1; i < agents.length; i++) assert.ok(agents[i - 1]!.tokens >= agents[i]!.tokens, `agents by cost:\n${dump(shown.rows)}`);
    const ORDER = ['Always (every request)', 'When matching', 'On use'];
    for (const a of agents) {
      assert.deepEqual(a.classes.map((c) => c.label), ORDER.filter((l) => a.classes.some((c) => c.label === l)), `${a.name}: classes in order`);
      for (const c of a.classes) {
        for (let i = 1; i < c.files.length; i++) assert.ok(c.files[i - 1]!.tokens >= c.files[i]!.tokens, `${a.name} / ${c.label}: files by cost`);
        const sum = c.files.reduce((s, f) => s + f.tokens, 0);
        assert.equal(c.description, `${c.files.length} file${c.files.length === 1 ? '' : 's'} · ${sum.toLocaleString('en-US')} tokens`, `${a.name} / ${c.label}`);
        for (const f of c.files) assert.ok(f.tokens > 0, `${a.name} / ${f.path}: real tokens`);
      }
      // No skill or prompt in this fixture: every request pays exactly the always-loaded files.
      const always = a.classes.find((c) => c.label === ORDER[0]);
      assert.equal(a.tokens, always ? always.files.reduce((s, f) => s + f.tokens, 0) : 0, `${a.name}: the every-request total`);
    }
    const claude = agents.find((a) => a.name === 'Claude Code')!;
    assert.deepEqual(claude.classes.map((c) => [c.label, c.files.map((f) => f.path).sort()]), [[ORDER[0], ['AGENTS.md', 'CLAUDE.md']], [ORDER[1], ['src/CLAUDE.md']]]);
    assert.match(claude.classes[1]!.files[0]!.description, / · src\/\*\*$/);
    assert.deepEqual(agents.find((a) => a.name === 'Gemini CLI')!.classes[0]!.files.map((f) => f.path).sort(), ['GEMINI.md', 'docs/a.md', 'docs/b.md']);
    // The view and the lens give one figure for a file.
    const lens = await firstLineLens('CLAUDE.md', /^loaded by /);
    assert.equal(Number(/· ([\d,]+) tokens/.exec(lens.command!.title)![1]!.replace(/,/g, '')), claude.classes[0]!.files.find((f) => f.path === 'CLAUDE.md')!.tokens);
  });

  it('clicking a file in the view opens it', async () => {
    const copilot = tree(view().rows).find((a) => a.name === 'Copilot (VS Code)')!;
    const row = copilot.classes.flatMap((c) => c.files).find((f) => f.path === '.github/copilot-instructions.md')!.row;
    assert.ok(row.command, 'a file row opens its file');
    await vscode.commands.executeCommand(row.command.command, ...row.command.arguments);
    await waitFor('the file opened from the view', () => (vscode.window.activeTextEditor?.document.uri.toString() === file('.github/copilot-instructions.md').toString() ? true : undefined));
  });

  it('an edit that changes a file’s tokens shows in the lens at once and in the view once saved', async () => {
    const before = tree(view().rows);
    const figure = (agents: ReturnType<typeof tree>, agent: string, path: string) => agents.find((a) => a.name === agent)!.classes.flatMap((c) => c.files).find((f) => f.path === path)?.tokens;
    const doc = await open('AGENTS.md');
    const old = figure(before, 'Codex', 'AGENTS.md')!;
    const edit = new vscode.WorkspaceEdit();
    edit.insert(doc.uri, doc.positionAt(doc.getText().length), '- Write a changelog entry for every user-visible change, with the version it lands in.\n');
    assert.ok(await vscode.workspace.applyEdit(edit));
    const grown = await waitFor('the lens figure after the edit', async () => {
      const l = await firstLineLens('AGENTS.md', /^loaded by /);
      const n = Number(/· ([\d,]+) tokens/.exec(l.command!.title)![1]!.replace(/,/g, ''));
      return n > old ? { n, title: l.command!.title } : undefined;
    }).then((x) => {
      console.log(`      AGENTS.md after the edit: ${x.title}`);
      return x.n;
    });
    const reads = view().reads;
    assert.ok(await doc.save());
    const after = await waitFor('the view after the save', () => {
      const v = view();
      return v.reads > reads && figure(tree(v.rows), 'Codex', 'AGENTS.md') !== old ? tree(v.rows) : undefined;
    });
    for (const a of after) {
      const was = before.find((b) => b.name === a.name)!;
      const loads = figure(after, a.name, 'AGENTS.md') !== undefined;
      if (loads) assert.equal(figure(after, a.name, 'AGENTS.md'), grown, `${a.name}: the view and the lens agree`);
      assert.equal(a.tokens, was.tokens + (loads ? grown - old : 0), `${a.name}: the total moves by the edit only`);
      for (const f of a.classes.flatMap((c) => c.files)) if (f.path !== 'AGENTS.md') assert.equal(f.tokens, figure(before, a.name, f.path), `${a.name} / ${f.path} unchanged`);
    }
    await vscode.commands.executeCommand('undo');
    const undone = view().reads;
    assert.ok(await doc.save());
    // The save refreshes the view; the window must not close with that refresh still in flight.
    await waitFor('the view after the undo is saved', () => {
      const v = view();
      return v.reads > undone && figure(tree(v.rows), 'Codex', 'AGENTS.md') === old ? true : undefined;
    });
  });
});

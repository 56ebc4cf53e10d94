// The markdown editor experience over real LSP: agent-file languages,
// exact Revert across sessions, converted-fence lenses, heading-line section diagnostics, the status
// notification, the saves/costs convention and the small-slice threshold, restricted mode, and the
// confirmation before converting a section whose verdict is not convert.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodeLens, Hover, MarkupContent, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, applyTextEdits, positionAt } from './harness';
import { planDocument } from '../../server/src/core/markdown/engine';
import { findToonFences } from '../../server/src/core/toon/fences';

const AGENTS = readFileSync(join(REPO_ROOT, 'test', 'e2e', 'workspace', 'AGENTS.md'), 'utf8');
/** A section whose table separator and list spacing a canonical rendering would not keep. */
/** (eight rows: enough for the conversion to clear the 5 % token floor) */
const IRREGULAR = '# Ports\n\n| Name | Port |\n|----------|------|\n| api | 8080 |\n| worker | 8081 |\n| search | 8083 |\n| billing | 8084 |\n| ledger | 8085 |\n| mailer | 8086 |\n| gateway | 8087 |\n| auth | 8088 |\n';
const hoverText = (h: Hover | null) => (h ? (h.contents as MarkupContent).value : '');
const titles = (ls: CodeLens[] | null) => (ls ?? []).map((l) => l.command?.title ?? '');

async function convertFirst(h: LspHarness, uri: string): Promise<string> {
  const lens = ((await h.codeLenses(uri)) ?? []).find((l) => l.command?.command === 'toonlens.convertSection');
  assert.ok(lens, `a Convert lens: ${titles(await h.codeLenses(uri)).join(' | ')}`);
  const outcome = (await h.executeCommand(lens.command!.command, lens.command!.arguments)) as { applied: boolean };
  assert.equal(outcome.applied, true);
  const converted = applyTextEdits(h.text(uri)!, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit, uri));
  h.change(uri, converted);
  return converted;
}

async function revertAt(h: LspHarness, uri: string, text: string): Promise<{ outcome: { applied: boolean; message: string; exact?: boolean }; reverted: string }> {
  const fence = findToonFences(text)[0]!;
  const pos = positionAt(text, fence.contentStart);
  const outcome = (await h.executeCommand('toonlens.revertSection', [{ uri, position: pos }])) as { applied: boolean; message: string; exact?: boolean };
  const reverted = outcome.applied ? applyTextEdits(text, LspHarness.editsFor(h.appliedEdits.at(-1)!.edit as WorkspaceEdit, uri)) : text;
  return { outcome, reverted };
}

describe('markdown editor over LSP', () => {
  let h: LspHarness;
  let storage: string;
  before(async () => {
    storage = mkdtempSync(join(tmpdir(), 'toonlens-storage-'));
    h = await LspHarness.start({ initializationOptions: { storagePath: storage, markdownLanguages: ['my-notes'] }, settings: { codeLens: { sections: 'all' } } });
  });
  after(async () => {
    await h.shutdown();
    rmSync(storage, { recursive: true, force: true });
  });

  test('agent-file language ids, .mdc files and toonlens.markdownLanguages are served as markdown', async () => {
    for (const [file, lang] of [['a.instructions.txt', 'instructions'], ['b.prompt.txt', 'prompt'], ['c.agent.txt', 'chatagent'], ['SKILL.txt', 'skill'], ['rules.mdc', 'plaintext'], ['notes.txt', 'my-notes']] as const) {
      const uri = h.openFile(file, AGENTS, lang);
      const ls = await h.codeLenses(uri);
      assert.ok(titles(ls).some((t) => t.startsWith('TOON plan:')), `${file} (${lang}) gets lenses: ${titles(ls).join(' | ')}`);
      h.close(uri);
    }
    const other = h.openFile('plain.txt', AGENTS, 'plaintext');
    assert.deepEqual(await h.codeLenses(other), [], 'an unrelated language gets nothing');
    h.close(other);
  });

  test('Revert gives back the exact original bytes, in this session and in a later one of the same folder (originals kept per folder, by fence hash)', async () => {
    const uri = h.openFile('exact.md', IRREGULAR, 'markdown');
    const converted = await convertFirst(h, uri);
    assert.ok(converted.includes('```toon'));
    const { outcome, reverted } = await revertAt(h, uri, converted);
    assert.equal(outcome.applied, true);
    assert.equal(outcome.exact, true);
    assert.match(outcome.message, /exact original/);
    assert.equal(reverted, IRREGULAR, 'the |----------|------| row and the spacing come back byte for byte');
    await h.waitIdle(); // the original's file is written in the background (node/originals.ts)
    assert.equal(readdirSync(join(storage, 'revert-originals')).filter((f) => f.endsWith('.jsonl')).length, 1, 'the folder\'s originals kept on disk');
    h.close(uri);

    // A new server with the same storage and workspace folder: still exact.
    const later = await LspHarness.start({ initializationOptions: { storagePath: storage }, workspaceDir: h.workspaceDir });
    try {
      const uri2 = later.openFile('exact-later.md', converted, 'markdown');
      const again = await revertAt(later, uri2, converted);
      assert.equal(again.outcome.exact, true);
      assert.equal(again.reverted, IRREGULAR);
    } finally {
      await later.shutdown();
    }
  });

  test('an unknown fence reverts to canonical markdown and says so', async () => {
    const plan = planDocument(IRREGULAR);
    const fresh = await LspHarness.start();
    try {
      const uri = fresh.openFile('canonical.md', plan.hybrid, 'markdown');
      const ls = await fresh.codeLenses(uri);
      const revertLens = (ls ?? []).find((l) => l.command?.command === 'toonlens.revertSection')!;
      assert.match(revertLens.command!.tooltip ?? '', /canonical/);
      const { outcome, reverted } = await revertAt(fresh, uri, plan.hybrid);
      assert.equal(outcome.applied, true);
      assert.equal(outcome.exact, false);
      assert.match(outcome.message, /canonical markdown/);
      assert.notEqual(reverted, IRREGULAR);
      assert.match(reverted, /\| --- \| --- \|/);
    } finally {
      await fresh.shutdown();
    }
  });

  test('a converted section gets the fence lenses (what it saves, Revert), no verdict lens and no section diagnostics', async () => {
    const long = '# Notes\n\n' + Array.from({ length: 45 }, (_, i) => `- item ${i}: keep the queue drained before the nightly run`).join('\n') + '\n';
    const uri = h.openFile('fence-lens.instructions.md', long, 'markdown');
    await h.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'toon/long-section'));
    const plan = planDocument(long);
    const s = plan.sections.find((x) => x.slice.kind === 'section')!;
    const hybrid = long.slice(0, s.slice.headingEnd) + '```toon\n' + s.candidate + '\n```\n';
    h.change(uri, hybrid);
    const ds = await h.waitForDiagnostics(uri, (_d, v) => v === h.version(uri));
    // Section findings only: where the file stands for the agents (context/*) is a finding about the file.
    assert.deepEqual(ds.map((d) => d.code).filter((c) => !String(c).startsWith('context/')), [], 'no long-section or other section warning on a converted fence');
    const ls = (await h.codeLenses(uri)) ?? [];
    const fenceLine = hybrid.split('\n').findIndex((l) => l.startsWith('```toon'));
    const onFence = ls.filter((l) => l.range.start.line === fenceLine).map((l) => l.command?.title ?? '');
    assert.equal(onFence.length, 2, onFence.join(' | '));
    assert.match(onFence[0]!, /^TOON fence (saves|costs) [\d,]+ tokens? · /);
    assert.equal(onFence[1], 'Revert to Markdown');
    assert.ok(!titles(ls).some((t) => /keep markdown$|split first/.test(t) && !t.startsWith('TOON plan')), `no verdict lens on the converted section: ${titles(ls).join(' | ')}`);
    assert.match(hoverText(await h.hover(uri, { line: 0, character: 3 })), /TOON already/);
    h.close(uri);
  });

  test('toon/long-section and toon/split-candidate sit on the heading line only', async () => {
    const long = 'Intro line.\n\n## Procedures\n\n' + Array.from({ length: 45 }, (_, i) => `- step ${i}: check the deploy log for warnings`).join('\n') + '\n';
    const uri = h.openFile('long.instructions.md', long, 'markdown');
    const ds = await h.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'toon/long-section'));
    const d = ds.find((x) => x.code === 'toon/long-section')!;
    assert.deepEqual(d.range, { start: { line: 2, character: 0 }, end: { line: 2, character: '## Procedures'.length } });
    h.close(uri);
  });

  test('the status notification names the document: analysing, then the plan; a JSON file gets none', async () => {
    const uri = h.openFile('status.md', AGENTS, 'markdown');
    const status = await h.waitFor(
      () => (h.statusNotifications as { uri?: string; text: string }[]).find((p) => p.uri === uri && /TOON saves/.test(p.text)),
      15000,
      () => JSON.stringify(h.statusNotifications),
    );
    assert.match(status.text, /^\$\(symbol-keyword\) TOON saves [\d,]+ tokens? · \d+\.\d% fewer chars$/);
    const mine = (h.statusNotifications as { uri?: string; text: string }[]).filter((p) => p.uri === uri);
    assert.match(mine[0]!.text, /analysing/);
    const json = h.openFile('x.json', '{"a": 1}', 'json');
    await h.waitForDiagnostics(json);
    assert.ok(!(h.statusNotifications as { uri?: string }[]).some((p) => p.uri === json));
    h.close(uri);
    h.close(json);
  });

  test('no lens for empty or trivially small sections; the hover never shows a negative saving', async () => {
    const text = '\n# Empty\n\n## Tiny\n\nOk.\n\n## Real\n\nKeep functions small and names honest, always.\n';
    const uri = h.openFile('small.md', text, 'markdown');
    const ls = (await h.codeLenses(uri)) ?? [];
    const lines = ls.filter((l) => !/^TOON plan/.test(l.command?.title ?? '')).map((l) => l.range.start.line);
    assert.deepEqual(lines, [7], `only the section with a body gets a lens: ${titles(ls).join(' | ')}`);
    const hover = hoverText(await h.hover(uri, { line: 7, character: 4 }));
    assert.match(hover, /(saves|costs) [\d,]+ chars? \(\d+\.\d%\)/);
    assert.doesNotMatch(hover, /\| -\d|\(-\d|\(−/);
    h.close(uri);
  });

  test('converting a section whose verdict is not convert asks first, with its real cost', async () => {
    const asked = h.confirmRequests.length;
    const uri = h.openFile('ask.md', AGENTS, 'markdown');
    const plan = planDocument(AGENTS);
    const keep = plan.sections.find((s) => s.verdict?.verdict === 'keep_markdown' && s.slice.kind === 'section' && s.candidate && s.verdict.flags.valid)!;
    assert.ok(keep, 'a keep-markdown section');
    const outcome = (await h.executeCommand('toonlens.convertSection', [{ uri, position: positionAt(AGENTS, keep.slice.charStart) }])) as { applied: boolean };
    assert.equal(h.confirmRequests.length, asked + 1);
    const q = h.confirmRequests.at(-1) as { message: string; detail: string };
    assert.match(q.message, /keep markdown/);
    assert.match(q.detail, new RegExp(`TOON (saves|costs) ${Math.abs(keep.verdict!.token_estimates.savings)} tokens?`));
    assert.equal(outcome.applied, true, 'the harness confirms');
    h.close(uri);
  });
});

test('restricted mode: nothing is converted or reverted, and the action lenses say why', async () => {
  const h = await LspHarness.start({ initializationOptions: { trusted: false } });
  try {
    const uri = h.openFile('untrusted.md', AGENTS, 'markdown');
    const ls = (await h.codeLenses(uri)) ?? [];
    const actions = ls.filter((l) => /^Convert/.test(l.command?.title ?? ''));
    assert.ok(actions.length > 0);
    for (const a of actions) {
      assert.match(a.command!.title, /needs a trusted workspace$/);
      assert.equal(a.command!.command, 'workbench.trust.manage');
      assert.match(a.command!.tooltip ?? '', /Restricted mode/);
    }
    const s = planDocument(AGENTS).sections.find((x) => x.action === 'convert')!;
    const outcome = (await h.executeCommand('toonlens.convertSection', [{ uri, sectionStart: s.slice.charStart }])) as { applied: boolean; message: string };
    assert.equal(outcome.applied, false);
    assert.match(outcome.message, /restricted mode/);
    assert.equal(h.appliedEdits.length, 0);
  } finally {
    await h.shutdown();
  }
});

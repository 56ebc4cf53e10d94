// The markdown face over real LSP: savings lenses, verdict hovers, Convert / Revert / Convert all, and
// diagnostics (engine warnings, toon/fence-decode), against the bundled server.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decode } from '@toon-format/toon';
import type { Hover, MarkupContent, WorkspaceEdit } from 'vscode-languageserver-protocol';
import { LspHarness, REPO_ROOT, applyTextEdits, offsetAt, positionAt } from './harness';
import { planDocument } from '../../server/src/core/markdown/engine';
import { findToonFences } from '../../server/src/core/toon/fences';

const AGENTS = readFileSync(join(REPO_ROOT, 'test', 'e2e', 'workspace', 'AGENTS.md'), 'utf8');
const headingLines = (text: string) => text.split('\n').map((l, i) => [l, i] as const).filter(([l]) => /^#{1,6} /.test(l)).map(([, i]) => i);
const hoverText = (h: Hover | null) => (h ? (h.contents as MarkupContent).value : '');

function applyWorkspaceEdit(text: string, uri: string, edit: WorkspaceEdit): string {
  return applyTextEdits(text, LspHarness.editsFor(edit, uri));
}

describe('markdown over LSP', () => {
  let h: LspHarness;
  before(async () => {
    h = await LspHarness.start();
  });
  after(async () => {
    await h.shutdown();
  });

  test('codeLens.sections "all": a verdict lens per section worth one, an action lens per convert verdict, plus the plan lens', async () => {
    await h.setSettings({ codeLens: { enabled: true, sections: 'all' } });
    const uri = h.openFile('AGENTS.md', AGENTS, 'markdown');
    const lenses = (await h.codeLenses(uri)) ?? [];
    const plan = planDocument(AGENTS);
    const measured = plan.sections.filter((s) => s.verdict);
    const verdictLenses = lenses.filter((l) => l.command?.command === 'toonlens.showVerdict' && l.range.start.line > 0);
    assert.equal(verdictLenses.length, measured.length - 1, 'every section but the plan line has its verdict lens');
    assert.deepEqual(verdictLenses.map((l) => l.range.start.line), headingLines(AGENTS).slice(1));
    for (const l of lenses) assert.ok(l.command?.tooltip, `a tooltip on ${l.command?.title}`);
    for (const s of measured.slice(1)) {
      const line = positionAt(AGENTS, s.slice.charStart).line;
      const lens = verdictLenses.find((l) => l.range.start.line === line)!;
      const v = s.verdict!;
      const tok = v.token_estimates.savings;
      assert.match(lens.command!.title, new RegExp(`^TOON ${tok > 0 ? 'saves' : tok < 0 ? 'costs' : 'saves no'} `));
      assert.match(lens.command!.title, new RegExp(`\\(${Math.abs(v.measured_chars.savings_pct).toFixed(1)}% ${v.measured_chars.savings_pct > 0 ? 'fewer' : 'more'}\\)`));
      assert.doesNotMatch(lens.command!.title, /[−+]\d/, 'no signed percentages: saves/costs say the direction');
      const action = lenses.filter((l) => l.range.start.line === line && l.command?.command === 'toonlens.convertSection');
      assert.equal(action.length, s.action === 'convert' ? 1 : 0, `one Convert action lens exactly when the verdict converts (${headingLines(AGENTS)})`);
      if (action[0]) assert.equal(action[0].command!.title, 'Convert to TOON');
      if (v.verdict === 'keep_markdown') assert.match(lens.command!.title, / · keep markdown$/);
    }
    const top = lenses.filter((l) => l.range.start.line === 0 && /^TOON plan/.test(l.command?.title ?? ''));
    assert.equal(top.length, 1);
    const converts = measured.filter((s) => s.action === 'convert').length;
    assert.match(top[0]!.command!.title, new RegExp(`${converts} of ${measured.length} sections convert`));
    assert.equal(lenses.some((l) => l.command?.title === 'Convert all recommended sections'), plan.verdict.context_plan!.safe_to_auto_apply);
    await h.setSettings({});
    h.close(uri);
  });

  test('by default only sections where converting helps get lenses; every heading keeps its hover; the plan lens opens the whole plan', async () => {
    const uri = h.openFile('default-lenses.md', AGENTS, 'markdown');
    const lenses = (await h.codeLenses(uri)) ?? [];
    const plan = planDocument(AGENTS);
    const converting = plan.sections.filter((s) => s.verdict && s.action === 'convert');
    const kept = plan.sections.filter((s) => s.verdict && s.action !== 'convert' && s.slice.kind === 'section');
    assert.ok(converting.length > 0 && kept.length > 0, 'the fixture has both kinds of section');
    const sectionLines = new Set(lenses.filter((l) => l.range.start.line > 0).map((l) => l.range.start.line));
    assert.deepEqual([...sectionLines].sort((a, b) => a - b), converting.map((s) => positionAt(AGENTS, s.slice.charStart).line).filter((l) => l > 0));
    for (const s of kept) {
      const line = positionAt(AGENTS, s.slice.charStart).line;
      assert.match(hoverText(await h.hover(uri, { line, character: 3 })), /verdict `/, `a hover on the lens-less heading at line ${line}`);
    }
    const top = lenses.find((l) => l.range.start.line === 0 && /^TOON plan:/.test(l.command?.title ?? ''))!;
    assert.equal(top.command!.command, 'toonlens.showPlan');
    assert.doesNotMatch(top.command!.title, /chars/, 'the plan lens is short: the characters are in its tooltip');
    assert.match(top.command!.tooltip!, /chars.*Click to open the whole plan/);
    const summary = (await h.executeCommand(top.command!.command, top.command!.arguments)) as { title: string; markdown: string };
    assert.equal(summary.title, 'TOON plan: default-lenses.md');
    for (const s of plan.sections.filter((x) => x.verdict)) assert.ok(summary.markdown.includes(`| ${s.slice.lineStart} |`), `a row for line ${s.slice.lineStart}`);
    assert.match(summary.markdown, new RegExp(`${converting.length} of ${plan.sections.filter((x) => x.verdict).length} sections convert`));
    h.close(uri);
  });

  test('after Convert all the plan lens and the status bar say the document is converted, not "keep markdown"', async () => {
    const plan = planDocument(AGENTS);
    const uri = h.openFile('converted-status.md', plan.hybrid, 'markdown');
    const lenses = (await h.codeLenses(uri)) ?? [];
    const top = lenses.find((l) => l.range.start.line === 0 && /^TOON plan:/.test(l.command?.title ?? ''))!;
    const fences = findToonFences(plan.hybrid).length;
    assert.equal(top.command!.title, `TOON plan: ${fences} sections are TOON · nothing left to convert`);
    const status = await h.waitForStatus(uri, (p) => /TOON/.test(p.text));
    assert.equal(status.text, '$(symbol-keyword) TOON: converted');
    h.close(uri);
  });

  test('minSavingsPct hides section lenses below the threshold (display only)', async () => {
    await h.setSettings({ codeLens: { enabled: true, minSavingsPct: 15 } });
    const uri = h.openFile('threshold.md', AGENTS, 'markdown');
    const lenses = (await h.codeLenses(uri)) ?? [];
    const kept = planDocument(AGENTS).sections.filter((s) => s.verdict && s.verdict.measured_chars.savings_pct >= 15).length;
    assert.equal(lenses.filter((l) => l.command?.command === 'toonlens.showVerdict' && !/^TOON plan/.test(l.command?.title ?? '')).length, kept);
    await h.setSettings({});
    h.close(uri);
  });

  // What a heading's hover says is tested in process: test/unit/feature-markdown-hover.test.ts.
  test('Convert section applies one versioned edit whose result decodes and whose undo is the original', async () => {
    const uri = h.openFile('convert.md', AGENTS, 'markdown');
    const lenses = (await h.codeLenses(uri)) ?? [];
    const lens = lenses.find((l) => l.command?.command === 'toonlens.convertSection')!;
    assert.ok(lens, 'a convert lens');
    const before = h.appliedEdits.length;
    const outcome = (await h.executeCommand(lens.command!.command, lens.command!.arguments)) as { applied: boolean };
    assert.equal(outcome.applied, true);
    assert.equal(h.appliedEdits.length, before + 1);
    const edit = h.appliedEdits.at(-1)!.edit;
    const edits = LspHarness.editsFor(edit, uri);
    assert.equal(edits.length, 1);
    const converted = applyWorkspaceEdit(AGENTS, uri, edit);
    const fences = findToonFences(converted);
    assert.equal(fences.length, 1);
    assert.doesNotThrow(() => decode(fences[0]!.content, { strict: true }));
    // Undo: the inverse edit (the converted span replaced by the text it replaced) restores the bytes.
    const e = edits[0]!;
    const from = offsetAt(AGENTS, e.range.start);
    const to = offsetAt(AGENTS, e.range.end);
    const undone = converted.slice(0, from) + AGENTS.slice(from, to) + converted.slice(from + e.newText.length);
    assert.equal(undone, AGENTS);
    h.close(uri);
  });

  test('a stale version is refused, nothing applied', async () => {
    const uri = h.openFile('stale.md', AGENTS, 'markdown');
    const lens = ((await h.codeLenses(uri)) ?? []).find((l) => l.command?.command === 'toonlens.convertSection')!;
    h.change(uri, AGENTS + '\nmore\n');
    const before = h.appliedEdits.length;
    const outcome = (await h.executeCommand(lens.command!.command, lens.command!.arguments)) as { applied: boolean; message: string };
    assert.equal(outcome.applied, false);
    assert.match(outcome.message, /changed/);
    assert.equal(h.appliedEdits.length, before);
    h.close(uri);
  });

  test('Convert all applies the plan hybrid exactly', async () => {
    const uri = h.openFile('all.md', AGENTS, 'markdown');
    const plan = planDocument(AGENTS);
    const outcome = (await h.executeCommand('toonlens.convertAll', [{ uri, version: h.version(uri) }])) as { applied: boolean };
    assert.equal(outcome.applied, plan.verdict.context_plan!.recommend_hybrid);
    if (outcome.applied) assert.equal(applyWorkspaceEdit(AGENTS, uri, h.appliedEdits.at(-1)!.edit), plan.hybrid);
    h.close(uri);
  });

  test('Revert to Markdown turns a converted section back into markdown with the same model', async () => {
    const plan = planDocument(AGENTS);
    const uri = h.openFile('revert.md', plan.hybrid, 'markdown');
    const fence = findToonFences(plan.hybrid)[0]!;
    const pos = positionAt(plan.hybrid, fence.contentStart);
    const actions = (await h.codeActions(uri, { start: pos, end: pos }, { only: ['refactor.rewrite'] })) ?? [];
    const revert = actions.find((a) => a.title === 'Revert to Markdown') as { edit?: WorkspaceEdit } | undefined;
    assert.ok(revert?.edit, `a revert action: ${actions.map((a) => a.title).join(', ')}`);
    const reverted = applyWorkspaceEdit(plan.hybrid, uri, revert.edit!);
    assert.equal(findToonFences(reverted).length, findToonFences(plan.hybrid).length - 1);
    // The reverted section measures as markdown again, with the same model: its candidate is the fence's content.
    const again = planDocument(reverted);
    assert.ok(again.sections.some((s) => s.candidate === fence.content.replace(/\n$/, '')), 'the reverted section re-encodes to the same TOON');
    h.close(uri);
  });

  test('a ```toon fence that does not decode gets toon/fence-decode on the failing line', async () => {
    const text = '# Data\n\n```toon\nitems[2]{a,b}:\n  1,2\n  3\n```\n';
    const uri = h.openFile('fence.md', text, 'markdown');
    const ds = await h.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'toon/fence-decode'));
    const d = ds.find((x) => x.code === 'toon/fence-decode')!;
    assert.equal(d.range.start.line, 5);
    assert.equal(d.severity, 1);
    h.close(uri);
  });

  test('engine warnings appear where they point', async () => {
    const text = '# Rules\n\n- You must run the tests before every commit.\n- Keep functions small.\n- You must run the tests before every commit.\n';
    const uri = h.openFile('dup.instructions.md', text, 'markdown');
    const ds = await h.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'toon/duplicate-rule'));
    const d = ds.find((x) => x.code === 'toon/duplicate-rule')!;
    assert.equal(d.range.start.line, 4);
    assert.equal(d.severity, 2);
    h.close(uri);
  });
});

test('the server declares the refactor.rewrite code action kind (clients filter providers by kind)', async () => {
  const h = await LspHarness.start();
  try {
    const provider = h.initializeResult?.capabilities.codeActionProvider;
    assert.ok(provider && typeof provider === 'object' && provider.codeActionKinds?.includes('refactor.rewrite'), JSON.stringify(provider));
  } finally {
    await h.shutdown();
  }
});

// 2,000 table sections: the plan recommends converting them all, and collecting their candidates takes many turns.
// Each test has a server of its own: 2,000 converted sections fill the in-memory originals store Revert reads.
const TABLES = Array.from({ length: 2000 }, (_, i) => `## Table ${i}\n\n| key | value | note |\n|---|---|---|\n${Array.from({ length: 6 }, (_, r) => `| k${i}_${r} | ${i * r} | n${r} |`).join('\n')}\n`).join('\n');

test('Convert all of a large document answers other requests while it runs, then applies the plan hybrid exactly', async () => {
  const h = await LspHarness.start();
  try {
    const uri = h.openFile('tables.md', TABLES, 'markdown');
    await h.codeLenses(uri); // the plan is ready
    const small = h.openFile('small-during-convert.md', '# Small\n\n- key: value\n', 'markdown');
    await h.hover(small, { line: 0, character: 3 });
    const before = h.appliedEdits.length;
    const outcome = h.executeCommand('toonlens.convertAll', [{ uri, version: h.version(uri) }], 60_000) as Promise<{ applied: boolean }>;
    const hover = await h.hover(small, { line: 0, character: 3 });
    assert.ok(hover, 'the hover is answered');
    assert.equal(h.appliedEdits.length, before, 'the hover was answered before Convert all sent its edit');
    assert.equal((await outcome).applied, true);
    assert.equal(applyWorkspaceEdit(TABLES, uri, h.appliedEdits.at(-1)!.edit), planDocument(TABLES).hybrid);
    h.close(uri);
    h.close(small);
  } finally {
    await h.shutdown();
  }
});

test('Convert all of a document edited while it runs converts nothing', async () => {
  const h = await LspHarness.start();
  try {
    const uri = h.openFile('tables-edited.md', TABLES, 'markdown');
    await h.codeLenses(uri);
    const before = h.appliedEdits.length;
    const outcome = h.executeCommand('toonlens.convertAll', [{ uri, version: h.version(uri) }], 60_000) as Promise<{ applied: boolean; message: string }>;
    h.change(uri, TABLES + '\nmore\n');
    const o = await outcome;
    assert.equal(o.applied, false);
    assert.match(o.message, /changed/);
    assert.equal(h.appliedEdits.length, before);
    h.close(uri);
  } finally {
    await h.shutdown();
  }
});

test('the lenses of a converted document measure its fences in turns: a hover asked after them is answered first', async () => {
  // 2,000 ```toon fences (the hybrid a Convert all writes), none measured yet: the lens request decodes, renders
  // and counts each one once (then remembers them with their slices), in time-sliced turns.
  const converted = planDocument(TABLES).hybrid;
  const h = await LspHarness.start();
  try {
    const small = h.openFile('small-beside-fences.md', '# Small\n\n- key: value\n', 'markdown');
    await h.hover(small, { line: 0, character: 3 });
    const uri = h.openFile('tables-converted.md', converted, 'markdown');
    await h.waitIdle(); // its plan and diagnostics are done; no lens was asked for yet
    const order: string[] = [];
    const lenses = h.codeLenses(uri).then((l) => {
      order.push('lenses');
      return l;
    });
    const hover = h.hover(small, { line: 0, character: 3 }).then((x) => {
      order.push('hover');
      return x;
    });
    const [l, x] = await Promise.all([lenses, hover]);
    assert.ok(x, 'the hover is answered');
    assert.deepEqual(order, ['hover', 'lenses'], 'the hover came back while the fences were measured');
    const fenceLenses = (l ?? []).filter((lens) => lens.command?.title.startsWith('TOON fence'));
    assert.equal(fenceLenses.length, 2000, 'one figures lens per fence');
    // The next request for the same version reads the remembered figures: the same lenses.
    assert.deepEqual(await h.codeLenses(uri), l);
    h.close(uri);
    h.close(small);
  } finally {
    await h.shutdown();
  }
});

test('after a Convert all of 4,000 sections, without a storage path, every fence still reverts exactly', async () => {
  // The session's memory keeps the originals of every converted section (it was capped at 2,000 records: the
  // first 2,000 fell back to canonical markdown).
  const text = TABLES + '\n' + TABLES.replace(/## Table (\d+)/g, '## More $1').replace(/\| k(\d+)_/g, '| m$1_');
  const h = await LspHarness.start();
  try {
    const uri = h.openFile('tables-2500.md', text, 'markdown');
    await h.codeLenses(uri);
    const o = (await h.executeCommand('toonlens.convertAll', [{ uri, version: h.version(uri) }], 60_000)) as { applied: boolean; message: string };
    assert.equal(o.applied, true);
    assert.match(o.message, /4000 sections/);
    h.change(uri, applyWorkspaceEdit(text, uri, h.appliedEdits.at(-1)!.edit));
    const reverts = ((await h.codeLenses(uri)) ?? []).filter((l) => l.command?.command === 'toonlens.revertSection');
    assert.equal(reverts.length, 4000);
    const canonical = reverts.filter((l) => /canonical/.test(l.command!.tooltip ?? ''));
    assert.equal(canonical.length, 0, `${canonical.length} fences would revert to canonical markdown, the first on line ${canonical[0]?.range.start.line}`);
    h.close(uri);
  } finally {
    await h.shutdown();
  }
});

test('the originals of a Convert all are all on disk when the server shuts down right after it (written in the background, flushed on shutdown)', async () => {
  const storage = mkdtempSync(join(tmpdir(), 'toonlens-storage-'));
  const h = await LspHarness.start({ initializationOptions: { storagePath: storage } });
  try {
    const uri = h.openFile('tables-kept.md', TABLES, 'markdown');
    await h.codeLenses(uri);
    const o = (await h.executeCommand('toonlens.convertAll', [{ uri, version: h.version(uri) }], 60_000)) as { applied: boolean };
    assert.equal(o.applied, true);
    assert.equal(await h.shutdown(), 0);
    const files = readdirSync(join(storage, 'revert-originals')).filter((f) => f.endsWith('.jsonl'));
    assert.equal(files.length, 1, 'one file for the workspace folder');
    const lines = readFileSync(join(storage, 'revert-originals', files[0]!), 'utf8').split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 1 + 2000, 'a header and one original per converted section');
  } finally {
    rmSync(storage, { recursive: true, force: true });
  }
});

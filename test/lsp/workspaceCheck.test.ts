// "ToonLens: Check Workspace" over LSP: unopened agent JSON and markdown files get their problems
// published, node_modules / .git / symlinks are skipped, progress is reported, and a cancel stops it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WorkDoneProgressCancelNotification } from 'vscode-languageserver-protocol/node';
import { LspHarness, REPO_ROOT } from './harness';

interface Outcome {
  checked: number;
  files: number;
  problems: number;
  filesWithProblems: number;
  cancelled: boolean;
  message: string;
}

const BAD_VERDICT = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'verdict', 'derived-fields-wrong.profile.json'), 'utf8');
/** A toon fence that declares two rows and has one: a strict decode fails (toon/fence-decode). */
const BAD_FENCE_MD = '# Notes\n\nSome text.\n\n```toon\nitems[2]: a\n```\n';

function workspace(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-wscheck-'));
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
  }
  return dir;
}

describe('Check Workspace', () => {
  test('publishes problems for unopened files, skips node_modules, .git and symlinks, reports progress', async () => {
    const dir = workspace({
      'out/bad.profile.json': BAD_VERDICT,
      'docs/AGENTS.md': BAD_FENCE_MD,
      'package.json': '{ "name": "demo" }',
      'node_modules/dep/bad.profile.json': BAD_VERDICT,
      '.git/bad.profile.json': BAD_VERDICT,
      'clean/ok.md': '# Fine\n\nNothing to report here.\n',
      'data/bad.toon': 'items[2]: a\n',
      '.cursor/rules/style.mdc': '---\nalwaysApply: true\n---\n' + BAD_FENCE_MD,
    });
    symlinkSync(join(dir, 'out', 'bad.profile.json'), join(dir, 'link.profile.json'));
    const h = await LspHarness.start({ workspaceDir: dir });
    try {
      const outcome = (await h.executeCommand('toonlens.checkWorkspace', [], 60_000)) as Outcome;
      assert.equal(outcome.cancelled, false);
      const uri = (rel: string) => pathToFileURL(join(dir, rel)).toString();
      const verdict = await h.waitForDiagnostics(uri('out/bad.profile.json'), (d) => d.length > 0);
      assert.ok(verdict.some((d) => d.severity === 1), 'an error on the defective verdict');
      const md = await h.waitForDiagnostics(uri('docs/AGENTS.md'), (d) => d.length > 0);
      assert.ok(md.some((d) => d.code === 'toon/fence-decode'), JSON.stringify(md.map((d) => d.code)));
      const toon = await h.waitForDiagnostics(uri('data/bad.toon'), (d) => d.length > 0);
      assert.ok(toon.some((d) => d.code === 'toon/fence-decode'), JSON.stringify(toon.map((d) => d.code)));
      const mdc = await h.waitForDiagnostics(uri('.cursor/rules/style.mdc'), (d) => d.length > 0);
      assert.ok(mdc.some((d) => d.code === 'toon/fence-decode'), JSON.stringify(mdc.map((d) => d.code)));
      for (const skipped of ['node_modules/dep/bad.profile.json', '.git/bad.profile.json', 'link.profile.json']) {
        assert.equal(h.published.get(uri(skipped)), undefined, `${skipped} is not checked`);
      }
      assert.equal(h.published.get(uri('package.json')), undefined, 'unrelated JSON: nothing published');
      assert.equal(outcome.files, 6, 'out/bad.profile.json, docs/AGENTS.md, package.json, clean/ok.md, data/bad.toon, .cursor/rules/style.mdc');
      assert.equal(outcome.checked, 6);
      assert.equal(outcome.filesWithProblems, 4);
      assert.match(outcome.message, /^Checked 6 files: \d+ problems? in 4 files/);

      // Progress: one token for the check, begin (cancellable) → report(s) → end. (A markdown analysis that
      // runs over a second reports its own, by design: on a loaded machine the first one, which loads the
      // tokenizer, can.)
      const checkTokens = h.progress.filter((p) => p.value.kind === 'begin' && p.value.title === 'ToonLens: Check Workspace').map((p) => p.token);
      assert.equal(checkTokens.length, 1);
      const kinds = h.progress.filter((p) => p.token === checkTokens[0]).map((p) => p.value.kind);
      assert.equal(kinds[0], 'begin');
      assert.ok(kinds.includes('report'));
      assert.equal(kinds.at(-1), 'end');
      assert.equal(h.progress.find((p) => p.value.kind === 'begin')!.value.cancellable, true);

      // Opened, the file gets its live diagnostics; closed again, the disk's problems come back (not an empty list).
      const opened = h.open('docs/AGENTS.md', BAD_FENCE_MD + '\n```toon\nok: 1\n```\n');
      await h.waitForDiagnostics(opened, (_d, v) => v === 1);
      h.close(opened);
      await h.waitForDiagnostics(opened, (d) => d.some((x) => x.code === 'toon/fence-decode'));

      // Fixed on disk: the watched-file event clears it.
      writeFileSync(join(dir, 'docs', 'AGENTS.md'), '# Notes\n\nSome text.\n');
      await h.fileEvents([{ uri: uri('docs/AGENTS.md'), type: 2 }]);
      await h.waitForDiagnostics(uri('docs/AGENTS.md'), (d) => d.length === 0);
    } finally {
      await h.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a cancel from the progress UI stops the run, during the walk or between files', async () => {
    // The cancel is sent as soon as the run's progress begins, before the walk of the workspace ends: the run
    // cannot have checked every file by then, however busy the machine (a cancel sent after a later report
    // raced the run and could arrive after the last file). Whether the walk or the loop over files sees it
    // first, the run stops, says so, and ends its progress.
    const FILES = 2000;
    const files: Record<string, string> = {};
    const sections = Array.from({ length: 40 }, (_, i) => `## Section ${i}\n\n| key | value |\n|---|---|\n| a${i} | ${i} |\n| b${i} | ${i * 2} |\n\n- always run the tests\n- never push on red\n`).join('\n');
    for (let i = 0; i < FILES; i++) files[`docs/f${String(i).padStart(4, '0')}.md`] = `# File ${i}\n\n${sections}`;
    const dir = workspace(files);
    const h = await LspHarness.start({ workspaceDir: dir });
    try {
      const pending = h.executeCommand('toonlens.checkWorkspace', [], 240_000) as Promise<Outcome>;
      const token = await h.waitFor(
        () => h.progress.find((p) => p.value.kind === 'begin' && p.value.title === 'ToonLens: Check Workspace')?.token,
        180_000,
        () => 'the progress begin',
      );
      await h.connection.sendNotification(WorkDoneProgressCancelNotification.type, { token });
      const outcome = await pending;
      assert.equal(outcome.cancelled, true, outcome.message);
      assert.ok(outcome.files <= FILES);
      assert.ok(outcome.checked < FILES, `stopped early: ${outcome.checked} of ${FILES}`);
      assert.match(outcome.message, new RegExp(`cancelled after ${outcome.checked} of ${outcome.files} files`));
      await h.waitFor(() => (h.progress.some((p) => p.token === token && p.value.kind === 'end') ? true : undefined), 5000, () => 'the progress end');
    } finally {
      await h.shutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

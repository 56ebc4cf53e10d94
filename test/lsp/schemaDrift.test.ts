// A JSON Schema under git gets schema-drift/* diagnostics against its HEAD version while it is edited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspHarness } from './harness';
import { SPECS } from '../paths';

/** A git repository in a temp folder holding the previous version of the output schema. */
function repoWithPrevious(): { dir: string; previous: string; next: string } {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-drift-'));
  const previous = readFileSync(join(SPECS, 'review_recipe_build.output.change2.previous.schema.json'), 'utf8');
  const next = readFileSync(join(SPECS, 'review_recipe_build.output.change2.new.schema.json'), 'utf8');
  writeFileSync(join(dir, 'review_recipe_build.output.schema.json'), previous);
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'baseline');
  return { dir, previous, next };
}

test('an untrusted workspace never runs git: no HEAD baseline, so no drift; trust brings it', async () => {
  const { dir, next } = repoWithPrevious();
  const h = await LspHarness.start({ workspaceDir: dir, initializationOptions: { trusted: false } });
  try {
    const uri = h.open('review_recipe_build.output.schema.json', next, 'json');
    await h.waitForDiagnostics(uri);
    // A second version is checked after any git read the first could have started had finished.
    const v2 = h.change(uri, next + '\n');
    const ds = await h.waitForDiagnostics(uri, (_d, version) => version === v2);
    assert.deepEqual(ds.filter((d) => String(d.code).startsWith('schema-drift/')), []);
    h.connection.sendNotification('toonlens/trustGranted');
    const after = await h.waitForDiagnostics(uri, (d) => d.some((x) => x.code === 'schema-drift/breaking'));
    assert.ok(after.length > 0);
  } finally {
    await h.shutdown();
  }
});

test('an output schema edited against its git HEAD shows breaking and additive drift', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-drift-'));
  const previous = readFileSync(join(SPECS, 'review_recipe_build.output.change2.previous.schema.json'), 'utf8');
  const next = readFileSync(join(SPECS, 'review_recipe_build.output.change2.new.schema.json'), 'utf8');
  const file = join(dir, 'review_recipe_build.output.schema.json');
  writeFileSync(file, previous);
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
  git('init', '-q');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'add', '.');
  git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'baseline');
  const h = await LspHarness.start({ workspaceDir: dir });
  try {
    const uri = h.open('review_recipe_build.output.schema.json', previous, 'json');
    await h.waitForDiagnostics(uri, (d) => d.length === 0);
    h.change(uri, next);
    const ds = await h.waitForDiagnostics(uri, (d) => d.some((x) => String(x.code).startsWith('schema-drift/')));
    const breaking = ds.filter((d) => d.code === 'schema-drift/breaking');
    assert.ok(breaking.length >= 1, `breaking drift: ${JSON.stringify(ds.map((d) => d.message))}`);
    assert.ok(breaking.every((d) => d.severity === 2));
    // Each diagnostic sits on a line of the new text that exists.
    const lines = next.split('\n').length;
    assert.ok(ds.every((d) => d.range.start.line < lines));
    h.change(uri, previous);
    await h.waitForDiagnostics(uri, (d) => d.length === 0);
  } finally {
    await h.shutdown();
  }
});

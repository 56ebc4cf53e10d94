// A JSON Schema under git gets schema-drift/* diagnostics against its HEAD version while it is edited.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspHarness } from './harness';
import { SPECS } from '../paths';



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

// A second, independent LSP client: headless Neovim starts dist/server.js --stdio, opens a defective
// report and a markdown file, and we assert the diagnostics and code lenses it received.
// Needs `nvim` (Debian's neovim; test/e2e/setup.sh installs it) and a built dist/server.js.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('Neovim receives ToonLens diagnostics and code lenses over plain LSP', (t) => {
  const ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toonlens-nvim-')));
  t.after(() => fs.rmSync(ws, { recursive: true, force: true }));
  fs.cpSync(path.join(repo, 'test', 'e2e', 'workspace'), ws, { recursive: true });
  const files = [path.join(ws, 'docs', 'hygiene-report.json'), path.join(ws, 'AGENTS.md')];
  const r = spawnSync('nvim', ['--headless', '--clean', '-n', '-c', `luafile ${path.join(repo, 'test', 'nvim', 'client.lua')}`], {
    encoding: 'utf8', timeout: 90000,
    env: { ...process.env, TOONLENS_SERVER: path.join(repo, 'dist', 'server.js'), TOONLENS_ROOT: ws, TOONLENS_FILES: files.join('\n'), XDG_STATE_HOME: ws, XDG_DATA_HOME: ws },
  });
  assert.equal(r.error, undefined, `nvim could not run: ${r.error}`);
  const lines = r.stdout.split('\n').filter((l) => l.startsWith('{'));
  assert.equal(lines.length, 2, `one result per file; nvim said:\n${r.stdout}\n${r.stderr}`);
  const [report, markdown] = lines.map((l) => JSON.parse(l));

  const codes = report.diagnostics.map((d) => d.code);
  assert.ok(codes.includes('report/safety-tier'), `report diagnostics: ${JSON.stringify(codes)}`);
  const tier = report.diagnostics.find((d) => d.code === 'report/safety-tier');
  assert.equal(tier.source, 'toonlens');
  const text = fs.readFileSync(files[0], 'utf8').split('\n');
  assert.ok(text[tier.range.start.line].includes('"safety_tier"'), 'the diagnostic sits on the safety_tier line');

  const titles = markdown.codeLenses.map((l) => l.command?.title ?? '');
  // By default a verdict lens stands only above sections where converting helps, and the plan lens on line 1.
  assert.ok(markdown.codeLenses.some((l) => l.command?.command === 'toonlens.showPlan' && l.range.start.line === 0), `a plan lens: ${JSON.stringify(titles)}`);
  assert.ok(markdown.codeLenses.some((l) => l.command?.command === 'toonlens.showVerdict' && / · convert$/.test(l.command.title)), `a convert verdict lens: ${JSON.stringify(titles)}`);
  assert.ok(titles.some((t) => /^TOON (saves|costs) [\d,]+ tokens? · /.test(t)), `a savings lens: ${JSON.stringify(titles)}`);
  for (const l of markdown.codeLenses) assert.ok(l.command?.tooltip, `a tooltip on ${l.command?.title}`);
});

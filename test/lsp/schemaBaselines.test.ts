// toonlens.schemaBaselines never reads a file outside the workspace (dist/server.js over stdio): an
// absolute path, a `..` path and a symlinked baseline pointing outside quote nothing of it in any
// diagnostic, and no configured baseline is read at all in an untrusted workspace.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LspHarness } from './harness';

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const schema = (props: string[]) => JSON.stringify({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: Object.fromEntries(props.map((p) => [p, { type: 'string' }])) }, null, 2);

/** outside/secret.schema.json (holds SECRET_TOKEN_123) beside ws/, which has a symlink to it and an honest baseline. */
function layout() {
  const top = realpathSync(mkdtempSync(join(tmpdir(), 'toonlens-baselines-')));
  dirs.push(top);
  const ws = join(top, 'ws');
  mkdirSync(join(top, 'outside'), { recursive: true });
  mkdirSync(join(ws, 'baselines'), { recursive: true });
  writeFileSync(join(top, 'outside', 'secret.schema.json'), schema(['name', 'SECRET_TOKEN_123']));
  symlinkSync(join(top, 'outside', 'secret.schema.json'), join(ws, 'baselines', 'linked.schema.json'));
  symlinkSync(join(top, 'outside'), join(ws, 'outdir'));
  writeFileSync(join(ws, 'baselines', 'honest.schema.json'), schema(['name', 'HONEST_PROP']));
  return { top, ws };
}

describe('toonlens.schemaBaselines stays inside the workspace', () => {
  test('absolute, .. and symlinked baselines outside: no SECRET_TOKEN_123 anywhere; an inside baseline still works', async () => {
    const { top, ws } = layout();
    const baselines = {
      'abs.json': join(top, 'outside', 'secret.schema.json'),
      'dotdot.json': '../outside/secret.schema.json',
      'linked.json': 'baselines/linked.schema.json',
      'linkdir.json': 'outdir/secret.schema.json',
      'honest.json': 'baselines/honest.schema.json',
    };
    const h = await LspHarness.start({ workspaceDir: ws, settings: { schemaBaselines: baselines } });
    try {
      const texts: string[] = [];
      for (const name of ['abs.json', 'dotdot.json', 'linked.json', 'linkdir.json']) {
        const uri = h.open(name, schema(['name']), 'json');
        const ds = await h.waitForDiagnostics(uri);
        texts.push(JSON.stringify(ds));
      }
      // The positive control: the same shape against a baseline inside the workspace reports the removed property.
      const honest = h.open('honest.json', schema(['name']), 'json');
      const hd = await h.waitForDiagnostics(honest, (d) => d.some((x) => x.code === 'schema-drift/breaking'));
      assert.match(JSON.stringify(hd), /HONEST_PROP/);
      await h.waitIdle();
      const all = JSON.stringify([...h.published.values()]) + texts.join('\n') + JSON.stringify(h.logs) + h.stderr;
      assert.doesNotMatch(all, /SECRET_TOKEN_123/);
      assert.match(JSON.stringify(h.logs), /outside the workspace folder; not read/);
      assert.match(JSON.stringify(h.logs), /resolves outside the workspace folder through a symlink; not read/);
    } finally {
      await h.shutdown();
    }
  });

  test('untrusted workspace: not even a baseline inside the workspace is read', async () => {
    const { ws } = layout();
    const h = await LspHarness.start({ workspaceDir: ws, settings: { schemaBaselines: { 'honest.json': 'baselines/honest.schema.json', 'linked.json': 'baselines/linked.schema.json' } }, initializationOptions: { trusted: false } });
    try {
      for (const name of ['honest.json', 'linked.json']) {
        const uri = h.open(name, schema(['name']), 'json');
        await h.waitForDiagnostics(uri);
      }
      await h.waitIdle();
      const published = JSON.stringify([...h.published.values()]);
      assert.doesNotMatch(published, /HONEST_PROP|SECRET_TOKEN_123|schema-drift/);
    } finally {
      await h.shutdown();
    }
  });
});

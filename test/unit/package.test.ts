// `npm run package` (scripts/release.mjs --vsix) produces a VSIX that carries the client, the server, the schemas and
// the grammars, nothing else, and a README whose relative links point into the repository.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { inflateRawSync } from 'node:zlib';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** The entries of a zip file (name → bytes), read from its central directory. */
function zipEntries(buf: Buffer): Map<string, Buffer> {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, 'a zip end-of-central-directory record');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50);
    const method = buf.readUInt16LE(p + 10);
    const size = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + size);
    entries.set(name, method === 8 ? inflateRawSync(raw) : raw);
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

test('the VSIX holds the client, server, schemas and syntaxes, nothing else, and no dead relative link', { timeout: 120000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'toonlens-vsix-'));
  const r = spawnSync(process.execPath, [join(repo, 'scripts', 'release.mjs'), '--vsix', '--no-build', '--out', dir], { cwd: repo, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /WARNING/, r.stderr);
  const { version } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { version: string };
  const entries = zipEntries(readFileSync(join(dir, `toonlens-${version}.vsix`)));
  const names = [...entries.keys()];
  for (const f of ['extension/package.json', 'extension/dist/client.js', 'extension/dist/server.js', 'extension/dist/jsonWorker.js', 'extension/dist/tokenizer-o200k_base.js', 'extension/dist/tokenizer-cl100k_base.js', 'extension/dist/tokenizer-o200k_base.json', 'extension/dist/tokenizer-cl100k_base.json', 'extension/schemas/verdict.v1.json', 'extension/schemas/report.v1.json', 'extension/schemas/critique-report.v1.json', 'extension/schemas/recipe-input.v1.json', 'extension/schemas/recipe-output.v1.json', 'extension/syntaxes/toon.tmLanguage.json', 'extension/syntaxes/toon-markdown-injection.tmLanguage.json', 'extension/syntaxes/toon.language-configuration.json']) {
    assert.ok(names.includes(f), `${f} in the VSIX`);
  }
  assert.ok(!names.some((n) => /\/(test|\.e2e|node_modules|bench|server|client|docs|bin)\//.test(n) || /dist\/(cli|lib)\.js|\.map$|\.mjs$/.test(n)), `only what the extension runs: ${names.join(', ')}`);
  const manifest = JSON.parse(entries.get('extension/package.json')!.toString('utf8')) as Record<string, unknown>;
  assert.equal(manifest.main, './dist/client.js');
  for (const k of ['scripts', 'devDependencies', 'dependencies', 'bin']) assert.equal(manifest[k], undefined, `no ${k} in the VSIX manifest`);
  const readme = entries.get('extension/readme.md')!.toString('utf8');
  const relative = [...readme.matchAll(/\]\((?!https?:|#|mailto:)([^)]+)\)/g)].map((m) => m[1]);
  assert.deepEqual(relative, [], 'every README link works in the Extensions view');
});

// `npm run package` (vsce) produces a VSIX that carries the client, the server, the schemas and the grammars.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = fileURLToPath(new URL('../../', import.meta.url));

/** Entry names of a zip file, read from its central directory. */
function zipEntries(buf: Buffer): string[] {
  let eocd = buf.length - 22;
  while (eocd >= 0 && buf.readUInt32LE(eocd) !== 0x06054b50) eocd--;
  assert.ok(eocd >= 0, 'a zip end-of-central-directory record');
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(buf.readUInt32LE(p), 0x02014b50);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    names.push(buf.toString('utf8', p + 46, p + 46 + nameLen));
    p += 46 + nameLen + extraLen + commentLen;
  }
  return names;
}

test('the VSIX holds the client, server, schemas and syntaxes, and nothing from tests or .e2e', { timeout: 120000 }, () => {
  const out = join(mkdtempSync(join(tmpdir(), 'toonlens-vsix-')), 'toonlens.vsix');
  execFileSync(process.execPath, [join(repo, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--no-rewrite-relative-links', '--out', out], { cwd: repo, stdio: 'pipe' });
  const names = zipEntries(readFileSync(out));
  for (const f of ['extension/package.json', 'extension/dist/client.js', 'extension/dist/server.js', 'extension/dist/jsonWorker.js', 'extension/dist/tokenizer-o200k_base.js', 'extension/dist/tokenizer-cl100k_base.js', 'extension/dist/tokenizer-o200k_base.json', 'extension/dist/tokenizer-cl100k_base.json', 'extension/schemas/verdict.v1.json', 'extension/schemas/report.v1.json', 'extension/schemas/critique-report.v1.json', 'extension/schemas/recipe-input.v1.json', 'extension/schemas/recipe-output.v1.json', 'extension/syntaxes/toon.tmLanguage.json', 'extension/syntaxes/toon-markdown-injection.tmLanguage.json', 'extension/syntaxes/toon.language-configuration.json']) {
    assert.ok(names.includes(f), `${f} in the VSIX`);
  }
  assert.ok(!names.some((n) => /\/(test|\.e2e|node_modules|bench)\//.test(n)), 'no tests, e2e installs, modules or benches');
});

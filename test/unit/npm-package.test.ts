/**
 * The npm package installs as the README says and runs: `npm run release` (scripts/release.mjs) on a copy of the
 * sources, `npm install -g ./release/toonlens-<v>.tgz --prefix <tmp> --offline` (the package has no runtime
 * dependency, so no registry is asked), then the installed binaries: `toonlens` (--version, --help, every command's
 * --help — the list is the CLI's own — and every command on real files: check, check --fix, profile, convert, plan,
 * validate, decode, apply, schema-diff, context, and mcp answering initialize and a tool call over stdio),
 * `toonlens-language-server` (--help, --version, an LSP initialize over stdio), and the library
 * (`require('toonlens')`, and its declarations type-check a strict consumer).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';
import { COMMANDS } from '../../server/src/cli/main';

const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** What `npm run release` needs of the repository (its build reads the sources). */
const SOURCES = ['package.json', 'esbuild.mjs', 'tsconfig.json', 'tsconfig.lib.json', 'bin', 'server', 'client', 'schemas', 'syntaxes', 'images', 'docs', 'scripts', 'README.md', 'LICENSE', 'CHANGELOG.md'];

test('npm run release → npm install -g the tarball offline → every command, the server and the library run', { timeout: 600_000 }, async () => {
  const work = mkdtempSync(join(tmpdir(), 'toonlens-npm-'));
  try {
    // A copy of the sources, so the prepack build writes its own dist/ (the repository's is in use by other tests).
    const src = join(work, 'src');
    for (const f of SOURCES) cpSync(join(REPO_ROOT, f), join(src, f), { recursive: true });
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(src, 'node_modules'), 'dir');
    const env = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
    const release = spawnSync(process.execPath, ['scripts/release.mjs', '--tarball'], { cwd: src, env, encoding: 'utf8' });
    assert.equal(release.status, 0, release.stderr);
    const { version } = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const tgz = join(src, 'release', `toonlens-${version}.tgz`);
    assert.equal(release.stdout.trim(), tgz);
    assert.deepEqual(readdirSync(src).filter((n) => n.endsWith('.tgz')), [], 'no tarball left in the root');
    const files = execFileSync('tar', ['tzf', tgz], { encoding: 'utf8' }).trim().split('\n').map((f) => f.replace(/^package\//, '')).sort();
    for (const f of ['bin/toonlens.js', 'bin/toonlens-language-server.js', 'dist/cli.js', 'dist/server.js', 'dist/jsonWorker.js', 'dist/lib.js', 'dist/lib.d.ts', 'dist/tokenizer-o200k_base.js', 'dist/tokenizer-cl100k_base.js', 'dist/tokenizer-o200k_base.json', 'dist/tokenizer-cl100k_base.json', 'package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'schemas/toonlens-config.v1.json', 'docs/cli.md', 'docs/install.md']) assert.ok(files.includes(f), `${f} in the tarball`);
    assert.ok(!files.some((f) => /^(server|client|test|bench|images|syntaxes|docs\/images)\//.test(f) || f.endsWith('.map')), `no sources, client, tests, screenshots or maps: ${files.join(', ')}`);
    // Every doc the README links is in the package.
    for (const m of readFileSync(join(REPO_ROOT, 'README.md'), 'utf8').matchAll(/\]\((docs\/[^)#]+\.md)/g)) assert.ok(files.includes(m[1]!), `${m[1]} (linked from the README) in the tarball`);
    const manifest = JSON.parse(readFileSync(join(src, 'package.json'), 'utf8')) as { private?: boolean; dependencies?: object };
    assert.equal(manifest.private, undefined, 'publishable');
    assert.equal(Object.keys(manifest.dependencies ?? {}).length, 0, 'every runtime dependency is bundled');

    const prefix = join(work, 'prefix');
    // --offline: nothing may come from a registry.
    const install = spawnSync(NPM, ['install', '-g', tgz, '--prefix', prefix, '--offline', '--no-audit', '--no-fund'], { env, encoding: 'utf8' });
    assert.equal(install.status, 0, install.stderr);
    assert.doesNotMatch(install.stdout + install.stderr, /warn/i, 'installs without a warning (no install scripts)');
    const pkgDir = join(prefix, 'lib', 'node_modules', 'toonlens');
    const installed = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    for (const k of ['scripts', 'devDependencies', 'dependencies']) assert.equal(installed[k], undefined, `no ${k} in the packed package.json`);
    assert.deepEqual(existsSync(join(pkgDir, 'node_modules')) ? readdirSync(join(pkgDir, 'node_modules')) : [], [], 'no dependency installed');
    const bin = process.platform === 'win32' ? join(prefix, 'toonlens.cmd') : join(prefix, 'bin', 'toonlens');
    assert.ok(existsSync(bin), 'the bin is linked into the prefix');
    assert.ok(!existsSync(join(prefix, 'lib', 'node_modules', 'toonlens', 'server')), 'installed without sources');

    const toonlens = (args: string[], cwd = work) => spawnSync(bin, args, { cwd, env, encoding: 'utf8' });
    const v = toonlens(['--version']);
    assert.equal(v.status, 0, v.stderr);
    assert.equal(v.stdout, `${version}\n`);
    const help = toonlens(['--help']);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^toonlens \d+\.\d+\.\d+ — /);
    // Every command the CLI dispatches, so a command added later is covered without editing this list.
    assert.deepEqual([...COMMANDS].sort(), ['apply', 'check', 'context', 'convert', 'decode', 'mcp', 'plan', 'profile', 'schema-diff', 'validate']);
    for (const c of COMMANDS) {
      const h = toonlens([c, '--help']);
      assert.equal(h.status, 0, `${c} --help: ${h.stderr}`);
      assert.match(h.stdout, new RegExp(`^Usage: toonlens ${c}[\\s\\S]*Examples:`), c);
    }

    // Every command on real files.
    cpSync(join(REPO_ROOT, 'examples'), join(work, 'examples'), { recursive: true });
    const md = 'examples/markdown/long-section.md';
    const check = toonlens(['check', 'examples/markdown', 'examples/agent-json/unknown-verdict.verdict.json']);
    assert.equal(check.status, 1, check.stderr);
    assert.match(check.stdout, /long-section\.md:3:1 info toon\/long-section /);
    assert.match(check.stdout, /unknown-verdict\.verdict\.json:\d+:\d+ error schema /);
    assert.equal(toonlens(['profile', md, '--json']).status, 0);
    const plan = toonlens(['plan', 'examples/markdown/config-table.md']);
    assert.equal(plan.status, 0, plan.stderr);
    assert.match(plan.stdout, /net: [\d,]+ → [\d,]+ chars/);
    // Both encodings load from their own bundles next to dist/cli.js.
    const cl100k = toonlens(['plan', 'examples/markdown/config-table.md', '--tokenizer', 'cl100k_base']);
    assert.equal(cl100k.status, 0, cl100k.stderr);
    assert.match(cl100k.stdout, /cl100k_base/);
    const conv = toonlens(['convert', 'examples/markdown/config-table.md', '--out', 'out.toon']);
    assert.equal(conv.status, 0, conv.stderr);
    assert.equal(toonlens(['validate', 'out.toon']).status, 0);
    assert.equal(toonlens(['decode', 'out.toon', '--out', 'out.json']).status, 0);
    assert.ok(JSON.parse(readFileSync(join(work, 'out.json'), 'utf8')));
    writeFileSync(join(work, 'old.json'), '{"type":"object","properties":{"a":{"type":"string"}}}');
    writeFileSync(join(work, 'new.json'), '{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}');
    assert.equal(toonlens(['schema-diff', 'old.json', 'new.json', '--role', 'input']).status, 1);
    const stdin = spawnSync(bin, ['check', '--stdin-filename', 'notes.md', '-'], { cwd: work, env, encoding: 'utf8', input: '# A\n\n```toon\nitems[3]: a,b\n```\n' });
    assert.equal(stdin.status, 1, stdin.stderr);
    assert.match(stdin.stdout, /^notes\.md:4:1 error toon\/fence-decode /m);
    const apply = toonlens(['apply', 'examples/golden/valid-report.json', '--dry-run']);
    assert.ok(apply.status === 0 || apply.status === 1, apply.stderr);
    // check --fix with the config's opt-in Compact table: the bundle writes it through its verified writer.
    mkdirSync(join(work, 'fixme'));
    writeFileSync(join(work, 'fixme', '.toonlens.json'), '{ "fix": { "compactTables": true } }\n');
    writeFileSync(join(work, 'fixme', 'table.md'), '# T\n\n| key   | value |\n| ----- | ----: |\n| a     | 1     |\n');
    const fix = toonlens(['check', '--fix', 'fixme']);
    assert.equal(fix.status, 0, fix.stderr);
    assert.equal(readFileSync(join(work, 'fixme', 'table.md'), 'utf8'), '# T\n\n|key|value|\n|-|-:|\n|a|1|\n');
    assert.match(fix.stderr, /; 1 fix applied in 1 file$/m);
    const context = toonlens(['context', 'examples', '--json']);
    assert.equal(context.status, 0, context.stderr);
    assert.equal((JSON.parse(context.stdout) as { schema_version: string }).schema_version, 'context.v1');
    // mcp over stdio (newline-delimited JSON-RPC): initialize, then a tool call; it exits when stdin ends.
    const rpc = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'install-test', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'check', arguments: { text: '# A\n\n```toon\nitems[3]: a,b\n```\n', kind: 'markdown' } } },
    ];
    const mcp = spawnSync(bin, ['mcp'], { cwd: work, env, encoding: 'utf8', input: rpc.map((m) => JSON.stringify(m)).join('\n') + '\n', timeout: 60_000 });
    assert.equal(mcp.status, 0, mcp.stderr);
    const replies = mcp.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: number; result?: { serverInfo?: { name: string; version: string }; structuredContent?: { files: { diagnostics: { code: string }[] }[] } } });
    assert.deepEqual(replies.map((r) => r.id), [1, 2]);
    assert.deepEqual([replies[0]!.result?.serverInfo?.name, replies[0]!.result?.serverInfo?.version], ['toonlens', version]);
    assert.deepEqual(replies[1]!.result?.structuredContent?.files[0]!.diagnostics.map((d) => d.code), ['toon/fence-decode']);
    const missing = toonlens(['plan', 'nope.md', '--json']);
    assert.equal(missing.status, 1);
    assert.equal((JSON.parse(missing.stdout) as { error: { code: string } }).error.code, 'input_not_found');

    // The language server: its own bin, a short usage, and LSP over stdio.
    const server = process.platform === 'win32' ? join(prefix, 'toonlens-language-server.cmd') : join(prefix, 'bin', 'toonlens-language-server');
    const sh = spawnSync(server, ['--help'], { env, encoding: 'utf8' });
    assert.equal(sh.status, 0, sh.stderr);
    assert.match(sh.stdout, /^toonlens-language-server \d+\.\d+\.\d+ — [\s\S]*--stdio/);
    assert.ok(sh.stdout.length < 2000, 'a short usage, not the bundle');
    assert.equal(spawnSync(server, ['--version'], { env, encoding: 'utf8' }).stdout, `${version}\n`);
    const bare = spawnSync(server, [], { env, encoding: 'utf8' });
    assert.equal(bare.status, 2);
    assert.match(bare.stderr, /no transport given/);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { processId: null, rootUri: null, capabilities: {} } });
    const answer = await new Promise<string>((done, fail) => {
      const child = spawn(server, ['--stdio'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString('utf8');
        if (/"capabilities"/.test(out)) {
          child.kill();
          done(out);
        }
      });
      child.on('error', fail);
      child.on('exit', (code) => (/"capabilities"/.test(out) ? undefined : fail(new Error(`the server exited (${code}) without answering initialize: ${out}`))));
      child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    assert.match(answer, /^Content-Length: \d+\r\n\r\n\{"jsonrpc":"2\.0","id":1,"result":\{"capabilities"/);

    // The library: plain require, no vscode, and typed.
    const lib = spawnSync(process.execPath, ['-e', `const t = require('toonlens'); process.stdout.write(JSON.stringify({ keys: Object.keys(t).sort(), check: t.check('# A\\n\\n\`\`\`toon\\nitems[3]: a,b\\n\`\`\`\\n', { path: 'a.md' }).map((f) => f.code), plan: t.plan('# A\\n\\ntext\\n').sections.length, convert: typeof t.convert('# A\\n\\n- a\\n').verdict }))`], { cwd: work, env: { ...env, NODE_PATH: join(prefix, 'lib', 'node_modules') }, encoding: 'utf8' });
    assert.equal(lib.status, 0, lib.stderr);
    assert.deepEqual(JSON.parse(lib.stdout), { keys: ['VERSION', 'check', 'convert', 'plan'], check: ['toon/fence-decode'], plan: 1, convert: 'string' });
    const consumer = join(work, 'consumer');
    mkdirSync(join(consumer, 'node_modules'), { recursive: true });
    symlinkSync(pkgDir, join(consumer, 'node_modules', 'toonlens'), 'dir');
    writeFileSync(join(consumer, 'use.ts'), "import { check, plan, convert, type Finding } from 'toonlens';\nconst f: Finding[] = check('{}', { path: 'a.verdict.json' });\nconst n: number = plan('# A').tokens.savings + f.length;\nconst v: string = convert('# A', { mode: 'lossless' }).verdict;\nexport { n, v };\n");
    // Strict, the declarations themselves checked, and no @types/node: they need nothing a user may not have.
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions: { strict: true, skipLibCheck: false, types: [], module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', noEmit: true }, files: ['use.ts'] }));
    const tsc = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: consumer, env, encoding: 'utf8' });
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

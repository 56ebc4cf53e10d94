// core/files.ts is the one answer to "which diagnostics does this path get": its roles, and every consumer
// (CLI check, Check Workspace, the server's providers, the client's selector and watcher, the pre-commit
// manifest) reading it rather than an extension list of its own.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileRole, isAgentFile, isOnDemandAgentFile, MARKDOWN_EXTENSIONS, measuredSourceType, PRE_COMMIT_FILES_PATTERN, WATCH_GLOB } from '../../server/src/core/files';
import { run, type FileReport } from '../../server/src/cli/check';
import type { CliIO } from '../../server/src/cli/io';
import { REPO_ROOT, tsSources } from '../paths';


describe('file roles', () => {
  test('markdown (with Cursor rules), TOON, JSON, the project config, and nothing else', () => {
    const cases: Array<[string, ReturnType<typeof fileRole>]> = [
      ['docs/AGENTS.md', 'markdown'],
      ['a/b/README.MARKDOWN', 'markdown'],
      ['notes.mdown', 'markdown'],
      ['notes.mkd', 'markdown'],
      ['.cursor/rules/style.mdc', 'markdown'],
      ['file:///w/x/rule.mdc?x=1#L2', 'markdown'],
      ['C:\\w\\data.toon', 'toon'],
      ['out/verdict.profile.json', 'json'],
      ['.toonlens.json', 'config'],
      ['/w/sub/.toonlens.json', 'config'],
      ['src/x.ts', undefined],
      ['Makefile', undefined],
      ['.md', undefined],
    ];
    for (const [p, role] of cases) assert.equal(fileRole(p), role, p);
  });

  test('agent files by name and location, not every README', () => {
    for (const p of ['AGENTS.md', 'sub/CLAUDE.md', 'CLAUDE.local.md', 'GEMINI.md', '.github/copilot-instructions.md', '.github/instructions/ts.instructions.md', 'x.prompt.md', '.github/agents/review.md', '.cursor/rules/a.mdc', '.cursorrules', '.claude/skills/pdf/SKILL.md', '.claude/commands/fix.md', '.claude/agents/reviewer.md']) {
      assert.equal(isAgentFile(p), true, p);
    }
    for (const p of ['README.md', 'docs/guide.md', 'CODE_OF_CONDUCT.md', 'CHANGELOG.md', 'src/agents.ts', 'my.claude/notes.md']) {
      assert.equal(isAgentFile(p), false, p);
    }
    for (const p of ['.claude/skills/pdf/SKILL.md', '.claude/skills/pdf/reference.md', 'x.prompt.md', '.github/prompts/a.md', '.claude/commands/fix.md']) {
      assert.equal(isOnDemandAgentFile(p), true, p);
    }
    for (const p of ['AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md', '.cursor/rules/a.mdc', 'README.md']) {
      assert.equal(isOnDemandAgentFile(p), false, p);
    }
  });

  test('the pre-commit manifest and the client watch exactly these files', () => {
    const manifest = readFileSync(join(REPO_ROOT, '.pre-commit-hooks.yaml'), 'utf8');
    const files = /^\s*files:\s*(.+)$/m.exec(manifest)?.[1]?.trim();
    assert.equal(files, PRE_COMMIT_FILES_PATTERN);
    const client = readFileSync(join(REPO_ROOT, 'client', 'src', 'extension.ts'), 'utf8');
    assert.match(client, /createFileSystemWatcher\(WATCH_GLOB\)/);
    assert.match(client, /MARKDOWN_FILE_PATTERNS/);
    for (const ext of [...MARKDOWN_EXTENSIONS, 'toon', 'json']) assert.ok(WATCH_GLOB.includes(ext), ext);
    // The extension manifest maps .mdc to markdown for VS Code itself.
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
    const md = pkg.contributes.languages.find((l: { id: string }) => l.id === 'markdown');
    assert.deepEqual(md.extensions, ['.mdc']);
  });

  test('a file measured by name is markdown by the served extensions or .mdx, never served as .mdx', () => {
    for (const f of ['a.md', 'B.MARKDOWN', 'c.mdown', 'd.mkd', '.cursor/rules/e.mdc', 'docs/f.mdx']) assert.equal(measuredSourceType(f), 'markdown', f);
    for (const f of ['notes.txt', 'README', 'x.json', 'y.toon', 'md']) assert.equal(measuredSourceType(f), 'text', f);
    assert.equal(fileRole('docs/f.mdx'), undefined);
  });

  test('no other source file keeps an extension list of its own', () => {
    // An extension alternation, a `.md`/`.toon`/`.mdc` suffix test or an extension compared outside core/files.ts is a second answer.
    const own = /\\\.\((?:json|md|markdown|mdc|toon)\||\\\.(?:md|markdown|mdc|toon)\$\/|endsWith\('\.(?:md|mdc|mdx|toon|markdown)'\)|=== '\.(?:md|mdc|mdx|toon|markdown)'/;
    const offenders: string[] = [];
    for (const f of [...tsSources(join(REPO_ROOT, 'server', 'src')), ...tsSources(join(REPO_ROOT, 'client', 'src'))]) {
      if (f.endsWith(join('core', 'files.ts'))) continue;
      if (own.test(readFileSync(f, 'utf8'))) offenders.push(relative(REPO_ROOT, f));
    }
    assert.deepEqual(offenders, []);
  });
});

describe('toonlens check follows the roles', () => {
  test('a Cursor rule (.mdc) gets the diagnostics the editor gives it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toonlens-files-'));
    writeFileSync(join(dir, 'rule.mdc'), '---\ndescription: Style\nalwaysApply: true\n---\n# Style\n\nText.\n\n```toon\nitems[2]: a\n```\n');
    const out: string[] = [];
    const io: CliIO = { cwd: dir, stdout: (t) => void out.push(t), stderr: () => undefined, readStdin: async () => '' };
    const code = await run(['--format', 'json', 'rule.mdc'], io);
    const reports = JSON.parse(out.join('')) as FileReport[];
    assert.equal(reports.length, 1);
    assert.ok(reports[0]!.diagnostics.some((d) => d.code === 'toon/fence-decode'), JSON.stringify(reports));
    assert.equal(code, 1);
  });
});

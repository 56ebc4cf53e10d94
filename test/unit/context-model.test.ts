/**
 * The agent-context model on the fixture repositories (test/fixtures/context/<agent>/ and mixed/): every rule
 * of docs/agent-context.md's table is pinned on a real file, and the import graph, byte limit, working path and
 * unreachable files on the cases the table names.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { contextModel, type ContextCache, type ContextEntry, type ContextModel } from '../../server/src/core/context/model';
import { contextDiagnostics, type InstructionCache } from '../../server/src/core/context/diagnostics';
import { LOAD_RULES, type AgentId, type AgentOptions } from '../../server/src/core/context/agents';
import { readRepositoryContext } from '../../server/src/node/contextFiles';
import { workspaceFiles } from '../../server/src/node/workspaceFiles';
import { tokenizer } from '../../server/src/core/tokens';
import { FIXTURES, REPO_ROOT } from '../paths';

const tok = tokenizer('o200k_base');
const DIR = join(FIXTURES, 'context');

async function model(fixture: string, extra: { for?: string; agents?: AgentId[]; options?: AgentOptions } = {}): Promise<ContextModel> {
  const repo = await readRepositoryContext(join(DIR, fixture), extra.options ? { options: extra.options } : {});
  assert.deepEqual(repo.problems, []);
  return contextModel({ files: repo.files, allPaths: repo.allPaths, read: repo.read, count: (t) => tok.count(t), options: repo.options, ...(extra.for !== undefined ? { for: extra.for } : {}), ...(extra.agents ? { agents: extra.agents } : {}) });
}

function entry(m: ContextModel, agent: AgentId, path: string): ContextEntry | undefined {
  return m.agents.find((a) => a.agent === agent)?.entries.find((e) => e.path === path);
}

/** `class rule` of a file for an agent, or 'not loaded'. */
function how(m: ContextModel, agent: AgentId, path: string): string {
  const e = entry(m, agent, path);
  return e ? `${e.class} ${e.rule}` : 'not loaded';
}

describe('loading model: one fixture per agent', () => {
  test('Claude Code: memory files, local memory, nested memory, rules, skills, agents, commands, imports', async () => {
    const m = await model('claude', { agents: ['claude-code'] });
    assert.equal(how(m, 'claude-code', 'CLAUDE.md'), 'always claude/memory');
    assert.equal(how(m, 'claude-code', '.claude/CLAUDE.md'), 'always claude/memory');
    assert.equal(how(m, 'claude-code', 'CLAUDE.local.md'), 'always claude/local-memory');
    assert.equal(how(m, 'claude-code', 'src/CLAUDE.md'), 'matching claude/nested-memory');
    assert.deepEqual(entry(m, 'claude-code', 'src/CLAUDE.md')!.globs, ['src/**']);
    assert.equal(how(m, 'claude-code', '.claude/rules/general.md'), 'always claude/rules');
    assert.equal(how(m, 'claude-code', '.claude/rules/api.md'), 'matching claude/rules-paths');
    assert.deepEqual(entry(m, 'claude-code', '.claude/rules/api.md')!.globs, ['src/api/**/*.ts']);
    assert.equal(how(m, 'claude-code', '.claude/skills/deploy/SKILL.md'), 'on-use claude/skill');
    assert.equal(how(m, 'claude-code', '.claude/agents/reviewer.md'), 'on-use claude/agent');
    assert.equal(how(m, 'claude-code', '.claude/commands/release.md'), 'on-use claude/command');
    // An on-use file pays its name and description on every request, never its body.
    const skill = entry(m, 'claude-code', '.claude/skills/deploy/SKILL.md')!;
    assert.equal(skill.alwaysTokens, tok.count('deploy: Deploy the service to staging and verify the health check.'));
    assert.ok(skill.tokens > skill.alwaysTokens);
    // Imports: relative to the importing file, outside code, five hops at most.
    assert.equal(how(m, 'claude-code', 'docs/style.md'), 'always claude/import');
    assert.equal(entry(m, 'claude-code', 'docs/style.md')!.via, 'CLAUDE.md');
    for (let i = 1; i <= 5; i++) assert.equal(entry(m, 'claude-code', `docs/chain/${i}.md`)?.depth, i, `chain ${i}`);
    assert.equal(how(m, 'claude-code', 'docs/chain/6.md'), 'not loaded');
    assert.ok(m.imports.find((e) => e.to === 'docs/chain/6.md')?.tooDeep);
    const specs = m.imports.map((e) => e.spec);
    assert.ok(specs.includes('~/.claude/personal.md'), 'a home import is an edge outside the repository');
    assert.ok(!specs.some((s) => s.includes('not/an/import') || s.includes('also-not') || s.includes('example.com')), specs.join(' '));
    // Always total = always files + on-use descriptions.
    const a = m.agents[0]!;
    assert.equal(a.alwaysTokens, a.entries.reduce((n, e) => n + e.alwaysTokens, 0));
    const unreachable = m.unreachable.map((u) => u.path);
    assert.deepEqual(unreachable, ['.claude/rules/nowhere.md', '.claude/skills/SKILL.md']);
  });

  test('Codex: one file per folder, override first, empty files skipped, fallbacks, the chain for a working path', async () => {
    const m = await model('codex', { agents: ['codex'] });
    assert.equal(how(m, 'codex', 'AGENTS.md'), 'always codex/agents-md');
    assert.equal(how(m, 'codex', 'services/AGENTS.md'), 'matching codex/nested');
    assert.equal(how(m, 'codex', 'services/api/AGENTS.override.md'), 'matching codex/nested');
    assert.equal(how(m, 'codex', 'services/api/AGENTS.md'), 'not loaded');
    assert.equal(how(m, 'codex', 'web/AGENTS.md'), 'not loaded');
    const skipped = Object.fromEntries(m.agents[0]!.skipped.map((x) => [x.path, x.reason]));
    assert.match(skipped['services/api/AGENTS.md']!, /AGENTS\.override\.md in the same folder/);
    assert.match(skipped['web/AGENTS.md']!, /empty/);
    // Cursor still reads both (nested AGENTS.md files), so neither is unreachable.
    assert.deepEqual(m.unreachable, []);
    const deep = await model('codex', { agents: ['codex'], for: 'services/api/main.go' });
    const chain = deep.agents[0]!.entries.filter((e) => e.loaded).map((e) => e.path).sort();
    assert.deepEqual(chain, ['AGENTS.md', 'services/AGENTS.md', 'services/api/AGENTS.override.md']);
    assert.equal(deep.agents[0]!.paidTokens, deep.agents[0]!.entries.reduce((n, e) => n + e.tokens, 0));
    const fb = await model('codex-fallback', { agents: ['codex'], options: { codexFallbacks: ['TEAM_GUIDE.md'] } });
    assert.equal(how(fb, 'codex', 'TEAM_GUIDE.md'), 'always codex/fallback');
    const override = contextModel({ files: [{ path: 'AGENTS.override.md', text: 'Override the defaults for this run.\n' }], count: (t) => tok.count(t), agents: ['codex'] });
    assert.equal(how(override, 'codex', 'AGENTS.override.md'), 'always codex/override');
  });

  test('Codex: the byte limit cuts the chain from the root down', () => {
    const files = [
      { path: 'AGENTS.md', text: 'a'.repeat(60) + '\n' },
      { path: 'pkg/AGENTS.md', text: 'b'.repeat(60) + '\n' },
      { path: 'pkg/x/AGENTS.md', text: 'c'.repeat(60) + '\n' },
    ];
    const m = contextModel({ files, count: (t) => t.length, agents: ['codex'], for: 'pkg/x/file.ts', options: { codexMaxBytes: 100 } });
    const byPath = Object.fromEntries(m.agents[0]!.entries.map((e) => [e.path, e]));
    assert.equal(byPath['AGENTS.md']!.truncatedBytes, undefined);
    assert.equal(byPath['AGENTS.md']!.tokens, 61);
    assert.ok(byPath['pkg/AGENTS.md']!.truncatedBytes! > 0);
    assert.ok(byPath['pkg/AGENTS.md']!.tokens < 61);
    assert.equal(byPath['pkg/x/AGENTS.md']!.tokens, 0);
  });

  test('Cursor: alwaysApply, globs, description, manual, AGENTS.md at any depth, legacy .cursorrules, nested rule folders', async () => {
    const m = await model('cursor', { agents: ['cursor'] });
    assert.equal(how(m, 'cursor', '.cursor/rules/always.mdc'), 'always cursor/always');
    assert.equal(how(m, 'cursor', '.cursor/rules/ts.mdc'), 'matching cursor/globs');
    assert.deepEqual(entry(m, 'cursor', '.cursor/rules/ts.mdc')!.globs, ['src/**/*.ts', 'test/**/*.ts']);
    assert.equal(how(m, 'cursor', '.cursor/rules/db.mdc'), 'on-use cursor/requested');
    assert.ok(entry(m, 'cursor', '.cursor/rules/db.mdc')!.alwaysTokens > 0);
    assert.equal(how(m, 'cursor', '.cursor/rules/manual.mdc'), 'on-use cursor/manual');
    assert.equal(entry(m, 'cursor', '.cursor/rules/manual.mdc')!.alwaysTokens, 0);
    assert.equal(how(m, 'cursor', 'AGENTS.md'), 'always cursor/agents-md');
    assert.equal(how(m, 'cursor', 'pkg/AGENTS.md'), 'matching cursor/nested-agents-md');
    assert.equal(how(m, 'cursor', '.cursorrules'), 'always cursor/legacy');
    assert.equal(how(m, 'cursor', 'pkg/.cursor/rules/pkg.mdc'), 'matching cursor/always');
    assert.deepEqual(entry(m, 'cursor', 'pkg/.cursor/rules/pkg.mdc')!.globs, ['pkg/**']);
    assert.deepEqual(m.unreachable.map((u) => u.path), ['.cursor/rules/notes.md', 'pkg/.cursorrules']);
    const forTs = await model('cursor', { agents: ['cursor'], for: 'src/a.ts' });
    assert.equal(entry(forTs, 'cursor', '.cursor/rules/ts.mdc')!.loaded, true);
    assert.equal(entry(forTs, 'cursor', 'pkg/AGENTS.md')!.loaded, false);
  });

  test('Copilot in VS Code: copilot-instructions.md, AGENTS.md, applyTo, no applyTo, prompts, agents, skills', async () => {
    const m = await model('copilot', { agents: ['copilot'] });
    assert.equal(how(m, 'copilot', '.github/copilot-instructions.md'), 'always copilot/instructions');
    assert.equal(how(m, 'copilot', 'AGENTS.md'), 'always copilot/agents-md');
    assert.equal(how(m, 'copilot', 'src/AGENTS.md'), 'not loaded');
    assert.equal(how(m, 'copilot', '.github/instructions/ts.instructions.md'), 'matching copilot/apply-to');
    assert.equal(how(m, 'copilot', '.github/instructions/all.instructions.md'), 'always copilot/apply-to');
    assert.equal(how(m, 'copilot', '.github/instructions/manual.instructions.md'), 'on-use copilot/no-apply-to');
    assert.equal(how(m, 'copilot', '.github/prompts/release.prompt.md'), 'on-use copilot/prompt');
    assert.equal(entry(m, 'copilot', '.github/prompts/release.prompt.md')!.alwaysTokens, 0);
    assert.equal(how(m, 'copilot', '.github/agents/planner.agent.md'), 'on-use copilot/agent');
    assert.equal(how(m, 'copilot', '.github/skills/lint/SKILL.md'), 'on-use copilot/skill');
    assert.equal(entry(m, 'copilot', '.github/instructions/py.instructions.md')!.matchesNothing, true);
    // src/AGENTS.md is loaded by Codex and Cursor, not by Copilot: skipped here, not unreachable.
    assert.deepEqual(m.unreachable.map((u) => u.path), ['.github/instructions/py.instructions.md', 'docs/misplaced.instructions.md']);
    assert.match(m.agents[0]!.skipped.find((x) => x.path === 'src/AGENTS.md')!.reason, /chat\.useNestedAgentsMdFiles/);
  });

  test('Gemini CLI: GEMINI.md at the root and below, context.fileName from .gemini/settings.json, imports', async () => {
    const m = await model('gemini', { agents: ['gemini'] });
    assert.equal(how(m, 'gemini', 'GEMINI.md'), 'always gemini/root');
    assert.equal(how(m, 'gemini', 'CONTEXT.md'), 'always gemini/root');
    assert.equal(how(m, 'gemini', 'pkg/GEMINI.md'), 'matching gemini/nested');
    assert.equal(how(m, 'gemini', 'docs/setup.md'), 'always gemini/import');
    assert.deepEqual(m.unreachable, []);
  });

  test('every rule of the docs table has a fixture, and the table names every rule', async () => {
    const seen = new Set<string>();
    const runs: [string, AgentOptions?][] = [['claude'], ['codex'], ['cursor'], ['copilot'], ['gemini'], ['mixed'], ['codex-fallback', { codexFallbacks: ['TEAM_GUIDE.md'] }]];
    for (const [fixture, options] of runs) {
      const m = await model(fixture, options ? { options } : {});
      for (const a of m.agents) for (const e of a.entries) seen.add(e.rule);
    }
    seen.add('codex/override'); // pinned in memory above (an override beside nothing else)
    assert.deepEqual(LOAD_RULES.filter((r) => !seen.has(r)), []);
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'agent-context.md'), 'utf8');
    assert.deepEqual(LOAD_RULES.filter((r) => !doc.includes(`\`${r}\``)), []);
  });
});

describe('the mixed fixture: duplicates, nesting, globs, imports and a cycle', () => {
  test('imports: AGENTS.md through CLAUDE.md, a missing target, a cycle', async () => {
    const m = await model('mixed');
    assert.equal(how(m, 'claude-code', 'AGENTS.md'), 'always claude/import');
    assert.equal(how(m, 'gemini', 'docs/b.md'), 'always gemini/import');
    assert.deepEqual(m.imports.filter((e) => !e.found).map((e) => `${e.from}→${e.to}`), ['CLAUDE.md→docs/missing.md']);
    assert.deepEqual(m.cycles, [['docs/a.md', 'docs/b.md', 'docs/a.md']]);
  });

  test('--for applies globs and nested files', async () => {
    const root = await model('mixed');
    const forTs = await model('mixed', { for: 'src/index.ts' });
    const claudeRoot = root.agents.find((a) => a.agent === 'claude-code')!;
    const claudeTs = forTs.agents.find((a) => a.agent === 'claude-code')!;
    assert.equal(entry(forTs, 'claude-code', 'src/CLAUDE.md')!.loaded, true);
    assert.equal(claudeTs.paidTokens, claudeRoot.alwaysTokens + entry(forTs, 'claude-code', 'src/CLAUDE.md')!.tokens);
    assert.equal(entry(forTs, 'copilot', '.github/instructions/ts.instructions.md')!.loaded, true);
    assert.equal(entry(root, 'copilot', '.github/instructions/ts.instructions.md')!.loaded, false);
  });
});

describe('the repository walk', () => {
  test('listings read in batches give the breadth-first, sorted order of a folder-by-folder walk', async () => {
    const root = DIR;
    const expected: string[] = [];
    const queue = [''];
    for (let q = 0; q < queue.length; q++) {
      const rel = queue[q]!;
      const ds = readdirSync(join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const d of ds) {
        const child = rel ? `${rel}/${d.name}` : d.name;
        if (d.isDirectory()) queue.push(child);
        else if (d.isFile()) expected.push(join(root, child));
      }
    }
    const got = await workspaceFiles(root, { wanted: () => true, maxFiles: 1e6, maxEntries: 1e6, cancelled: () => false });
    assert.deepEqual(got.files, expected);
    assert.ok(expected.length > 60);
  });
});

describe('recomputing after an edit', () => {
  test('an edit re-parses, re-counts and re-scans the edited file only, and gives the cold result', async () => {
    const repo = await readRepositoryContext(join(DIR, 'mixed'));
    const files = repo.files.map((f) => ({ ...f }));
    const counted: string[] = [];
    const count = (t: string) => {
      counted.push(t);
      return tok.count(t);
    };
    const cache: ContextCache = new Map();
    const units: InstructionCache = new Map();
    const input = { files, allPaths: repo.allPaths, read: repo.read, count, options: repo.options, cache };
    contextDiagnostics(contextModel(input), {}, units);
    assert.ok(counted.length >= files.length);
    const viewsBefore = new Map(cache);
    const unitsBefore = new Map(units);

    const i = files.findIndex((f) => f.path === 'AGENTS.md');
    files[i] = { path: 'AGENTS.md', text: `${files[i]!.text}- A new rule added in the editor for everyone.\n` };
    counted.length = 0;
    const warm = contextModel(input);
    const warmDiagnostics = contextDiagnostics(warm, {}, units);

    // One count (the edited text), one new parse and one new instruction list, all for the edited file.
    assert.deepEqual(counted, [files[i]!.text]);
    for (const [p, v] of cache) assert.equal(v === viewsBefore.get(p), p !== 'AGENTS.md', p);
    for (const [p, u] of units) assert.equal(u === unitsBefore.get(p), p !== 'AGENTS.md', p);

    const cold = contextModel({ files, allPaths: repo.allPaths, read: repo.read, count: (t) => tok.count(t), options: repo.options });
    assert.deepEqual(warm.agents, cold.agents);
    assert.deepEqual(warmDiagnostics, contextDiagnostics(cold));
  });
});

describe('nested project roots', () => {
  test('a misplaced file inside a folder with its own .github, .vscode or .git is that folder’s, not unreachable here', () => {
    const text = '# Rules\n\n- Keep every change small and reviewed.\n';
    const files = [
      { path: 'fixtures/demo/.github/copilot-instructions.md', text },
      { path: 'fixtures/demo/.github/instructions/ts.instructions.md', text: `---\napplyTo: "**/*.ts"\n---\n${text}` },
      { path: 'fixtures/demo/skills/x/SKILL.md', text },
      { path: 'sub/.vscode/settings.json', text: '{}' },
      { path: 'sub/docs/misplaced.instructions.md', text },
      { path: 'docs/misplaced.instructions.md', text },
      { path: '.claude/skills/a/b/SKILL.md', text },
      { path: 'pkg/.claude/rules/none.md', text: `---\npaths: ["pkg/generated/**"]\n---\n${text}` },
    ];
    const m = contextModel({ files: files.filter((f) => f.path.endsWith('.md')), allPaths: files.map((f) => f.path), count: (t) => t.length });
    // Still reported: misplaced at this root, a skill at the wrong depth (.claude is read nested too), a glob matching nothing.
    assert.deepEqual(m.unreachable.map((u) => u.path), ['.claude/skills/a/b/SKILL.md', 'docs/misplaced.instructions.md', 'pkg/.claude/rules/none.md']);
  });
});

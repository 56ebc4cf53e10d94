/**
 * `toonlens mcp` over a real stdio pipe, driven by the MCP SDK's own client: initialize, tools/list (every schema
 * compiles with ajv), every tool on real fixtures deep-equal to the CLI's --json, the doc2toon aliases, resources
 * and the prompt, apply_report's consent rules, path containment, and a flood of malformed calls.
 */
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { execFileSync, spawn } from 'node:child_process';
import { join } from 'node:path';
import Ajv from 'ajv';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { REPO_ROOT } from '../paths';
import { assertBuilt, BIN, cli, startStdio, type McpSession } from '../mcp/client';
import { deterministicEntry, generativeEntry, makeReport, sha, tempWorkspace, type TempWorkspace } from '../fixtures/report/helpers';

const TOOL_NAMES = ['check', 'fix', 'profile', 'convert', 'plan', 'convert_section', 'validate_toon', 'decode_toon', 'schema_diff', 'context', 'apply_report'];

let ws: TempWorkspace;
let outside: TempWorkspace;
let mcp: McpSession;

before(async () => {
  ws = tempWorkspace();
  cpSync(join(REPO_ROOT, 'examples'), join(ws.root, 'examples'), { recursive: true });
  outside = tempWorkspace({ 'secret.md': '# Secret\n\ntext\n' });
  mcp = await startStdio({ cwd: ws.root, args: ['--root', ws.root] });
});
after(async () => {
  await mcp?.close();
  ws?.cleanup();
  outside?.cleanup();
});

const read = (rel: string) => readFileSync(join(ws.root, rel), 'utf8');

describe('toonlens mcp over stdio', () => {
  test('initialize: server info, capabilities, instructions', () => {
    assert.equal(mcp.client.getServerVersion()?.name, 'toonlens');
    const caps = mcp.client.getServerCapabilities();
    assert.ok(caps?.tools && caps.resources && caps.prompts);
    assert.match(mcp.client.getInstructions() ?? '', /check/);
  });

  test('tools/list: every tool, each input and output schema compiles with ajv (strict)', async () => {
    const { tools } = await mcp.client.listTools();
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, allErrors: true });
    for (const t of tools) {
      assert.equal(t.inputSchema.type, 'object', t.name);
      assert.equal(t.outputSchema?.type, 'object', t.name);
      for (const k of ['oneOf', 'anyOf', 'allOf']) assert.equal(k in t.inputSchema, false, `${t.name}: no top-level ${k}`);
      assert.doesNotThrow(() => ajv.compile(t.inputSchema), t.name);
      assert.doesNotThrow(() => ajv.compile(t.outputSchema!), t.name);
      assert.ok(t.description && t.title && t.annotations, t.name);
    }
    assert.equal(tools.find((t) => t.name === 'apply_report')!.annotations!.readOnlyHint, false);
  });

  test('a result is structuredContent and the same JSON, compact, as its one text block', async () => {
    const r = await mcp.call('profile', { path: 'examples/markdown/AGENTS.md' });
    assert.equal(r.content.length, 1);
    const first = r.content[0]!;
    assert.equal(first.type, 'text');
    const text = (first as { text: string }).text;
    assert.deepEqual(JSON.parse(text), r.structuredContent);
    assert.equal(text, JSON.stringify(r.structuredContent));
  });

  test('check: a path and the same text deep-equal `check --format json`', async () => {
    for (const rel of ['examples/agent-json/unknown-verdict.verdict.json', 'examples/agent-json/unknown-subtype.report.json', 'examples/agent-json/bad-fingerprint.critique.json', 'examples/markdown/long-section.md', 'examples/markdown/duplicate-rules.md', 'examples/toon/orders.toon']) {
      const expected = cli(['check', '--format', 'json', rel], ws.root).json;
      assert.ok(Array.isArray(expected) && expected.length === 1, rel);
      assert.deepEqual((await mcp.ok('check', { path: rel })).files, expected, `${rel} by path`);
      assert.deepEqual((await mcp.ok('check', { text: read(rel), file_name: rel })).files, expected, `${rel} as text`);
    }
    const kinded = cli(['check', '--format', 'json', '--kind', 'verdict', 'examples/agent-json/settings-table.verdict.json'], ws.root).json;
    assert.deepEqual((await mcp.ok('check', { path: 'examples/agent-json/settings-table.verdict.json', kind: 'verdict' })).files, kinded);
    // details: the CLI's report plus 1-based locations and the fixes on offer.
    const fixable = 'examples/agent-json/unsafe-auto-apply.verdict.json';
    const plain = cli(['check', '--format', 'json', fixable], ws.root).json as { diagnostics: Record<string, unknown>[] }[];
    for (const args of [{ path: fixable, details: true }, { text: read(fixable), file_name: fixable, details: true }]) {
      const detailed = (await mcp.ok('check', args)).files as { diagnostics: { range: { start: { line: number; character: number } }; location: { line: number; column: number }; fixes: { title: string; unattended: boolean }[] }[] }[];
      assert.deepEqual(detailed.map((f) => ({ ...f, diagnostics: f.diagnostics.map(({ location: _l, fixes: _f, ...d }) => d) })), plain);
      const d = detailed[0]!.diagnostics.find((x) => x.fixes.length > 0)!;
      assert.ok(d, 'a diagnostic with a fix');
      assert.deepEqual([d.location.line, d.location.column], [d.range.start.line + 1, d.range.start.character + 1]);
      assert.ok(d.fixes.some((f) => f.unattended && f.title.length > 0));
    }
    const text = (await mcp.ok('check', { text: '{"schema_version": "1.0"}', kind: 'verdict' })).files as { file: string; diagnostics: { code: string }[] }[];
    assert.equal(text[0]!.file, '<text>');
    assert.ok(text[0]!.diagnostics.some((d) => d.code === 'schema'));
  });

  test('fix: the text `check --fix` writes, and what remains, without writing', async () => {
    const rel = 'examples/agent-json/unsafe-auto-apply.verdict.json';
    const before = read(rel);
    const fixed = await mcp.ok('fix', { path: rel });
    assert.equal(read(rel), before, 'nothing written');
    assert.equal(fixed.changed, true);
    const copy = tempWorkspace({ 'v.verdict.json': before });
    try {
      const after = cli(['check', '--fix', '--format', 'json', 'v.verdict.json'], copy.root);
      assert.equal(fixed.text, copy.read('v.verdict.json'));
      const remaining = (after.json as { diagnostics: unknown[] }[])[0]!;
      assert.deepEqual((fixed.remaining as { diagnostics: unknown[] }).diagnostics, remaining.diagnostics);
    } finally {
      copy.cleanup();
    }
    const same = await mcp.ok('fix', { text: read('examples/markdown/AGENTS.md'), kind: 'markdown' });
    assert.equal(same.changed, false);
    assert.equal(same.fixes, 0);
  });

  test('profile, convert, plan: path and text deep-equal the CLI --json, with options', async () => {
    const md = 'examples/markdown/AGENTS.md';
    const cases: [string, Record<string, unknown>, string[]][] = [
      ['profile', {}, []],
      ['profile', { tokenizer: 'estimate', chars_per_token: [4] }, ['--tokenizer', 'estimate', '--chars-per-token', '4']],
      ['convert', {}, []],
      ['convert', { mode: 'record', delimiter: 'tab' }, ['--mode', 'record', '--delimiter', 'tab']],
      ['convert', { mode: 'budget', target_chars: 200, allow_lossy: true }, ['--mode', 'budget', '--target-chars', '200', '--allow-lossy']],
      ['plan', {}, []],
      ['plan', { tokenizer: 'cl100k_base', min_token_savings: 3 }, ['--tokenizer', 'cl100k_base', '--min-token-savings', '3']],
    ];
    for (const [tool, opts, flags] of cases) {
      const byPath = cli([tool, md, '--json', ...flags], ws.root).json;
      assert.deepEqual(await mcp.ok(tool, { path: md, ...opts }), byPath, `${tool} ${flags.join(' ')} by path`);
      const byText = cli([tool, '--stdin', '--json', ...flags], ws.root, read(md)).json;
      assert.deepEqual(await mcp.ok(tool, { text: read(md), ...opts }), byText, `${tool} ${flags.join(' ')} as text`);
    }
    // The CLI's own argument errors come back as its error envelope.
    const err = await mcp.fails('convert', { path: md, mode: 'budget' });
    assert.deepEqual({ error: err }, cli(['convert', md, '--json', '--mode', 'budget'], ws.root).json);
  });

  test('convert_section: by heading and by line, the document with that section converted, nothing written', async () => {
    const md = 'examples/markdown/AGENTS.md';
    const text = read(md);
    const plan = cli(['plan', md, '--json'], ws.root).json as { context_plan: { sections: { heading: string | null; action: string }[] } };
    const target = plan.context_plan.sections.find((s) => s.action === 'convert' && s.heading)!;
    assert.ok(target, 'the fixture has a section the plan converts');
    const r = await mcp.ok('convert_section', { path: md, heading: target.heading });
    assert.equal(read(md), text);
    const section = r.section as { heading: string; line_start: number; line_end: number };
    assert.equal(section.heading, target.heading);
    assert.equal(r.action, 'convert');
    assert.equal(r.convertible, true);
    assert.match(r.text as string, /```toon\n/);
    assert.ok((r.text as string).includes(r.candidate as string));
    const lines = text.split('\n');
    assert.ok((r.text as string).startsWith(lines.slice(0, section.line_start).join('\n')), 'the text above the section is kept');
    assert.deepEqual(await mcp.ok('convert_section', { text, line: section.line_end }), r);
    const missing = await mcp.fails('convert_section', { path: md, heading: 'No such heading' });
    assert.equal(missing.code, 'bad_request');
    assert.match(missing.message, /no section has the heading 'No such heading' \(headings: /);
    assert.match((await mcp.fails('convert_section', { path: md })).message, /give heading or line/);
  });

  test('validate_toon and decode_toon: path and text equal the CLI, invalid TOON its envelope', async () => {
    const toon = 'examples/toon/orders.toon';
    assert.deepEqual(await mcp.ok('validate_toon', { path: toon }), cli(['validate', toon, '--json'], ws.root).json);
    assert.deepEqual(await mcp.ok('validate_toon', { text: read(toon) }), { valid: true, file: null });
    const decoded = cli(['decode', toon], ws.root).json;
    assert.deepEqual((await mcp.ok('decode_toon', { path: toon })).value, decoded);
    assert.deepEqual((await mcp.ok('decode_toon', { text: read(toon) })).value, decoded);
    ws.write('bad.toon', 'a:\n  b: 1\n   c: 2\nitems[3]: 1,2\n');
    const expected = cli(['validate', 'bad.toon', '--json'], ws.root).json as { error: { code: string; message: string } };
    assert.equal(expected.error.code, 'invalid_toon');
    assert.deepEqual(await mcp.fails('validate_toon', { path: 'bad.toon' }), expected.error);
    const asText = await mcp.fails('decode_toon', { text: read('bad.toon') });
    assert.equal(asText.code, 'invalid_toon');
    assert.equal(asText.message, expected.error.message.replace('bad.toon', '<text>'));
  });

  test('schema_diff: paths and inline schemas deep-equal `schema-diff --format json`', async () => {
    const oldSchema = { type: 'object', properties: { a: { type: 'string' }, b: { enum: ['x', 'y'] } }, required: ['a'] };
    const newSchema = { type: 'object', properties: { a: { type: 'string' }, b: { enum: ['x', 'y', 'z'] }, c: { type: 'integer' } }, required: ['a', 'c'], additionalProperties: false };
    ws.write('schemas/tool.output.old.json', JSON.stringify(oldSchema));
    ws.write('schemas/tool.output.json', JSON.stringify(newSchema));
    for (const role of [undefined, 'input', 'output'] as const) {
      const flags = role ? ['--role', role] : [];
      const expected = cli(['schema-diff', 'schemas/tool.output.old.json', 'schemas/tool.output.json', '--format', 'json', ...flags], ws.root).json as { classification: string }[];
      assert.ok(expected.length > 0);
      const byPath = await mcp.ok('schema_diff', { old_path: 'schemas/tool.output.old.json', new_path: 'schemas/tool.output.json', ...(role ? { role } : {}) });
      assert.deepEqual(byPath.changes, expected, `paths, role ${role}`);
      assert.equal(byPath.role, role ?? 'output');
      assert.equal(byPath.breaking, expected.some((c) => c.classification === 'breaking'));
      const inline = await mcp.ok('schema_diff', { old_schema: oldSchema, new_schema: newSchema, role: role ?? 'output' });
      assert.deepEqual(inline.changes, expected, `inline, role ${role}`);
    }
    assert.match((await mcp.fails('schema_diff', { old_schema: {}, new_schema: {}, new_path: 'x.json' })).message, /give new_schema or new_path, not both/);
  });

  test('context: the per-agent context model deep-equals `context --json` (agents, --for, tokenizer)', async () => {
    cpSync(join(REPO_ROOT, 'test', 'fixtures', 'context', 'mixed'), join(ws.root, 'ctx-mixed'), { recursive: true });
    const dir = join(ws.root, 'ctx-mixed');
    const expected = cli(['context', '--json', '--', '.'], dir).json as { agents: unknown[]; diagnostics: unknown[] };
    assert.ok(expected.agents.length > 0 && expected.diagnostics.length > 0, 'the mixed fixture has agents and waste');
    assert.deepEqual(await mcp.ok('context', { path: 'ctx-mixed' }), expected);
    const narrowed = cli(['context', '--json', '--agent', 'claude-code', '--tokenizer', 'cl100k_base', '--', '.'], dir).json;
    assert.deepEqual(await mcp.ok('context', { path: 'ctx-mixed', agent: ['claude-code'], tokenizer: 'cl100k_base' }), narrowed);
    assert.match((await mcp.fails('context', { path: '../outside' })).message, /outside the server's roots/);
  });

  test('doc2toon names: validate/toon, content and options are aliases of ours', async () => {
    const md = read('examples/markdown/config-table.md');
    assert.deepEqual(await mcp.ok('profile', { content: md, options: { chars_per_token: [4], flavor: 'markdown' } }), await mcp.ok('profile', { text: md, chars_per_token: [4] }));
    assert.deepEqual(await mcp.ok('convert', { content: md, options: { mode: 'record', delimiter: '\t' } }), await mcp.ok('convert', { text: md, mode: 'record', delimiter: 'tab' }));
    assert.deepEqual(await mcp.ok('plan', { content: md }), await mcp.ok('plan', { text: md }));
    assert.deepEqual(await mcp.ok('validate', { toon: read('examples/toon/orders.toon') }), { valid: true, file: null });
    assert.match((await mcp.fails('profile', { content: md, text: md })).message, /content and text name the same argument/);
  });

  test('resources: every schema as toonlens://schemas/<name>, the code catalogue; the review prompt', async () => {
    const { resources } = await mcp.client.listResources();
    const uris = resources.map((r) => r.uri);
    for (const name of ['verdict.v1', 'report.v1', 'critique-report.v1', 'recipe-input.v1', 'recipe-output.v1', 'toonlens-config.v1']) {
      assert.ok(uris.includes(`toonlens://schemas/${name}`), name);
      const r = await mcp.client.readResource({ uri: `toonlens://schemas/${name}` });
      const c = r.contents[0] as { text: string };
      assert.deepEqual(JSON.parse(c.text), JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', `${name}.json`), 'utf8')));
    }
    const codes = JSON.parse(((await mcp.client.readResource({ uri: 'toonlens://codes' })).contents[0] as { text: string }).text) as { code: string }[];
    assert.ok(codes.some((c) => c.code === 'verdict/savings'));
    await assert.rejects(mcp.client.readResource({ uri: 'toonlens://schemas/nope' }), /Resource not found/);
    const { prompts } = await mcp.client.listPrompts();
    assert.deepEqual(prompts.map((p) => p.name), ['review-agent-file']);
    const p = await mcp.client.getPrompt({ name: 'review-agent-file', arguments: { path: 'AGENTS.md' } });
    assert.match((p.messages[0]!.content as { text: string }).text, /context waste[\s\S]*`plan`[\s\S]*`check`/);
  });

  test('paths outside the roots, symlinks out, /dev/zero and a FIFO: one clear error each, nothing read', async () => {
    symlinkSync(outside.root, join(ws.root, 'link-out'));
    for (const p of [join(outside.root, 'secret.md'), '../' + outside.root.split('/').pop() + '/secret.md', 'link-out/secret.md', '/dev/zero', '/etc/passwd']) {
      const e = await mcp.fails('profile', { path: p });
      assert.equal(e.code, 'bad_request', p);
      assert.match(e.message, /is outside the server's roots/, p);
    }
    assert.match((await mcp.fails('check', { text: '{}', file_name: '../elsewhere.json' })).message, /file_name '\.\.\/elsewhere\.json' is outside/);
    execFileSync('mkfifo', [join(ws.root, 'pipe.md')]);
    for (const tool of ['profile', 'check', 'fix', 'validate_toon']) {
      const e = await mcp.fails(tool, { path: 'pipe.md' });
      assert.match(e.message, /pipe\.md.*(FIFO|not a regular file)/i, tool);
    }
    assert.equal((await mcp.fails('profile', { path: 'missing.md' })).code, 'input_not_found');
  });

  test('text over the size limit is refused before any work', async () => {
    const e = await mcp.fails('check', { text: 'x'.repeat(17 * 1024 * 1024) });
    assert.equal(e.code, 'bad_request');
    assert.match(e.message, /^text is 17\.0 MB, over the 16 MB limit$/);
  });

  test('1,000 malformed calls, then a good call is answered', async () => {
    const bad: Promise<unknown>[] = [];
    const shapes: (() => Promise<unknown>)[] = [
      () => mcp.call('no_such_tool', {}).then(() => assert.fail('an unknown tool must be a JSON-RPC error'), (e: Error) => assert.match(e.message, /Unknown tool: no_such_tool/)),
      () => mcp.fails('check', {}).then((e) => assert.match(e.message, /missing input: give text or path/)),
      () => mcp.fails('check', { text: 42 }).then((e) => assert.match(e.message, /argument text must be string/)),
      () => mcp.fails('plan', { text: '# a', bogus: true }).then((e) => assert.match(e.message, /unknown property 'bogus'/)),
      () => mcp.fails('convert', { text: '# a', mode: 'fast' }).then((e) => assert.match(e.message, /mode must be one of "lossless", "record", "budget"/)),
      () => mcp.fails('apply_report', { path: 'nope.json' }).then((e) => assert.equal(e.code, 'input_not_found')),
      () => mcp.client.request({ method: 'tools/call', params: { name: 7 } } as never, CallToolResultSchema).then(() => assert.fail('a non-string name must be rejected'), (e: Error) => assert.match(e.message, /-32602|Invalid/)),
      () => mcp.client.request({ method: 'tools/nothing', params: {} } as never, CallToolResultSchema).then(() => assert.fail('an unknown method must be rejected'), (e: Error) => assert.match(e.message, /-32601|not found/i)),
    ];
    for (let i = 0; i < 1000; i++) bad.push(shapes[i % shapes.length]!());
    await Promise.all(bad);
    assert.deepEqual((await mcp.ok('check', { path: 'examples/markdown/long-section.md' })).files, cli(['check', '--format', 'json', 'examples/markdown/long-section.md'], ws.root).json);
  });
});

describe('the stdio pipe itself', () => {
  test('a line that is not JSON, not JSON-RPC or over the limit is answered with an error and costs only itself; stdin closed after the last request: it is still answered', async () => {
    assertBuilt();
    const child = spawn(process.execPath, [BIN, 'mcp'], { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.once('exit', r));
    const send = (m: unknown) => child.stdin.write((typeof m === 'string' ? m : JSON.stringify(m)) + '\n');
    send('this is not json');
    send({ jsonrpc: '2.0', id: 'x', nonsense: true });
    // One line over the limit (twice the text limit and its envelope), written in pieces.
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 34; i++) child.stdin.write(piece);
    child.stdin.write('\n');
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'plan', arguments: { text: readFileSync(join(REPO_ROOT, 'examples/markdown/AGENTS.md'), 'utf8') } } });
    child.stdin.end();
    assert.equal(await exited, 0);
    const replies = out.trim().split('\n').map((l) => JSON.parse(l) as { id: unknown; error?: { code: number; message: string }; result?: { structuredContent?: { context_plan?: unknown } } });
    assert.equal(replies.length, 5);
    assert.deepEqual(replies.slice(0, 3).map((r) => [r.id, r.error?.code]), [[null, -32700], ['x', -32600], [null, -32600]]);
    assert.match(replies[2]!.error!.message, /over the 32 MB limit; it was not read/);
    assert.equal(replies[3]!.id, 1);
    assert.equal(replies[4]!.id, 2);
    assert.ok(replies[4]!.result?.structuredContent?.context_plan, 'the plan answered after stdin ended');
  });
});

// ───────────── apply_report: consent ─────────────

const DOC = 'keep\nold\n';
const DR = 'x\ny\n';
function reportSpace(): TempWorkspace {
  const space = tempWorkspace({ 'doc.md': DOC, 'dr.md': DR }, { git: true });
  const report = makeReport([
    deterministicEntry('doc.md', { kind: 'move-to-archive', expected_sha256: sha(DOC), anchor: { start_line: 2, end_line: 2 }, dest_path: 'archive/doc.md' }),
    deterministicEntry('dr.md', { kind: 'delete-range', expected_sha256: sha(DR), anchor: { start_line: 1, end_line: 1 } }),
    generativeEntry('doc.md'),
  ]);
  space.write('hygiene.report.json', JSON.stringify(report, null, 2));
  return space;
}

describe('apply_report', () => {
  const spaces: TempWorkspace[] = [];
  after(() => spaces.forEach((s) => s.cleanup()));
  const fresh = () => {
    const s = reportSpace();
    spaces.push(s);
    return s;
  };

  test('dry run by default; refused with confirm when the server has no --allow-writes', async () => {
    const s = fresh();
    const server = await startStdio({ cwd: s.root });
    try {
      const before = s.snapshot();
      const dry = await server.ok('apply_report', { path: 'hygiene.report.json' });
      assert.deepEqual(dry, cli(['apply', 'hygiene.report.json', '--dry-run', '--format', 'json'], s.root).json);
      assert.equal(dry.wouldApply, 1);
      const planned = (dry.results as { entryIndex: number; status: string; tier?: string; changes?: { file: string; lines: string; action: string; preview: string }[] }[])[0]!;
      assert.equal(planned.status, 'would-apply');
      assert.equal(planned.tier, 'auto');
      assert.deepEqual(planned.changes!.map((c) => [c.file, c.lines, c.action]), [['archive/doc.md', 'new file', 'create'], ['doc.md', 'line 2', 'remove']]);
      assert.equal(planned.changes![1]!.preview, '- old');
      const refused = await server.fails('apply_report', { path: 'hygiene.report.json', confirm: true });
      assert.equal(refused.code, 'bad_request');
      assert.match(refused.message, /without --allow-writes/);
      assert.deepEqual(s.snapshot(), before, 'nothing written');
    } finally {
      await server.close();
    }
  });

  test('with --allow-writes and confirm: the auto entries written, as `toonlens apply --format json`; confirm tier only when named', async () => {
    const s = fresh();
    const twin = fresh();
    const server = await startStdio({ cwd: s.root, args: ['--allow-writes'] });
    try {
      const written = await server.ok('apply_report', { path: 'hygiene.report.json', confirm: true });
      const expected = cli(['apply', 'hygiene.report.json', '--format', 'json'], twin.root).json as Record<string, unknown>;
      assert.deepEqual(JSON.parse(JSON.stringify(written).replaceAll(s.root, '<root>')), JSON.parse(JSON.stringify(expected).replaceAll(twin.root, '<root>')));
      assert.equal(s.read('doc.md'), 'keep\n');
      assert.equal(s.read('archive/doc.md'), 'old\n');
      assert.equal(s.read('dr.md'), DR, 'the confirm-tier entry is not applied unless named');
      const named = await server.ok('apply_report', { path: 'hygiene.report.json', confirm: true, confirm_entries: [1] });
      assert.equal((named.results as { entryIndex: number; status: string }[]).find((r) => r.entryIndex === 1)!.status, 'applied');
      assert.equal(s.read('dr.md'), 'y\n');
    } finally {
      await server.close();
    }
  });

  test('a report outside the roots, or naming a path outside them, is refused', async () => {
    const s = fresh();
    const server = await startStdio({ cwd: s.root, args: ['--allow-writes'] });
    try {
      const other = fresh();
      assert.match((await server.fails('apply_report', { path: join(other.root, 'hygiene.report.json'), confirm: true })).message, /outside the server's roots/);
      assert.equal(other.read('doc.md'), DOC);
      const escaping = makeReport([deterministicEntry('../escape.md', { kind: 'delete-range', expected_sha256: sha(DR), anchor: { start_line: 1, end_line: 1 } })]);
      s.write('escape.report.json', JSON.stringify(escaping));
      const r = await server.ok('apply_report', { path: 'escape.report.json', confirm: true, confirm_entries: [0] });
      assert.equal(r.applied, 0);
      assert.equal((r.results as { status: string }[])[0]!.status, 'refused');
    } finally {
      await server.close();
    }
  });
});

describe('roots the client declares', () => {
  test('replace the server\'s own: paths resolve in them, the --root folder is then outside', async () => {
    const a = tempWorkspace({ 'a.md': '# A\n\n- one\n- two\n' });
    const b = tempWorkspace({ 'b.md': '# B\n\ntext\n' });
    mkdirSync(join(b.root, 'sub'));
    writeFileSync(join(b.root, 'sub', 'c.md'), '# C\n');
    const server = await startStdio({ cwd: a.root, args: ['--root', a.root], roots: [b.root] });
    try {
      assert.deepEqual(await server.ok('profile', { path: 'b.md' }), cli(['profile', 'b.md', '--json'], b.root).json);
      assert.ok(await server.ok('profile', { path: join(b.root, 'sub', 'c.md') }));
      assert.match((await server.fails('profile', { path: join(a.root, 'a.md') })).message, /outside the server's roots/);
    } finally {
      await server.close();
      a.cleanup();
      b.cleanup();
    }
  });
});

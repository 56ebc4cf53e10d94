/**
 * Findings worth reading, on real agent files (test/fixtures/precision, labelled by hand: docs/precision.md):
 * every finding `toonlens check` reports there is labelled, every warning-level rule is right at least 90 % of
 * the time, READMEs get no agent-file advice, and check, SARIF and profile report the same findings.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { run, type FileReport } from '../../server/src/cli/check';
import { run as runProfile } from '../../server/src/cli/profile';
import type { CliIO } from '../../server/src/cli/io';
import { CODES, isDiagnosticCode } from '../../server/src/core/codes';
import { AGENT_ADVICE_CODES } from '../../server/src/core/markdown/rules';
import { FIXTURES } from '../paths';

const DIR = join(FIXTURES, 'precision');
type Label = 'true' | 'false' | 'not-actionable';
const LABELS = (JSON.parse(readFileSync(join(DIR, 'labels.json'), 'utf8')) as { labels: Record<string, Record<string, Label>> }).labels;

async function cli(command: typeof run, args: string[]) {
  const out: string[] = [];
  const io: CliIO = { cwd: DIR, stdout: (t) => void out.push(t), stderr: () => undefined, readStdin: async () => '' };
  const code = await command(args, io);
  return { code, stdout: out.join('') };
}

let reports: FileReport[] | undefined;
async function checked(): Promise<FileReport[]> {
  // The sample labels the markdown rules; context/* (how the sample's folders look to agents, a walked folder being
  // a repository to check) is tested in context-*.test.ts.
  const all = JSON.parse((await cli(run, ['--format', 'json', '.'])).stdout) as FileReport[];
  return (reports ??= all.map((r) => ({ ...r, diagnostics: r.diagnostics.filter((d) => !d.code.startsWith('context/')) })));
}

const keyOf = (d: FileReport['diagnostics'][number]) => `${d.range.start.line + 1}:${d.code}`;

/** Precision per code over the labelled findings: true ÷ all (a not-actionable finding counts against it). */
function precisionByCode(labels: Record<string, Record<string, Label>>): Map<string, { all: number; right: number }> {
  const out = new Map<string, { all: number; right: number }>();
  for (const l of Object.values(labels)) {
    for (const [k, v] of Object.entries(l)) {
      const code = k.slice(k.indexOf(':') + 1);
      const c = out.get(code) ?? { all: 0, right: 0 };
      c.all++;
      if (v === 'true') c.right++;
      out.set(code, c);
    }
  }
  return out;
}

test('every finding on the sample is labelled, and every label is a finding', async () => {
  const rs = (await checked()).filter((r) => r.kind === 'markdown');
  assert.ok(rs.length >= 25, `${rs.length} files`);
  assert.deepEqual(rs.map((r) => r.file).sort(), Object.keys(LABELS).sort(), 'labels.json lists every sample file');
  for (const r of rs) assert.deepEqual(r.diagnostics.map(keyOf).sort(), Object.keys(LABELS[r.file]!).sort(), r.file);
});

test('every warning-level rule reaches 90 % precision on the sample', () => {
  const byCode = precisionByCode(LABELS);
  const warningCodes = [...byCode.keys()].filter((c) => isDiagnosticCode(c) && CODES[c].severity === 'warning');
  assert.deepEqual(warningCodes.sort(), ['toon/duplicate-rule', 'toon/vague-rule'], 'the sample has findings of every warning-level markdown rule');
  for (const code of warningCodes) {
    const { all, right } = byCode.get(code)!;
    assert.ok(all >= 5 && right / all >= 0.9, `${code}: ${right} of ${all}`);
  }
});

test('READMEs get no agent-file advice; agent files named by location do', async () => {
  const rs = await checked();
  for (const r of rs.filter((x) => x.file.startsWith('readme/'))) assert.deepEqual(r.diagnostics.filter((d) => AGENT_ADVICE_CODES.includes(d.code as never)), [], r.file);
  const mdc = rs.find((r) => r.file.endsWith('.mdc'))!;
  assert.ok(mdc.diagnostics.length > 0, 'a Cursor rule file gets the advice');
});

test('check, SARIF and profile report the same findings for the same file', async () => {
  const rs = (await checked()).filter((r) => r.kind === 'markdown');
  const sarif = JSON.parse((await cli(run, ['--format', 'sarif', '.'])).stdout);
  const results = sarif.runs[0].results as { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region: { startLine: number } } }[]; relatedLocations?: unknown[]; partialFingerprints?: Record<string, string> }[];
  for (const r of rs) {
    const uri = r.file.split('/').map(encodeURIComponent).join('/');
    const fromSarif = results.filter((x) => x.locations[0]!.physicalLocation.artifactLocation.uri === uri && !x.ruleId.startsWith('context/'));
    assert.ok(fromSarif.every((x) => x.locations[0]!.physicalLocation.artifactLocation.uriBaseId === '%SRCROOT%'), 'URIs relative to the working folder');
    assert.deepEqual(fromSarif.map((x) => `${x.locations[0]!.physicalLocation.region.startLine}:${x.ruleId}`), r.diagnostics.map(keyOf), `SARIF ${r.file}`);
    const profile = (await cli(runProfile as typeof run, [r.file])).stdout;
    const lines = [...profile.matchAll(/^ {4}(\d+):\d+ \w+ (\S+) /gm)].map((m) => `${m[1]}:${m[2]}`);
    assert.deepEqual(lines, r.diagnostics.map(keyOf), `profile ${r.file}`);
  }
  const dup = results.find((x) => x.ruleId === 'toon/duplicate-rule')!;
  assert.equal(dup.relatedLocations?.length, 1, 'a repeat names the first occurrence');
  assert.match(Object.values(dup.partialFingerprints ?? {})[0] ?? '', /^[0-9a-f]{16}:\d+$/);
  const rule = sarif.runs[0].tool.driver.rules.find((x: { id: string }) => x.id === 'toon/duplicate-rule');
  assert.ok(rule.fullDescription.text.length > rule.shortDescription.text.length && rule.help.text && rule.help.markdown);
});

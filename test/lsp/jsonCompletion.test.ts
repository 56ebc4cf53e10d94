// Completion and schema hovers on agent JSON, served by the ToonLens server from our schemas through
// vscode-json-languageservice (the manifest no longer hands the same files to VS Code's JSON service).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompletionRequest, InsertTextFormat, type CompletionItem, type MarkupContent } from 'vscode-languageserver-protocol/node';
import { LspHarness, REPO_ROOT, positionAt } from './harness';
import { critiqueText, reportText, verdictText } from './fixtures';
import { kindFromFileName } from '../../server/src/core/agentJson/kinds';

async function complete(h: LspHarness, uri: string, text: string, offset: number): Promise<CompletionItem[]> {
  const r = await h.connection.sendRequest(CompletionRequest.type, { textDocument: { uri }, position: positionAt(text, offset) });
  return Array.isArray(r) ? r : (r?.items ?? []);
}

const unquote = (s: string) => s.replace(/^"(.*)"$/, '$1');

test('the manifest hands VS Code\'s JSON service only a schema that accepts everything and proposes nothing, for every file-name convention', () => {
  // Without a schema VS Code's JSON service suggests every key and word of the document beside the server's items;
  // with our real schemas it would validate and hover the same files a second time.
  const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
  const entries = manifest.contributes.jsonValidation as { fileMatch: string[]; url: string }[];
  assert.equal(entries.length, 1);
  const schema = JSON.parse(readFileSync(join(REPO_ROOT, entries[0]!.url), 'utf8')) as Record<string, unknown>;
  assert.deepEqual(Object.keys(schema).filter((k) => !k.startsWith('$')), [], 'no keyword: every document is valid and nothing is proposed');
  for (const pattern of entries[0]!.fileMatch) assert.ok(kindFromFileName(`/w/${pattern.replace('*', 'my')}`), `${pattern} is a ToonLens file-name convention`);
  for (const name of ['verdict.json', 'a.verdict.json', 'hygiene-report.json', 'docs-hygiene-report.json', 'x.hygiene-report.json', 'x.report.json', 'critique-report.json', 'x.critique.json', 'x.critique-report.json', 'recipe-input.json', 'x.recipe-input.json', 'recipe-output.json', 'x.recipe-output.json']) {
    assert.ok(kindFromFileName(`/w/${name}`), name);
    assert.ok(entries[0]!.fileMatch.some((p) => (p.startsWith('*') ? name.endsWith(p.slice(1)) : name === p)), `${name} is matched`);
  }
  assert.ok(manifest.devDependencies['vscode-json-languageservice'], 'bundled into the server, which uses it');
});

describe('JSON completion and hover from our schemas', () => {
  let lsp: LspHarness;
  before(async () => {
    lsp = await LspHarness.start();
  });
  after(async () => {
    await lsp.shutdown();
  });

  test('the server advertises completion', () => {
    assert.ok(lsp.initializeResult?.capabilities.completionProvider, 'completionProvider');
  });

  test('enum values of a verdict field', async () => {
    const text = verdictText().replace(/"verdict": "[a-z_]+"/, '"verdict": ""');
    const uri = lsp.open('enum.verdict.json', text);
    await lsp.waitForDiagnostics(uri);
    const items = await complete(lsp, uri, text, text.indexOf('"verdict": ""') + '"verdict": "'.length);
    const labels = items.map((i) => unquote(i.label));
    for (const v of ['convert', 'keep_markdown', 'split_first', 'review', 'refused']) assert.ok(labels.includes(v), `${v}: ${labels.join(', ')}`);
    assert.equal(new Set(labels).size, labels.length, 'each value once');
  });

  test('property names: the report properties not yet present, with their descriptions', async () => {
    const text = '{\n  "schema_version": "1.0",\n  \n}\n';
    const uri = lsp.open('names.hygiene-report.json', text);
    const items = await complete(lsp, uri, text, text.indexOf('  \n') + 2);
    const labels = items.map((i) => i.label);
    for (const p of ['tool_version', 'generated_at', 'scan', 'entries', 'shortlist']) assert.ok(labels.includes(p), `${p}: ${labels.join(', ')}`);
    assert.ok(!labels.includes('schema_version'), 'present already');
    assert.ok(items.some((i) => i.documentation), 'descriptions from the schema');
  });

  test('a required-field snippet for an object value', async () => {
    const base = verdictText();
    const text = base.replace(/"measured_chars": \{[^}]*\}/, '"measured_chars": ');
    assert.notEqual(text, base);
    const uri = lsp.open('snippet.verdict.json', text);
    const items = await complete(lsp, uri, text, text.indexOf('"measured_chars": ') + '"measured_chars": '.length);
    const snippet = items.find((i) => /required fields/.test(i.label));
    assert.ok(snippet, items.map((i) => i.label).join(', '));
    assert.equal(snippet.insertTextFormat, InsertTextFormat.Snippet);
    const inserted = snippet.insertText ?? (snippet.textEdit && 'newText' in snippet.textEdit ? snippet.textEdit.newText : '');
    for (const p of ['source', 'toon', 'savings', 'savings_pct']) assert.match(inserted, new RegExp(`"${p}": \\$\\{\\d+`), inserted);
  });

  test('every kind: a critique report gets its enum values too', async () => {
    const text = critiqueText().replace('"fidelity": "hostloop"', '"fidelity": ""');
    const uri = lsp.open('a.critique.json', text);
    const labels = (await complete(lsp, uri, text, text.indexOf('"fidelity": ""') + '"fidelity": "'.length)).map((i) => unquote(i.label));
    assert.ok(labels.includes('hostloop'), labels.join(', '));
  });

  test('unrelated JSON gets no completion', async () => {
    const text = '{ "name": "" }';
    const uri = lsp.open('package-like.json', text);
    assert.deepEqual(await complete(lsp, uri, text, text.indexOf('""') + 1), []);
  });

  test('a hover never repeats itself: a derived field shows its explainer only', async () => {
    const text = verdictText();
    const uri = lsp.open('once.verdict.json', text);
    await lsp.waitForDiagnostics(uri);
    const h = await lsp.hover(uri, positionAt(text, text.indexOf('"safe_to_auto_apply"') + 3));
    const value = (h?.contents as MarkupContent).value;
    assert.match(value, /Decided by:/);
    assert.equal(value.split('**safe_to_auto_apply**').length - 1, 1, value);
    assert.ok(!value.includes('\n---\n'), 'one hover, not two stacked');
  });

  test('elsewhere the schema hover, once', async () => {
    const text = reportText();
    const uri = lsp.open('hover.hygiene-report.json', text);
    await lsp.waitForDiagnostics(uri);
    const h = await lsp.hover(uri, positionAt(text, text.indexOf('"generated_at"') + 3));
    assert.ok(h, 'a hover');
    const value = (h.contents as MarkupContent).value;
    const schema = JSON.parse(readFileSync(join(REPO_ROOT, 'schemas', 'report.v1.json'), 'utf8'));
    const description: string = schema.properties.generated_at.description;
    const firstWord = description.split(/\s+/)[0]!;
    assert.ok(value.includes(firstWord), `${value} / ${description}`);
    assert.equal(value.split(firstWord).length - 1, description.split(firstWord).length - 1, `the description appears once: ${value}`);
    assert.ok(!value.includes('\n---\n'), value);
  });
});

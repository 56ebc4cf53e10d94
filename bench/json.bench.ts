/**
 * JSON: ToonLens's full diagnostics (`checkDocument`: schema + every rule of the kind) of large valid
 * documents, next to `JSON.parse` of the same text and next to vscode-json-languageservice
 * (`parseJSONDocument` + `doValidation` with the same schema), all measured in this run.
 */
import { getLanguageService, type LanguageService } from 'vscode-json-languageservice';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { checkDocument } from '../server/src/core/check';
import { hoverAt } from '../server/src/core/hover';
import { SCHEMAS } from '../server/src/core/json/schema';
import type { DocumentKind } from '../server/src/core/types';
import type { Input } from './data';
import { time, type Row } from './stats';

const services = new Map<DocumentKind, LanguageService>();

function languageService(kind: DocumentKind): LanguageService {
  let ls = services.get(kind);
  if (!ls) {
    ls = getLanguageService({});
    // Registered once (resolved once, cached), as the JSON extension does for jsonValidation schemas.
    ls.configure({ validate: true, allowComments: false, schemas: [{ uri: `toonlens://schemas/${kind}`, fileMatch: ['*.json'], schema: SCHEMAS[kind] as never }] });
    services.set(kind, ls);
  }
  return ls;
}

export async function vscodeJsonValidate(text: string, kind: DocumentKind): Promise<number> {
  const ls = languageService(kind);
  const doc = TextDocument.create('file:///bench/doc.json', 'json', 1, text);
  const jsonDoc = ls.parseJSONDocument(doc);
  const diags = await ls.doValidation(doc, jsonDoc, { schemaValidation: 'error', trailingCommas: 'error', comments: 'error' });
  return diags.length;
}

export async function jsonRows(inputs: { input: Input; kind: DocumentKind; label: string; compareLanguageService: boolean }[], runs: number, log: (s: string) => void): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { input, kind, label, compareLanguageService } of inputs) {
    const mb = (input.bytes / 1e6).toFixed(1);
    const figure = `checkDocument, ${label} (${mb} MB, ${input.detail})`;
    const check = checkDocument(input.text, { kind });
    if (check.diagnostics.length) {
      throw new Error(`${input.name} should be valid; got ${check.diagnostics.length} diagnostics, first: ${check.diagnostics[0]!.code} ${check.diagnostics[0]!.message}`);
    }
    log(`  ${input.name}: ${mb} MB, ${input.detail}, 0 diagnostics`);
    const parse = await time(() => JSON.parse(input.text), runs);
    log(`    JSON.parse           median ${parse.median.toFixed(1)} ms`);
    const ours = await time(() => checkDocument(input.text, { kind }), runs);
    log(`    checkDocument        median ${ours.median.toFixed(1)} ms`);
    // The targets are for the large files; a 1 MB document's ratio is printed for information.
    const large = input.bytes > 5e6;
    rows.push({ figure, value: ours, unit: 'ms', anchor: { name: 'JSON.parse', value: parse, unit: 'ms' }, ...(large ? { target: { max: 3, label: '≤ 3× JSON.parse' } } : {}) });
    if (compareLanguageService) {
      const n = await vscodeJsonValidate(input.text, kind);
      const ls = await time(() => vscodeJsonValidate(input.text, kind), runs);
      log(`    vscode-json-ls       median ${ls.median.toFixed(1)} ms (${n} diagnostics)`);
      rows.push({ figure, value: ours, unit: 'ms', anchor: { name: 'vscode-json-languageservice parse + validate', value: ls, unit: 'ms' }, ...(large ? { target: { max: 0.15, label: '≤ 0.15× vscode-json-ls' } } : {}) });
    }
    if (large) {
      // A hover near the end of the document (the server's JSON hover entry point).
      const offset = input.text.lastIndexOf(kind === 'report' ? '"raw_tokens"' : '"savings_pct"') + 3;
      if (!hoverAt(input.text, offset, { kind })) throw new Error(`no hover at offset ${offset} of ${input.name}`);
      const hover = await time(() => hoverAt(input.text, offset, { kind }), runs);
      log(`    hoverAt (end)        median ${hover.median.toFixed(1)} ms`);
      rows.push({ figure: `JSON hover near the end, ${label} (${mb} MB)`, value: hover, unit: 'ms', anchor: { name: 'JSON.parse', value: parse, unit: 'ms' } });
    }
  }
  return rows;
}

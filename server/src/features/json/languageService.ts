/**
 * Adapter over vscode-json-languageservice for completion and schema hovers on agent JSON. It knows
 * nothing of ToonLens' core: it is given plain JSON Schemas keyed by a name (the document kind), each
 * registered under its own `$id` (so a document's `$schema` naming it resolves to our copy, never the
 * network) and matched to a document by that name. Nothing is validated here (diagnostics are the core's).
 *
 * Our schemas get one addition before they are registered: every object schema with `required`
 * properties gets a `defaultSnippets` entry ("required fields") whose body has those properties with
 * placeholders (enum values as a choice), so completing an object value offers the skeleton.
 */
import { getLanguageService, MarkupKind, type CompletionList, type Hover, type JSONDocument, type LanguageService, type MarkedString } from 'vscode-json-languageservice';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { Position } from 'vscode-languageserver/node';
import { isObject as isObj } from '../../core/json/value';
import { unescapePointerSegment } from '../../core/json/pointer';

/**
 * Documents longer than this get no language-service completion or hover: its parse (kept per version)
 * costs many times `JSON.parse` and several times the document's size in heap, so a large plan would stall
 * the server for seconds. Above it, hovers show the core's schema description.
 */
export const LANGUAGE_SERVICE_MAX_CHARS = 4 * 1024 * 1024;

type Schema = Record<string, unknown>;


/** The synthetic URI a document of kind `name` is given, so the schema association is exact. */
const kindUri = (name: string) => `toonlens-kind:/${encodeURIComponent(name)}.json`;

export class JsonSchemaHelp {
  private readonly service: LanguageService;
  private readonly names: ReadonlySet<string>;
  /** The last parsed document (completion and hover come in bursts on one version). */
  private cache: { uri: string; version: number; name: string; doc: TextDocument; json: JSONDocument } | undefined;

  constructor(schemas: Readonly<Record<string, object>>) {
    this.service = getLanguageService({
      // Every schema we use is registered; anything else (a foreign $schema URL) is not fetched.
      schemaRequestService: (uri) => Promise.reject(new Error(`ToonLens does not fetch schemas (${uri})`)),
      clientCapabilities: { textDocument: { completion: { completionItem: { documentationFormat: [MarkupKind.Markdown, MarkupKind.PlainText] } } } },
    });
    this.names = new Set(Object.keys(schemas));
    this.service.configure({
      validate: false,
      allowComments: false,
      schemas: Object.entries(schemas).map(([name, schema]) => {
        const s = withRequiredSnippets(schema as Schema);
        const id = typeof s.$id === 'string' ? s.$id : `toonlens-schema:/${encodeURIComponent(name)}.json`;
        return { uri: id, fileMatch: [kindUri(name)], schema: s };
      }),
    });
  }

  /** Completion items at `position` of a document of schema `name`; null when the document is too large or unknown. */
  async complete(doc: TextDocument, name: string, position: Position): Promise<CompletionList | null> {
    const parsed = this.parsed(doc, name);
    if (!parsed) return null;
    return this.service.doComplete(parsed.doc, position, parsed.json);
  }

  /** The schema's hover at `position` as markdown (contents joined), or null. */
  async hover(doc: TextDocument, name: string, position: Position): Promise<{ markdown: string; range?: Hover['range'] } | null> {
    const parsed = this.parsed(doc, name);
    if (!parsed) return null;
    const h = await this.service.doHover(parsed.doc, position, parsed.json);
    if (!h) return null;
    const markdown = markedText(h.contents).trim();
    return markdown ? { markdown, range: h.range } : null;
  }

  private parsed(doc: TextDocument, name: string) {
    if (!this.names.has(name)) return undefined;
    const text = doc.getText();
    if (text.length > LANGUAGE_SERVICE_MAX_CHARS) return undefined;
    const c = this.cache;
    if (c && c.uri === doc.uri && c.version === doc.version && c.name === name) return c;
    // The same text under the kind's synthetic URI (a BOM hidden: the service would not parse it).
    const bom = text.charCodeAt(0) === 0xfeff;
    const shadow = TextDocument.create(kindUri(name), 'json', doc.version, bom ? ' ' + text.slice(1) : text);
    const json = this.service.parseJSONDocument(shadow);
    this.cache = { uri: doc.uri, version: doc.version, name, doc: shadow, json };
    return this.cache;
  }
}

function markedText(c: Hover['contents']): string {
  const one = (m: MarkedString): string => (typeof m === 'string' ? m : '```' + m.language + '\n' + m.value + '\n```');
  if (Array.isArray(c)) return c.map(one).join('\n\n');
  if (typeof c === 'string') return c;
  return 'kind' in c ? c.value : one(c);
}

/** A copy of `schema` where each object schema listing `required` properties offers them as a snippet. */
export function withRequiredSnippets(schema: Schema): Schema {
  const root = schema;
  const visit = (node: unknown, depth: number): unknown => {
    if (Array.isArray(node)) return node.map((n) => visit(n, depth + 1));
    if (!isObj(node) || depth > 64) return node;
    const out: Schema = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === 'enum' || k === 'const' || k === 'examples' || k === 'default' ? v : visit(v, depth + 1);
    const required = Array.isArray(node.required) ? node.required.filter((r): r is string => typeof r === 'string') : [];
    if (required.length > 0 && isObj(node.properties) && out.defaultSnippets === undefined) {
      const body = requiredSnippet(root, node, required);
      if (body) {
        const label = snippetLabel(node);
        out.defaultSnippets = [{ label, description: `Inserts ${required.map((r) => `"${r}"`).join(', ')}`, bodyText: body }];
      }
    }
    return out;
  };
  return visit(schema, 0) as Schema;
}

/** "required fields", or "<discriminator> (required fields)" for a branch fixed by a `const` property. */
function snippetLabel(node: Schema): string {
  const props = node.properties as Schema;
  for (const p of Object.values(props)) {
    if (isObj(p) && typeof p.const === 'string') return `${p.const} (required fields)`;
  }
  return typeof node.title === 'string' ? `${node.title} (required fields)` : 'required fields';
}

/** The snippet text of an object with its required properties (tab stops in order). */
function requiredSnippet(root: Schema, node: Schema, required: string[]): string | undefined {
  const props = node.properties as Schema;
  let stop = 1;
  const lines: string[] = [];
  for (const name of required) {
    const prop = deref(root, props[name]);
    lines.push(`\t${JSON.stringify(name)}: ${placeholder(prop, () => stop++)}`);
  }
  if (lines.length === 0) return undefined;
  return `{\n${lines.join(',\n')}\n}`;
}

/** A snippet placeholder for a property value: the const itself, a choice of enum values, or a typed stop. */
function placeholder(prop: Schema | undefined, next: () => number): string {
  if (!prop) return `\${${next()}}`;
  if ('const' in prop) return JSON.stringify(prop.const);
  if (Array.isArray(prop.enum) && prop.enum.length > 0) {
    const values = prop.enum.map((v) => escapeChoice(JSON.stringify(v)));
    return `\${${next()}|${values.join(',')}|}`;
  }
  const types = Array.isArray(prop.type) ? prop.type : [prop.type];
  const t = types.find((x) => typeof x === 'string' && x !== 'null');
  switch (t) {
    case 'string':
      return `"\${${next()}}"`;
    case 'number':
    case 'integer':
      return `\${${next()}:0}`;
    case 'boolean':
      return `\${${next()}|false,true|}`;
    case 'array':
      return `[\${${next()}}]`;
    case 'object':
      return `{\${${next()}}}`;
    default: {
      if (prop.$ref === undefined && prop.properties !== undefined) return `{\${${next()}}}`;
      return `\${${next()}}`;
    }
  }
}

/** Snippet choice text: `,`, `|`, `$`, `}` and `\` are escaped. */
function escapeChoice(s: string): string {
  return s.replace(/[\\,|$}]/g, (c) => '\\' + c);
}

function deref(root: Schema, s: unknown): Schema | undefined {
  let cur = isObj(s) ? s : undefined;
  for (let hops = 0; cur && hops < 16 && typeof cur.$ref === 'string' && cur.$ref.startsWith('#/'); hops++) {
    let target: unknown = root;
    for (const raw of cur.$ref.slice(2).split('/')) target = isObj(target) ? target[unescapePointerSegment(raw)] : undefined;
    if (!isObj(target)) break;
    const { $ref: _ref, ...rest } = cur;
    cur = { ...target, ...rest };
  }
  return cur;
}

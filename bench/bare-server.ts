/**
 * The transport floor of the LSP rows (`bench/json-lsp.bench.ts`): a language server built on the same
 * vscode-languageserver as ToonLens that keeps open documents in `TextDocuments` and publishes an empty
 * diagnostics list on every open — no check at all. What it takes to receive a didOpen (time, memory) is
 * what any server on this transport pays before its own code runs. Bundled into .bench-data/ by the bench.
 */
import { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
connection.onInitialize(() => ({ capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental } }));
documents.onDidOpen((e) => void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] }));
documents.listen(connection);
connection.listen();

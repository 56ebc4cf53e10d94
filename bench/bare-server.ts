/**
 * The transport floor of the LSP rows (`bench/json-lsp.bench.ts`): a language server built on the same
 * vscode-languageserver as ToonLens that keeps open documents in `TextDocuments` and publishes an empty
 * diagnostics list on every open — no check at all. What it takes to receive a didOpen (time, memory) is
 * what any server on this transport pays before its own code runs. Bundled into .bench-data/ by the bench.
 *
 *   --stdio                     vscode-jsonrpc's own stream reader (what any server gets by default)
 *   --stdio --toonlens-reader   the reader ToonLens's server uses on stdio (server/src/node/stdioTransport.ts)
 */
import { createConnection, ProposedFeatures, TextDocuments, TextDocumentSyncKind } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { stdioStreams } from '../server/src/node/stdioTransport';
import { memoryMark, takeMemoryTrace } from '../server/src/testing/memoryTrace';
import { MEMORY_TRACE_COMMAND } from '../server/src/testing/hooks';

const ours = process.argv.includes('--toonlens-reader') ? stdioStreams((line) => process.stderr.write(`${line}\n`)) : undefined;
const connection = ours ? createConnection(ProposedFeatures.all, ours.reader, ours.writer) : createConnection(ProposedFeatures.all);
if (ours) ours.reader.onClose(() => process.exit(0));
const documents = new TextDocuments(TextDocument);
connection.onInitialize(() => ({ capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental } }));
documents.onDidOpen((e) => {
  if (e.document.getText().length >= 1 << 20) memoryMark('bare: document opened');
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
});
// The test-only memory trace (TOONLENS_TEST_COUNTERS), as a request here (ToonLens serves it as a command).
connection.onRequest(MEMORY_TRACE_COMMAND, () => takeMemoryTrace());
documents.listen(connection);
connection.listen();

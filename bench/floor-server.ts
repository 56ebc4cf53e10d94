/**
 * The floor under the LSP rows (`bench/json-lsp.bench.ts`): not a language server, the least a process can do
 * to take a didOpen off a pipe — answers `initialize` and `shutdown`, exits on `exit`, publishes an empty
 * diagnostics list for every didOpen. No vscode-jsonrpc, no TextDocuments.
 *
 *   (default)      keeps the chunks, Buffer.concat, toString('utf8'), JSON.parse: the minimum any reader
 *                  that builds the message string pays
 *   --count-only   counts the body's bytes and decodes nothing (the uri is read from the body's first KB):
 *                  what the client's encoding and the pipe cost alone
 * Bundled into .bench-data/ by the bench.
 */
const countOnly = process.argv.includes('--count-only');
let chunks: Buffer[] = [];
let total = 0;
let need = -1;

function send(message: unknown): void {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

interface Msg {
  id?: number | string;
  method?: string;
  params?: { textDocument?: { uri?: string } };
}

function handle(m: Msg): void {
  if (m.id !== undefined && m.method) send({ jsonrpc: '2.0', id: m.id, result: m.method === 'initialize' ? { capabilities: { textDocumentSync: 1 } } : null });
  else if (m.method === 'exit') process.exit(0);
  else if (m.method === 'textDocument/didOpen') send({ jsonrpc: '2.0', method: 'textDocument/publishDiagnostics', params: { uri: m.params?.textDocument?.uri, diagnostics: [] } });
}

/** The uri of a didOpen without decoding the body: the client writes `"uri":"…"` in its first bytes. */
function uriOf(body: Buffer): Msg {
  const head = body.toString('latin1', 0, Math.min(body.length, 2048));
  const at = head.indexOf('"uri":"');
  const uri = at < 0 ? undefined : head.slice(at + 7, head.indexOf('"', at + 7));
  return { method: head.includes('"textDocument/didOpen"') ? 'textDocument/didOpen' : undefined, params: { textDocument: { uri } } };
}

process.stdin.on('data', (chunk: Buffer) => {
  chunks.push(chunk);
  total += chunk.length;
  for (;;) {
    if (need < 0) {
      const head = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) {
        chunks = [head];
        return;
      }
      const m = /content-length: *([0-9]+)/i.exec(head.toString('latin1', 0, end));
      need = m ? Number(m[1]) : 0;
      const rest = head.subarray(end + 4);
      chunks = rest.length ? [rest] : [];
      total = rest.length;
      continue;
    }
    if (total < need) return; // chunks are joined once, when the body is complete
    const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total);
    const body = all.subarray(0, need);
    const rest = all.subarray(need);
    chunks = rest.length ? [rest] : [];
    total = rest.length;
    need = -1;
    handle(countOnly && body.length > 65536 ? uriOf(body) : (JSON.parse(body.toString('utf8')) as Msg));
    if (total === 0) return;
  }
});
process.stdin.on('end', () => process.exit(0));

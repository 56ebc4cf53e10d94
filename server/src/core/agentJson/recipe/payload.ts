/**
 * Transport sizes of update_recipe_build calls, measured the way the tool's schema description
 * defines them: "serialized tool arguments … including JSON escaping and the request envelope",
 * in UTF-8 bytes.
 *
 * - Serialization is the compact `JSON.stringify` an MCP client sends: `"`, `\` and control
 *   characters are escaped, non-ASCII text stays raw UTF-8 (2–4 bytes per character).
 * - The envelope is a JSON-RPC 2.0 `tools/call` request naming the tool (see {@link requestEnvelope}).
 * - A top-level `$schema` key is ToonLens's editor annotation, never sent: it is left out.
 */
import { createHash } from 'node:crypto';
import type { Obj } from './calls';

/** Keep serialized tool arguments (with envelope) below this: 32 KiB. */
export const PAYLOAD_LIMIT_BYTES = 32 * 1024;
/** Keep each complete append_chunk request below this: 12 KiB. */
export const APPEND_LIMIT_BYTES = 12 * 1024;
export const TOOL_NAME = 'update_recipe_build';

/** The JSON-RPC request that carries the arguments (id 1: the smallest realistic id). */
export function requestEnvelope(args: Obj): unknown {
  const { $schema: _annotation, ...sent } = args;
  return { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: TOOL_NAME, arguments: sent } };
}

/** UTF-8 byte length of the compact JSON serialization of a value. */
export function serializedBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
}

/** Bytes on the wire of the complete tools/call request for these arguments. */
export function requestBytes(args: Obj): number {
  return serializedBytes(requestEnvelope(args));
}

/** Lowercase hex SHA-256 of a text's UTF-8 bytes. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

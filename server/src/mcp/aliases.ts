/**
 * The producer's (doc2toon's) MCP tool and argument names, accepted where they overlap with ours, so a client
 * configured for doc2toon keeps working (the mapping is listed in docs/mcp.md). Aliases are accepted, never listed:
 * `tools/list` shows each tool once.
 */
import { CliError } from '../cli/io';

/** doc2toon tool name → ToonLens tool name. */
export const TOOL_ALIASES: Readonly<Record<string, string>> = { validate: 'validate_toon' };

/** doc2toon argument → ToonLens argument, per ToonLens tool. */
const ARG_ALIASES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  profile: { content: 'text' },
  convert: { content: 'text' },
  plan: { content: 'text' },
  validate_toon: { toon: 'text' },
};

/** doc2toon's delimiter characters → ours. */
const DELIMITERS: Readonly<Record<string, string>> = { ',': 'comma', '\t': 'tab', '|': 'pipe' };

/** doc2toon's `options` keys, lifted to the top level. `flavor` is accepted and has no effect (see docs/mcp.md). */
const OPTION_KEYS = new Set(['mode', 'delimiter', 'target_chars', 'target_tokens', 'allow_lossy', 'chars_per_token', 'flavor']);

/** The ToonLens tool name and arguments a call means, aliases resolved; a clash is a bad_request. */
export function resolveAliases(name: string, args: Record<string, unknown>): { name: string; args: Record<string, unknown> } {
  const tool = TOOL_ALIASES[name] ?? name;
  const renames = ARG_ALIASES[tool];
  if (!renames) return { name: tool, args };
  const out: Record<string, unknown> = {};
  const given = new Map<string, string>();
  const put = (key: string, value: unknown, from: string) => {
    const earlier = given.get(key);
    if (earlier !== undefined) throw new CliError('bad_request', `${earlier} and ${from} name the same argument (${key}); give one`);
    given.set(key, from);
    out[key] = value;
  };
  for (const [k, v] of Object.entries(args)) {
    if (k === 'options' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
      for (const [ok, ov] of Object.entries(v as Record<string, unknown>)) {
        if (!OPTION_KEYS.has(ok)) throw new CliError('bad_request', `options.${ok} is not an option (options: ${[...OPTION_KEYS].join(', ')})`);
        if (ok === 'flavor') continue;
        put(ok, ok === 'delimiter' && typeof ov === 'string' ? (DELIMITERS[ov] ?? ov) : ov, `options.${ok}`);
      }
      continue;
    }
    put(renames[k] ?? k, v, k);
  }
  return { name: tool, args: out };
}

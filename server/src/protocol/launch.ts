/**
 * How the language server's Node process is started. One definition for every place that starts it: the VS Code
 * client (client/src/extension.ts), the test harness (test/lsp/harness.ts) and the benchmarks (bench/), so what
 * `npm run bench` measures is what users run. Other editors start `node dist/server.js --stdio` themselves; the
 * server works without these settings (docs/performance.md, "Launch settings", lists what each one saves).
 *
 * - `--max-semi-space-size=2`: V8's young generation with small semi-spaces instead of the default. The
 *   server allocates in bursts (a large didOpen, a markdown analysis); a large young generation stays committed
 *   and raises resident memory, while cold lenses and first diagnostics stay as fast. Smaller still costs CPU for
 *   no further gain.
 * - `MALLOC_ARENA_MAX=1`: glibc gives each thread that mallocs (the JSON worker, V8's compiler and GC helpers)
 *   an arena of its own, and freed memory stays in those arenas; one arena gives it back.
 * - `MALLOC_TRIM_THRESHOLD_=131072`: glibc hands freed memory at the top of its heap back to the system above
 *   a fixed threshold instead of a dynamic one that grows after large frees, so a warm server stays smaller.
 * Neither glibc variable changes anything on another C library; a value already set in the environment wins.
 */

/** Node and V8 options placed before the server's script. */
export const SERVER_EXEC_ARGV: readonly string[] = ['--max-semi-space-size=2'];

/** Environment variables the server is started with, unless the environment already sets them. */
export const SERVER_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '1',
  MALLOC_TRIM_THRESHOLD_: '131072',
};

/** `SERVER_ENV` under the variables of `base` (a value `base` sets wins), as an additions-only record. */
export function serverEnvAdditions(base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(SERVER_ENV)) if (base[k] === undefined) out[k] = v;
  return out;
}

/** The transports the server accepts on its command line (vscode-languageserver's, with our own `--stdio`). */
const TRANSPORT = /^--(stdio|node-ipc|socket=\d+|pipe=.+|clientProcessId=\d+)$/;

/**
 * What the server answers without starting: `--help` (usage, exit 0), `--version` (exit 0), and a command line
 * naming no transport (usage on stderr, exit 2) — instead of a stack trace out of the bundle. Undefined: start.
 */
export function serverUsage(argv: readonly string[], version: string): { text: string; code: 0 | 2 } | undefined {
  const usage = `toonlens-language-server ${version} — the ToonLens language server (LSP 3.17)

Usage: toonlens-language-server --stdio
       toonlens-language-server --node-ipc | --socket=PORT | --pipe=NAME

An editor starts it and talks LSP over the transport named; it reads agent JSON, markdown, .toon files
and .toonlens.json. Other editors: https://github.com/toonlens/toonlens/blob/main/docs/install.md#other-editors
`;
  if (argv.includes('--help') || argv.includes('-h')) return { text: usage, code: 0 };
  if (argv.includes('--version') || argv.includes('-v')) return { text: `${version}\n`, code: 0 };
  if (!argv.some((a) => TRANSPORT.test(a)) && !argv.includes('--socket') && !argv.includes('--pipe')) return { text: `toonlens-language-server: no transport given\n\n${usage}`, code: 2 };
  return undefined;
}

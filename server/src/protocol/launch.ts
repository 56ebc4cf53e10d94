/**
 * How the language server's Node process is started. One definition for every place that starts it: the VS Code
 * client (client/src/extension.ts), the test harness (test/lsp/harness.ts) and the benchmarks (bench/), so what
 * `npm run bench` measures is what users run. Other editors start `node dist/server.js --stdio` themselves; the
 * server works without these settings (docs/performance.md, "Launch settings", lists what each one saves).
 *
 * - `--max-semi-space-size=2`: V8's young generation with 2 MB semi-spaces instead of up to 16 MB. The server
 *   allocates in bursts (a didOpen of 15 MB, a markdown analysis); a large young generation stays committed.
 *   Measured 2026-12-01 (one server each, idle reads): 4.2 MB markdown document, growth from a warm server 66 →
 *   47 MB; 14.6 MB plan, peak growth 88 → 74 MB; cold lenses and first diagnostics unchanged. 1 MB semi-spaces
 *   cost ~25 % more CPU for no further gain.
 * - `MALLOC_ARENA_MAX=1`: glibc gives each thread that mallocs (the JSON worker, V8's compiler and GC helpers)
 *   an arena of its own, and freed memory stays in those arenas: the same markdown document 47 → 37 MB.
 * - `MALLOC_TRIM_THRESHOLD_=131072`: glibc hands freed memory at the top of its heap back to the system above
 *   128 KB instead of keeping a dynamic threshold that grows to 32 MB after large frees: the warm server
 *   (tokenizer and markdown-it loaded) 110 → 89 MB.
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

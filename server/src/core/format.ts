/**
 * Numbers as every face shows them to a person (lenses, hovers, the status bar, diagnostic messages, CLI text):
 * integers with thousands separators (`2,341`), percentages with one decimal (`12.7%`, `12.0%`). JSON and SARIF
 * output keep plain numbers.
 */
const INTS = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });

/** `2341` → `2,341`. */
export function formatInt(n: number): string {
  return INTS.format(n);
}

/** A percentage with one decimal: `12.7%`; `signed` puts `+` before a positive one (`+12.7%`, `-2.0%`). */
export function formatPercent(pct: number, opts: { signed?: boolean } = {}): string {
  const text = `${Math.abs(pct).toFixed(1)}%`;
  if (pct < 0) return `-${text}`;
  return opts.signed && pct > 0 ? `+${text}` : text;
}

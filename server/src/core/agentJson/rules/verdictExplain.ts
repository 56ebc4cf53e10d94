/**
 * Hover explanations for verdict documents: on a derived field, the recorded value, the
 * derived one and the inputs that decide it; on a plan section, the slice it describes.
 * Everything is recomputed with ./verdict/derive.ts, the same derivation the rules use.
 */
import { MIN_CONVERT_SAVINGS_PCT, type WarningLike } from '../../markdown/policy';
import type { JsonPath } from '../../types';
import { deriveVerdict, isObj, type DerivedSection, type Measure, type Obj } from './verdict/derive';

function code(v: unknown): string {
  if (v === undefined) return '*absent*';
  const s = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v);
  return '`' + s.replace(/`/g, 'ˋ').replace(/\|/g, '\\|') + '`';
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function table(rows: [string, string][], head = 'input'): string {
  return [`| ${head} | value |`, '|---|---|', ...rows.map(([k, v]) => `| ${cell(k)} | ${v} |`)].join('\n');
}

/** Header line: recorded vs derived, with a mark when they differ. */
function header(name: string, recorded: unknown, derived: unknown, formula: string): string {
  const same = JSON.stringify(recorded) === JSON.stringify(derived);
  const verdict = recorded === undefined ? '' : same ? ' ✓' : ' ✗ (differs)';
  return `**${name}** — recorded ${code(recorded)}, derived ${code(derived)}${verdict}\n\n${formula}`;
}

function block(name: string, recorded: unknown, derived: unknown, formula: string, rows: [string, string][], because?: string): string {
  return [header(name, recorded, derived, formula), table(rows), because ? `Decided by: ${because}.` : undefined]
    .filter((x): x is string => x !== undefined)
    .join('\n\n');
}

function warningList(ws: readonly WarningLike[] | undefined, onlySeverityWarning = false): string {
  if (!ws) return '*unreadable*';
  const list = onlySeverityWarning ? ws.filter((w) => w.severity === 'warning') : ws;
  if (list.length === 0) return 'none';
  return list.map((w) => '`' + w.code + '`').join(', ');
}

function measureRows(m: Measure, toonName = 'toon'): [string, string][] {
  return [
    ['source', code(m.source)],
    [toonName, code(m.toon)],
    [`savings (source − ${toonName})`, code(m.savings)],
    ['unrounded percent', code(Number(m.rawPct.toFixed(4)))],
  ];
}

function get(o: unknown, ...keys: string[]): unknown {
  let cur = o;
  for (const k of keys) cur = isObj(cur) ? cur[k] : undefined;
  return cur;
}

function sectionWarnings(s: Obj): WarningLike[] | undefined {
  if (!Array.isArray(s.warnings)) return undefined;
  return s.warnings.filter(isObj).filter((w) => typeof w.code === 'string').map((w) => ({ code: w.code as string, severity: typeof w.severity === 'string' ? w.severity : undefined }));
}

function explainSection(s: Obj, d: DerivedSection, rest: JsonPath): string | undefined {
  const i = d.index;
  const ws = sectionWarnings(s);
  const key = rest[0];
  if (key === 'action' && rest.length === 1 && !d.frontmatter && d.action && d.actionDerived) {
    return block(`sections[${i}].action`, s.action, d.action, 'convert iff the section verdict is convert (its candidate assumed valid); keep otherwise.',
      [['verdict (derived)', code(d.verdict)], ['verdict (recorded)', code(s.verdict)]]);
  }
  if (key === 'action' && rest.length === 1 && d.frontmatter) {
    return block(`sections[${i}].action`, s.action, 'keep', 'Frontmatter is never measured: always keep.', [['kind', code(s.kind)]]);
  }
  if (key === 'safe_to_auto_apply' && rest.length === 1 && d.safety) {
    const rows: [string, string][] = d.frontmatter
      ? [['kind', code(s.kind)]]
      : [
          ['verdict (derived)', code(d.verdict)],
          ['mode', '`"lossless"` (plans measure sections losslessly)'],
          ['flags.lossless / flags.valid', '`true` / `true` (not on the wire; implied)'],
          ['savings', d.measure ? code(d.measure.savings) : '*unreadable*'],
          ['warning-severity warnings', warningList(ws, true)],
        ];
    return block(`sections[${i}].safe_to_auto_apply`, s.safe_to_auto_apply, d.safety.safe,
      'The whole-document formula on the standalone section: convert ∧ lossless ∧ valid ∧ savings > 0 ∧ no warning of severity warning.', rows, d.safety.because);
  }
  if (key === 'verdict' && rest.length === 1 && d.decision) {
    return block(`sections[${i}].verdict`, s.verdict, d.decision.verdict, `The decision policy on the standalone section (lossless, never refused): split_first on long_section/split_candidate, keep_markdown below ${MIN_CONVERT_SAVINGS_PCT}% unrounded, review on any warning, else convert.`,
      [...(d.measure ? measureRows(d.measure) : []), ['warnings', warningList(ws)]], d.decision.because);
  }
  if (key === 'measured_chars' && rest.length === 2 && d.measure && (rest[1] === 'savings' || rest[1] === 'savings_pct')) {
    const mc = s.measured_chars;
    if (rest[1] === 'savings') {
      return block(`sections[${i}].measured_chars.savings`, get(mc, 'savings'), d.measure.savings, 'source − toon.', measureRows(d.measure).slice(0, 2));
    }
    return block(`sections[${i}].measured_chars.savings_pct`, get(mc, 'savings_pct'), d.measure.pct, 'savings / source × 100, one decimal, half up (±0.05 accepted).', measureRows(d.measure));
  }
  // Any other key inside the section: describe the slice.
  const r = isObj(s.range) ? s.range : {};
  const rows: [string, string][] = [
    ['heading', code(s.heading)],
    ['kind', code(s.kind)],
    ['lines', `${code(r.line_start)}–${code(r.line_end)}`],
    ['chars', `[${code(r.char_start)}, ${code(r.char_end)})`],
    ['verdict', code(s.verdict) + (d.decision && d.decision.verdict !== s.verdict ? ` (derived ${code(d.decision.verdict)})` : '')],
    ['action', code(s.action) + (d.actionDerived && d.action && d.action !== s.action ? ` (derived ${code(d.action)})` : '')],
  ];
  if (d.measure) rows.push(['measured', `${d.measure.source} → ${d.measure.toon} chars (${d.measure.pct}%)`]);
  return [`**context_plan.sections[${i}]** — ${typeof s.heading === 'string' ? cell(s.heading) : String(s.kind)}`, table(rows, 'field')].join('\n\n');
}

/**
 * Markdown explaining the value at `path` of the verdict document `value` (the whole
 * parsed document), or undefined when the field is not derived (the hover then shows
 * the schema description).
 */
export function explainVerdict(value: unknown, path: JsonPath): string | undefined {
  try {
    return explain(value, path);
  } catch {
    return undefined;
  }
}

/** The warning object at `path` (…warnings[i] or a field of it), if any. */
function warningAt(value: Record<string, unknown>, path: JsonPath): Record<string, unknown> | undefined {
  const at = path.lastIndexOf('warnings');
  if (at < 0 || typeof path[at + 1] !== 'number' || path.length > at + 3) return undefined;
  let cur: unknown = value;
  for (const k of path.slice(0, at + 2)) cur = isObj(cur) || Array.isArray(cur) ? (cur as Record<string | number, unknown>)[k] : undefined;
  return isObj(cur) ? cur : undefined;
}

/** token_regression is ToonLens's own warning code: what it means and why it decides review. */
function explainTokenRegression(w: Record<string, unknown>): string {
  const rows: [string, string][] = [['severity', code(w.severity)]];
  if (typeof w.evidence === 'string') rows.push(['evidence', code(w.evidence)]);
  return [
    '**token_regression** — the TOON saves characters but not real tokens',
    '',
    'ToonLens counts the text Convert would write (kept heading line, fence lines, TOON, closing fence) with a real BPE tokenizer (`toonlens.tokenizer`, default `o200k_base`). When it saves fewer tokens than `toonlens.minTokenSavings` (default 1), or under `toonlens.minTokenSavingsPct` (default 5) percent of the section\'s own tokens, this warning is added: it has severity `warning`, so the decision policy decides `review` instead of `convert`, `safe_to_auto_apply` is false and the plan keeps the section as markdown. The policy itself is unchanged; with `--tokenizer estimate` the gate is off. verdict.v1\'s warning code set is open, so consumers tolerate the code.',
    '',
    table(rows),
  ].join('\n');
}

/** token_savings is ToonLens's own warning code: the 5 % decided on real tokens. */
function explainTokenSavings(w: Record<string, unknown>): string {
  const rows: [string, string][] = [['severity', code(w.severity)]];
  if (typeof w.evidence === 'string') rows.push(['evidence', code(w.evidence)]);
  return [
    '**token_savings** — the 5 % decided on real tokens',
    '',
    'The TOON saves characters, but under the character policy\'s 5 %; counted with a real BPE tokenizer (`toonlens.tokenizer`, default `o200k_base`) it saves at least `toonlens.minTokenSavings` tokens and `toonlens.minTokenSavingsPct` (default 5) percent of the section\'s own tokens. What a model pays for decides, so the character 5 % does not keep the section markdown: this warning records that on the wire. Severity `info`, and it sends nothing to `review`: with no other warning the verdict is `convert`. None with `--tokenizer estimate` (the producer\'s character policy) or with `minTokenSavingsPct` 0. verdict.v1\'s warning code set is open, so consumers tolerate the code.',
    '',
    table(rows),
  ].join('\n');
}

/** markdown_only is ToonLens's own warning code: what keeps the section markdown. */
function explainMarkdownOnly(w: Record<string, unknown>): string {
  return [
    '**markdown_only** — the section holds markdown a TOON fence would not keep as written',
    '',
    'An admonition (`!!!`/`???`), a reference-style link or a link reference definition, an HTML block, a footnote, or a code span whose text TOON would have to escape (a quote, a backslash or a line break: TOON escapes them in a quoted string under every delimiter). Moved into a fence, these stop rendering or read differently, so the decision policy decides `keep_markdown` whatever the savings, with every tokenizer. Severity `info`. verdict.v1\'s warning code set is open, so consumers tolerate the code.',
    '',
    table([['severity', code(w.severity)], ['message', typeof w.message === 'string' ? w.message : '*none*']]),
  ].join('\n');
}

function explain(value: unknown, path: JsonPath): string | undefined {
  if (!isObj(value)) return undefined;
  const w = warningAt(value, path);
  if (w && w.code === 'token_regression') return explainTokenRegression(w);
  if (w && w.code === 'markdown_only') return explainMarkdownOnly(w);
  if (w && w.code === 'token_savings') return explainTokenSavings(w);
  const d = deriveVerdict(value);
  const key = path.join('.');
  const mc = value.measured_chars;
  switch (key) {
    case 'safe_to_auto_apply': {
      if (!d.safety) return undefined;
      return block('safe_to_auto_apply', value.safe_to_auto_apply, d.safety.safe,
        'verdict convert ∧ mode lossless ∧ flags.lossless ∧ flags.valid ∧ savings > 0 ∧ no warning of severity warning.',
        [
          ['verdict (recorded)', code(value.verdict)],
          ['mode', code(value.mode)],
          ['flags.lossless', code(get(value, 'flags', 'lossless'))],
          ['flags.valid', code(get(value, 'flags', 'valid'))],
          ['savings (source − toon)', d.measure ? code(d.measure.savings) : '*unreadable*'],
          ['warning-severity warnings', warningList(d.warnings, true)],
        ], d.safety.because);
    }
    case 'verdict': {
      if (!d.decision || !d.measure) return undefined;
      return block('verdict', value.verdict, d.decision.verdict,
        `Decision policy, first match wins: refused (budget mode with budget_refused) → split_first (long_section/split_candidate) → keep_markdown (savings ≤ 0 or < ${MIN_CONVERT_SAVINGS_PCT}% unrounded) → review (any warning) → convert.`,
        [['mode', code(value.mode)], ...measureRows(d.measure), ['warnings', warningList(d.warnings)]], d.decision.because);
    }
    case 'measured_chars.savings':
      if (!d.measure) return undefined;
      return block('measured_chars.savings', get(mc, 'savings'), d.measure.savings, 'source − toon (negative when TOON is larger).', measureRows(d.measure).slice(0, 2));
    case 'measured_chars.savings_pct':
      if (!d.measure) return undefined;
      return block('measured_chars.savings_pct', get(mc, 'savings_pct'), d.measure.pct,
        'savings / source × 100, one decimal, half up (±0.05 accepted). The unrounded percent decides, not this one.', measureRows(d.measure));
  }
  if (path[0] !== 'context_plan' || !d.plan || !isObj(value.context_plan)) return undefined;
  const plan = value.context_plan;
  const dp = d.plan;
  if (key === 'context_plan.recommend_hybrid') {
    if (dp.recommend === undefined || !dp.net) return undefined;
    return block('recommend_hybrid', plan.recommend_hybrid, dp.recommend,
      `≥ 1 converted section ∧ net savings > 0 ∧ unrounded net percent ≥ ${MIN_CONVERT_SAVINGS_PCT}%.`,
      [['converted sections', code(dp.converted)], ...measureRows(dp.net, 'hybrid')], dp.recommendBecause);
  }
  if (key === 'context_plan.safe_to_auto_apply') {
    if (dp.safe === undefined) return undefined;
    return block('context_plan.safe_to_auto_apply', plan.safe_to_auto_apply, dp.safe,
      'recommend_hybrid ∧ converted > 0 ∧ every converted section safe ∧ reassembly_verified.',
      [
        ['recommend_hybrid (derived)', code(dp.recommend)],
        ['converted sections', code(dp.converted)],
        ['every converted section safe', code(dp.allConvertedSafe)],
        ['reassembly_verified (as recorded)', code(dp.reassemblyVerified)],
      ], dp.safeBecause);
  }
  if (path[1] === 'net' && path.length <= 3 && dp.net) {
    const net = plan.net;
    const rows = measureRows(dp.net, 'hybrid');
    if (path[2] === 'savings') return block('net.savings', get(net, 'savings'), dp.net.savings, 'source − hybrid (the exact assembled length, splice overhead included).', rows.slice(0, 2));
    if (path[2] === 'savings_pct') return block('net.savings_pct', get(net, 'savings_pct'), dp.net.pct, 'savings / source × 100, one decimal, half up (±0.05 accepted).', rows);
    return [`**context_plan.net** — the whole hybrid document against the source`, table([
      ...rows,
      ['savings (recorded)', code(get(net, 'savings'))],
      ['savings_pct (recorded / derived)', `${code(get(net, 'savings_pct'))} / ${code(dp.net.pct)}`],
      ['converted sections', code(dp.converted)],
    ], 'field')].join('\n\n');
  }
  if (path[1] === 'sections' && typeof path[2] === 'number' && Array.isArray(plan.sections)) {
    const s = plan.sections[path[2]];
    const ds = dp.sections[path[2]];
    if (!isObj(s) || !ds) return undefined;
    return explainSection(s, ds, path.slice(3));
  }
  return undefined;
}

#!/usr/bin/env node
// The GitHub Action's reporter (action.yml): reads the SARIF log `toonlens check` wrote and prints every finding as a
// workflow annotation (`::error file=…,line=…::…`, warnings as ::warning, infos and hints as ::notice), then appends
// a job summary (counts per severity, a table of the findings, errors first) to $GITHUB_STEP_SUMMARY.
// Usage: node scripts/action-report.mjs toonlens.sarif
import { appendFileSync, readFileSync } from 'node:fs';

/** Annotations shown per severity (GitHub itself shows only some per step); the summary lists the rest. */
const MAX_ANNOTATIONS = 50;
/** Rows of the summary table. */
const MAX_ROWS = 200;

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node scripts/action-report.mjs FILE.sarif\n');
  process.exit(2);
}
let log;
try {
  log = JSON.parse(readFileSync(file, 'utf8'));
} catch (e) {
  process.stdout.write(`::error title=ToonLens::cannot read the SARIF log ${file}: ${e.message.split('\n')[0]}\n`);
  process.exit(2);
}

const LEVELS = { error: 'error', warning: 'warning', note: 'notice', none: 'notice' };
const SEVERITY = { error: 'error', warning: 'warning', note: 'info', none: 'info' };
const ORDER = { error: 0, warning: 1, note: 2, none: 3 };

/** Workflow-command escaping: data escapes %, CR, LF; properties also ':' and ','. */
const data = (s) => String(s).replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const prop = (s) => data(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
const cell = (s) => String(s).replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');

const findings = [];
for (const run of log.runs ?? []) {
  for (const r of run.results ?? []) {
    const loc = r.locations?.[0]?.physicalLocation;
    const region = loc?.region ?? {};
    findings.push({
      level: r.level ?? 'warning',
      code: r.ruleId ?? '',
      message: r.message?.text ?? '',
      file: loc?.artifactLocation?.uri ? decodeURIComponent(loc.artifactLocation.uri) : undefined,
      line: region.startLine,
      col: region.startColumn,
      endLine: region.endLine,
      endCol: region.endColumn,
    });
  }
}
findings.sort((a, b) => ORDER[a.level] - ORDER[b.level] || String(a.file).localeCompare(String(b.file)) || (a.line ?? 0) - (b.line ?? 0));

const counts = { error: 0, warning: 0, info: 0 };
const shown = { error: 0, warning: 0, notice: 0 };
const out = [];
for (const f of findings) {
  counts[SEVERITY[f.level]]++;
  const cmd = LEVELS[f.level];
  if (shown[cmd]++ >= MAX_ANNOTATIONS) continue;
  const props = [];
  if (f.file) props.push(`file=${prop(f.file)}`);
  if (f.line) props.push(`line=${f.line}`);
  if (f.col) props.push(`col=${f.col}`);
  if (f.endLine) props.push(`endLine=${f.endLine}`);
  if (f.endCol && f.endLine === f.line) props.push(`endColumn=${f.endCol}`);
  props.push(`title=${prop(`toonlens ${f.code}`)}`);
  out.push(`::${cmd} ${props.join(',')}::${data(f.message)}`);
}
for (const [cmd, n] of Object.entries(shown)) if (n > MAX_ANNOTATIONS) out.push(`::${cmd}::toonlens: ${n - MAX_ANNOTATIONS} more ${cmd} findings are in the job summary and ${file}`);
const plural = (n, w) => `${n} ${w}${n === 1 ? '' : 's'}`;
const line = `toonlens check: ${plural(counts.error, 'error')}, ${plural(counts.warning, 'warning')}, ${plural(counts.info, 'info')}`;
out.push(line);
process.stdout.write(out.join('\n') + '\n');

const summaryFile = process.env.GITHUB_STEP_SUMMARY;
if (summaryFile) {
  const md = [`## ToonLens`, '', `${counts.error ? '❌' : '✅'} ${line.replace(/^toonlens check: /, '')}`, ''];
  if (findings.length) {
    md.push('| Severity | Location | Code | Message |', '| --- | --- | --- | --- |');
    for (const f of findings.slice(0, MAX_ROWS)) md.push(`| ${SEVERITY[f.level]} | \`${cell(f.file ?? '')}${f.line ? `:${f.line}` : ''}\` | \`${cell(f.code)}\` | ${cell(f.message)} |`);
    if (findings.length > MAX_ROWS) md.push('', `… and ${findings.length - MAX_ROWS} more in \`${cell(file)}\`.`);
    md.push('');
  }
  appendFileSync(summaryFile, md.join('\n') + '\n');
}

/**
 * Context waste as diagnostics on the agent files themselves (docs/agent-context.md#diagnostics):
 * `context/duplicate-instruction`, `context/over-budget`, `context/unreachable` (a file no agent loads, a glob
 * that matches nothing, a broken or too-deep `@import`) and `context/import-cycle`. Each carries its file's
 * repository path; related locations and the one-copy removal fix are offsets in the files they name.
 */
import { formatInt } from '../format';
import { CODES, type DiagnosticCode, type Severity } from '../codes';
import { AGENT_NAMES, MAX_IMPORT_DEPTH, type AgentId } from './agents';
import { eachDuplicate, groupInstructions, instructions, type Instruction } from './duplicates';
import { parseFrontmatter } from './frontmatter';
import type { ContextModel } from './model';

export interface ContextRelated {
  path: string;
  start: number;
  end: number;
  message: string;
}

export interface ContextTextEdit {
  start: number;
  end: number;
  newText: string;
}

export interface ContextDiagnostic {
  path: string;
  code: DiagnosticCode;
  severity: Severity;
  message: string;
  start: number;
  end: number;
  related?: ContextRelated[];
  /** A fix on this file only (never applied unattended: it deletes text). */
  fix?: { title: string; edits: ContextTextEdit[] };
}

export type ContextBudgets = Partial<Record<AgentId, number>>;

/** Instructions by path, reused while a file's text is unchanged (the editor keeps one across edits). */
export type InstructionCache = Map<string, { text: string; units: Instruction[] }>;

const fmt = formatInt;

function firstLine(text: string): { start: number; end: number } {
  const s = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let e = text.indexOf('\n', s);
  if (e < 0) e = text.length;
  if (e > s && text[e - 1] === '\r') e--;
  return { start: s, end: e };
}

/** 1-based line of an offset, through one line table per text (binary search). */
function lineFinder(): (text: string, offset: number) => number {
  const tables = new Map<string, number[]>();
  return (text, offset) => {
    let t = tables.get(text);
    if (!t) {
      t = [0];
      for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) t.push(i + 1);
      tables.set(text, t);
    }
    let lo = 0;
    let hi = t.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (t[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** Every context diagnostic of a model, grouped by nothing (each names its path), in path then offset order. */
export function contextDiagnostics(model: ContextModel, budgets: ContextBudgets = {}, cache?: InstructionCache): ContextDiagnostic[] {
  const out: ContextDiagnostic[] = [];
  const text = (p: string) => model.texts.get(p) ?? '';
  const sev = (c: DiagnosticCode) => CODES[c].severity;
  const lineOf = lineFinder();

  // Duplicates: per agent, then merged per instruction so one copy gets one diagnostic naming every agent.
  const unitsOf = (p: string): Instruction[] => {
    const t = text(p);
    const hit = cache?.get(p);
    if (hit && hit.text === t) return hit.units;
    const units = instructions(t, parseFrontmatter(t).bodyStart);
    cache?.set(p, { text: t, units });
    return units;
  };
  // Per agent, which files it loads together (docs/agent-context.md#diagnostics): both eligible, one an anchor
  // (paid on every request, or with a working path, loaded for it). Only a file that can pair with another is
  // split into instructions: an agent with one eligible file, or none paid up front, has no duplicate to find.
  type Load = { path: string; status: 1 | 2; always: boolean };
  const loads: { agent: AgentId; files: Load[] }[] = [];
  const paired = new Set<string>();
  for (const a of model.agents) {
    const files: Load[] = [];
    let anchors = 0;
    for (const e of a.entries) {
      if (e.matchesNothing) continue;
      const status = model.for !== '' ? (e.loaded ? 2 : e.class === 'on-use' ? 1 : 0) : e.class === 'always' ? 2 : 1;
      if (status === 0) continue;
      if (status === 2) anchors++;
      files.push({ path: e.path, status, always: e.class === 'always' });
    }
    // An agent's entries name each path once (a file loaded twice is one entry).
    if (anchors === 0 || files.length < 2) continue;
    loads.push({ agent: a.agent, files });
    for (const f of files) paired.add(f.path);
  }
  if (cache) for (const p of cache.keys()) if (!paired.has(p)) cache.delete(p);
  const groups = groupInstructions([...paired].map((p) => ({ path: p, instructions: unitsOf(p) })));
  /** Per copy (by number): every other copy an agent loads with it, in the order agents first name them, and which agents do. */
  type Other = { path: string; at: Instruction; exact: boolean; agents: AgentId[]; always: boolean };
  const dupes: { path: string; at: Instruction; others: Other[] }[] = [];
  const dupeOf = new Int32Array(groups.size).fill(-1);
  const index = new Map<string, number>();
  groups.paths.forEach((p, i) => index.set(p, i));
  const status = new Uint8Array(groups.paths.length);
  const always = new Uint8Array(groups.paths.length);
  for (const l of loads) {
    status.fill(0);
    always.fill(0);
    for (const f of l.files) {
      const i = index.get(f.path)!;
      status[i] = f.status;
      always[i] = f.always ? 1 : 0;
    }
    eachDuplicate(groups, status, (copy, other, exact) => {
      let d = dupes[dupeOf[copy.id]!];
      if (!d) {
        dupeOf[copy.id] = dupes.length;
        dupes.push((d = { path: groups.paths[copy.file]!, at: copy.at, others: [] }));
      }
      const both = always[copy.file] === 1 && always[other.file] === 1;
      const otherPath = groups.paths[other.file]!;
      // At most one other copy per agent: a short list, searched in place.
      const o = d.others.find((x) => x.path === otherPath);
      if (!o) d.others.push({ path: otherPath, at: other.at, exact, agents: [l.agent], always: both });
      else {
        if (!o.agents.includes(l.agent)) o.agents.push(l.agent);
        o.always &&= both;
      }
    });
  }
  for (const d of dupes) {
    const at = d.at;
    const others = d.others.map((o) => ({ ...o, line: lineOf(text(o.path), o.at.start) }));
    const first = others[0]!;
    const allNear = others.every((o) => !o.exact);
    const where = others.map((o) => `${o.path}:${o.line}${o.exact || allNear ? '' : ' (nearly)'}, loaded with it by ${o.agents.map((x) => AGENT_NAMES[x]).join(', ')}${o.always ? ' on every request' : ''}`).join('; ');
    out.push({
      path: d.path,
      code: 'context/duplicate-instruction',
      severity: sev('context/duplicate-instruction'),
      message: `${allNear ? 'Nearly the same' : 'The same'} instruction is also in ${where}: one copy is paid for nothing.`,
      start: at.start,
      end: at.end,
      related: others.map((o) => ({ path: o.path, start: o.at.start, end: o.at.end, message: o.exact ? 'the other copy' : 'a near copy' })),
      fix: { title: `Remove this copy (kept in ${first.path}:${first.line})`, edits: [{ start: at.removeStart, end: at.removeEnd, newText: '' }] },
    });
  }

  // Over budget: on the agent's costliest always-paid file.
  for (const a of model.agents) {
    const budget = budgets[a.agent];
    if (budget === undefined || a.alwaysTokens <= budget) continue;
    const paid = a.entries.filter((e) => e.alwaysTokens > 0).sort((x, y) => y.alwaysTokens - x.alwaysTokens);
    const top = paid[0];
    if (!top) continue;
    const parts = paid.slice(0, 5).map((e) => `${e.path} ${fmt(e.alwaysTokens)}`).join(', ');
    out.push({
      path: top.path,
      code: 'context/over-budget',
      severity: sev('context/over-budget'),
      message: `${AGENT_NAMES[a.agent]} pays ${fmt(a.alwaysTokens)} tokens on every request, over its contextBudget of ${fmt(budget)}: ${parts}${paid.length > 5 ? `, and ${paid.length - 5} more` : ''}.`,
      ...firstLine(text(top.path)),
      related: paid.slice(1).map((e) => ({ path: e.path, ...firstLine(text(e.path)), message: `${fmt(e.alwaysTokens)} tokens on every request` })),
    });
  }

  for (const u of model.unreachable) {
    out.push({ path: u.path, code: 'context/unreachable', severity: sev('context/unreachable'), message: `No agent loads this file: ${u.reasons.join('; ')}.`, ...firstLine(text(u.path)) });
  }
  for (const e of model.imports) {
    if (!e.found) out.push({ path: e.from, code: 'context/unreachable', severity: sev('context/unreachable'), message: `@${e.spec}: ${e.to} does not exist, so this import loads nothing.`, start: e.start, end: e.end });
    else if (e.tooDeep) out.push({ path: e.from, code: 'context/unreachable', severity: sev('context/unreachable'), message: `@${e.spec} is more than ${MAX_IMPORT_DEPTH} imports away from a memory file, past the depth agents follow: it loads nothing.`, start: e.start, end: e.end });
  }
  for (const c of model.cycles) {
    const from = c[c.length - 2]!;
    const to = c[c.length - 1]!;
    const edge = model.imports.find((e) => e.from === from && e.to === to);
    if (!edge) continue;
    out.push({ path: from, code: 'context/import-cycle', severity: sev('context/import-cycle'), message: `This import closes a cycle: ${c.join(' → ')}. Each file is loaded once; the cycle adds nothing.`, start: edge.start, end: edge.end });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.start - b.start));
}

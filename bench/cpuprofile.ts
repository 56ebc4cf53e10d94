/**
 * Summarizes a V8 .cpuprofile (from `node --cpu-prof`): self time per function (with file:line), top N.
 *   node --import tsx bench/cpuprofile.ts <file.cpuprofile> [N]
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

export function summarize(file: string, top = 25): string {
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    total += dt;
    const n = byId.get(id)!;
    const url = n.callFrame.url.replace(/^.*\/(node_modules\/|server\/src\/)/, '$1');
    const key = `${n.callFrame.functionName || '(anonymous)'} ${url}:${n.callFrame.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + dt);
  });
  const rows = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return rows.map(([k, us]) => `${(us / 1000).toFixed(1).padStart(9)} ms ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`).join('\n') + `\n${(total / 1000).toFixed(0)} ms total`;
}

if (process.argv[1] && /cpuprofile\.ts$/.test(process.argv[1])) {
  console.log(summarize(process.argv[2]!, Number(process.argv[3] ?? 25)));
}

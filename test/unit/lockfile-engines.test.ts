// Every package the lockfile installs accepts the Node versions package.json promises (`engines.node`), so `npm ci`
// prints no EBADENGINE on Node 20 (@azure/identity ≥ 4.13.2, pulled in by @vscode/vsce, wants Node 22;
// package.json's `overrides` pins 4.13.1, the last release for Node ≥ 20).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '../paths';

type Version = [number, number, number];

/** `20.19` → [20, 19, 0]; the wildcard parts (`x`, `*`, missing) are returned as `undefined`. */
function parts(v: string): (number | undefined)[] {
  const [a, b, c] = v.replace(/^v/, '').split('.');
  return [a, b, c].map((p) => (p !== undefined && /^\d+$/.test(p) ? Number(p) : undefined));
}

function cmp(a: Version, b: (number | undefined)[]): number {
  for (let i = 0; i < 3; i++) {
    const d = a[i]! - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** One comparator of a node-semver range (the forms npm's engines fields use). */
function satisfiesComparator(v: Version, c: string): boolean {
  const m = /^(>=|<=|>|<|=|\^|~)?(.*)$/.exec(c)!;
  const op = m[1] ?? '';
  const want = parts(m[2]!);
  if (want[0] === undefined) return true; // `*`, `x`
  const d = cmp(v, want);
  switch (op) {
    case '>=': return d >= 0;
    case '>': return d > 0;
    case '<=': return d <= 0;
    case '<': return d < 0;
    case '^': {
      if (d < 0) return false;
      const lead = want[0] !== 0 || want[1] === undefined ? 0 : want[1] !== 0 || want[2] === undefined ? 1 : 2;
      return want.slice(0, lead + 1).every((p, i) => p === undefined || v[i] === p);
    }
    case '~': return d >= 0 && v[0] === want[0] && (want[1] === undefined || v[1] === want[1]);
    default: return want.every((p, i) => p === undefined || v[i] === p); // `20`, `6.*`, `=1.2.3`
  }
}

function satisfies(version: string, range: string): boolean {
  const v = parts(version).map((p) => p ?? 0) as Version;
  return range.split('||').some((alt) => {
    const comparators = alt.trim().replace(/([<>=^~]) +/g, '$1').split(/ +/).filter((c) => c !== '');
    return comparators.every((c) => satisfiesComparator(v, c));
  });
}

test('the range check reads the engines forms the lockfile uses', () => {
  assert.ok(satisfies('20.19.0', '>=20.0.0') && satisfies('20.19.0', '>= 0.4') && satisfies('20.19.0', '*'));
  assert.ok(satisfies('20.19.0', '^20.19.0 || ^22.13.0 || >=24') && satisfies('20.19.0', '20 || >=22'));
  assert.ok(satisfies('20.19.0', '6.* || 8.* || >= 10.*') && satisfies('20.19.0', '>=16 || 14 >=14.17'));
  assert.ok(!satisfies('20.19.0', '>=22.0.0') && !satisfies('20.19.0', '^18.18.0') && !satisfies('20.19.0', '>=20.19 <20.19'));
  assert.ok(!satisfies('20.18.9', '^20.19.0 || ^22.13.0 || >=24') && !satisfies('21.0.0', '18 || 20 || >=22'));
  assert.ok(satisfies('0.7.4', '>=0.6.11 <=0.7.0 || >=0.7.3') && !satisfies('0.7.1', '>=0.6.11 <=0.7.0 || >=0.7.3'));
});

test('every locked package accepts the oldest Node package.json promises, and the running Node', () => {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  const oldest = /^>=\s*(\d+(?:\.\d+){0,2})$/.exec(pkg.engines.node);
  assert.ok(oldest, `package.json engines.node is a lower bound: ${pkg.engines.node}`);
  const lock = JSON.parse(readFileSync(join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { engines?: Record<string, string> | string[] }>;
  };
  const versions = [oldest[1]!, process.version];
  const refused: string[] = [];
  let checked = 0;
  for (const [path, entry] of Object.entries(lock.packages)) {
    const node = entry.engines !== undefined && !Array.isArray(entry.engines) ? entry.engines.node : undefined;
    if (node === undefined || path === '') continue;
    checked++;
    for (const v of versions) if (!satisfies(v, node)) refused.push(`${path} wants node ${node}, not ${v}`);
  }
  assert.ok(checked > 100, `engines fields read: ${checked}`);
  assert.deepEqual(refused, []);
});

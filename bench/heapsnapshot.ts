/**
 * A V8 heap snapshot (`.heapsnapshot`, what `--heapsnapshot-signal` writes) read into typed arrays, and the
 * aggregations bench/heap-breakdown.ts prints: self size by type/constructor, strings by size bucket, and the
 * retainer paths (edge names) of the objects a second snapshot has that the first had not.
 *
 * The file is read as bytes and its `nodes` and `edges` arrays scanned number by number (a 4 MB document's
 * snapshot is a few hundred MB: one JSON.parse of it would need a string longer than V8 allows); only the
 * header and the `strings` array go through JSON.parse.
 */
import { readFileSync } from 'node:fs';

export interface HeapSnapshot {
  /** Node count. */
  count: number;
  /** Per node: type index (into {@link nodeTypes}), name (string index), id, self size, edge count. */
  type: Uint8Array;
  name: Uint32Array;
  id: Uint32Array;
  selfSize: Float64Array;
  /** Per node: its first edge's index (edges of node i are firstEdge[i] … firstEdge[i + 1] - 1). */
  firstEdge: Uint32Array;
  /** Per edge: type index (into {@link edgeTypes}), name or index, target node index. */
  edgeType: Uint8Array;
  edgeName: Uint32Array;
  edgeTo: Uint32Array;
  nodeTypes: string[];
  edgeTypes: string[];
  strings: string[];
}

/** Numbers of a flat JSON array of non-negative integers starting at byte `from` (just after its `[`), into `out`. */
function scanInts(buf: Buffer, from: number, out: Float64Array): number {
  let i = from;
  let n = 0;
  let v = 0;
  let inNum = false;
  for (; i < buf.length; i++) {
    const c = buf[i]!;
    if (c >= 48 && c <= 57) {
      v = v * 10 + (c - 48);
      inNum = true;
    } else {
      if (inNum) {
        out[n++] = v;
        v = 0;
        inNum = false;
      }
      if (c === 93) break; // ]
    }
  }
  if (n !== out.length) throw new Error(`heap snapshot: expected ${out.length} numbers, read ${n}`);
  return i + 1;
}

export function readHeapSnapshot(file: string): HeapSnapshot {
  const buf = readFileSync(file);
  const nodesAt = buf.indexOf('"nodes":[');
  if (nodesAt < 0) throw new Error(`${file}: not a heap snapshot (no "nodes")`);
  const head = buf.toString('utf8', 0, nodesAt).trim().replace(/,$/, '');
  const meta = (JSON.parse(head + '}') as { snapshot: { meta: Record<string, unknown>; node_count: number; edge_count: number } }).snapshot;
  const nodeFields = meta.meta.node_fields as string[];
  const edgeFields = meta.meta.edge_fields as string[];
  const nodeTypes = (meta.meta.node_types as unknown[])[0] as string[];
  const edgeTypes = (meta.meta.edge_types as unknown[])[0] as string[];
  const nf = nodeFields.length;
  const ef = edgeFields.length;
  const count = meta.node_count;
  const edges = meta.edge_count;
  const rawNodes = new Float64Array(count * nf);
  let at = scanInts(buf, nodesAt + '"nodes":['.length, rawNodes);
  const edgesAt = buf.indexOf('"edges":[', at);
  const rawEdges = new Float64Array(edges * ef);
  at = scanInts(buf, edgesAt + '"edges":['.length, rawEdges);
  const stringsAt = buf.indexOf('"strings":[', at);
  const end = buf.lastIndexOf(']');
  const strings = JSON.parse(buf.toString('utf8', stringsAt + '"strings":'.length, end + 1)) as string[];

  const f = (name: string, fields: string[]) => {
    const i = fields.indexOf(name);
    if (i < 0) throw new Error(`heap snapshot: no field ${name}`);
    return i;
  };
  const [nType, nName, nId, nSize, nEdges] = ['type', 'name', 'id', 'self_size', 'edge_count'].map((x) => f(x, nodeFields)) as [number, number, number, number, number];
  const [eType, eName, eTo] = ['type', 'name_or_index', 'to_node'].map((x) => f(x, edgeFields)) as [number, number, number];
  const snap: HeapSnapshot = {
    count,
    type: new Uint8Array(count),
    name: new Uint32Array(count),
    id: new Uint32Array(count),
    selfSize: new Float64Array(count),
    firstEdge: new Uint32Array(count + 1),
    edgeType: new Uint8Array(edges),
    edgeName: new Uint32Array(edges),
    edgeTo: new Uint32Array(edges),
    nodeTypes,
    edgeTypes,
    strings,
  };
  let e = 0;
  for (let i = 0; i < count; i++) {
    const o = i * nf;
    snap.type[i] = rawNodes[o + nType]!;
    snap.name[i] = rawNodes[o + nName]!;
    snap.id[i] = rawNodes[o + nId]!;
    snap.selfSize[i] = rawNodes[o + nSize]!;
    snap.firstEdge[i] = e;
    e += rawNodes[o + nEdges]!;
  }
  snap.firstEdge[count] = e;
  for (let j = 0; j < edges; j++) {
    const o = j * ef;
    snap.edgeType[j] = rawEdges[o + eType]!;
    snap.edgeName[j] = rawEdges[o + eName]!;
    snap.edgeTo[j] = rawEdges[o + eTo]! / nf;
  }
  return snap;
}

const STRING_TYPES = new Set(['string', 'concatenated string', 'sliced string']);

/** A node's label as DevTools groups it: its constructor for objects, `(type)` with the name for internal ones. */
export function nodeLabel(s: HeapSnapshot, i: number): string {
  const type = s.nodeTypes[s.type[i]!]!;
  if (STRING_TYPES.has(type)) return `(${type})`;
  const name = s.strings[s.name[i]!] ?? '';
  if (type === 'object') return name;
  if (type === 'closure') return `(closure ${name || 'anonymous'})`;
  if (type === 'array' || type === 'hidden' || type === 'code' || type === 'object shape') return `(${type}) ${name.length > 40 ? name.slice(0, 40) + '…' : name}`;
  return `(${type})${name ? ' ' + name.slice(0, 40) : ''}`;
}

export function isString(s: HeapSnapshot, i: number): boolean {
  return STRING_TYPES.has(s.nodeTypes[s.type[i]!]!);
}

/** An edge's name as a path step: `.prop`, `[]` for element and hidden (index) edges, `<kind>` for the others. */
export function edgeStep(s: HeapSnapshot, e: number): string {
  const t = s.edgeTypes[s.edgeType[e]!]!;
  if (t === 'element' || t === 'hidden') return '[]';
  const n = s.strings[s.edgeName[e]!] ?? '?';
  if (t === 'context') return `.(ctx ${n})`;
  if (t === 'internal') return `.(${n})`;
  return `.${n}`;
}

/**
 * A breadth-first tree from the root over strong edges (weak edges skipped, as DevTools' distances): each
 * node's parent and the edge it was reached by (-1 for the root and unreachable nodes).
 */
export function retainerTree(s: HeapSnapshot): { parent: Int32Array; via: Int32Array } {
  const parent = new Int32Array(s.count).fill(-1);
  const via = new Int32Array(s.count).fill(-1);
  const seen = new Uint8Array(s.count);
  const weak = s.edgeTypes.indexOf('weak');
  const shortcut = s.edgeTypes.indexOf('shortcut');
  const queue = new Uint32Array(s.count);
  let head = 0;
  let tail = 0;
  queue[tail++] = 0;
  seen[0] = 1;
  while (head < tail) {
    const i = queue[head++]!;
    for (let e = s.firstEdge[i]!; e < s.firstEdge[i + 1]!; e++) {
      const t = s.edgeType[e]!;
      if (t === weak || t === shortcut) continue;
      const to = s.edgeTo[e]!;
      if (seen[to]) continue;
      seen[to] = 1;
      parent[to] = i;
      via[to] = e;
      queue[tail++] = to;
    }
  }
  return { parent, via };
}

/** Constructors too generic to name an owner: the path to an object goes on through them to a class of the program. */
const GENERIC = new Set(['Object', 'Array', 'Map', 'Set', 'WeakMap', 'Function', 'system', '']);

/**
 * The retainer path of node `i`: from its nearest owner (an object of a named, non-generic constructor, at
 * most `depth` steps up the tree) down to it, e.g. `EngineCache.slices.(table)[][].analysis`; with no such owner
 * within reach, the last `depth` steps.
 */
export function retainerPath(s: HeapSnapshot, tree: { parent: Int32Array; via: Int32Array }, i: number, depth = 8): string {
  const steps: string[] = [];
  let n = i;
  for (let k = 0; k < depth; k++) {
    const p = tree.parent[n]!;
    if (p < 0) return (k === 0 ? '(root)' : '(root)') + steps.join('');
    steps.unshift(edgeStep(s, tree.via[n]!));
    n = p;
    const type = s.nodeTypes[s.type[n]!]!;
    const label = nodeLabel(s, n);
    if ((type === 'object' && !GENERIC.has(label)) || type === 'synthetic' || type === 'closure') return label + steps.join('');
  }
  return '…' + nodeLabel(s, n) + steps.join('');
}

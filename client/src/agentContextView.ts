// The "Agent Context" view: agent → class → file → tokens, most expensive first, from the server's
// toonlens.agentContext answer; clicking a file opens it. UI only: the model is the server's.
import * as path from 'node:path';
import { EventEmitter, ThemeIcon, TreeItem, TreeItemCollapsibleState, Uri, type Event, type TreeDataProvider } from 'vscode';
import type { AgentContextAnswer } from '../../server/src/protocol/commands';

type Agent = NonNullable<AgentContextAnswer['agents']>[number];
type File = Agent['files'][number];

type Node = { kind: 'agent'; agent: Agent; root: string } | { kind: 'class'; agent: Agent; cls: File['class']; root: string } | { kind: 'file'; file: File; root: string } | { kind: 'message'; text: string };

/** One row of the view as shown. */
export interface ShownRow {
  depth: number;
  label: string;
  description: string;
  command?: { command: string; arguments: unknown[] };
}

const fmt = (n: number) => n.toLocaleString('en-US');
const CLASS_LABEL: Record<File['class'], string> = { always: 'Always (every request)', matching: 'When matching', 'on-use': 'On use' };

export class AgentContextView implements TreeDataProvider<Node> {
  private readonly changed = new EventEmitter<Node | undefined>();
  /** The top level as last read, and how many times it was read. */
  private top: Node[] = [];
  private reads = 0;
  readonly onDidChangeTreeData: Event<Node | undefined> = this.changed.event;

  /** `query` asks the server for the folder of the given document (or the first folder). */
  constructor(
    private readonly query: () => Promise<AgentContextAnswer | undefined>,
  ) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(n: Node): TreeItem {
    if (n.kind === 'message') return new TreeItem(n.text, TreeItemCollapsibleState.None);
    if (n.kind === 'agent') {
      const item = new TreeItem(n.agent.name, n.agent.files.length ? TreeItemCollapsibleState.Expanded : TreeItemCollapsibleState.None);
      item.description = `${fmt(n.agent.always_tokens)} tokens every request`;
      item.iconPath = new ThemeIcon('hubot');
      return item;
    }
    if (n.kind === 'class') {
      const files = n.agent.files.filter((f) => f.class === n.cls);
      const item = new TreeItem(CLASS_LABEL[n.cls], TreeItemCollapsibleState.Expanded);
      item.description = `${files.length} file${files.length === 1 ? '' : 's'} · ${fmt(files.reduce((s, f) => s + f.tokens, 0))} tokens`;
      return item;
    }
    const f = n.file;
    const item = new TreeItem(f.path, TreeItemCollapsibleState.None);
    const paid = f.class === 'on-use' ? `${fmt(f.always_tokens)} every request, ${fmt(f.tokens)} when used` : `${fmt(f.tokens)} tokens`;
    item.description = f.class === 'matching' && f.globs ? `${paid} · ${f.globs.join(', ')}` : paid;
    item.tooltip = f.imported_by ? `imported by ${f.imported_by}` : undefined;
    item.resourceUri = Uri.file(path.join(n.root, f.path));
    item.command = { command: 'vscode.open', title: 'Open', arguments: [item.resourceUri] };
    return item;
  }

  /**
   * The tree as VS Code last read it, row by row (depth, label, description, and the command a click runs), and
   * how many times it read the top level: what tests read (nothing is asked of the server here).
   */
  shown(): { reads: number; rows: ShownRow[] } {
    const rows: ShownRow[] = [];
    const walk = (nodes: Node[], depth: number) => {
      for (const n of nodes) {
        const item = this.getTreeItem(n);
        const label = typeof item.label === 'string' ? item.label : (item.label?.label ?? '');
        rows.push({ depth, label, description: typeof item.description === 'string' ? item.description : '', ...(item.command ? { command: { command: item.command.command, arguments: item.command.arguments ?? [] } } : {}) });
        walk(this.childrenOf(n), depth + 1);
      }
    };
    walk(this.top, 0);
    return { reads: this.reads, rows };
  }

  async getChildren(n?: Node): Promise<Node[]> {
    if (n) return this.childrenOf(n);
    const answer = await this.query().catch((err: unknown) => ({ error: String(err) }) as AgentContextAnswer);
    const root = answer?.root;
    this.top = !answer || answer.error || !root || !answer.agents
      ? [{ kind: 'message', text: answer?.error ?? 'No workspace folder' }]
      : [...answer.agents].sort((a, b) => b.always_tokens - a.always_tokens).map((agent) => ({ kind: 'agent', agent, root }));
    this.reads++;
    return this.top;
  }

  private childrenOf(n: Node): Node[] {
    if (n.kind === 'agent') {
      const classes = (['always', 'matching', 'on-use'] as const).filter((c) => n.agent.files.some((f) => f.class === c));
      return classes.map((cls) => ({ kind: 'class', agent: n.agent, cls, root: n.root }));
    }
    if (n.kind === 'class') {
      return n.agent.files
        .filter((f) => f.class === n.cls)
        .sort((a, b) => b.tokens - a.tokens)
        .map((file) => ({ kind: 'file', file, root: n.root }));
    }
    return [];
  }
}

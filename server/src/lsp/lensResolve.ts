/**
 * Code lenses sent unresolved and filled in through `codeLens/resolve`, one mechanism for every feature that
 * answers many lenses (reports, markdown plans): a document with more than {@link RESOLVE_LENSES_ABOVE} lenses
 * is answered with ranges and `data: [tag, set id, index]` only (about a third of the bytes), and each lens gets
 * its title and command when the editor shows it. A feature keeps the set it last sent per document; a lens of
 * a set that has since been replaced (an older version) resolves to a lens without a command saying the lenses
 * are being updated, since the client asks for the new version's lenses itself.
 */
import type { CodeLens, Command, Range } from 'vscode-languageserver/node';

/** Documents with more lenses than this are answered unresolved; smaller ones get complete lenses. */
export const RESOLVE_LENSES_ABOVE = 500;

let nextSetId = 1;

/** The lenses a feature sent unresolved, per document, and how `codeLens/resolve` makes their commands. */
export class UnresolvedLensSets<S> {
  private readonly sets = new Map<string, { id: number; set: S }>();

  /**
   * @param tag names the feature in the lenses' `data`, so each feature resolves only its own lenses.
   * @param commandOf the command of lens `index` of `set`, or undefined when there is no such lens.
   * @param staleTitle the title of a lens from a set that was replaced.
   */
  constructor(
    private readonly tag: string,
    private readonly commandOf: (set: S, index: number) => Command | undefined,
    private readonly staleTitle: string,
  ) {}

  /** A new set's id and its unresolved lenses, one per range (what a codeLens request answers). */
  static unresolved(tag: string, ranges: readonly Range[]): { id: number; lenses: CodeLens[] } {
    const id = nextSetId++;
    return { id, lenses: ranges.map((range, i) => ({ range, data: [tag, id, i] })) };
  }

  /** Keeps `set` (sent unresolved as set `id`) as the document's last answer. */
  remember(uri: string, id: number, set: S): void {
    this.sets.set(uri, { id, set });
  }

  /** The document's last answer was complete, or the document was closed. */
  forget(uri: string): void {
    this.sets.delete(uri);
  }

  /** Whether `lens` was sent by this feature (its `data` carries the feature's tag). */
  owns(lens: CodeLens): boolean {
    return this.dataOf(lens) !== undefined;
  }

  /** The resolved lens, or undefined when `lens` is not this feature's. */
  resolve(lens: CodeLens): CodeLens | undefined {
    const d = this.dataOf(lens);
    if (!d) return undefined;
    for (const { id, set } of this.sets.values()) {
      if (id !== d[0]) continue;
      const command = this.commandOf(set, d[1]);
      if (command) return { range: lens.range, command };
    }
    return { range: lens.range, command: { title: this.staleTitle, command: '' } };
  }

  private dataOf(lens: CodeLens): [number, number] | undefined {
    const d: unknown = lens.data;
    return Array.isArray(d) && d.length === 3 && d[0] === this.tag && typeof d[1] === 'number' && typeof d[2] === 'number' ? [d[1], d[2]] : undefined;
  }
}

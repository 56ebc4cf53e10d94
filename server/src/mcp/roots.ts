/**
 * The folders an MCP client may name paths in: the roots the client declares (`roots/list`), else the folders the
 * server was started with (`--root`, else its working directory). Every path a tool takes is resolved here, and a
 * path outside every root (after symlinks) is refused before anything reads it.
 */
import * as fs from 'node:fs';
import * as nodePath from 'node:path';
import { CliError } from '../cli/io';
import { isInside } from '../core/agentJson/report/paths';
import { fsPathOf } from '../node/files';

/** Asks the client for its roots; undefined when the client declares no roots capability. */
export type ClientRoots = () => Promise<readonly { uri: string }[] | undefined>;

/** The real path of an existing directory, else undefined. */
function realDir(p: string): string | undefined {
  try {
    const real = fs.realpathSync.native(p);
    return fs.statSync(real).isDirectory() ? real : undefined;
  } catch {
    return undefined;
  }
}

export class Roots {
  /** The client's roots, once asked; cleared when the client says they changed. */
  private fromClient: Promise<string[] | undefined> | undefined;

  constructor(
    /** The server's own roots (absolute): `--root` folders, else its working directory. */
    private readonly fallback: readonly string[],
    private readonly askClient?: ClientRoots,
  ) {}

  /** Forgets the client's roots (on `notifications/roots/list_changed`). */
  invalidate(): void {
    this.fromClient = undefined;
  }

  /** The roots in force, as real paths of existing directories, the first one the base of relative paths. */
  async list(): Promise<string[]> {
    const client = await (this.fromClient ??= this.loadClient());
    const dirs = client ?? this.fallback.map((d) => realDir(d)).filter((d): d is string => d !== undefined);
    return dirs;
  }

  private async loadClient(): Promise<string[] | undefined> {
    if (!this.askClient) return undefined;
    let roots: readonly { uri: string }[] | undefined;
    try {
      roots = await this.askClient();
    } catch {
      // A client that advertises roots but fails to list them gets the server's own roots, as one without the capability.
      return undefined;
    }
    if (roots === undefined) return undefined;
    return roots.map((r) => fsPathOf(r.uri)).flatMap((p) => (p === undefined ? [] : (realDir(p) ?? [])));
  }

  /**
   * An absolute path for `given` (relative paths from the first root) that lies inside a root, symlinks resolved
   * for the part that exists; else a bad_request CliError. `what` names the argument in the message.
   */
  async resolve(given: string, what = 'path'): Promise<{ abs: string; root: string }> {
    if (typeof given !== 'string' || given === '') throw new CliError('bad_request', `${what} must be a non-empty string`);
    if (given.includes('\0')) throw new CliError('bad_request', `${what} contains a NUL character`);
    const roots = await this.list();
    if (roots.length === 0) throw new CliError('bad_request', `${what} '${given}' cannot be resolved: the server has no root folder (the client declared none that exists on this machine)`);
    const abs = nodePath.resolve(roots[0]!, given);
    const real = realExisting(abs);
    const root = roots.find((r) => isInside(r, real) || real === r);
    if (root === undefined) throw new CliError('bad_request', `${what} '${given}' is outside the server's roots (${roots.join(', ')})`);
    return { abs: real, root };
  }
}

/** The path with the longest existing prefix replaced by its real path (so a symlink out of a root is seen). */
function realExisting(abs: string): string {
  let head = abs;
  const tail: string[] = [];
  for (;;) {
    try {
      const real = fs.realpathSync.native(head);
      return tail.length ? nodePath.join(real, ...tail.reverse()) : real;
    } catch {
      const up = nodePath.dirname(head);
      if (up === head) return abs;
      tail.push(nodePath.basename(head));
      head = up;
    }
  }
}

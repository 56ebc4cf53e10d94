/**
 * Finds and reads `.toonlens.json` for a file: the nearest one in the file's folder or above it, stopping at
 * the project root — the first folder holding `.git`, or the workspace root when one is given, whichever
 * comes first. Cached per folder until {@link ConfigLoader.clear}.
 */
import { existsSync, statSync } from 'node:fs';
import { readRegularText } from './files';
import { dirname, join, relative, sep } from 'node:path';
import { CONFIG_FILE_NAME, EMPTY_CONFIG, isIgnored, parseConfig, type ToonLensConfig } from '../core/config';
import { isInside } from '../core/agentJson/report/paths';

export interface LoadedConfig {
  /** Absolute path of the file; undefined when there is none (the defaults apply). */
  file?: string;
  /** The folder the file's globs are relative to. */
  dir?: string;
  config: ToonLensConfig;
  /** Syntax or schema problems, one line each. */
  problems: string[];
}

const NONE: LoadedConfig = Object.freeze({ config: EMPTY_CONFIG, problems: [] });

/** A project config is a few lines of JSON; a larger file is refused rather than read. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads one config file through the bounded reader (a read failure is a problem, not a throw): only a regular
 * file within MAX_CONFIG_BYTES, so a FIFO, /dev/zero or a huge file ends in one line instead of a hang.
 */
export function readConfigFile(file: string): LoadedConfig {
  const read = readRegularText(file, MAX_CONFIG_BYTES);
  if (!read.ok) return { file, dir: dirname(file), config: EMPTY_CONFIG, problems: [`cannot read: ${read.reason}`] };
  const text = read.text;
  const parsed = parseConfig(text);
  return { file, dir: dirname(file), config: parsed.config, problems: parsed.problems };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export class ConfigLoader {
  private readonly byDir = new Map<string, LoadedConfig>();

  /** The config that applies to an absolute file path (`root`: the workspace folder, a hard upper bound). */
  forFile(absPath: string, root?: string): LoadedConfig {
    return this.forDir(dirname(absPath), root);
  }

  forDir(dir: string, root?: string): LoadedConfig {
    const visited: string[] = [];
    let found: LoadedConfig = NONE;
    let d = dir;
    for (;;) {
      const hit = this.byDir.get(d);
      if (hit) {
        found = hit;
        break;
      }
      visited.push(d);
      const candidate = join(d, CONFIG_FILE_NAME);
      if (isFile(candidate)) {
        found = readConfigFile(candidate);
        break;
      }
      const up = dirname(d);
      if (existsSync(join(d, '.git')) || (root !== undefined && samePath(d, root)) || up === d) break;
      if (root !== undefined && !isInside(root, up)) break;
      d = up;
    }
    for (const v of visited) this.byDir.set(v, found);
    return found;
  }

  clear(): void {
    this.byDir.clear();
  }
}

function samePath(a: string, b: string): boolean {
  return relative(a, b) === '';
}

/** Whether the loaded config's ignore globs match a file. */
export function ignoredByConfig(loaded: LoadedConfig, absPath: string): boolean {
  if (!loaded.dir || loaded.config.ignore.length === 0) return false;
  return isIgnored(loaded.config.ignore, relative(loaded.dir, absPath).split(sep).join('/'));
}

/** Whether the config's `agentFiles` globs name the file (the same glob reading as `ignore`). */
export function agentFileByConfig(loaded: LoadedConfig, absPath: string): boolean {
  if (!loaded.dir || loaded.config.agentFiles.length === 0) return false;
  return isIgnored(loaded.config.agentFiles, relative(loaded.dir, absPath).split(sep).join('/'));
}

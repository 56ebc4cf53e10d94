/**
 * Where the tests find their inputs. Everything lives inside the repository: a clone with nothing
 * beside it runs every test. The producer corpus (doc2toon's own verdicts and the markdown it ran on,
 * MIT, see fixtures/corpus/LICENSE.md) and the team's contract schemas were copied in once.
 */
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
/** The one fixtures folder. */
export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');
/** doc2toon's verdicts (profile/convert/plan responses) on its own example and fixture documents. */
export const CORPUS_DIR = join(FIXTURES, 'corpus', 'doc2toon');
/** The markdown those verdicts were produced from, byte-exact. */
export const CORPUS_INPUTS = join(FIXTURES, 'corpus', 'doc2toon-inputs');
/** The contracts as the team published them (upstream schemas; ours live in schemas/). */
export const SPECS = join(FIXTURES, 'specs');

/** Every `.ts` file below `dir` (sorted, depth first): the source trees the layout tests read. */
export function tsSources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsSources(p));
    else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

// The extension manifest's editor surface the languages ToonLens serves, and
// a command palette where every command has the ToonLens category and a title no other command shadows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_COMMANDS, COMMANDS, DEFAULT_MARKDOWN_LANGUAGES } from '../../server/src/protocol/commands';
import { REPO_ROOT } from '../paths';

interface Manifest {
  activationEvents: string[];
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    configuration: { properties: Record<string, { type: string; default: unknown }> };
    languages: { id: string; extensions?: string[] }[];
  };
}
const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as Manifest;
const commands = manifest.contributes.commands;
const label = (c: { title: string; category?: string }) => `${c.category}: ${c.title}`;

/** Whether every query word is a prefix of a label word, in order (how the palette's word filter reads a query). */
function wordsMatch(query: string, text: string): boolean {
  const words = text.toLowerCase().split(/[\s:]+/).filter(Boolean);
  let i = 0;
  for (const q of query.toLowerCase().split(/[\s:]+/).filter(Boolean)) {
    while (i < words.length && !words[i]!.startsWith(q)) i++;
    if (i++ >= words.length) return false;
  }
  return true;
}

test('every command has the ToonLens category and a distinct title without the prefix', () => {
  for (const c of commands) {
    assert.equal(c.category, 'ToonLens', c.command);
    assert.doesNotMatch(c.title, /^ToonLens/i, c.command);
  }
  assert.equal(new Set(commands.map((c) => c.title.toLowerCase())).size, commands.length);
  for (const id of [...Object.values(COMMANDS), ...Object.values(CLIENT_COMMANDS)]) assert.ok(commands.some((c) => c.command === id), `${id} is contributed`);
  assert.ok(commands.some((c) => c.title === 'Show Output') && commands.some((c) => c.title === 'Restart Server'));
});

test('typing "ToonLens: Convert section" matches Convert Section only, never Convert All', () => {
  const hits = (q: string) => commands.filter((c) => wordsMatch(q, label(c))).map((c) => c.command);
  assert.deepEqual(hits('ToonLens: Convert section'), ['toonlens.convertSection']);
  assert.deepEqual(hits('ToonLens: Convert all'), ['toonlens.convertAll']);
  assert.deepEqual(hits('ToonLens: Revert'), ['toonlens.revertSection']);
  // Each command's own title finds only itself.
  for (const c of commands) assert.deepEqual(hits(label(c)), [c.command], label(c));
});

test('the agent-file languages activate ToonLens; .mdc is markdown; toonlens.markdownLanguages exists', () => {
  for (const id of DEFAULT_MARKDOWN_LANGUAGES) assert.ok(manifest.activationEvents.includes(`onLanguage:${id}`), id);
  assert.ok(manifest.contributes.languages.some((l) => l.id === 'markdown' && l.extensions?.includes('.mdc')));
  const setting = manifest.contributes.configuration.properties['toonlens.markdownLanguages'];
  assert.equal(setting?.type, 'array');
  assert.deepEqual(setting?.default, []);
});

/**
 * What the MCP server offers besides tools: the JSON Schemas ToonLens checks against (`toonlens://schemas/<name>`),
 * the diagnostic code catalogue (`toonlens://codes`), and the prompt "review this agent file for context waste".
 */
import verdictSchema from '../../../schemas/verdict.v1.json';
import reportSchema from '../../../schemas/report.v1.json';
import critiqueSchema from '../../../schemas/critique-report.v1.json';
import recipeInputSchema from '../../../schemas/recipe-input.v1.json';
import recipeOutputSchema from '../../../schemas/recipe-output.v1.json';
import configSchema from '../../../schemas/toonlens-config.v1.json';
import contextSchema from '../../../schemas/context.v1.json';
import { CODE_GROUPS, CODES } from '../core/codes';

const SCHEMA_FILES: Readonly<Record<string, { schema: unknown; title: string }>> = {
  'verdict.v1': { schema: verdictSchema, title: 'verdict.v1: the savings verdict and context plan' },
  'report.v1': { schema: reportSchema, title: 'Docs-hygiene report' },
  'critique-report.v1': { schema: critiqueSchema, title: 'Critique report' },
  'recipe-input.v1': { schema: recipeInputSchema, title: 'update_recipe_build arguments' },
  'recipe-output.v1': { schema: recipeOutputSchema, title: 'review_recipe_build result' },
  'toonlens-config.v1': { schema: configSchema, title: '.toonlens.json' },
  'context.v1': { schema: contextSchema, title: 'toonlens context --json: what each agent loads' },
};

export const CODES_URI = 'toonlens://codes';
const SCHEMA_PREFIX = 'toonlens://schemas/';

export interface ResourceInfo {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

export function listResources(): ResourceInfo[] {
  return [
    ...Object.entries(SCHEMA_FILES).map(([name, f]) => ({ uri: SCHEMA_PREFIX + name, name, title: f.title, description: `The JSON Schema ToonLens checks ${f.title} documents against.`, mimeType: 'application/schema+json' })),
    { uri: CODES_URI, name: 'codes', title: 'Diagnostic codes', description: 'Every code ToonLens reports: default severity, description, the kinds that carry it, its group.', mimeType: 'application/json' },
  ];
}

/** The text of a resource, or undefined for an unknown URI. */
export function readResource(uri: string): { uri: string; mimeType: string; text: string } | undefined {
  if (uri === CODES_URI) {
    const codes = Object.entries(CODES).map(([code, c]) => ({ code, severity: c.severity, description: c.description, scopes: c.scopes, group: CODE_GROUPS[c.group] }));
    return { uri, mimeType: 'application/json', text: JSON.stringify(codes, null, 2) };
  }
  if (!uri.startsWith(SCHEMA_PREFIX)) return undefined;
  const f = Object.hasOwn(SCHEMA_FILES, uri.slice(SCHEMA_PREFIX.length)) ? SCHEMA_FILES[uri.slice(SCHEMA_PREFIX.length)] : undefined;
  return f ? { uri, mimeType: 'application/schema+json', text: JSON.stringify(f.schema, null, 2) } : undefined;
}

export const REVIEW_PROMPT = {
  name: 'review-agent-file',
  title: 'Review this agent file for context waste',
  description: 'Reviews an agent file (AGENTS.md, CLAUDE.md, SKILL.md, a rules file) for context waste with ToonLens\'s plan and check tools.',
  arguments: [{ name: 'path', description: 'The agent file, inside the server\'s roots', required: true }],
};

/** The prompt's messages for one file. */
export function reviewPromptMessages(path: string): { role: 'user'; content: { type: 'text'; text: string } }[] {
  const text = [
    `Review the agent file ${JSON.stringify(path)} for context waste: text an agent loads on every run that costs tokens without changing what it does.`,
    '',
    `1. Call the ToonLens tool \`plan\` with {"path": ${JSON.stringify(path)}}: which sections would be cheaper as TOON (action convert), the net savings, and whether a hybrid is recommended.`,
    `2. Call \`check\` with {"path": ${JSON.stringify(path)}}: duplicate rules, vague rules, long sections, split candidates, with their lines.`,
    '3. Call `context` (no arguments: the repository): which agents load this file and in which class, what each pays on every request, and the instructions it shares with other files loaded together (context/duplicate-instruction).',
    '4. Report, most tokens first: each finding with its section and line, why it wastes context, and a concrete edit (delete, merge, move into an on-demand skill, or convert the section with `convert_section`).',
    '',
    'Quote the measured figures from the tool results; do not estimate. Change nothing unless asked.',
  ].join('\n');
  return [{ role: 'user', content: { type: 'text', text } }];
}

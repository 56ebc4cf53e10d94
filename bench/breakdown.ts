/**
 * Timers around each stage of checkDocument (parse, schema, rules) on the benchmark inputs, plus ajv
 * option experiments on the same schema — to say where the JSON time goes.
 *   node --import tsx bench/breakdown.ts [runs]
 */
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parseJson } from '../server/src/core/json/parse';
import { SCHEMAS, validateAgainstSchema } from '../server/src/core/json/schema';
import { RULES } from '../server/src/core/agentJson/rules/index';
import type { DocumentKind } from '../server/src/core/types';
import { plan15MB, plan1MB, report10MB, type Input } from './data';
import { time } from './stats';

const runs = Number(process.argv[2] ?? 5);

function ajvVariant(kind: DocumentKind, opts: Record<string, unknown>) {
  const a = new Ajv2020({ strict: false, validateFormats: true, ...opts });
  addFormats(a);
  return a.compile(SCHEMAS[kind]);
}

async function stages(input: Input, kind: DocumentKind): Promise<void> {
  const text = input.text;
  const value = JSON.parse(text);
  validateAgainstSchema(kind, value);
  const row = async (name: string, fn: () => unknown) => {
    const s = await time(fn, runs);
    console.log(`  ${name.padEnd(52)} ${s.median.toFixed(1).padStart(8)} ms  (${s.min.toFixed(1)} – ${s.max.toFixed(1)})`);
  };
  console.log(`${input.name} (${(input.bytes / 1e6).toFixed(1)} MB, ${input.detail})`);
  await row('JSON.parse', () => JSON.parse(text));
  await row('parseJson (core)', () => parseJson(text));
  await row('validateAgainstSchema (allErrors, verbose)', () => validateAgainstSchema(kind, value));
  await row(`RULES.${kind} (no workspace)`, () => RULES[kind](value, { text }));
  const variants: [string, Record<string, unknown>][] = [
    ['ajv allErrors+verbose (as core)', { allErrors: true, verbose: true }],
    ['ajv allErrors, unicodeRegExp: false', { allErrors: true, unicodeRegExp: false }],
    ['ajv first error only', { allErrors: false }],
    ['ajv first error only, unicodeRegExp: false', { allErrors: false, unicodeRegExp: false }],
  ];
  for (const [name, opts] of variants) {
    const v = ajvVariant(kind, opts);
    if (!v(value)) console.log(`    (${name} rejects the document!)`);
    await row(name, () => v(value));
  }
}

void (async () => {
  await stages(plan1MB(), 'verdict');
  await stages(plan15MB(), 'verdict');
  await stages(report10MB(), 'report');
})();

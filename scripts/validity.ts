/**
 * `npm run validity`: how well every offline metric tracks people on SummEval dev. The report is
 * computed by src/lib/node/validity/compute.ts (what is scored and how is described there); this
 * is its command line.
 *
 * Usage: npm run validity                 print the table
 *        npm run validity -- --write      also store it in src/lib/metrics/validity-summeval.json
 *                                         (what the cards show) and in the README
 *        npm run validity -- --models DIR  look for transformer models in DIR
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { messageOf } from '../src/lib/errors.ts';
import { validityMarkdown } from '../src/lib/metrics/validity.ts';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { computeValidity } from '../src/lib/node/validity/compute.ts';
import { DEFAULT_MODELS_DIR } from '../src/lib/node/validity/models.ts';
import {
  describeReport,
  README_FILE,
  readmeWithTable,
  REPORT_FILE,
} from '../src/lib/node/validity/report-files.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      write: { type: 'boolean', default: false },
      models: { type: 'string' },
    },
  });
  const started = performance.now();
  const report = await computeValidity({
    modelsDir: values.models ? resolve(values.models) : DEFAULT_MODELS_DIR,
    onProgress: (done, total) => {
      if (done % 100 === 0 || done === total) process.stderr.write(`scored ${done}/${total}\r`);
    },
  });
  process.stderr.write(`\n${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  console.log(describeReport(report));
  if (values.write) {
    writeFileSync(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(
      README_FILE,
      readmeWithTable(readFileSync(README_FILE, 'utf8'), validityMarkdown(report)),
    );
    console.error(`wrote ${relative(repoRoot, REPORT_FILE)} and the table in README.md`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(messageOf(error));
    process.exit(1);
  });
}

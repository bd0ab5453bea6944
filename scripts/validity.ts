/**
 * `npm run validity`: how well every offline metric tracks people on SummEval dev. The report is
 * computed by src/lib/node/validity/compute.ts (what is scored and how is described there); this
 * is its command line.
 *
 * Usage: npm run validity                 print the table
 *        npm run validity -- --write      also store it in src/lib/metrics/validity-summeval.json
 *                                         (what the cards show) and in docs/validity.md
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
  VALIDITY_PAGE,
  readmeWithTable,
  REPORT_FILE,
  SETS_REPORT_FILE,
  SETS_TABLE_END,
  SETS_TABLE_START,
} from '../src/lib/node/validity/report-files.ts';
import { qualitySamples } from '../src/lib/node/quality-samples.ts';
import { RATED_SET_INFO } from '../src/lib/node/validity/rated-sets.ts';
import { setsValidity, setsValidityMarkdown } from '../src/lib/node/validity/sets-report.ts';

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

  const samples = await qualitySamples((done, total) => {
    if (done % 500 === 0 || done === total) process.stderr.write(`signals ${done}/${total}\r`);
  });
  const sets = setsValidity(
    samples,
    Object.fromEntries(Object.entries(RATED_SET_INFO).map(([k, v]) => [k, v.description])),
  );
  const setsTable = setsValidityMarkdown(sets);
  console.log(
    [
      '',
      'Every rated data set (faithfulness = consistency / factuality labels; coverage = relevance):',
      'left-out = fit without this data set (the figure cards quote); in-sample = the stored fit, which saw it; not fit = nothing tuned.',
      'AUC and balanced accuracy where labels are binary or each source has one summary; the threshold comes from the other families.',
      '',
      setsTable,
    ].join('\n'),
  );
  if (values.write) {
    writeFileSync(REPORT_FILE, `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(SETS_REPORT_FILE, `${JSON.stringify(sets, null, 2)}\n`);
    const readme = readmeWithTable(readFileSync(VALIDITY_PAGE, 'utf8'), validityMarkdown(report));
    writeFileSync(
      VALIDITY_PAGE,
      readmeWithTable(readme, setsTable, SETS_TABLE_START, SETS_TABLE_END),
    );
    console.error(
      `wrote ${relative(repoRoot, REPORT_FILE)}, ${relative(repoRoot, SETS_REPORT_FILE)} and the tables in docs/validity.md`,
    );
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    console.error(messageOf(error));
    process.exit(1);
  });
}

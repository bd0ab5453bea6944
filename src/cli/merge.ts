/**
 * `npm run score -- merge OUT… [--out FILE] [--summary-json FILE] [--config …] [--assert …]
 * [--junit FILE] [--baseline RUN …]`: the --out files of a run's N shards (shard.ts) joined into
 * what one run over the whole file writes: the rows in file order, byte for byte, and the summary
 * recomputed from them, its means summed in the same order as that run sums them.
 *
 * Each shard's record (OUT.shard.json) is checked first: one input, one set of scoring options,
 * every shard from 1 to N once, each OUT as its run left it. Anything else is refused before a
 * line is written (exit 2). The assertions and the regression gate are the merge's own, given as
 * to a run (a config file in the current folder counts, as for a run): a row's `assertions` field
 * is written again from them, so it says what one run with those checks would have said.
 */
import { once } from 'node:events';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeAssertion } from '../lib/assertions/assertion.ts';
import { flagMetric } from '../lib/assertions/flags.ts';
import type { CompareRow } from '../lib/datasets/compare.ts';
import { needsWordSegmenter, resolveTask } from '../lib/datasets/tinyeval.ts';
import { messageOf } from '../lib/errors.ts';
import { loadJiebaNode } from '../lib/metrics/lexical/jieba.ts';
import type { WordSegmenter } from '../lib/metrics/lexical/cjk-words.ts';
import { slimResult } from './baseline.ts';
import { checkOptions, RunChecks, type CheckOptions } from './checks.ts';
import { EXIT } from './exit.ts';
import { scrubSecrets } from './llm-env.ts';
import { checkWritable, reasonOf, replaceFile, ResultFile } from './outputs.ts';
import { formatSummary, RunAccumulator } from './report.ts';
import {
  checkShardSet,
  linesInRowOrder,
  MergeRefused,
  readShard,
  type Shard,
} from './merge-shards.ts';

const USAGE = `usage: npm run score -- merge OUT OUT… [options]

  Joins the --out files of the N shards of one run (npm run score -- FILE --shard I/N --out OUT)
  into that run's output; each OUT needs the OUT.shard.json its run wrote beside it.

  --out FILE            write the merged JSON lines there instead of stdout
  --summary-json FILE   write the summary of all the rows as JSON
  --config FILE, --assert CHECK, --junit FILE, --baseline RUN, --fail-on-regression ID,ID,
  --margin X            check the merged rows as a run checks its rows (npm run score -- --help)

Exit status: 0 as a run's; 1 as a run's (a bad row or a metric in error in any shard, a failed
assertion, a regression); 2 when the shards are refused (not shard outputs, of other inputs or
options, one missing or given twice) or an option is wrong, before anything is written.`;

interface MergeOptions {
  shards: string[];
  out?: string;
  summaryJson?: string;
  checks: CheckOptions;
}

function parseMergeOptions(argv: string[]): MergeOptions | 'help' {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      'summary-json': { type: 'string' },
      config: { type: 'string' },
      assert: { type: 'string', multiple: true },
      junit: { type: 'string' },
      baseline: { type: 'string' },
      'fail-on-regression': { type: 'string' },
      margin: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return 'help';
  if (positionals.length === 0) throw new MergeRefused(USAGE);
  return {
    shards: positionals,
    ...(values.out ? { out: values.out } : {}),
    ...(values['summary-json'] ? { summaryJson: values['summary-json'] } : {}),
    checks: checkOptions({ ...values, failOn: values['fail-on-regression'] }),
  };
}

/** The first assertion that needs a metric the shards did not score, in words. */
function unscoredByShards(checks: CheckOptions, metrics: readonly string[]): string | undefined {
  for (const a of checks.assertions) {
    const needed = a.kind === 'no-flag' ? flagMetric(a.flag) : a.metric;
    if (!metrics.includes(needed)) {
      return `The assertion "${describeAssertion(a)}" needs ${needed}, which the shards did not score (they scored ${metrics.join(', ')}).`;
    }
  }
  return undefined;
}

export async function runMerge(argv: string[]): Promise<number> {
  let options: MergeOptions | 'help';
  let shards: Shard[];
  let checks: RunChecks;
  try {
    options = parseMergeOptions(argv);
    if (options === 'help') {
      console.error(USAGE);
      return EXIT.ok;
    }
    shards = checkShardSet(options.shards.map(readShard));
    const outputs = [options.out, options.summaryJson, options.checks.junit];
    const overwritten = shards.find((s) =>
      outputs.some((o) => o !== undefined && resolve(o) === resolve(s.path)),
    );
    if (overwritten) {
      throw new MergeRefused(
        `${overwritten.path} is one of the shards being merged: write the merged results elsewhere.`,
      );
    }
    if (options.out) checkWritable('--out', options.out);
    if (options.summaryJson) checkWritable('--summary-json', options.summaryJson);
    if (options.checks.junit) checkWritable('--junit', options.checks.junit);
    const metrics = shards[0]!.record.scoring.metrics as string[];
    const unscored = unscoredByShards(options.checks, metrics);
    if (unscored) throw new MergeRefused(unscored);
    checks = RunChecks.prepare(options.checks, shards[0]!.record.input.file, metrics);
  } catch (error) {
    console.error(messageOf(error));
    return EXIT.stopped;
  }
  const first = shards[0]!.record;
  const scrub = (text: string) => scrubSecrets(text);
  let result: ResultFile | undefined;
  try {
    result = options.out ? new ResultFile(options.out) : undefined;
  } catch (error) {
    console.error(`--out ${options.out}: cannot write there (${reasonOf(error)}).`);
    return EXIT.stopped;
  }
  const out = result?.stream ?? process.stdout;
  out.on('error', (error: NodeJS.ErrnoException) => {
    // As a run: a reader that went away (`| head`) ends the merge quietly.
    if (error.code === 'EPIPE') process.exit(EXIT.ok);
    console.error(
      `Cannot write the merged rows to ${result?.partial ?? 'stdout'} (${reasonOf(error)}).`,
    );
    process.exit(EXIT.failed);
  });

  const acc = new RunAccumulator();
  for (const { record } of shards) {
    acc.rows += record.counts.rows;
    acc.badRows += record.counts.badRows;
    acc.rowsWithErrors += record.counts.rowsWithErrors;
  }
  let taskRows = 0;
  let assertedByShards = false;
  try {
    for await (const { text, line } of linesInRowOrder(shards)) {
      let written = text;
      if (typeof line.error === 'string') {
        checks.badRow(line.row, line.error);
      } else {
        const row: CompareRow = {
          row: line.row,
          ...(line.id === undefined ? {} : { id: line.id }),
          ...(line.group === undefined ? {} : { group: line.group }),
          ...(line.system === undefined ? {} : { system: line.system }),
        };
        let checked: { assertions?: unknown } = {};
        if (line.metrics) {
          const results = Object.entries(line.metrics).map(([id, m]) => slimResult(id, m));
          for (const r of results) acc.addMetric(r);
          acc.addHuman(line.human ?? {});
          checked = checks.caseRow(row, results, 0);
        } else if (typeof line.task === 'string' && typeof line.score === 'number') {
          taskRows++;
          acc.addTaskScore(line.score);
          checked = checks.taskRow(row, line.task, line.score);
        }
        if ('assertions' in line || checked.assertions) {
          assertedByShards ||= 'assertions' in line;
          const { assertions: _theShards, ...rest } = line;
          written = scrub(JSON.stringify({ ...rest, ...checked }));
        }
      }
      if (!out.write(written + '\n')) await once(out, 'drain');
    }
    await result?.commit();
  } catch (error) {
    await result?.keepPartial();
    console.error(messageOf(error));
    if (result) {
      console.error(`The rows so far are in ${result.partial}; ${result.path} is unchanged.`);
    }
    return EXIT.failed;
  }
  if (assertedByShards && options.checks.assertions.length === 0) {
    console.error(
      'The shards checked assertions on their rows; the merge was given none (--config, --assert or sumlens.config.yaml here), so the merged rows carry none.',
    );
  }

  const isPrediction = first.summary.kind === 'prediction' || first.summary.kind === 'sft';
  const taskId = first.scoring.task;
  const task = isPrediction && typeof taskId === 'string' ? resolveTask(taskId) : undefined;
  // A run loads the word segmenter with the first prediction it scores; the summary names it.
  let segmenter: WordSegmenter | undefined;
  if (task && needsWordSegmenter(task) && taskRows > 0) segmenter = loadJiebaNode();
  const report = acc.summary(
    {
      file: first.input.file,
      format: first.summary.format,
      kind: first.summary.kind,
      description: first.summary.description,
      warnings: first.summary.warnings,
    },
    task,
    segmenter,
  );
  console.error(
    `Merged ${shards.length} shard(s) of ${first.input.file}${result ? ` into ${result.path}` : ''}.`,
  );
  console.error('\n' + scrub(formatSummary(report)));
  let unwritten = false;
  const incomplete = acc.rows === 0 || acc.badRows > 0 || acc.rowsWithErrors > 0;
  const checked = checks.finish(report, incomplete, scrub);
  if (options.summaryJson) {
    try {
      const summaryJson = { ...report, ...checked.json };
      replaceFile(options.summaryJson, scrub(JSON.stringify(summaryJson, null, 2)) + '\n');
    } catch (error) {
      unwritten = true;
      console.error(`Cannot write the summary to ${options.summaryJson} (${reasonOf(error)}).`);
    }
  }
  return incomplete || unwritten || checked.failed ? EXIT.failed : EXIT.ok;
}

/**
 * The end of a `npm run score` run that read its whole file: --out put in place, the summary on
 * stderr and in --summary-json, a shard's record, the checks, and the exit status they make.
 */
import type { ParseSummary } from '../lib/datasets/parse/types.ts';
import type { TinyEvalTask } from '../lib/datasets/tinyeval.ts';
import type { WordSegmenter } from '../lib/metrics/lexical/cjk-words.ts';
import type { ProviderConfig } from '../lib/llm/types.ts';
import type { RunChecks } from './checks.ts';
import { EXIT } from './exit.ts';
import { reasonOf, replaceFile } from './outputs.ts';
import { formatSummary, type RunAccumulator } from './report.ts';
import type { RowOutput } from './score-output.ts';
import type { Options, scoringSettings } from './score-options.ts';
import { writeShardRecord, type InputFingerprint } from './shard.ts';

export interface FinishedRun {
  file: string;
  options: Options;
  settings: ReturnType<typeof scoringSettings>;
  output: RowOutput;
  acc: RunAccumulator;
  checks: RunChecks;
  summary: ParseSummary | undefined;
  task: TinyEvalTask | undefined;
  segmenter: WordSegmenter | undefined;
  fingerprint: InputFingerprint | undefined;
  provider: ProviderConfig | undefined;
  scrub: (text: string) => string;
}

/** Writes what a finished run leaves behind and returns its exit status. */
export async function finishRun(run: FinishedRun): Promise<number> {
  const { file, options, output, acc, summary, task, scrub } = run;
  const { result } = output;
  let unwritten = false;
  try {
    await result?.commit();
  } catch (error) {
    unwritten = true;
    console.error(
      `Cannot replace ${result!.path} (${reasonOf(error)}): the rows are in ${result!.partial}.`,
    );
  }
  if (!summary) {
    console.error(`No row could be read from ${file}.`);
    return EXIT.failed;
  }
  const detected = summary.detected;
  const isPrediction = detected.kind === 'prediction' || detected.kind === 'sft';
  const report = acc.summary(
    {
      file,
      format: summary.format,
      kind: detected.kind,
      description: detected.description,
      warnings: summary.warnings,
    },
    isPrediction ? task : undefined,
    run.segmenter,
  );
  if (options.shard && result && !unwritten) {
    unwritten = !writeShardRecord(
      result.path,
      {
        shard: options.shard,
        input: run.fingerprint!.digest(file),
        scoring: {
          metrics: options.metrics,
          task: task?.id,
          format: options.format,
          kind: options.kind,
          map: options.overrides,
          settings: run.settings,
          judge: run.provider && { provider: run.provider.kind, model: run.provider.model },
        },
        lines: output.written,
        report,
      },
      scrub,
    );
  }
  console.error('\n' + scrub(formatSummary(report)));
  // A shard may own none of the file's rows: the merge judges the whole.
  const noRows = acc.rows === 0 && !(options.shard && summary.rows > 0);
  const incomplete = noRows || acc.badRows > 0 || acc.rowsWithErrors > 0 || unwritten;
  const checked = run.checks.finish(report, incomplete, scrub);
  if (options.summaryJson) {
    try {
      const summaryJson = { ...report, ...checked.json };
      replaceFile(options.summaryJson, scrub(JSON.stringify(summaryJson, null, 2)) + '\n');
    } catch (error) {
      unwritten = true;
      console.error(
        `Cannot write the summary to ${options.summaryJson} (${reasonOf(error)}); the rows are ${result ? `in ${result.path}` : 'on stdout'}.`,
      );
    }
  }
  if (noRows) {
    console.error(
      `No row could be read from ${file}${acc.badRows ? ` (${acc.badRows} bad row(s), listed in the output)` : ''}: check its format, or map its columns with --map.`,
    );
  }
  return incomplete || unwritten || checked.failed ? EXIT.failed : EXIT.ok;
}

/**
 * `npm run score -- FILE [--task multi_news|…] [--metrics id,id] [options]`
 *
 * Scores a data set with the same modules the browser runs, as TinyEval's eval.py does for a
 * prediction file: JSONL, JSON or CSV, recognised like the import dialog (cases, SummEval records,
 * TinyEval/LongBench predictions, SFT rows with a prediction column). Writes one JSON line per row
 * (stdout or --out); a bad row gets `{row, error}` naming it and the others go on. At the end a
 * summary table goes to stderr (per metric: mean and n; for a task: its score × 100 as eval.py
 * prints it), and to FILE as JSON with --summary-json.
 *
 * Cases get the offline metrics (or those of --metrics); the LLM-judge metrics too when --metrics
 * names them and SUMLENS_LLM_PROVIDER / _MODEL / _API_KEY / _BASE_URL configure a provider (see
 * llm-env.ts; the key is never printed). Prediction rows are scored by their task: --task, or the
 * file's name (`trec.jsonl`); `custom:<metric>` picks any reference metric.
 *
 * A run that stops short (Ctrl-C, or a provider error every later row would meet) leaves --out as
 * it was and its rows in FILE.partial (outputs.ts), and the judge's answers in the disk cache, so
 * the same command run again goes on without paying for them twice. `npm run score` starts this
 * file with `node --import tsx` rather than the tsx command, whose parent process kills a child
 * that is busy for 60 ms after a Ctrl-C instead of letting it finish.
 */
import { messageOf } from '../lib/errors.ts';
import { createReadStream, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import type { MetricResult, OfflineMetricId } from '../lib/metrics/types.ts';
import { validateCase } from '../lib/input/validate-case.ts';
import { loadJiebaNode } from '../lib/metrics/lexical/jieba.ts';
import {
  isCaseRow,
  missingPredictionMessage,
  type CaseRow,
  type DatasetRow,
  type RowProblem,
} from '../lib/rows/formats.ts';
import { parseDataset } from '../lib/datasets/parse/dataset.ts';
import { DatasetParseError, type ParseSummary } from '../lib/datasets/parse/types.ts';
import {
  needsWordSegmenter,
  resolveTask,
  scoreTinyEvalRow,
  TINYEVAL_TASKS,
} from '../lib/datasets/tinyeval.ts';
import type { WordSegmenter } from '../lib/metrics/lexical/cjk-words.ts';
import { scrubSecrets } from './llm-env.ts';
import { RunAccumulator } from './report.ts';
import { checkWritable, OutputPathError, reasonOf, ResultFile } from './outputs.ts';
import { RunStop } from './stop.ts';
import { EXIT } from './exit.ts';
import { InputFingerprint, shardItems } from './shard.ts';
import { RunChecks } from './checks.ts';
import type { OfflineScore, OfflineScorer } from './offline-pool.ts';
import { InOrder } from './in-order.ts';
import {
  FEW_ROWS,
  isJudgeMetric,
  parseOptions,
  scoringSettings,
  USAGE,
  type Options,
} from './score-options.ts';
import { judgeCase, setUpJudge, type JudgeSetup } from './score-judge.ts';
import { runJudgeBatch } from './score-batch.ts';
import { metricEntry, RowOutput } from './score-output.ts';
import { finishRun } from './score-finish.ts';

async function main(argv: string[]): Promise<number> {
  if (argv[0] === 'merge') return (await import('./merge.ts')).runMerge(argv.slice(1));
  let options: Options | 'help';
  try {
    options = parseOptions(argv);
  } catch (error) {
    console.error(messageOf(error));
    return EXIT.stopped;
  }
  if (options === 'help') {
    console.error(USAGE);
    return EXIT.ok;
  }
  const { file } = options;
  if (file !== '-' && !existsSync(file)) {
    console.error(`No such file: ${file}`);
    return EXIT.stopped;
  }
  try {
    if (options.out) checkWritable('--out', options.out);
    if (options.summaryJson) checkWritable('--summary-json', options.summaryJson);
    if (options.checks.junit) checkWritable('--junit', options.checks.junit);
  } catch (error) {
    if (!(error instanceof OutputPathError)) throw error;
    console.error(error.message);
    return EXIT.stopped;
  }
  let checks: RunChecks;
  try {
    checks = RunChecks.prepare(options.checks, file, options.metrics);
  } catch (error) {
    console.error(`${messageOf(error)} Nothing was scored.`);
    return EXIT.stopped;
  }
  const offlineIds = options.metrics.filter((id): id is OfflineMetricId => !isJudgeMetric(id));
  const judgeIds = options.metrics.filter(isJudgeMetric);
  const stop = new RunStop();
  let judgeSetup: JudgeSetup | undefined;
  if (judgeIds.length > 0) {
    const setup = await setUpJudge(judgeIds, options, stop);
    if ('error' in setup) {
      console.error(setup.error);
      return EXIT.stopped;
    }
    judgeSetup = setup;
  }
  const provider = judgeSetup?.provider;
  /** Replaced by one answering from the batches' results after a --batch run. */
  let judge = judgeSetup?.judge;
  const scrub = (text: string) => scrubSecrets(text, provider);

  const settings = scoringSettings(options);

  // The page's default sentence encoder (on native kernels where they load), vectors kept on disk
  // between runs; started with the first row that has offline metrics to score.
  let offline: Promise<OfflineScorer> | undefined;
  let fewRows = false;
  let rowsRead = 0;
  const offlineScorer = () =>
    (offline ??= import('./offline-pool.ts').then(({ startOfflineScorer }) =>
      startOfflineScorer({
        ids: offlineIds,
        settings,
        embedding: options.embedding,
        encoder: { runtime: options.encoderRuntime, precision: options.precision },
        ...(options.vectorCache ? { vectorCache: options.vectorCache } : {}),
        workers: options.workers ?? (fewRows ? 1 : availableParallelism()),
        note: (line) => console.error(line),
      }),
    ));
  let result: ResultFile | undefined;
  try {
    result = options.out ? new ResultFile(options.out) : undefined;
  } catch (error) {
    console.error(
      `--out ${options.out}: cannot write there (${reasonOf(error)}). Nothing was scored.`,
    );
    return EXIT.stopped;
  }
  const output = new RowOutput(result, scrub);
  const write = (record: object) => output.write(record);
  const writeBadRow = (row: number, error: string) => {
    acc.badRows++;
    checks.badRow(row, error);
    write({ row, error });
  };
  const leftBehind = (again: string) => output.leftBehind(again, judgeSetup);
  stop.install(
    (signal) =>
      console.error(
        stop.inFlight > 0
          ? `${signal}: sending nothing more; waiting for the ${stop.inFlight} request(s) already sent, so that their answers are kept (Ctrl-C again to stop at once).`
          : `${signal}: stopping.`,
      ),
    (signal) => {
      console.error(
        `${signal} again: stopped at once, and answers still on their way are lost. ${leftBehind('then')}`,
      );
      process.exit(stop.exitCode);
    },
  );
  const fingerprint = options.shard ? new InputFingerprint() : undefined;
  const read = file === '-' ? process.stdin : createReadStream(file);
  const input = fingerprint ? fingerprint.tap(read) : read;

  const acc = new RunAccumulator();
  let task = options.task;
  let segmenter: WordSegmenter | undefined;
  let summary: ParseSummary | undefined;
  /** A provider error every later row would meet: the run stops on it. */
  let fatal: string | undefined;
  const stopped = () => stop.signal !== undefined || fatal !== undefined;

  const scorePrediction = (row: DatasetRow) => {
    if (isCaseRow(row)) return;
    if (!task) throw new DatasetParseError(`Prediction rows need a task: --task NAME.`);
    if (row.input.needsPrediction) {
      writeBadRow(row.row, missingPredictionMessage(row.row));
      return;
    }
    if (needsWordSegmenter(task)) segmenter ??= loadJiebaNode();
    const { score, perAnswer } = scoreTinyEvalRow(
      task,
      row.input.prediction,
      row.input.answers,
      row.input.allClasses,
      segmenter ? { segmenter } : {},
    );
    acc.addTaskScore(score);
    write({
      row: row.row,
      ...(row.id ? { id: row.id } : {}),
      task: task.id,
      score,
      perAnswer,
      ...(Object.keys(row.human).length ? { human: row.human } : {}),
      ...checks.taskRow(row, task.id, score),
    });
  };

  /** `scored`: the row's offline metrics, started ahead (none for a row that cannot be scored). */
  const scoreCase = async (
    row: CaseRow,
    blocking: ReturnType<typeof validateCase>,
    scored: OfflineScore | undefined,
  ) => {
    if (blocking.length > 0) {
      writeBadRow(row.row, `row ${row.row}: ${blocking.map((p) => p.message).join(' ')}`);
      return;
    }
    const started = performance.now() - (scored?.ms ?? 0);
    const results: MetricResult[] = [...(scored?.results ?? [])];
    if (judge && provider && judgeIds.length > 0) {
      const judged = await judgeCase(row.input, judgeIds, judge, provider, scrub);
      if ('runWide' in judged) {
        fatal ??= judged.runWide;
        return;
      }
      for (const r of judged) if (!results.some((s) => s.id === r.id)) results.push(r);
    }
    // Calls refused after Ctrl-C failed this row: it is scored again, from the cache, next run.
    if (stop.signal) return;
    const metrics: Record<string, object> = {};
    for (const r of results) {
      // geval-custom may give several results; keep the first per id in the line.
      if (!(r.id in metrics)) metrics[r.id] = metricEntry(r);
      acc.addMetric(r);
    }
    if (results.some((r) => r.status === 'error')) acc.rowsWithErrors++;
    acc.addHuman(row.human);
    write({
      row: row.row,
      ...(row.id ? { id: row.id } : {}),
      ...(row.kind === 'summeval' && row.group ? { group: row.group } : {}),
      ...(row.system ? { system: row.system } : {}),
      metrics,
      ...(Object.keys(row.human).length ? { human: row.human } : {}),
      ...checks.caseRow(row, results, (performance.now() - started) / 1000),
    });
  };

  // Offline metrics run ahead in worker threads; everything else, and every line, in file order.
  const inOrder = new InOrder(1, stop.aborted);
  const handleItem = async (item: DatasetRow | RowProblem) => {
    const blocking =
      !('reason' in item) && isCaseRow(item)
        ? validateCase(item.input).filter((p) => p.blocking)
        : [];
    const ahead =
      !('reason' in item) && isCaseRow(item) && offlineIds.length > 0 && blocking.length === 0
        ? item.input
        : undefined;
    if (ahead) inOrder.widen((await offlineScorer()).window);
    await inOrder.add(
      async () => (ahead && !stopped() ? (await offlineScorer()).score(ahead) : undefined),
      async (scored) => {
        if (stopped()) return;
        if ('reason' in item && item.kept) {
          // The row is scored; only the cell was left out.
          console.error(scrub(item.reason));
        } else if ('reason' in item) {
          writeBadRow(item.row, item.reason);
        } else if (isCaseRow(item)) {
          acc.rows++;
          await scoreCase(item, blocking, scored);
        } else {
          acc.rows++;
          scorePrediction(item);
        }
        await output.drained();
      },
    );
  };
  // A batch run reads every row first: its jobs carry the whole data set.
  const held: Array<DatasetRow | RowProblem> = [];

  try {
    for await (const batch of parseDataset(input as AsyncIterable<Uint8Array>, {
      fileName: file === '-' ? '' : file,
      ...(options.format ? { format: options.format } : {}),
      ...(options.kind ? { kind: options.kind } : {}),
      overrides: options.overrides,
    })) {
      if (batch.detected) {
        task ??= batch.detected.task ? resolveTask(batch.detected.task) : undefined;
        if (batch.detected.kind === 'prediction' || batch.detected.kind === 'sft') {
          if (!task) {
            throw new DatasetParseError(
              `${batch.detected.description}: name the task with --task (${Object.keys(TINYEVAL_TASKS).join(', ')}, or custom:METRIC).`,
            );
          }
        }
        console.error(
          `${batch.detected.description}${batch.detected.encoding ? `, ${batch.detected.encoding} text` : ''} (confidence ${batch.detected.confidence})${task && batch.detected.kind !== 'case' && batch.detected.kind !== 'summeval' ? `; scoring task ${task.id} with ${task.metric}` : ''}`,
        );
      }
      // The whole file read before a row is scored, and short: workers would cost more than they save.
      rowsRead += batch.rows.length;
      if (batch.summary && offline === undefined) fewRows = rowsRead < FEW_ROWS;
      // Rows and bad rows in file order.
      const inFile: Array<DatasetRow | RowProblem> = [...batch.rows, ...batch.problems].sort(
        (a, b) => a.row - b.row,
      );
      const items = options.shard ? shardItems(inFile, options.shard) : inFile;
      if (options.batch) {
        held.push(...items);
        if (batch.summary) summary = batch.summary;
        if (stopped()) break;
        continue;
      }
      for (const item of items) {
        if (stopped()) break;
        await handleItem(item);
      }
      if (batch.summary) summary = batch.summary;
      if (stopped()) break;
    }
    if (options.batch && judgeSetup?.cacheFile && judgeIds.length > 0 && !stopped()) {
      const batched = await runJudgeBatch({
        setup: { ...judgeSetup, cacheFile: judgeSetup.cacheFile },
        judgeIds,
        cases: held.filter(
          (item): item is CaseRow =>
            !('reason' in item) &&
            isCaseRow(item) &&
            !validateCase(item.input).some((p) => p.blocking),
        ),
        options,
        stop,
        scrub,
      });
      if (batched && 'fatal' in batched) fatal = batched.fatal;
      else if (batched) judge = batched.judge;
    }
    for (const item of held) {
      if (stopped()) break;
      await handleItem(item);
    }
    await inOrder.drain();
  } catch (error) {
    // Rows read before a bad part of the file are still written, as when each row was awaited.
    await inOrder.drain().catch(() => undefined);
    await result?.keepPartial();
    console.error(scrub(messageOf(error)));
    if (result && output.written > 0) {
      console.error(`The rows so far are in ${result.partial}; ${result.path} is unchanged.`);
    }
    return error instanceof DatasetParseError ? EXIT.stopped : EXIT.failed;
  }
  // The worker threads idle from here; ending them now frees their memory for the summary.
  await offline?.then((scorer) => scorer.close()).catch(() => undefined);

  if (stopped()) {
    await result?.keepPartial();
    if (fatal) {
      console.error(oneLine(`Stopped: ${fatal} ${leftBehind('once that is fixed')}`));
      return EXIT.stopped;
    }
    console.error(`Interrupted (${stop.signal}). ${leftBehind('to resume')}`);
    return stop.exitCode;
  }

  return finishRun({
    file,
    options,
    settings,
    output,
    acc,
    checks,
    summary,
    task,
    segmenter,
    fingerprint,
    provider,
    scrub,
  });
}

function oneLine(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

// Exit only once stdout has taken every line: a pipe whose reader lags queues writes, and
// process.exit() would drop what is still queued.
const exitAfterFlush = (code: number) => process.stdout.write('', () => process.exit(code));

main(process.argv.slice(2)).then(exitAfterFlush, (error: unknown) => {
  console.error(messageOf(error));
  process.exit(1);
});

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
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { describeAssertion } from '../lib/assertions/assertion.ts';
import { flagMetric } from '../lib/assertions/flags.ts';
import type { CompareRow } from '../lib/datasets/compare.ts';
import { needsWordSegmenter, resolveTask } from '../lib/datasets/tinyeval.ts';
import { messageOf } from '../lib/errors.ts';
import { loadJiebaNode } from '../lib/metrics/lexical/jieba.ts';
import type { WordSegmenter } from '../lib/metrics/lexical/cjk-words.ts';
import { slimResult, type LineMetric } from './baseline.ts';
import { checkOptions, RunChecks, type CheckOptions } from './checks.ts';
import { EXIT } from './exit.ts';
import { scrubSecrets } from './llm-env.ts';
import { checkWritable, readReasonOf, reasonOf, replaceFile, ResultFile } from './outputs.ts';
import { formatSummary, RunAccumulator } from './report.ts';
import { sha256OfFile, SHARD_RECORD_FORMAT, shardRecordPath, type ShardRecord } from './shard.ts';

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

/** A refusal: nothing is written, exit 2. */
class MergeRefused extends Error {}

interface Shard {
  path: string;
  record: ShardRecord;
}

interface MergeOptions {
  shards: string[];
  out?: string;
  summaryJson?: string;
  checks: CheckOptions;
}

/** A line of a shard's --out file, as score.ts writes it. */
interface RowLine {
  row: number;
  id?: string;
  group?: string;
  system?: string;
  metrics?: Record<string, LineMetric>;
  human?: Record<string, number>;
  task?: string;
  score?: number;
  error?: string;
  assertions?: unknown;
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

function isShardRecord(value: unknown): value is ShardRecord {
  const r = value as ShardRecord | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    r.format === SHARD_RECORD_FORMAT &&
    r.version === 1 &&
    Number.isSafeInteger(r.shard?.index) &&
    Number.isSafeInteger(r.shard?.count) &&
    r.shard.index >= 1 &&
    r.shard.index <= r.shard.count &&
    typeof r.input?.sha256 === 'string' &&
    typeof r.scoring === 'object' &&
    Array.isArray(r.scoring?.metrics) &&
    typeof r.counts?.lines === 'number' &&
    typeof r.summary?.description === 'string' &&
    Array.isArray(r.summary.warnings) &&
    typeof r.out?.sha256 === 'string'
  );
}

/** A shard's output and its record, refused unless the record says it is that output. */
function readShard(path: string): Shard {
  if (path.endsWith('.shard.json')) {
    throw new MergeRefused(
      `${path} is a shard's record: give its --out file, ${path.slice(0, -'.shard.json'.length)}.`,
    );
  }
  if (!existsSync(path)) throw new MergeRefused(`${path}: cannot read it (no such file).`);
  const recordPath = shardRecordPath(path);
  let text: string;
  try {
    text = readFileSync(recordPath, 'utf8');
  } catch (error) {
    throw new MergeRefused(
      `${path} is not a shard's output: ${recordPath} ${readReasonOf(error) === 'no such file' ? 'is missing' : `cannot be read (${readReasonOf(error)})`} (npm run score -- FILE --shard I/N --out ${path} writes it).`,
    );
  }
  let record: unknown;
  try {
    record = JSON.parse(text);
  } catch (error) {
    throw new MergeRefused(`${recordPath} is not a shard's record (${messageOf(error)}).`);
  }
  if (!isShardRecord(record)) {
    throw new MergeRefused(
      `${recordPath} is not a shard's record of this version of SumLens (format "${SHARD_RECORD_FORMAT}", version 1).`,
    );
  }
  let sha256: string;
  try {
    sha256 = sha256OfFile(path);
  } catch (error) {
    throw new MergeRefused(`${path}: cannot read it (${readReasonOf(error)}).`);
  }
  if (sha256 !== record.out.sha256) {
    throw new MergeRefused(
      `${path} is not the output its shard run wrote (its SHA-256 differs from the one in ${recordPath}): run shard ${record.shard.index}/${record.shard.count} again.`,
    );
  }
  return { path, record };
}

/** "settings.rouge.useStemmer false vs true": where two JSON values differ, leaf by leaf. */
function differences(a: unknown, b: unknown, at: string): string[] {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(a) && isObject(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => differences(a[k], b[k], at ? `${at}.${k}` : k));
  }
  const [ja, jb] = [JSON.stringify(a) ?? 'none', JSON.stringify(b) ?? 'none'];
  return ja === jb ? [] : [`${at} ${ja} vs ${jb}`];
}

const shardName = (r: ShardRecord) => `${r.shard.index}/${r.shard.count}`;

/** The shards in order, or the reason they are not the N shards of one run. */
function checkShardSet(shards: Shard[]): Shard[] {
  const first = shards[0]!;
  const a = first.record;
  for (const { path, record: b } of shards.slice(1)) {
    if (b.input.sha256 !== a.input.sha256 || b.input.bytes !== a.input.bytes) {
      throw new MergeRefused(
        `${path} is a shard of another input than ${first.path}: ${b.input.file} (${b.input.bytes} bytes, SHA-256 ${b.input.sha256.slice(0, 12)}…) vs ${a.input.file} (${a.input.bytes} bytes, SHA-256 ${a.input.sha256.slice(0, 12)}…).`,
      );
    }
    if (b.shard.count !== a.shard.count) {
      throw new MergeRefused(
        `${path} is shard ${shardName(b)} but ${first.path} is shard ${shardName(a)}: the shards of one run are split into the same N.`,
      );
    }
    const changed = differences(a.scoring, b.scoring, '');
    if (changed.length > 0) {
      throw new MergeRefused(
        `${path} was scored with other options than ${first.path}: ${changed.join('; ')}.`,
      );
    }
  }
  const byIndex = new Map<number, Shard>();
  for (const shard of shards) {
    const seen = byIndex.get(shard.record.shard.index);
    if (seen && resolve(seen.path) === resolve(shard.path)) {
      throw new MergeRefused(`${shard.path} is given twice: give each shard once.`);
    }
    if (seen) {
      throw new MergeRefused(
        `${seen.path} and ${shard.path} are both shard ${shardName(shard.record)}: give each shard once.`,
      );
    }
    byIndex.set(shard.record.shard.index, shard);
  }
  const count = a.shard.count;
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw new MergeRefused(
      `Missing shard(s) ${missing.map((i) => `${i}/${count}`).join(', ')} of ${a.input.file}: a merge needs all ${count}.`,
    );
  }
  return [...byIndex.keys()].sort((x, y) => x - y).map((i) => byIndex.get(i)!);
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

/** A shard's lines, parsed, with the check that they come in file order as a run writes them. */
async function* shardLines(shard: Shard): AsyncGenerator<{ text: string; line: RowLine }> {
  const reader = createInterface({
    input: createReadStream(shard.path),
    crlfDelay: Infinity,
  });
  let number = 0;
  let previous = 0;
  for await (const text of reader) {
    number++;
    if (text.trim() === '') continue;
    let line: RowLine;
    try {
      line = JSON.parse(text) as RowLine;
    } catch (error) {
      throw new Error(`${shard.path}, line ${number}: not JSON (${messageOf(error)}).`, {
        cause: error,
      });
    }
    if (typeof line !== 'object' || line === null || !Number.isSafeInteger(line.row)) {
      throw new Error(`${shard.path}, line ${number}: not a row of npm run score (no row number).`);
    }
    if (line.row <= previous) {
      throw new Error(
        `${shard.path}, line ${number}: row ${line.row} comes after row ${previous}; a shard's rows are in file order.`,
      );
    }
    previous = line.row;
    yield { text, line };
  }
}

/**
 * Every shard's lines in row order: at each step the lowest row among the shards' next lines. A
 * scan rather than a heap: N is the number of machines, and 1,000 shards × 10⁶ rows scan in seconds.
 */
async function* linesInRowOrder(shards: Shard[]): AsyncGenerator<{ text: string; line: RowLine }> {
  const readers = shards.map((shard) => shardLines(shard));
  const next = async (i: number) => {
    const step = await readers[i]!.next();
    return step.done ? undefined : step.value;
  };
  const heads = await Promise.all(readers.map((_, i) => next(i)));
  for (;;) {
    let lowest = -1;
    for (let i = 0; i < heads.length; i++) {
      const row = heads[i]?.line.row;
      if (row === undefined) continue;
      const lowestRow = heads[lowest]?.line.row;
      if (lowestRow === row) {
        throw new Error(`Row ${row} is in both ${shards[lowest]!.path} and ${shards[i]!.path}.`);
      }
      if (lowestRow === undefined || row < lowestRow) lowest = i;
    }
    const head = heads[lowest];
    if (!head) return;
    yield head;
    heads[lowest] = await next(lowest);
  }
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

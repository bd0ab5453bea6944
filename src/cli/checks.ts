/**
 * What a run checks besides its scores, for score.ts: the assertions (config file and --assert),
 * the comparison with --baseline and its regression gate, and the reports they make (the stderr
 * tables, --junit, $GITHUB_STEP_SUMMARY, the summary JSON). Everything that can be refused is
 * refused in `checkOptions` and `RunChecks.prepare`, before a row is scored (exit status 2).
 */
import type { Assertion } from '../lib/assertions/assertion.ts';
import { assertionKey, describeAssertion } from '../lib/assertions/assertion.ts';
import { JUDGE_METRIC_IDS, OFFLINE_METRIC_IDS } from '../lib/metrics/registry.ts';
import type { MetricResult } from '../lib/metrics/types.ts';
import type { CompareRow } from '../lib/datasets/compare.ts';
import { messageOf } from '../lib/errors.ts';
import { AssertionRun, type RowAssertions } from './assertion-run.ts';
import { CandidateSide, readBaseline, type Side } from './baseline.ts';
import {
  assertionsOf,
  ConfigError,
  configPath,
  entryOfFlag,
  readConfig,
  type CliConfig,
} from './config.ts';
import { checkGateColumns, compareWithBaseline, gateOptions, type GateOptions } from './gate.ts';
import { junitXml } from './junit.ts';
import { reasonOf, replaceFile } from './outputs.ts';
import type { RunSummary } from './report.ts';
import { appendStepSummary, stepSummaryMarkdown } from './step-summary.ts';

export const KNOWN_METRICS: readonly string[] = [...OFFLINE_METRIC_IDS, ...JUDGE_METRIC_IDS];

export interface CheckOptions {
  config?: CliConfig;
  assertions: Assertion[];
  junit?: string;
  gate?: GateOptions;
}

/** The check options given on the command line, the config file read and checked. */
export function checkOptions(values: {
  config?: string | undefined;
  assert?: string[] | undefined;
  junit?: string | undefined;
  baseline?: string | undefined;
  failOn?: string | undefined;
  margin?: string | undefined;
}): CheckOptions {
  const file = configPath(values.config);
  const config = file === undefined ? undefined : readConfig(file, KNOWN_METRICS);
  const fromFlags = assertionsOf(
    (values.assert ?? []).map((text) => ({ entry: entryOfFlag(text), where: `--assert ${text}` })),
    KNOWN_METRICS,
  );
  const inConfig = new Set(config?.assertions.map(assertionKey));
  const repeated = fromFlags.find((a) => inConfig.has(assertionKey(a)));
  if (repeated) {
    throw new ConfigError(
      `--assert: "${describeAssertion(repeated)}" is already in ${config!.file}.`,
    );
  }
  if (config) {
    const metrics = config.metrics ? `, metrics ${config.metrics.join(', ')}` : '';
    console.error(
      `Config: read ${config.file} (${config.assertions.length} assertion(s)${metrics}).`,
    );
  }
  const assertions = [...(config?.assertions ?? []), ...fromFlags];
  if (values.junit && assertions.length === 0) {
    throw new ConfigError(
      `--junit ${values.junit} lists the assertions' results: give them in a config file (--config, or sumlens.config.yaml here) or with --assert.`,
    );
  }
  const gate = gateOptions(values);
  return {
    ...(config ? { config } : {}),
    assertions,
    ...(values.junit ? { junit: values.junit } : {}),
    ...(gate ? { gate } : {}),
  };
}

export interface Finished {
  /** An assertion failed, a metric regressed, or the JUnit file could not be written. */
  failed: boolean;
  /** Added to --summary-json. */
  json: { assertions?: object; baseline?: object };
}

export class RunChecks {
  private readonly assertionRun: AssertionRun | undefined;
  private readonly candidate: CandidateSide | undefined;
  private readonly startedAt = new Date();

  private constructor(
    private readonly options: CheckOptions,
    private readonly file: string,
    metrics: readonly string[],
    private readonly baseline: Side | undefined,
  ) {
    this.assertionRun =
      options.assertions.length > 0
        ? new AssertionRun(options.assertions, options.junit !== undefined)
        : undefined;
    this.candidate = baseline ? new CandidateSide(file, metrics) : undefined;
  }

  /** Reads the baseline and checks the gated metrics; throws (exit 2) before anything is scored. */
  static prepare(options: CheckOptions, file: string, metrics: readonly string[]): RunChecks {
    let baseline: Side | undefined;
    if (options.gate) {
      baseline = readBaseline(options.gate.baseline);
      checkGateColumns(options.gate, baseline, metrics);
    }
    return new RunChecks(options, file, metrics, baseline);
  }

  /** A scored case row; returns the fields its JSON line gains. */
  caseRow(
    row: CompareRow,
    results: readonly MetricResult[],
    seconds: number,
  ): { assertions?: RowAssertions } {
    this.candidate?.addCase(row, results);
    const field = this.assertionRun?.addRow(row.row, row.id, results, seconds);
    return field ? { assertions: field } : {};
  }

  /** A scored prediction row: the assertions, which read metrics, skip it. */
  taskRow(row: CompareRow, task: string, score: number): { assertions?: RowAssertions } {
    this.candidate?.addTask(row, task, score);
    const field = this.assertionRun?.addRow(row.row, row.id, [], 0);
    return field ? { assertions: field } : {};
  }

  badRow(row: number, reason: string): void {
    this.assertionRun?.addBadRow(row, reason);
  }

  /**
   * After the last row: the tables, the gate, JUnit and the step summary. `scrub` takes the
   * provider's key out of all of them, as out of the rows (a metric's error may quote a reply).
   */
  finish(report: RunSummary, otherwiseFailed: boolean, scrub: (text: string) => string): Finished {
    const json: Finished['json'] = {};
    let failed = false;
    const run = this.assertionRun;
    if (run) {
      console.error('\n' + scrub(run.format()));
      failed ||= run.failed;
      json.assertions = {
        failed: run.failed,
        rows: run.tallies.rows,
        failedRows: run.tallies.failedRows,
        tallies: run.tallies.tallies.map(({ assertion: _assertion, ...tally }) => tally),
      };
    }
    let baselineMarkdown: string | undefined;
    if (this.baseline && this.candidate && this.options.gate) {
      const compared = compareWithBaseline(this.options.gate, this.baseline, this.candidate.side());
      console.error('\n' + scrub(compared.text));
      failed ||= compared.failed;
      json.baseline = compared.json;
      baselineMarkdown = compared.markdown;
    }
    if (run && this.options.junit) {
      try {
        replaceFile(
          this.options.junit,
          scrub(
            junitXml({
              file: this.file,
              assertions: run.assertions,
              rows: run.recorded,
              seconds: (Date.now() - this.startedAt.getTime()) / 1000,
              startedAt: this.startedAt,
            }),
          ),
        );
        console.error(`JUnit: ${this.options.junit}`);
      } catch (error) {
        failed = true;
        console.error(`Cannot write the JUnit file ${this.options.junit} (${reasonOf(error)}).`);
      }
    }
    const stepSummary = process.env.GITHUB_STEP_SUMMARY;
    if (stepSummary) {
      const markdown = stepSummaryMarkdown({
        file: this.file,
        rows: report.rows,
        badRows: report.badRows,
        rowsWithErrors: report.rowsWithErrors,
        failed: failed || otherwiseFailed,
        ...(run ? { assertions: run.tallies } : {}),
        ...(baselineMarkdown ? { baseline: baselineMarkdown } : {}),
      });
      try {
        const warning = appendStepSummary(stepSummary, scrub(markdown));
        if (warning) console.error(`warning: ${warning}`);
      } catch (error) {
        // The summary is a courtesy on GitHub's page: the verdict is the exit status.
        console.error(`warning: cannot append to GITHUB_STEP_SUMMARY (${messageOf(error)}).`);
      }
    }
    return { failed, json };
  }
}

/**
 * Where `npm run score` writes its result lines (stdout, or --out through FILE.partial), and what
 * it says about them when a run stops short.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { MetricResult } from '../lib/metrics/types.ts';
import { flagsOfResult } from './baseline.ts';
import { EXIT } from './exit.ts';
import { reasonOf, ResultFile } from './outputs.ts';

/** A metric's entry in a row's line. */
export function metricEntry(r: MetricResult): object {
  return {
    score: r.score,
    ...(r.raw === undefined ? {} : { raw: r.raw }),
    status: r.status,
    backend: r.backend,
    ...(r.reason ? { reason: r.reason } : {}),
    ...(flagsOfResult(r).length ? { flags: flagsOfResult(r) } : {}),
  };
}

export class RowOutput {
  /** Lines written so far. */
  written = 0;
  readonly #stream: Writable;

  constructor(
    readonly result: ResultFile | undefined,
    private readonly scrub: (text: string) => string,
  ) {
    this.#stream = result?.stream ?? process.stdout;
    this.#stream.on('error', (error: NodeJS.ErrnoException) => {
      // The reader went away (`| head`): stop quietly, as Unix tools do, rather than score (and
      // perhaps pay) for nobody. Any other failure is the disk's, and says which file.
      if (error.code === 'EPIPE') process.exit(EXIT.ok);
      console.error(
        `Cannot write the results to ${result ? result.partial : 'stdout'} (${reasonOf(error)})${result ? `; ${result.path} is unchanged` : ''}.`,
      );
      process.exit(EXIT.failed);
    });
  }

  write(record: object): boolean {
    this.written++;
    return this.#stream.write(this.scrub(JSON.stringify(record)) + '\n');
  }

  /**
   * A reader slower than the scoring (a pipe into `less`, a slow disk) would otherwise leave every
   * line queued in memory: 10⁵ rows of results are hundreds of MB. Awaited between rows.
   */
  async drained(): Promise<void> {
    if (this.#stream.writableNeedDrain) await once(this.#stream, 'drain');
  }

  /**
   * Where the rows of a run that stopped short are, and what became of the answers bought;
   * `again` says when to run the command again ("then", "to resume").
   */
  leftBehind(again: string, judge: { cacheFile?: string } | undefined): string {
    const { written, result } = this;
    const rows =
      written === 0
        ? 'No row was finished.'
        : result
          ? `The ${written} row(s) finished are in ${result.partial}; ${result.path} is unchanged.`
          : `The ${written} row(s) finished were written.`;
    const answers = judge?.cacheFile
      ? ` The answers bought so far are kept in ${judge.cacheFile}: ${again}, run the same command again: it goes on from there and asks none of them again.`
      : judge
        ? ` The answers bought so far were kept in memory only (--no-cache): ${again}, run the same command again to score every row.`
        : ` ${again[0]!.toUpperCase()}${again.slice(1)}, run the same command again to score every row.`;
    return rows + answers;
  }
}

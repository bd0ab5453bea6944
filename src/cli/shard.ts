/**
 * A shard run (`--shard I/N`): which rows are its own, and the record it leaves beside its --out
 * file (OUT.shard.json) so that `merge` (merge.ts) can tell shards of one run from anything else.
 *
 * A row belongs to shard 1 + (the first 48 bits of SHA-256 of its id, as an integer) mod N. Its id
 * is the record's own or, for a row without one, "row N" (the name the assertions and JUnit give
 * it), so the split depends on neither the order of the file, nor the machine, nor anything but
 * the id and N: `int(hashlib.sha256(id.encode()).hexdigest()[:12], 16) % N + 1` in Python.
 *
 * The record sits beside the rows rather than in them: --baseline and other readers of an --out
 * file see the same lines as from any run.
 */
import { createHash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { Transform, pipeline, type Readable } from 'node:stream';
import { rowName } from './assertion-run.ts';
import { reasonOf, replaceFile } from './outputs.ts';
import type { RunSummary } from './report.ts';

/** The I-th (1-based, as GNU parallel's {#} counts) of N shards. */
export interface ShardSpec {
  index: number;
  count: number;
}

const SHARD_SYNTAX = /^(\d+)\/(\d+)$/u;

/** `--shard I/N`, refused in words that say the fix; `out` must be given (the record goes beside it). */
export function parseShardOption(text: string, out: string | undefined): ShardSpec {
  const match = SHARD_SYNTAX.exec(text.trim());
  if (!match) {
    throw new Error(
      `--shard ${text}: give I/N, the I-th of N shards with I from 1 to N (e.g. --shard 1/4).`,
    );
  }
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (!Number.isSafeInteger(count) || count < 1) {
    throw new Error(`--shard ${text}: N, the number of shards, must be at least 1.`);
  }
  if (index === 0) {
    throw new Error(
      `--shard ${text}: shards count from 1 (1/${count} to ${count}/${count}); from a 0-based index such as JOB_COMPLETION_INDEX, give $((INDEX+1))/${count}.`,
    );
  }
  if (!Number.isSafeInteger(index) || index > count) {
    throw new Error(`--shard ${text}: there is no shard ${index} of ${count}; I is 1 to ${count}.`);
  }
  if (!out) {
    throw new Error(
      `--shard ${text} needs --out FILE: the merge reads each shard's rows and the record written beside them (FILE.shard.json).`,
    );
  }
  return { index, count };
}

/** The shard (1 to count) of a row with this id. */
export function shardOfId(id: string, count: number): number {
  const digest = createHash('sha256').update(id, 'utf8').digest();
  return (digest.readUIntBE(0, 6) % count) + 1;
}

/**
 * The items of a batch that are the shard's. A problem kept beside its row (a rating cell left
 * out, a repeated id) goes with that row; a row that could not be read has no id but its number.
 */
export function shardItems<T extends { row: number; id?: string | undefined }>(
  items: readonly T[],
  shard: ShardSpec,
): T[] {
  const idOfRow = new Map<number, string>();
  for (const item of items) if (item.id) idOfRow.set(item.row, item.id);
  return items.filter(
    (item) =>
      shardOfId(rowName(item.row, item.id || idOfRow.get(item.row)), shard.count) === shard.index,
  );
}

/** The SHA-256 and size of the input as the parser reads it, stdin included. */
export class InputFingerprint {
  private readonly hash = createHash('sha256');
  private bytes = 0;

  /** `source` passed through unchanged; its read errors reach whoever reads the result. */
  tap(source: Readable): Readable {
    const through = new Transform({
      transform: (chunk: Buffer, _encoding, done) => {
        this.hash.update(chunk);
        this.bytes += chunk.length;
        done(null, chunk);
      },
    });
    pipeline(source, through, () => {
      // pipeline destroys `through` with the error, so the reader's loop throws it.
    });
    return through;
  }

  /** Once the input has been read to its end. */
  digest(file: string): ShardRecord['input'] {
    return { file, sha256: this.hash.digest('hex'), bytes: this.bytes };
  }
}

/** SHA-256 of a file, read in pieces: an --out file may be larger than a string can hold. */
export function sha256OfFile(path: string): string {
  const hash = createHash('sha256');
  const buffer = Buffer.alloc(1 << 20);
  const fd = openSync(path, 'r');
  try {
    for (let n; (n = readSync(fd, buffer, 0, buffer.length, null)) > 0;) {
      hash.update(buffer.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}

export const SHARD_RECORD_FORMAT = 'sumlens-shard';

/** OUT.shard.json: what `merge` checks and needs besides the rows. */
export interface ShardRecord {
  format: typeof SHARD_RECORD_FORMAT;
  version: 1;
  shard: ShardSpec;
  input: { file: string; sha256: string; bytes: number };
  /**
   * Everything that decides a row's line: shards scored with different values here would not
   * merge into the output of one run. Compared as JSON, key by key.
   */
  scoring: Record<string, unknown>;
  /**
   * The run's counts. Taken as they are rather than recounted from the lines: a row that was read
   * but could not be scored counts both as a row and as a bad row, and its line does not say so.
   */
  counts: Pick<RunSummary, 'rows' | 'badRows' | 'rowsWithErrors'> & { lines: number };
  /** What the summary says of the whole file (every shard reads all of it). */
  summary: Pick<RunSummary, 'format' | 'kind' | 'description' | 'warnings'>;
  /** SHA-256 of the --out file this record describes: a rerun that failed to write here shows. */
  out: { sha256: string };
}

export function shardRecordPath(out: string): string {
  return `${out}.shard.json`;
}

/**
 * Writes OUT.shard.json once OUT is in place. False, said on stderr, when it cannot be written:
 * the rows are there, but no merge will take them.
 */
export function writeShardRecord(
  out: string,
  run: {
    shard: ShardSpec;
    input: ShardRecord['input'];
    scoring: ShardRecord['scoring'];
    lines: number;
    report: RunSummary;
  },
  scrub: (text: string) => string,
): boolean {
  const { report } = run;
  const path = shardRecordPath(out);
  try {
    const record: ShardRecord = {
      format: SHARD_RECORD_FORMAT,
      version: 1,
      shard: run.shard,
      input: run.input,
      // Through JSON: an option left undefined is a key absent, in the record and in the comparison.
      scoring: JSON.parse(JSON.stringify(run.scoring)) as ShardRecord['scoring'],
      counts: {
        lines: run.lines,
        rows: report.rows,
        badRows: report.badRows,
        rowsWithErrors: report.rowsWithErrors,
      },
      summary: {
        format: report.format,
        kind: report.kind,
        description: report.description,
        warnings: report.warnings,
      },
      out: { sha256: sha256OfFile(out) },
    };
    replaceFile(path, scrub(JSON.stringify(record, null, 2)) + '\n');
    return true;
  } catch (error) {
    console.error(
      `Cannot write the shard's record ${path} (${reasonOf(error)}): the rows are in ${out}, but merge needs the record too.`,
    );
    return false;
  }
}

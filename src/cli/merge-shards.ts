/**
 * The shards a merge joins: each OUT's record checked against the file it describes, the set
 * checked to be the N shards of one run, and their lines read back in the order one run wrote them.
 */
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { messageOf } from '../lib/errors.ts';
import type { LineMetric } from './baseline.ts';
import { readReasonOf } from './outputs.ts';
import { sha256OfFile, SHARD_RECORD_FORMAT, shardRecordPath, type ShardRecord } from './shard.ts';

/** A refusal: nothing is written, exit 2. */
export class MergeRefused extends Error {}

export interface Shard {
  path: string;
  record: ShardRecord;
}

/** A line of a shard's --out file, as score.ts writes it. */
export interface RowLine {
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
export function readShard(path: string): Shard {
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
export function checkShardSet(shards: Shard[]): Shard[] {
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
export async function* linesInRowOrder(
  shards: Shard[],
): AsyncGenerator<{ text: string; line: RowLine }> {
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

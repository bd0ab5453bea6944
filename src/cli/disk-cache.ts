/**
 * The CLI's judge cache on disk: the response cache as a JSON Lines file (one `{key, response}`
 * per stored answer, appended as answers arrive, the last line per key wins), the batch jobs
 * still pending in a JSON file beside it, and the model's probed capabilities. A second run over
 * the same rows reads every answer from the file and makes no call; a run stopped while a batch
 * job was pending finds the job's id there and polls it instead of submitting it again.
 *
 * Two runs may share one file (the default cache serves every run started in a folder): each
 * appends whole lines, and an answer is only believed when its line names the key asked for.
 *
 * The file is the store: memory holds where each key's line is, never the answers, so a batch
 * run of 10⁵ rows (half a million answers, more than a JavaScript string can hold) keeps its
 * footprint in the index.
 */
import {
  closeSync,
  createReadStream,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ResponseCache } from '../lib/llm/cache.ts';
import type { BatchJobRecord, BatchJobStore, MissSpool } from '../lib/llm/batch/engine.ts';
import type { BatchLine } from '../lib/llm/batch/wire.ts';
import type { CapabilityStore } from '../lib/llm/capabilities.ts';
import type { Capabilities, JudgeResponse } from '../lib/llm/types.ts';

/** Under the folder the CLI runs in: the repository root under `npm run score`. */
export const DEFAULT_CACHE_FILE = join('.cache', 'judge', 'responses.jsonl');

const NEWLINE = 0x0a;
const READ_CHUNK = 1 << 20;

interface Place {
  offset: number;
  length: number;
}

export class JsonlResponseCache implements ResponseCache {
  private readonly index = new Map<string, Place>();
  private readonly fd: number;
  private end: number;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.fd = openSync(file, 'a+');
    this.end = fstatSync(this.fd).size;
    this.readIndex();
    // A file a killed run left without its last newline gets one before the next line.
    if (this.end > 0 && this.lastByte() !== NEWLINE) this.end += writeSync(this.fd, '\n');
  }

  /** One pass over the file in 1 MB reads: each line's key and place. */
  private readIndex(): void {
    const buffer = Buffer.alloc(READ_CHUNK);
    let carry = Buffer.alloc(0);
    let carryStart = 0;
    for (let position = 0; position < this.end;) {
      const read = readSync(this.fd, buffer, 0, READ_CHUNK, position);
      if (read <= 0) break;
      const data = carry.length ? Buffer.concat([carry, buffer.subarray(0, read)]) : buffer;
      const size = carry.length ? data.length : read;
      let lineStart = 0;
      for (
        let i = data.indexOf(NEWLINE, 0);
        i !== -1 && i < size;
        i = data.indexOf(NEWLINE, i + 1)
      ) {
        this.indexLine(data.subarray(lineStart, i), carryStart + lineStart);
        lineStart = i + 1;
      }
      carry = Buffer.from(data.subarray(lineStart, size));
      carryStart += lineStart;
      position += read;
    }
    // A last line with no newline was cut off by a killed run: it is asked again.
  }

  private indexLine(line: Buffer, offset: number): void {
    if (line.length === 0) return;
    try {
      const entry = JSON.parse(line.toString('utf8')) as { key?: unknown; response?: unknown };
      if (typeof entry.key !== 'string') return;
      if (entry.response) this.index.set(entry.key, { offset, length: line.length });
      else this.index.delete(entry.key);
    } catch {
      // A line cut off by a killed run: the answer is asked again.
    }
  }

  get size(): number {
    return this.index.size;
  }

  async get(key: string): Promise<JudgeResponse | undefined> {
    const place = this.index.get(key);
    if (!place) return undefined;
    const buffer = Buffer.alloc(place.length);
    readSync(this.fd, buffer, 0, place.length, place.offset);
    try {
      const entry = JSON.parse(buffer.toString('utf8')) as { key?: unknown; response?: unknown };
      // A place taken while another run appended to the same file may point into its line.
      if (entry.key === key && entry.response) return entry.response as JudgeResponse;
    } catch {
      // The same: not this key's line. Asking again is what a miss costs.
    }
    this.index.delete(key);
    return undefined;
  }

  private append(entry: object): Place {
    const line = Buffer.from(JSON.stringify(entry) + '\n', 'utf8');
    const written = writeSync(this.fd, line);
    // The file's end, not ours: another run may have appended since (the file is opened for
    // appending, so each line lands whole at the end).
    this.end = fstatSync(this.fd).size;
    return { offset: this.end - written, length: line.length - 1 };
  }

  private lastByte(): number {
    const one = Buffer.alloc(1);
    readSync(this.fd, one, 0, 1, this.end - 1);
    return one[0]!;
  }

  async set(key: string, response: JudgeResponse): Promise<void> {
    this.index.set(key, this.append({ key, response }));
  }

  async delete(key: string): Promise<void> {
    if (!this.index.delete(key)) return;
    this.append({ key });
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * A batch round's unanswered requests in a JSON Lines file next to the cache until they go up
 * as jobs: memory holds their ids. The file is this process's own and is gone once the round is
 * submitted. A run killed mid-round (SIGKILL, a power cut) cannot remove its file, so the next
 * spool in that folder removes the files of processes that no longer exist.
 */
export class FileMissSpool implements MissSpool {
  readonly file: string;
  private readonly ids = new Set<string>();
  private fd: number | undefined;

  constructor(cacheFile: string) {
    this.file = join(dirname(cacheFile), `batch-spool-${process.pid}.jsonl`);
  }

  get size(): number {
    return this.ids.size;
  }

  has(customId: string): boolean {
    return this.ids.has(customId);
  }

  add(line: BatchLine): void {
    if (this.ids.has(line.customId)) return;
    this.ids.add(line.customId);
    if (this.fd === undefined) {
      mkdirSync(dirname(this.file), { recursive: true });
      removeOrphanSpools(dirname(this.file));
      this.fd = openSync(this.file, 'w');
    }
    writeSync(this.fd, JSON.stringify(line) + '\n');
  }

  async *lines(): AsyncIterable<BatchLine> {
    if (this.fd === undefined) return;
    const lines = createInterface({ input: createReadStream(this.file), crlfDelay: Infinity });
    for await (const text of lines) if (text) yield JSON.parse(text) as BatchLine;
  }

  async clear(): Promise<void> {
    this.ids.clear();
    if (this.fd === undefined) return;
    closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.file, { force: true });
  }
}

const SPOOL_NAME = /^batch-spool-(\d+)\.jsonl$/;

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Spool files left by runs that were killed; a live run's file (another terminal) is kept. */
function removeOrphanSpools(dir: string): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(SPOOL_NAME.exec(name)?.[1]);
    if (pid && pid !== process.pid && !processExists(pid)) rmSync(join(dir, name), { force: true });
  }
}

/** Pending batch jobs in `batch-jobs.json` next to the cache file. */
export class FileJobStore implements BatchJobStore {
  readonly file: string;

  constructor(cacheFile: string) {
    this.file = join(dirname(cacheFile), 'batch-jobs.json');
  }

  private read(): BatchJobRecord[] {
    if (!existsSync(this.file)) return [];
    try {
      const value = JSON.parse(readFileSync(this.file, 'utf8')) as { jobs?: BatchJobRecord[] };
      return Array.isArray(value.jobs) ? value.jobs : [];
    } catch {
      return [];
    }
  }

  private write(jobs: BatchJobRecord[]): void {
    writeWhole(this.file, JSON.stringify({ jobs }, null, 2) + '\n');
  }

  async list(): Promise<BatchJobRecord[]> {
    return this.read();
  }

  async add(job: BatchJobRecord): Promise<void> {
    this.write([...this.read().filter((j) => j.jobId !== job.jobId), job]);
  }

  async remove(jobId: string): Promise<void> {
    this.write(this.read().filter((j) => j.jobId !== jobId));
  }
}

/**
 * The capability probe's result per provider+host+model in `capabilities.json` beside the cache,
 * so a run resumed with the same cache sends not even the probe again.
 */
export class FileCapabilityStore implements CapabilityStore {
  readonly file: string;

  constructor(cacheFile: string) {
    this.file = join(dirname(cacheFile), 'capabilities.json');
  }

  private read(): Record<string, Capabilities> {
    try {
      const value = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return typeof value === 'object' && value !== null && !Array.isArray(value)
        ? (value as Record<string, Capabilities>)
        : {};
    } catch {
      return {};
    }
  }

  async get(key: string): Promise<Capabilities | undefined> {
    return this.read()[key];
  }

  async set(key: string, capabilities: Capabilities): Promise<void> {
    writeWhole(this.file, JSON.stringify({ ...this.read(), [key]: capabilities }, null, 2) + '\n');
  }
}

/** Written beside and renamed over, so a killed run never leaves half a file. */
function writeWhole(file: string, text: string): void {
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, file);
}

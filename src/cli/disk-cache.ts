/**
 * The CLI's judge cache on disk: the response cache as a JSON Lines file (one `{key, response}`
 * per stored answer, appended as answers arrive, the last line per key wins), and the batch jobs
 * still pending in a JSON file beside it. A second run over the same rows reads every answer
 * from the file and makes no call; a run stopped while a batch job was pending finds the job's
 * id there and polls it instead of submitting it again.
 */
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import type { ResponseCache } from '../lib/llm/cache.ts';
import type { BatchJobRecord, BatchJobStore } from '../lib/llm/batch/engine.ts';
import type { JudgeResponse } from '../lib/llm/types.ts';

export const DEFAULT_CACHE_FILE = join('.cache', 'judge', 'responses.jsonl');

export class JsonlResponseCache implements ResponseCache {
  private readonly map = new Map<string, JudgeResponse>();

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const entry = JSON.parse(line) as { key: string; response?: JudgeResponse };
        if (entry.response) this.map.set(entry.key, entry.response);
        else this.map.delete(entry.key);
      } catch {
        // A line cut off by a killed run: the answer is asked again.
      }
    }
  }

  get size(): number {
    return this.map.size;
  }

  async get(key: string): Promise<JudgeResponse | undefined> {
    const hit = this.map.get(key);
    return hit ? structuredClone(hit) : undefined;
  }

  async set(key: string, response: JudgeResponse): Promise<void> {
    this.map.set(key, structuredClone(response));
    appendFileSync(this.file, JSON.stringify({ key, response }) + '\n');
  }

  async delete(key: string): Promise<void> {
    if (!this.map.delete(key)) return;
    appendFileSync(this.file, JSON.stringify({ key }) + '\n');
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
    mkdirSync(dirname(this.file), { recursive: true });
    // Written whole and renamed, so a killed run never leaves half a file.
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, JSON.stringify({ jobs }, null, 2) + '\n');
    renameSync(temp, this.file);
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

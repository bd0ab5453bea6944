/**
 * `npm run score -- FILE --metrics alignment --batch openai`: the real CLI against the fake
 * OpenAI batch engine. It prints the price at the batch rate and the job's states while polling,
 * keeps the answers in the disk cache (a later run, batch or interactive, makes no call), and a
 * run killed while its job is pending is resumed by the next one without a second job.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from '../../helpers/shared.ts';
import { startFakeBatch, type FakeBatch } from '../../helpers/fake-batch.ts';
import { casesFile } from './_cli.ts';

const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'src/cli/score.ts');

interface Run {
  child: ChildProcess;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
  stderr: () => string;
}

function score(args: string[], baseUrl: string): Run {
  const child = spawn(process.execPath, [tsx, cli, ...args], {
    cwd: repoRoot,
    env: {
      ...process.env,
      SUMLENS_LLM_PROVIDER: 'openai',
      SUMLENS_LLM_MODEL: 'gpt-4.1-mini',
      SUMLENS_LLM_API_KEY: 'sk-test-cli-batch-key',
      SUMLENS_LLM_BASE_URL: baseUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolveRun) =>
    child.on('close', (code) => resolveRun({ code, stdout, stderr })),
  );
  return { child, done, stderr: () => stderr };
}

interface OutputLine {
  row: number;
  metrics: Record<string, { status: string; score: number | null; reason?: string }>;
}

const outputLines = (stdout: string): OutputLine[] =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as OutputLine);

describe('npm run score --batch', () => {
  let fake: FakeBatch | undefined;
  afterEach(async () => {
    await fake?.close();
    fake = undefined;
  });

  it('scores through batch jobs, prints price and states, and a second run makes no call', async () => {
    fake = await startFakeBatch({ wire: 'openai' });
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-batch-cli-'));
    const file = casesFile(dir, 5);
    const cache = join(dir, 'judge', 'responses.jsonl');
    const args = [file, '--metrics', 'alignment', '--cache', cache, '--poll-interval', '0.05'];

    const first = await score([...args, '--batch', 'openai'], fake.url).done;
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toMatch(
      /Batch round 1: 5 request\(s\) in 1 new job\(s\), at most \$\d+\.\d{4} at the batch rate/u,
    );
    expect(first.stderr).toMatch(/Batch job batch_1 submitted \(5 request\(s\)\)/u);
    expect(first.stderr).toMatch(/Batch job batch_1: (validating|in_progress)/u);
    expect(first.stderr).toMatch(/Batch job batch_1: completed/u);
    expect(first.stderr).not.toContain('sk-test-cli-batch-key');
    const lines = outputLines(first.stdout);
    expect(lines.map((l) => l.row)).toEqual([1, 2, 3, 4, 5]);
    for (const l of lines) expect(l.metrics.alignment!.status).toBe('ok');
    expect(fake.jobs.length).toBe(2);
    expect(fake.interactiveCalls).toBe(0);

    // Interactive over the same cache file: every answer is there.
    const second = await score(args, fake.url).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(fake.interactiveCalls).toBe(0);
    // And batch again: no job.
    const third = await score([...args, '--batch', 'openai'], fake.url).done;
    expect(third.code, third.stderr).toBe(0);
    expect(fake.jobs.length).toBe(2);
    expect(third.stderr).toMatch(/Batch: 0 round\(s\), 0 job\(s\)/u);
  }, 60_000);

  it("a line the job failed fails only its row, with the provider's reason, and nothing is asked interactively", async () => {
    fake = await startFakeBatch({
      wire: 'openai',
      lineFault: (_i, body) => (JSON.stringify(body).includes('Report 2.') ? 'error' : undefined),
    });
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-batch-cli-'));
    const file = casesFile(dir, 4);
    const cache = join(dir, 'judge', 'responses.jsonl');
    const args = [file, '--metrics', 'alignment', '--cache', cache, '--poll-interval', '0.05'];
    const run = await score([...args, '--batch', 'openai'], fake.url).done;
    // A metric in error: the file was gone through, with a row that did not score.
    expect(run.code, run.stderr).toBe(1);
    const lines = outputLines(run.stdout);
    expect(lines.map((l) => [l.row, l.metrics.alignment!.status])).toEqual([
      [1, 'ok'],
      [2, 'ok'],
      [3, 'error'],
      [4, 'ok'],
    ]);
    expect(lines[2]!.metrics.alignment!.reason).toMatch(/max_tokens/u);
    expect(fake.interactiveCalls).toBe(0);
    expect(run.stderr).toMatch(
      /Batch: 2 round\(s\), 2 job\(s\), 7 request\(s\), 1 without an answer/u,
    );
    // The round's requests waited in a spool file beside the cache; it is gone.
    expect(readdirSync(join(dir, 'judge')).sort()).toEqual(['batch-jobs.json', 'responses.jsonl']);
  }, 60_000);

  it('a run killed while its job is pending is resumed by the next run, without a second job', async () => {
    fake = await startFakeBatch({ wire: 'openai', pollsBeforeEnd: 8 });
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-batch-cli-'));
    const file = casesFile(dir, 3);
    const cache = join(dir, 'responses.jsonl');
    const args = [
      file,
      '--metrics',
      'alignment',
      '--cache',
      cache,
      '--poll-interval',
      '0.05',
      '--batch',
      'openai',
    ];

    const first = score(args, fake.url);
    await new Promise<void>((resolveWait) => {
      const check = setInterval(() => {
        if (/submitted/u.test(first.stderr())) {
          clearInterval(check);
          resolveWait();
        }
      }, 10);
    });
    first.child.kill('SIGINT');
    const stopped = await first.done;
    // Stopped by its own hand, not killed: the polling ends, the job file stays.
    expect(stopped.code, stopped.stderr).toBe(130);
    expect(stopped.stderr).toMatch(/Interrupted \(SIGINT\)/u);
    const jobsFile = join(dir, 'batch-jobs.json');
    expect(existsSync(jobsFile)).toBe(true);
    const pending = JSON.parse(readFileSync(jobsFile, 'utf8')) as {
      jobs: Array<{ jobId: string }>;
    };
    expect(pending.jobs.map((j) => j.jobId)).toEqual(['batch_1']);
    expect(fake.jobs.length).toBe(1);

    const second = await score(args, fake.url).done;
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toMatch(/Batch job batch_1 was pending from an earlier run/u);
    // Round 1 was the resumed job; round 2 (verdicts) the only new one.
    expect(fake.jobs.length).toBe(2);
    expect((JSON.parse(readFileSync(jobsFile, 'utf8')) as { jobs: unknown[] }).jobs).toEqual([]);
  }, 60_000);
});

/**
 * `npm run bench:cli-batch`: a data set of 10⁵ rows through `node dist-cli/score.js --batch
 * openai` against the loopback fake OpenAI batch engine (tests/helpers/fake-batch.ts), to show
 * that the CLI's footprint follows one job, not the data set. The rows are SummEval dev
 * articles and summaries (each made distinct by a "Report N." prefix, so no answer is shared);
 * the metric is alignment (claims, then verdicts: two rounds).
 *
 * It prints, per size: wall time, rows/s, jobs and requests, and the process's peak resident
 * memory (VmHWM, read from /proc while it runs). It asserts nothing about time (machines are
 * shared). Options: `--rows 20000,100000`, `--metrics alignment`, `--keep` (leave the files in
 * .tmp/cli-batch-scale/).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildCli } from '../scripts/build-cli.ts';
import { readDevRows } from '../src/lib/node/validity/summeval.ts';
import { startFakeBatch } from '../tests/helpers/fake-batch.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '20000,100000' },
    metrics: { type: 'string', default: 'alignment' },
    keep: { type: 'boolean', default: false },
  },
});
const root = resolve(import.meta.dirname, '..');
const dir = resolve(root, '.tmp/cli-batch-scale');
const PORT = Number(process.env.SUMLENS_BENCH_PORT ?? 4392);

function dataset(rows: number): string {
  const dev = readDevRows();
  const file = join(dir, `rows-${rows}.jsonl`);
  const lines: string[] = [];
  for (let i = 0; i < rows; i++) {
    const r = dev[i % dev.length]!;
    lines.push(
      JSON.stringify({
        id: `r${i}`,
        source: `Report ${i}. ${r.text}`,
        summary: `Report ${i}. ${r.decoded}`,
      }),
    );
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** Peak resident set of a running process, from /proc (kB); 0 where /proc is not there. */
function peakKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/u.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

interface Report {
  rows: number;
  seconds: number;
  peakMb: number;
  summary: string;
}

async function scoreOnce(cli: string, file: string, rows: number, url: string): Promise<Report> {
  const cacheDir = join(dir, `cache-${rows}`);
  rmSync(cacheDir, { recursive: true, force: true });
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      cli,
      file,
      '--metrics',
      args.metrics,
      '--batch',
      'openai',
      '--poll-interval',
      '1',
      '--cache',
      join(cacheDir, 'responses.jsonl'),
      '--out',
      join(dir, `out-${rows}.jsonl`),
    ],
    {
      env: {
        ...process.env,
        SUMLENS_LLM_PROVIDER: 'openai',
        SUMLENS_LLM_MODEL: 'gpt-4.1-mini',
        SUMLENS_LLM_API_KEY: 'sk-bench-not-a-key',
        SUMLENS_LLM_BASE_URL: url,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, peakKb(child.pid!))), 100);
  const code = await new Promise<number | null>((done) => child.on('close', done));
  clearInterval(sampler);
  if (code !== 0) throw new Error(`score exited ${code}: ${stderr.slice(-800)}`);
  const summary = /Batch: .*/u.exec(stderr)?.[0] ?? '';
  return { rows, seconds: (performance.now() - started) / 1000, peakMb: peak / 1024, summary };
}

mkdirSync(dir, { recursive: true });
const cli = await buildCli();
const fake = await startFakeBatch({ wire: 'openai', port: PORT, forgetDownloaded: true });
const reports: Report[] = [];
try {
  for (const rows of args.rows.split(',').map(Number)) {
    const file = dataset(rows);
    process.stderr.write(`[bench:cli-batch] ${rows} rows…\n`);
    reports.push(await scoreOnce(cli, file, rows, fake.url));
  }
} finally {
  await fake.close();
  if (!args.keep && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

console.log(
  `CLI batch runs (${args.metrics}, fake OpenAI batch engine on loopback; load ${loadavg()[0]!.toFixed(1)}):`,
);
console.log('| Rows | Wall time | Rows/s | Peak memory (RSS) | Jobs |');
console.log('| ---: | ---: | ---: | ---: | --- |');
for (const r of reports) {
  console.log(
    `| ${r.rows.toLocaleString('en')} | ${r.seconds.toFixed(1)} s | ${(r.rows / r.seconds).toFixed(0)} | ${r.peakMb.toFixed(0)} MB | ${r.summary.replace(/^Batch: /u, '')} |`,
  );
}

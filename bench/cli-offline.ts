/**
 * `npm run bench:cli`: the CLI's default offline metrics on the 600 SummEval dev rows, before and
 * after issue 30 in one run: "before" is the main thread alone with USE-lite fp32 on onnxruntime-web's
 * WASM (one thread: `--workers 1 --encoder-runtime wasm`), "after" the default (onnxruntime-node,
 * one worker thread per core). Each side starts with an empty vector cache of its own, so every
 * sentence is encoded, and runs as `npm run score` does (`node --import tsx src/cli/score.ts`).
 *
 * It prints per side: wall time, rows/s, CPU time, peak resident memory (VmHWM, read from /proc
 * while the process runs; worker threads are in it), then after/before and the largest score
 * difference between the two sides (WASM and native vectors differ in the 7th digit). The machine
 * line gives the cores and the load average before and after: machines are shared, and nothing is
 * asserted about time. The result goes to bench/results/cli-offline.json (--json FILE).
 *
 * Options: `--rows 600`, `--workers N` (the after side's; default: the CLI's), `--keep` (leave the
 * files in .tmp/cli-offline/).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { readDevRows } from '../src/lib/node/validity/summeval.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '600' },
    workers: { type: 'string' },
    json: { type: 'string', default: resolve(repoRoot, 'bench/results/cli-offline.json') },
    keep: { type: 'boolean', default: false },
  },
});
const dir = resolve(repoRoot, '.tmp/cli-offline');
const CLI = resolve(repoRoot, 'src/cli/score.ts');
const TSX = pathToFileURL(resolve(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;
const CLOCK_TICKS = 100;

interface Side {
  label: 'before' | 'after, fp32' | 'after';
  description: string;
  args: string[];
}

interface Measured {
  label: Side['label'];
  description: string;
  rows: number;
  seconds: number;
  rowsPerSecond: number;
  cpuSeconds: number;
  peakMb: number;
  /** The CLI's own words on how it ran (worker threads, a fallback). */
  notes: string[];
}

function proc(pid: number): { peakKb: number; cpuTicks: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    // utime and stime: fields 14 and 15, counted after the command's closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      peakKb: Number(/VmHWM:\s+(\d+) kB/u.exec(status)?.[1] ?? 0),
      cpuTicks: Number(fields[11]) + Number(fields[12]),
    };
  } catch {
    return undefined;
  }
}

async function score(side: Side, file: string, rows: number): Promise<Measured> {
  const cache = join(dir, `vectors-${side.label.replace(/\W+/gu, '-')}`);
  const out = outFile(side.label);
  rmSync(cache, { recursive: true, force: true });
  const started = performance.now();
  // cwd: a folder of its own, so that no sumlens.config.yaml changes the metrics.
  const child = spawn(
    process.execPath,
    ['--import', TSX, CLI, file, '--vector-cache', cache, '--out', out, ...side.args],
    { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  // Maxima: a process that has exited but not been reaped still has its CPU times, not its memory.
  const last = { peakKb: 0, cpuTicks: 0 };
  const sampler = setInterval(() => {
    const now = proc(child.pid!);
    last.peakKb = Math.max(last.peakKb, now?.peakKb ?? 0);
    last.cpuTicks = Math.max(last.cpuTicks, now?.cpuTicks ?? 0);
  }, 100);
  const code = await new Promise<number | null>((done) => child.on('close', done));
  clearInterval(sampler);
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${side.label}: score exited ${code}: ${stderr.slice(-800)}`);
  const notes = stderr
    .split('\n')
    .filter((l) => /^(Offline metrics|onnxruntime-node did not load)/u.test(l));
  return {
    label: side.label,
    description: side.description,
    rows,
    seconds,
    rowsPerSecond: rows / seconds,
    // Sampled every 100 ms: the last tenth of a second may be missing.
    cpuSeconds: last.cpuTicks / CLOCK_TICKS,
    peakMb: last.peakKb / 1024,
    notes,
  };
}

/** The largest difference of one metric's score between the two sides' lines. */
const outFile = (label: string) => join(dir, `${label.replace(/\W+/gu, '-')}.jsonl`);

function largestDifference(
  a: Side['label'],
  b: Side['label'],
): { delta: number; metric?: string; row?: number } {
  const read = (label: string) =>
    readFileSync(outFile(label), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { row: number; metrics: Record<string, { score: number }> });
  const [before, after] = [read(a), read(b)];
  let worst: { delta: number; metric?: string; row?: number } = { delta: 0 };
  before.forEach((line, i) => {
    for (const [metric, { score }] of Object.entries(line.metrics)) {
      const other = after[i]!.metrics[metric]!.score;
      const delta =
        score === null || other === null
          ? score === other
            ? 0
            : Infinity
          : Math.abs(score - other);
      if (delta > worst.delta) worst = { delta, metric, row: line.row };
    }
  });
  return worst;
}

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');

mkdirSync(dir, { recursive: true });
const rows = readDevRows().slice(0, Number(args.rows));
const file = join(dir, 'summeval-dev.jsonl');
writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
const workers = args.workers ?? String(availableParallelism());
const sides: Side[] = [
  {
    label: 'before',
    description: 'main thread, onnxruntime-web WASM (1 thread), fp32',
    args: ['--workers', '1', '--encoder-runtime', 'wasm', '--precision', 'fp32'],
  },
  {
    label: 'after, fp32',
    description: `onnxruntime-node, ${workers} worker thread(s) × 1 thread, fp32`,
    args: ['--workers', workers, '--precision', 'fp32'],
  },
  {
    label: 'after',
    description: `onnxruntime-node, ${workers} worker thread(s) × 1 thread, int8 (the default)`,
    args: ['--workers', workers],
  },
];

const loadBefore = load();
const measured: Measured[] = [];
try {
  for (const side of sides) {
    process.stderr.write(`[bench:cli] ${side.label}: ${side.description}…\n`);
    measured.push(await score(side, file, rows.length));
  }
  const loadAfter = load();
  const [before, afterFp32, after] = measured as [Measured, Measured, Measured];
  // WASM against native at the same precision: the runtimes, not the model
  const difference = largestDifference('before', 'after, fp32');
  const machine = {
    cpus: cpus().length,
    availableParallelism: availableParallelism(),
    model: cpus()[0]?.model ?? 'unknown',
    loadBefore,
    loadAfter,
  };
  console.log(
    `${machine.cpus} × ${machine.model}; load average ${loadBefore} before, ${loadAfter} after`,
  );
  console.log(
    `npm run score, default offline metrics, ${rows.length} SummEval dev rows, empty vector cache:`,
  );
  console.log('| Side | Runs on | Wall time | Rows/s | CPU time | Peak memory (RSS) |');
  console.log('| --- | --- | ---: | ---: | ---: | ---: |');
  for (const m of measured) {
    console.log(
      `| ${m.label} | ${m.description} | ${m.seconds.toFixed(1)} s | ${m.rowsPerSecond.toFixed(1)} | ${m.cpuSeconds.toFixed(1)} s | ${m.peakMb.toFixed(0)} MB |`,
    );
  }
  const ratio = after.rowsPerSecond / before.rowsPerSecond;
  console.log(
    `int8/fp32 on the same native workers: ${(after.rowsPerSecond / afterFp32.rowsPerSecond).toFixed(2)}× rows/s (goal of the issue: ≥ 100 rows/s)`,
  );
  console.log(
    `after/before: ${ratio.toFixed(2)}× rows/s; largest score difference WASM vs native fp32 ${difference.delta.toExponential(1)}` +
      (difference.metric ? ` (${difference.metric}, row ${difference.row})` : ''),
  );
  for (const m of measured) for (const note of m.notes) console.log(`${m.label}: ${note}`);
  mkdirSync(resolve(args.json, '..'), { recursive: true });
  const { format } = await import('prettier');
  writeFileSync(
    args.json,
    // As `npm run check` wants it: the file is committed.
    await format(
      JSON.stringify({
        when: new Date().toISOString(),
        machine,
        rows: rows.length,
        sides: measured,
        ratio,
        difference,
      }),
      { parser: 'json' },
    ),
  );
  console.log(`Written to ${args.json}`);
} finally {
  if (!args.keep) rmSync(dir, { recursive: true, force: true });
}

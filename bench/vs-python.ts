/**
 * `npm run bench -- --vs-python`: SumLens's ROUGE (and BLEU) beside Google's `rouge_score` (and
 * `sacrebleu` where installed) in one run, on the same 600 SummEval dev pairs and one long pair (a
 * 2,500-word reference against a 500-word summary), stemmed. It checks that every F-measure agrees
 * and prints the ratios: in process (first pass, as a fresh process pays it, and later passes) and
 * as whole processes (`python3 bench/python/rouge_pairs.py --rows` against the bundled CLI,
 * `node dist-cli/score.js`, each reading the file and writing one line per pair).
 *
 * Run it first in a bench process: the first pass is only cold while nothing has tokenized or
 * stemmed yet. Without a Python that imports rouge_score it says so and how to get one.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { rouge, type RougeResult } from '../src/lib/metrics/lexical/reference/rouge.ts';
import { sentenceBleu } from '../src/lib/metrics/lexical/reference/bleu.ts';
import { repoRoot } from '../src/lib/node/external-data.ts';
import { buildCli } from '../scripts/build-cli.ts';

export interface Pair {
  source: string;
  reference: string;
  summary: string;
}

interface PythonReport {
  python: string;
  import_ms: number;
  passes_ms: number[];
  fmeasures: number[][];
  sacrebleu?: string;
  bleu_ms?: number[];
  bleu?: number[];
}

const PY_SCRIPT = resolve(repoRoot, 'bench/python/rouge_pairs.py');
const PASSES = 5;
const WHOLE_PROCESS_RUNS = 5;

/** The first Python that imports rouge_score: SUMLENS_PYTHON, python3, Debian's, python. */
export function findPython(): string | undefined {
  const candidates = [process.env.SUMLENS_PYTHON, 'python3', '/usr/bin/python3', 'python'];
  for (const python of candidates) {
    if (!python) continue;
    const probe = spawnSync(python, ['-c', 'import rouge_score.rouge_scorer'], {
      stdio: 'ignore',
    });
    if (probe.status === 0) return python;
  }
  return undefined;
}

function fmeasures(r: RougeResult): number[] {
  const lcs = (o: RougeResult['rougeL']) => (o.status === 'ok' ? o.score.fmeasure : Number.NaN);
  return [r.rouge1.fmeasure, r.rouge2.fmeasure, lcs(r.rougeL), lcs(r.rougeLsum)];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function ms(x: number): string {
  return x >= 100 ? `${x.toFixed(0)} ms` : `${x.toFixed(1)} ms`;
}

function ratio(ours: number, theirs: number): string {
  return `${(theirs / ours).toFixed(1)}×`;
}

/** Our passes over `pairs`: each pass's time and the last pass's F-measures. */
function oursInProcess(pairs: readonly Pair[]): { passes: number[]; scores: number[][] } {
  const passes: number[] = [];
  let scores: number[][] = [];
  for (let i = 0; i < PASSES; i++) {
    const t = performance.now();
    scores = pairs.map((p) => fmeasures(rouge(p.reference, p.summary, { useStemmer: true })));
    passes.push(performance.now() - t);
  }
  return { passes, scores };
}

function runPython(python: string, file: string): PythonReport {
  const run = spawnSync(python, [PY_SCRIPT, file, '--passes', String(PASSES)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (run.status !== 0) {
    throw new Error(`${python} ${PY_SCRIPT} failed (${run.status}): ${run.stderr.slice(-400)}`);
  }
  return JSON.parse(run.stdout) as PythonReport;
}

/** Wall time of a whole process, from spawn to exit (its output thrown away). */
function wallMs(command: string, args: string[]): number {
  const t = performance.now();
  const run = spawnSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const elapsed = performance.now() - t;
  if (run.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${run.stderr.slice(-400)}`);
  return elapsed;
}

interface Agreement {
  compared: number;
  maxDiff: number;
  worst: string;
}

function agreement(ours: number[][], theirs: number[][], names: readonly string[]): Agreement {
  let compared = 0;
  let maxDiff = 0;
  let worst = '';
  ours.forEach((row, i) => {
    row.forEach((value, j) => {
      const diff = Math.abs(value - (theirs[i]?.[j] ?? Number.NaN));
      compared++;
      if (!(diff <= maxDiff)) {
        maxDiff = Number.isNaN(diff) ? Number.POSITIVE_INFINITY : diff;
        worst = `pair ${i + 1} ${names[j]}: SumLens ${value}, Python ${theirs[i]?.[j]}`;
      }
    });
  });
  return { compared, maxDiff, worst };
}

const TYPES = ['ROUGE-1', 'ROUGE-2', 'ROUGE-L', 'ROUGE-Lsum'] as const;

/** Prints the side-by-side table; returns false when the two tools disagree. */
export async function benchVsPython(devPairs: readonly Pair[], longPair: Pair): Promise<boolean> {
  const python = findPython();
  if (!python) {
    console.log(
      'Side by side with Python: skipped, no Python here imports rouge_score. Install it with\n' +
        '  pip install rouge-score sacrebleu    (or set SUMLENS_PYTHON to a Python that has them)\n' +
        'and run `npm run bench -- --vs-python` again.',
    );
    return true;
  }
  const dir = resolve(repoRoot, '.tmp/bench');
  mkdirSync(dir, { recursive: true });
  const toJsonl = (pairs: readonly Pair[]) => pairs.map((p) => JSON.stringify(p)).join('\n') + '\n';
  const devFile = resolve(dir, 'summeval-dev-pairs.jsonl');
  const longFile = resolve(dir, 'long-pair.jsonl');
  writeFileSync(devFile, toJsonl(devPairs));
  writeFileSync(longFile, toJsonl([longPair]));

  // Ours first, while cold: nothing in this process has tokenized or stemmed yet.
  const oursDev = oursInProcess(devPairs);
  const oursLong = oursInProcess([longPair]);
  const pyDev = runPython(python, devFile);
  const pyLong = runPython(python, longFile);

  const devAgree = agreement(oursDev.scores, pyDev.fmeasures, TYPES);
  const longAgree = agreement(oursLong.scores, pyLong.fmeasures, TYPES);
  const laterOurs = median(oursDev.passes.slice(1));
  const laterPy = median(pyDev.passes_ms.slice(1));

  const cli = await buildCli();
  const cliArgs = [cli, devFile, '--metrics', 'rouge-1,rouge-2,rouge-l,rouge-lsum', '--out'];
  const wholeOurs: number[] = [];
  const wholePy: number[] = [];
  for (let i = 0; i < WHOLE_PROCESS_RUNS; i++) {
    // Alternated, so a noisy neighbour slows both alike.
    wholeOurs.push(wallMs(process.execPath, [...cliArgs, resolve(dir, 'cli-out.jsonl')]));
    wholePy.push(wallMs(python, [PY_SCRIPT, devFile, '--rows']));
  }

  const version = spawnSync(python, ['--version'], { encoding: 'utf8' }).stdout.trim();
  console.log(
    `Side by side with ${version} rouge_score (${python}), stemmed, ROUGE-1/2/L/Lsum, ${devPairs.length} SummEval dev pairs:`,
  );
  const rows: Array<[string, number, number]> = [
    ['first pass, in process', oursDev.passes[0]!, pyDev.passes_ms[0]!],
    [`later passes, in process (median of ${PASSES - 1})`, laterOurs, laterPy],
    [
      `long pair (2,500-word reference, 500-word summary), first pass`,
      oursLong.passes[0]!,
      pyLong.passes_ms[0]!,
    ],
    [
      `long pair, later passes (median of ${PASSES - 1})`,
      median(oursLong.passes.slice(1)),
      median(pyLong.passes_ms.slice(1)),
    ],
    [
      `whole process, file in, one line per pair out (median of ${WHOLE_PROCESS_RUNS})`,
      median(wholeOurs),
      median(wholePy),
    ],
  ];
  console.log('  | | SumLens | rouge_score | SumLens is |');
  console.log('  |---|---|---|---|');
  for (const [label, ours, theirs] of rows) {
    console.log(`  | ${label} | ${ms(ours)} | ${ms(theirs)} | ${ratio(ours, theirs)} faster |`);
  }
  console.log(
    `  (Python's imports, not in its in-process times: ${ms(pyDev.import_ms)}; the whole process counts them, and Node's start.)`,
  );
  const agreeLine = (label: string, a: Agreement) =>
    a.maxDiff === 0
      ? `  agreement, ${label}: all ${a.compared} F-measures identical`
      : `  agreement, ${label}: ${a.compared} F-measures, max |difference| ${a.maxDiff.toExponential(2)} (${a.worst})`;
  console.log(agreeLine(`${devPairs.length} pairs`, devAgree));
  console.log(agreeLine('long pair', longAgree));
  let agrees = devAgree.maxDiff <= 1e-12 && longAgree.maxDiff <= 1e-12;

  if (pyDev.bleu && pyDev.bleu_ms) {
    const t = performance.now();
    const ourBleu = devPairs.map((p) => sentenceBleu(p.summary, [p.reference]).score);
    const oursMs = performance.now() - t;
    const bleuAgree = agreement(
      ourBleu.map((b) => [b]),
      pyDev.bleu.map((b) => [b]),
      ['BLEU'],
    );
    console.log(
      `  sentence BLEU beside sacrebleu ${pyDev.sacrebleu}: SumLens ${ms(oursMs)}, sacrebleu ${ms(pyDev.bleu_ms[0]!)} (${ratio(oursMs, pyDev.bleu_ms[0]!)} faster, first pass)`,
    );
    console.log(agreeLine('BLEU', bleuAgree));
    agrees &&= bleuAgree.maxDiff <= 1e-9;
  } else {
    console.log('  BLEU: not compared, sacrebleu is not installed for that Python.');
  }
  if (!agrees) console.log('  THE TWO TOOLS DISAGREE: the ratios above compare different work.');
  return agrees;
}

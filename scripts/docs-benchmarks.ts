/**
 * `npm run docs:benchmarks [-- --check]`: the measured tables of docs/benchmarks.md, rendered from
 * the JSON the benches write into bench/results/. Each file has one renderer and fills the block
 * between its markers (`<!-- bench:<name> -->`); the prose around the blocks is hand-written. A
 * JSON file in bench/results/ with no renderer stops the script, so a new bench's output cannot
 * be left out of the page unnoticed. tests/unit/docs/generated-pages.test.ts fails while the page
 * lags behind the files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { repoRoot } from '../src/lib/node/external-data.ts';
import {
  escapeCell,
  formatMarkdown,
  isMain,
  withGeneratedBlock,
  writeOrCheck,
  type GeneratedPage,
} from './docs-pages.ts';

export const BENCHMARKS_PAGE = 'docs/benchmarks.md';
export const RESULTS_DIR = 'bench/results';

interface CliOffline {
  when: string;
  machine: { cpus: number; model: string; loadBefore: string };
  rows: number;
  sides: Array<{
    label: string;
    description: string;
    seconds: number;
    rowsPerSecond: number;
    cpuSeconds: number;
    peakMb: number;
  }>;
  ratio: number;
  difference: { delta: number; metric: string; row: number };
}

interface FirstScore {
  date: string;
  cores: number;
  texts: { sourceWords: number; summaryWords: number };
  firstVisit: { offlineReadyMs: number; encoderReadyMs: number; encoderBytesSent: number };
  reload: { goalMs: number; medianMs: number; pass: boolean; runs: unknown[] };
  score: { goalMs: number; medianMs: number; pass: boolean; runs: Array<{ lastCard: string }> };
}

interface FirstVisit {
  label: string;
  date: string;
  goalBytes: number;
  pass: boolean;
  totalBytes: number;
  responses: number;
  offlineReadyMs: number;
  precache: { entries: number; bytes: number };
  items: Array<{ path: string; bytes: number; encoding: string }>;
}

interface LongPaste {
  label: string;
  when: string;
  machine: { loadBefore: string };
  words: number;
  chars: number;
  paste: {
    longestTaskMs: number;
    longestCpuMs: number;
    blockingMs: number;
    typingEchoMs: number;
    wordCountMs: number | null;
    busyMs: number;
  };
  emptyFormShownMs: number;
  reload: {
    draftShownMs: number;
    usableMs: number;
    longestTaskMs: number;
    longestCpuMs: number;
    blockingMs: number;
  };
}

interface Figure {
  group: string;
  measure: string;
  fp32: number;
  int8: number;
  delta: number;
}

interface Int8Agreement {
  backends: { fp32: string; int8: string };
  sentences: { cosine: { count: number; min: number; p1: number; median: number } };
  shuffle: { figures: Figure[] };
  thresholds: { figures: Figure[] };
  checks: Array<{ goal: string; holds: boolean; worst: string }>;
}

const integer = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const oneDecimal = new Intl.NumberFormat('en-US', {
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

function ms(value: number | null): string {
  return value === null ? '—' : `${integer.format(value)} ms`;
}

function megabytes(bytes: number): string {
  return `${oneDecimal.format(bytes / 1e6)} MB`;
}

function day(iso: string): string {
  return iso.slice(0, 10);
}

function goal(pass: boolean): string {
  return pass ? 'met' : '**not met**';
}

function table(head: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [
    `| ${head.map(escapeCell).join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.map(escapeCell).join(' | ')} |`),
  ].join('\n');
}

function readResult<T>(name: string): T {
  return JSON.parse(readFileSync(resolve(repoRoot, RESULTS_DIR, name), 'utf8')) as T;
}

function cliOffline(r: CliOffline): string {
  return [
    `\`npm run bench:cli\`, ${day(r.when)}, ${r.machine.cpus} × ${r.machine.model}, load ${r.machine.loadBefore}; ${r.rows} SummEval dev rows, default offline metrics:`,
    '',
    table(
      ['Route', 'What runs', 'Wall', 'Rows/s', 'CPU', 'Peak memory'],
      r.sides.map((s) => [
        s.label,
        s.description,
        `${oneDecimal.format(s.seconds)} s`,
        oneDecimal.format(s.rowsPerSecond),
        `${oneDecimal.format(s.cpuSeconds)} s`,
        `${integer.format(s.peakMb)} MB`,
      ]),
    ),
    '',
    `The last route is ${oneDecimal.format(r.ratio)}× the first; the largest score difference between routes is ${r.difference.delta.toExponential(1)} (${r.difference.metric}, row ${r.difference.row}).`,
  ].join('\n');
}

function firstScore(r: FirstScore): string {
  return [
    `\`npm run bench:first-score\`, ${day(r.date)}, ${r.cores} cores; a ${integer.format(r.texts.sourceWords)}-word source and a ${r.texts.summaryWords}-word summary:`,
    '',
    table(
      ['What', 'Measured', 'Goal'],
      [
        ['First visit: encoder ready', ms(r.firstVisit.encoderReadyMs), '—'],
        ['First visit: offline metrics ready', ms(r.firstVisit.offlineReadyMs), '—'],
        ['First visit: encoder bytes sent', megabytes(r.firstVisit.encoderBytesSent), '—'],
        [
          `Reload until the encoder is ready (median of ${r.reload.runs.length})`,
          ms(r.reload.medianMs),
          `${ms(r.reload.goalMs)}: ${goal(r.reload.pass)}`,
        ],
        [
          `Score until the last offline card (median of ${r.score.runs.length}; last card: ${[...new Set(r.score.runs.map((run) => run.lastCard))].join(', ')})`,
          ms(r.score.medianMs),
          `${ms(r.score.goalMs)}: ${goal(r.score.pass)}`,
        ],
      ],
    ),
  ].join('\n');
}

function firstVisit(before: FirstVisit, after: FirstVisit): string {
  const largest = after.items
    .slice()
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, 5);
  return [
    `\`npm run bytes:first-visit\`: what a first visit downloads until the offline metrics are ready (goal ${megabytes(after.goalBytes)}).`,
    '',
    table(
      ['Build', 'Date', 'Downloaded', 'Responses', 'Precache', 'Offline ready', 'Goal'],
      [before, after].map((r) => [
        r.label,
        day(r.date),
        megabytes(r.totalBytes),
        String(r.responses),
        `${r.precache.entries} files, ${megabytes(r.precache.bytes)}`,
        ms(r.offlineReadyMs),
        goal(r.pass),
      ]),
    ),
    '',
    'The largest downloads now:',
    '',
    table(
      ['File', 'Sent', 'Encoding'],
      largest.map((item) => [`\`${item.path}\``, megabytes(item.bytes), item.encoding || 'none']),
    ),
  ].join('\n');
}

function longPaste(before: LongPaste, after: LongPaste): string {
  const row = (what: string, pick: (r: LongPaste) => number | null): string[] => [
    what,
    ms(pick(before)),
    ms(pick(after)),
  ];
  return [
    `\`npm run bench:long-paste\`: a ${integer.format(after.words)}-word source (${integer.format(after.chars)} characters) pasted with Ctrl+V, then a reload with that draft; ${day(after.when)}, load ${before.machine.loadBefore} (${before.label}) and ${after.machine.loadBefore} (${after.label}).`,
    '',
    table(
      ['What (from the paste, or from navigation)', before.label, after.label],
      [
        row('Paste: longest main-thread task (wall)', (r) => r.paste.longestTaskMs),
        row('Paste: longest main-thread task (CPU)', (r) => r.paste.longestCpuMs),
        row('Paste: blocking time (each task beyond 50 ms)', (r) => r.paste.blockingMs),
        row('Paste: a key typed into the summary box on screen', (r) => r.paste.typingEchoMs),
        row('Paste: word count shown', (r) => r.paste.wordCountMs),
        row('Paste: page idle', (r) => r.paste.busyMs),
        row('First visit, empty form shown', (r) => r.emptyFormShownMs),
        row('Reload with the draft: text shown, Score enabled', (r) => r.reload.draftShownMs),
        row('Reload with the draft: a key typed on screen', (r) => r.reload.usableMs),
        row('Reload: longest main-thread task (wall)', (r) => r.reload.longestTaskMs),
        row('Reload: longest main-thread task (CPU)', (r) => r.reload.longestCpuMs),
        row('Reload: blocking time', (r) => r.reload.blockingMs),
      ],
    ),
  ].join('\n');
}

function int8Agreement(r: Int8Agreement): string {
  const c = r.sentences.cosine;
  const figureRows = [...r.shuffle.figures, ...r.thresholds.figures].map((f) => [
    `${f.group} (${f.measure})`,
    String(f.fp32),
    String(f.int8),
    f.delta > 0 ? `+${f.delta}` : String(f.delta),
  ]);
  return [
    `\`npm run int8:agreement\`: \`${r.backends.int8}\` against \`${r.backends.fp32}\` on ${integer.format(c.count)} sentences; cosine min ${c.min.toFixed(4)}, 1st percentile ${c.p1.toFixed(4)}, median ${c.median.toFixed(4)} ([the int8 encoder](int8-encoder.md)).`,
    '',
    table(['Figure', 'fp32', 'int8', 'Δ'], figureRows),
    '',
    table(
      ['Check', 'Holds', 'Worst'],
      r.checks.map((check) => [check.goal, check.holds ? 'yes' : '**no**', check.worst]),
    ),
  ].join('\n');
}

/** Each block of the page, the result files it is rendered from, and how. */
const BLOCKS: ReadonlyArray<{ block: string; files: string[]; render: () => string }> = [
  {
    block: 'bench:cli-offline',
    files: ['cli-offline.json'],
    render: () => cliOffline(readResult('cli-offline.json')),
  },
  {
    block: 'bench:first-visit',
    files: ['first-visit-before.json', 'first-visit-after.json'],
    render: () =>
      firstVisit(readResult('first-visit-before.json'), readResult('first-visit-after.json')),
  },
  {
    block: 'bench:first-score',
    files: ['first-score.json'],
    render: () => firstScore(readResult('first-score.json')),
  },
  {
    block: 'bench:long-paste',
    files: ['long-paste-before.json', 'long-paste-after.json'],
    render: () =>
      longPaste(readResult('long-paste-before.json'), readResult('long-paste-after.json')),
  },
  {
    block: 'bench:int8-agreement',
    files: ['int8-agreement.json'],
    render: () => int8Agreement(readResult('int8-agreement.json')),
  },
];

/** The result files no block renders (a new bench whose output the page would not show). */
export function unrenderedResults(): string[] {
  const rendered = new Set(BLOCKS.flatMap((b) => b.files));
  return readdirSync(resolve(repoRoot, RESULTS_DIR))
    .filter((name) => name.endsWith('.json') && !rendered.has(name))
    .sort();
}

/** docs/benchmarks.md with every block rendered from bench/results/, formatted. */
export async function benchmarkPages(): Promise<GeneratedPage[]> {
  const missing = unrenderedResults();
  if (missing.length > 0) {
    throw new Error(
      `${RESULTS_DIR}/${missing.join(', ')}: no renderer in scripts/docs-benchmarks.ts`,
    );
  }
  let text = readFileSync(resolve(repoRoot, BENCHMARKS_PAGE), 'utf8');
  for (const { block, files, render } of BLOCKS) {
    const source = files.map((f) => `\`${RESULTS_DIR}/${f}\``).join(' and ');
    text = withGeneratedBlock(
      text,
      block,
      `<!-- Generated by \`npm run docs:benchmarks\` from ${source}. -->\n\n${render()}`,
    );
  }
  return [{ path: BENCHMARKS_PAGE, text: await formatMarkdown(text, BENCHMARKS_PAGE) }];
}

if (isMain(import.meta.url)) await writeOrCheck('docs:benchmarks', benchmarkPages);

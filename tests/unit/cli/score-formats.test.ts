/**
 * `npm run score` on every import format, as a script or CI job would run it: SummEval JSONL,
 * a CSV of cases, TinyEval prediction files (the published figures, as eval.py prints them), SFT
 * rows, column overrides, the summary table and --summary-json; and the LLM metrics through the
 * loopback fake provider configured by environment variables, without the key ever printed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot, sharedPath } from '../../helpers/shared.ts';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.ts';
import { oracleHandler } from '../../helpers/judge-oracle.ts';
import { SFT_SAMPLE, summevalCsv } from '../datasets/_support.ts';

const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'src/cli/score.ts');
const run = promisify(execFile);

interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  lines: Array<Record<string, unknown>>;
}

/** Runs the CLI without blocking this process (the fake LLM answers from here). */
async function score(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SUMLENS_LLM_')),
  );
  try {
    const { stdout, stderr } = await run(process.execPath, [tsx, cli, ...args], {
      cwd: repoRoot,
      env: { ...clean, ...env },
      maxBuffer: 64 * 1024 * 1024,
    });
    return { code: 0, stdout, stderr, lines: jsonLines(stdout) };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr, lines: jsonLines(e.stdout) };
  }
}

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const dir = mkdtempSync(join(tmpdir(), 'sumlens-cli-formats-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('npm run score: TinyEval prediction files, as eval.py', () => {
  it.each([
    ['multi_news', '23.66', 300],
    ['multifieldqa_zh', '34.97', 501],
    ['trec', '52.0', 300],
  ] as const)(
    'internlm %s → %s',
    async (task, published, n) => {
      const summaryPath = join(dir, `${task}.summary.json`);
      const r = await score([
        sharedPath(`data/tinyeval/pred/internlm/${task}.jsonl`),
        '--summary-json',
        summaryPath,
      ]);
      expect(r.code).toBe(0);
      expect(r.lines).toHaveLength(n);
      expect(r.lines[0]).toMatchObject({ row: 1, task });
      expect(typeof r.lines[0]!.score).toBe('number');
      expect(r.stderr).toContain(`eval.py result: {"${task}": ${published}}`);
      expect(r.stderr).toMatch(
        new RegExp(`${task}\\s+\\S+\\s+${n}\\s+${published.replace('.', '\\.')}`, 'u'),
      );
      const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as Record<string, unknown>;
      expect(summary.result).toEqual({ [task]: Number(published) });
      expect(summary).toMatchObject({ kind: 'prediction', rows: n, badRows: 0 });
    },
    60_000,
  );

  it('--task overrides the file name; prediction rows without a task stop with the list', async () => {
    const trec = readFileSync(sharedPath('data/tinyeval/pred/internlm/trec.jsonl'), 'utf8');
    const renamed = file('preds.jsonl', trec);
    const none = await score([renamed]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/name the task with --task \(multi_news, multifieldqa_zh, trec, /u);
    const custom = await score([renamed, '--task', 'custom:classification']);
    expect(custom.code).toBe(0);
    // Without the first-line cut the score is lower than trec's 52.0.
    const m = /eval\.py result: \{"custom:classification": ([\d.]+)\}/u.exec(custom.stderr);
    expect(Number(m![1])).toBeLessThan(52);
    const bad = await score([renamed, '--task', 'gsm8k']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Unknown task 'gsm8k'/u);
  }, 60_000);
});

describe('npm run score: cases', () => {
  it('SummEval JSONL: metrics, group/system and mean human ratings per row; the summary table', async () => {
    const lines = readFileSync(sharedPath('data/summeval/dev.jsonl'), 'utf8')
      .split('\n')
      .slice(0, 4);
    const path = file('summeval.jsonl', lines.join('\n') + '\n');
    const r = await score([path, '--metrics', 'rouge-1,rouge-l,token-f1']);
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(4);
    const first = r.lines[0]!;
    const record = JSON.parse(lines[0]!) as { id: string; model_id: string };
    expect(first).toMatchObject({ row: 1, system: record.model_id, group: record.id });
    expect(Object.keys(first.metrics as object)).toEqual(['rouge-1', 'rouge-l', 'token-f1']);
    expect((first.human as Record<string, number>).expert_coherence).toBeCloseTo(3, 9);
    expect(r.stderr).toContain(
      'SummEval records: 4 rows, 4 expert dimensions, 4 turker dimensions [jsonl]',
    );
    expect(r.stderr).toMatch(/metric\s+mean\s+n\s+n\/a\s+errors/u);
    expect(r.stderr).toMatch(/rouge-1\s+0\.\d{4}\s+4\s+0\s+0/u);
    expect(r.stderr).toMatch(/expert_coherence\s+\d\.\d{3}\s+4/u);
    expect(r.stderr).toContain('4 row(s) scored, 0 bad row(s)');
  }, 60_000);

  it('CSV with quoted commas and line breaks, a bad row named, ratings kept', async () => {
    const csv = summevalCsv(3) + '\nd9,S.,,,,\n';
    const path = file('cases.csv', csv);
    const summaryPath = join(dir, 'cases.summary.json');
    const r = await score([path, '--metrics', 'rouge-1', '--summary-json', summaryPath]);
    // The bad row fails the run's status; the others are scored and summed up all the same.
    expect(r.code).toBe(1);
    expect(r.lines.map((l) => l.row)).toEqual([2, 3, 4, 5]);
    expect(r.lines[3]!.error).toBe("row 5: no summary text in column 'summary'");
    expect(r.lines[0]!.human).toEqual({
      coherence: expect.any(Number),
      relevance: expect.any(Number),
    });
    const summary = JSON.parse(readFileSync(summaryPath, 'utf8')) as {
      metrics: Record<string, { mean: number; n: number }>;
      badRows: number;
      format: string;
    };
    expect(summary.format).toBe('csv');
    expect(summary.badRows).toBe(1);
    expect(summary.metrics['rouge-1']!.n).toBe(3);
  }, 60_000);

  it('--map renames columns; --format forces the syntax', async () => {
    const path = file(
      'odd.txt',
      JSON.stringify([
        {
          body: 'The council approved a park.',
          gist: 'A park was approved.',
          gold: 'Park approved.',
        },
      ]),
    );
    const unmapped = await score([path]);
    expect(unmapped.code).toBe(2);
    expect(unmapped.stderr).toMatch(/Unrecognised records \(columns body, gist, gold\)/u);
    const r = await score([
      path,
      '--format',
      'json',
      '--kind',
      'case',
      '--map',
      'body=source',
      '--map',
      'gist=summary',
      '--map',
      'gold=reference',
      '--metrics',
      'rouge-1',
    ]);
    expect(r.code).toBe(0);
    expect(r.lines[0]).toMatchObject({ row: 1, metrics: { 'rouge-1': { status: 'ok' } } });
  }, 60_000);

  it('SFT rows with a prediction column, scored by a task against `output`', async () => {
    const path = file('sft.jsonl', SFT_SAMPLE);
    const r = await score([path, '--task', 'custom:qa-f1']);
    expect(r.code).toBe(0);
    expect(r.lines.map((l) => l.score)).toEqual([1, expect.any(Number), 0]);
    expect(r.stderr).toContain(
      "SFT rows {instruction, input, output}: 3 rows, predictions in column 'pred'",
    );
    expect(r.stderr).toMatch(/custom:qa-f1\s+qa-f1\s+3\s+/u);
  }, 60_000);

  it('an empty file scores nothing and says so', async () => {
    const r = await score([file('empty.jsonl', '')]);
    expect(r.code).toBe(1);
    expect(r.lines).toEqual([]);
    expect(r.stderr).toContain('Empty file: no rows.');
    expect(r.stderr).toMatch(/No row could be read from /u);
  }, 60_000);
});

describe('npm run score: LLM metrics from environment variables', () => {
  let fake: FakeLlm;
  beforeAll(async () => {
    fake = await startFakeLlm({ requireOpenAiKey: false });
    fake.setHandler(oracleHandler(3));
  });
  afterAll(async () => {
    await fake.close();
  });

  const KEY = 'sk-cli-test-secret-0123456789';
  const cases = [
    {
      source: 'The council approved a new park in Leeds on Monday. It will open in 2027.',
      summary: 'Leeds council approved a park on Monday. The park opens in 2027.',
      reference: 'Leeds will get a new park in 2027.',
    },
    {
      source: 'Engineers found cracks in two pillars of the old bridge. It closes for repairs.',
      summary: 'The old bridge closes after engineers found cracks.',
    },
  ];

  it('judge metrics with createJudge + runJudgeMetrics; the key is never printed', async () => {
    const path = file('judge.jsonl', cases.map((c) => JSON.stringify(c)).join('\n'));
    const summaryPath = join(dir, 'judge.summary.json');
    const r = await score(
      [
        path,
        '--metrics',
        'rouge-1,geval-coherence,geval-fluency',
        '--summary-json',
        summaryPath,
        // Not the default cache in the repository, which would keep the answers between runs.
        '--cache',
        join(dir, 'judge', 'responses.jsonl'),
      ],
      {
        SUMLENS_LLM_PROVIDER: 'openai-compatible',
        SUMLENS_LLM_MODEL: 'llama3.1',
        SUMLENS_LLM_API_KEY: KEY,
        SUMLENS_LLM_BASE_URL: fake.url,
      },
    );
    expect(r.code).toBe(0);
    expect(r.lines).toHaveLength(2);
    for (const line of r.lines) {
      const metrics = line.metrics as Record<
        string,
        { status: string; score: number; backend: string }
      >;
      expect(metrics['geval-coherence']).toMatchObject({
        status: 'ok',
        backend: expect.stringMatching(/^judge:openai-compatible\/llama3\.1/u),
      });
      expect(typeof metrics['geval-coherence']!.score).toBe('number');
      expect(metrics['geval-fluency']!.status).toBe('ok');
    }
    expect(r.stderr).toContain(`LLM judge: openai-compatible/llama3.1 at ${fake.url}`);
    expect(r.stderr).toMatch(/geval-coherence\s+\d/u);
    expect(fake.requests.length).toBeGreaterThan(0);
    expect(fake.requests.every((q) => q.authorized)).toBe(true);
    const everything = r.stdout + r.stderr + readFileSync(summaryPath, 'utf8');
    expect(everything).not.toContain(KEY);
    expect(everything).not.toContain(KEY.slice(3, 20));
  }, 120_000);

  it('judge metrics without a provider stop with the variables to set', async () => {
    const r = await score(['-', '--metrics', 'geval-coherence']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/need a provider: set SUMLENS_LLM_PROVIDER, SUMLENS_LLM_MODEL/u);
    const half = await score(['-', '--metrics', 'judge'], { SUMLENS_LLM_PROVIDER: 'openai' });
    expect(half.code).toBe(2);
    expect(half.stderr).toMatch(/set SUMLENS_LLM_MODEL too/u);
  }, 60_000);
});

/**
 * The CLI as a CI gate, end to end on six SummEval articles (their first human summaries, one
 * replaced by a copy of the article's opening): a config file whose assertion fails on exactly
 * that row exits 1, with the row's JSON line, the JUnit file and the GitHub step summary saying
 * so; the same config on the six good rows exits 0 and appends to the step summary. The regression
 * gate fails a run whose summaries all copy the lead against the good run exported by the page,
 * and passes the good run against itself. Mistakes in the config or the gate's options stop the
 * CLI before it scores anything (exit 2).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJsonl } from '../../helpers/shared.ts';
import { jsonLines, runCli, tempDir, type CliResult } from './_cli.ts';
import { junitParser } from './_junit.ts';

interface SummEvalRecord {
  id: string;
  text: string;
  references: string[];
}

/** Six articles, each once (dev.jsonl holds each article once per system). */
function articles(): SummEvalRecord[] {
  const seen = new Set<string>();
  return readJsonl<SummEvalRecord>('data/summeval/dev.jsonl')
    .filter((r) => !seen.has(r.id) && seen.add(r.id))
    .slice(0, 6);
}

/** The article's first 40 words: a lead copy, which the quality estimate flags. */
const lead = (text: string) => text.split(/\s+/u).slice(0, 40).join(' ');

const AWKWARD_ID = 'case 3 <&"q">';

function cases(summary: (a: SummEvalRecord, i: number) => string): string {
  return articles()
    .map((a, i) =>
      JSON.stringify({
        id: i === 2 ? AWKWARD_ID : `case-${i + 1}`,
        source: a.text,
        summary: summary(a, i),
        // The third row has no reference: ROUGE does not apply, so its assertion skips it.
        ...(i === 2 ? {} : { reference: a.references[1] }),
      }),
    )
    .join('\n');
}

const CONFIG = `metrics: [quality-offline, rouge-1]
assert:
  - type: not-flag
    value: lead-copy
  - type: rouge-1
    threshold: 0
`;

describe('npm run score as a CI gate', () => {
  const dir = tempDir('gate');
  const summaryFile = join(dir, 'step-summary.md');
  const env = { GITHUB_STEP_SUMMARY: summaryFile };
  const good = join(dir, 'good.jsonl');
  const copied = join(dir, 'copied.jsonl');
  const baselineOut = join(dir, 'good.out.jsonl');
  let failing: CliResult;
  let passing: CliResult;

  beforeAll(async () => {
    writeFileSync(join(dir, 'sumlens.config.yaml'), CONFIG);
    writeFileSync(join(dir, 'pass.yaml'), CONFIG);
    // Row 6 copies its article's lead; the others are people's summaries.
    writeFileSync(
      join(dir, 'one-copy.jsonl'),
      cases((a, i) => (i === 5 ? lead(a.text) : a.references[0]!)),
    );
    writeFileSync(
      good,
      cases((a) => a.references[0]!),
    );
    writeFileSync(
      copied,
      cases((a) => lead(a.text)),
    );
    // The config is found in the current folder; the second run names it from elsewhere.
    failing = await runCli(
      ['one-copy.jsonl', '--embedding', 'glove', '--junit', 'junit.xml', '--out', 'one-copy.out'],
      { cwd: dir, env },
    );
    passing = await runCli(
      [good, '--config', join(dir, 'pass.yaml'), '--embedding', 'glove', '--out', baselineOut],
      { env },
    );
  }, 120_000);

  it('exits 1 when an assertion fails on a row, and says which row and why', () => {
    expect(failing.stderr).toContain('Config: read sumlens.config.yaml (2 assertion(s)');
    expect(failing.status).toBe(1);
    const rows = jsonLines(readFileSync(join(dir, 'one-copy.out'), 'utf8'));
    expect(rows.map((r) => r.assertions)).toEqual([
      { pass: 2, fail: 0, skip: 0, failures: [] },
      { pass: 2, fail: 0, skip: 0, failures: [] },
      { pass: 1, fail: 0, skip: 1, failures: [] },
      { pass: 2, fail: 0, skip: 0, failures: [] },
      { pass: 2, fail: 0, skip: 0, failures: [] },
      {
        pass: 1,
        fail: 1,
        skip: 0,
        failures: [{ check: 'no lead-copy flag', reason: 'the lead-copy flag is raised' }],
      },
    ]);
    // The flag is in the row's line, so a later --baseline reads it too.
    const metrics = rows[5]!.metrics as Record<string, { flags?: string[] }>;
    expect(metrics['quality-offline']!.flags).toContain('lead-copy');
    expect(failing.stderr).toMatch(/no lead-copy flag\s+5\s+1\s+0\s+83\.3%/u);
    expect(failing.stderr).toMatch(/rouge-1 ≥ 0\s+5\s+0\s+1\s+100\.0%/u);
    expect(failing.stderr).toContain(
      'no lead-copy flag: failed on\n  case-6: the lead-copy flag is raised',
    );
    expect(failing.stderr).toContain('Assertions failed: 1 of 6 row(s) failed a check.');
  });

  it('writes a JUnit file with the failing row as the one failure', () => {
    const doc = junitParser.parse(readFileSync(join(dir, 'junit.xml'), 'utf8')) as {
      testsuites: Record<string, string> & {
        testsuite: Array<Record<string, string> & { testcase: Array<Record<string, unknown>> }>;
      };
    };
    const root = doc.testsuites;
    expect(root).toMatchObject({ tests: '12', failures: '1', errors: '0', skipped: '1' });
    const [flag, rouge] = root.testsuite;
    expect(flag).toMatchObject({
      name: 'no lead-copy flag',
      tests: '6',
      failures: '1',
      skipped: '0',
    });
    const failed = flag!.testcase.filter((c) => 'failure' in c);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({
      name: 'case-6',
      classname: 'one-copy.jsonl',
      failure: { message: 'the lead-copy flag is raised', type: 'assertion' },
    });
    expect(flag!.testcase.map((c) => c.name)).toContain(AWKWARD_ID);
    expect(rouge).toMatchObject({ name: 'rouge-1 ≥ 0', failures: '0', skipped: '1' });
    expect(rouge!.testcase.find((c) => 'skipped' in c)!.name).toBe(AWKWARD_ID);
  });

  it('exits 0 when every row passes, and appends to the step summary', () => {
    expect(passing.status).toBe(0);
    expect(passing.stderr).toContain('Assertions passed: no row of 6 failed a check.');
    const markdown = readFileSync(summaryFile, 'utf8');
    const failedAt = markdown.indexOf('## SumLens: ❌ failed');
    const passedAt = markdown.indexOf('## SumLens: ✅ passed');
    expect(failedAt).toBe(0);
    expect(passedAt).toBeGreaterThan(failedAt);
    expect(markdown.split('## SumLens:')).toHaveLength(3);
    expect(markdown).toContain(
      'one-copy.jsonl: 6 row(s) scored, 1 failed an assertion, 0 bad row(s).',
    );
    expect(markdown).toContain('| no lead-copy flag | 5 | 1 | 0 | 83.3% |');
    expect(markdown).toContain('| case-6 | no lead-copy flag | the lead-copy flag is raised |');
  });

  it('fails a run that regressed against the page’s run export, and passes a run against itself', async () => {
    // The good run as the page exports it (src/lib/datasets/export/json.ts).
    const lines = jsonLines(readFileSync(baselineOut, 'utf8'));
    const inputs = jsonLines(readFileSync(good, 'utf8'));
    const now = Date.now();
    const exported = {
      format: 'sumlens-run',
      version: 1,
      exportedAt: new Date(now).toISOString(),
      appVersion: 'test',
      dataset: {
        id: 'ds1',
        name: 'good',
        createdAt: now,
        kind: 'case',
        mapping: {},
        rowCount: 6,
        humanColumns: [],
        problems: { count: 0, examples: [] },
      },
      rows: inputs.map(({ id, ...input }, i) => ({
        row: i + 1,
        kind: 'case',
        id,
        input,
        human: {},
      })),
      run: {
        id: 'run1',
        datasetId: 'ds1',
        datasetName: 'good',
        createdAt: now,
        updatedAt: now,
        metrics: ['quality-offline', 'rouge-1'],
        settings: { metrics: {} },
        backends: { perMetric: {} },
        status: 'done',
        counts: { total: 6, done: 6, failed: 0 },
        appVersion: 'test',
      },
      results: lines.map((l) => ({
        runId: 'run1',
        row: l.row,
        status: 'done',
        results: Object.entries(l.metrics as Record<string, Record<string, unknown>>).map(
          ([id, m]) => ({
            id,
            status: m.status,
            score: m.score,
            explanation: '',
            backend: m.backend,
            details: {},
          }),
        ),
        finishedAt: now,
        elapsedMs: 1,
      })),
    };
    const exportFile = join(dir, 'good.sumlens-run.json');
    writeFileSync(exportFile, JSON.stringify(exported));
    const gate = [
      '--metrics',
      'quality-offline,rouge-1',
      '--embedding',
      'glove',
      '--fail-on-regression',
    ];
    const [worse, same] = await Promise.all([
      runCli([copied, ...gate, 'quality-offline', '--baseline', exportFile]),
      runCli([good, ...gate, 'quality-offline,rouge-1', '--baseline', baselineOut]),
    ]);
    expect(worse.stderr).toContain(
      `Against the baseline ${exportFile} (run export): 6 row pair(s) by id`,
    );
    expect(worse.stderr).toMatch(
      /quality-offline: regressed \(Δ -0\.\d+, 95% CI \[-0\.\d+, -0\.\d+\], n = 6\): the whole interval is below 0\./u,
    );
    expect(worse.stderr).toContain('Regression gate failed: 1 of 1 metric(s) regressed.');
    expect(worse.status).toBe(1);

    expect(same.stderr).toContain(
      `Against the baseline ${baselineOut} (score output): 6 row pair(s) by id`,
    );
    expect(same.stderr).toMatch(/quality-offline: no regression \(Δ 0, 95% CI \[0, 0\], n = 6\)/u);
    expect(same.stderr).toMatch(/rouge-1: no regression \(Δ 0, 95% CI \[0, 0\], n = 5\)/u);
    expect(same.stderr).toContain('Regression gate passed: no regression on 2 of 2 metric(s).');
    expect(same.status).toBe(0);
  });

  // The other refusals (a margin, a metric name, …) take the same two paths; config.test.ts and
  // gate-reports.test.ts check their words.
  it('refuses a bad config or gate before scoring anything (exit 2)', async () => {
    writeFileSync(join(dir, 'typo.yaml'), 'assert:\n  - type: rouge-1\n    thresold: 0.2\n');
    const refusals: Array<[string[], RegExp]> = [
      [
        ['--config', join(dir, 'typo.yaml')],
        /typo\.yaml, assert entry 1: unknown key\(s\) "thresold"/u,
      ],
      [
        ['--baseline', join(dir, 'missing.json'), '--fail-on-regression', 'rouge-1'],
        /--baseline .*missing\.json: cannot read it \(no such file\)\. Nothing was scored\./u,
      ],
      [
        ['--metrics', 'bleu', '--baseline', baselineOut, '--fail-on-regression', 'bleu'],
        /--fail-on-regression bleu: the baseline .* did not score it \(it has (rouge-1, quality-offline|quality-offline, rouge-1)\)/u,
      ],
    ];
    const results = await Promise.all(refusals.map(([args]) => runCli([good, ...args])));
    results.forEach((r, i) => {
      expect(r.stderr).toMatch(refusals[i]![1]);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
    });
  });
});

/**
 * The reports of the CLI's checks, without spawning it: the JUnit XML (parsed back, and checked
 * against tests/fixtures/junit/junit.xsd with xmllint), the step summary's Markdown and its 1 MiB
 * budget, the regression gate's options and baselines, and the comparison it prints.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Assertion } from '../../../src/lib/assertions/assertion.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import { AssertionRun } from '../../../src/cli/assertion-run.ts';
import { junitXml } from '../../../src/cli/junit.ts';
import {
  appendStepSummary,
  fitMarkdown,
  markdownText,
  STEP_SUMMARY_LIMIT,
  stepSummaryMarkdown,
} from '../../../src/cli/step-summary.ts';
import { CandidateSide, readBaseline } from '../../../src/cli/baseline.ts';
import { compareWithBaseline, gateOptions, checkGateColumns } from '../../../src/cli/gate.ts';
import { repoRoot } from '../../helpers/shared.ts';
import { tempDir } from './_cli.ts';
import { junitParser } from './_junit.ts';

const XSD = resolve(repoRoot, 'tests/fixtures/junit/junit.xsd');
const hasXmllint = spawnSync('xmllint', ['--version']).status === 0;

const support = (score: number | null, status: MetricResult['status'] = 'ok') =>
  ({
    id: 'support',
    status,
    score,
    explanation: '',
    ...(status === 'ok' ? {} : { reason: 'no source' }),
    backend: 'glove',
    details: {},
  }) as MetricResult;

const quality = (flags: string[]) =>
  ({
    id: 'quality-offline',
    status: 'ok',
    score: 0.2,
    explanation: '',
    backend: 'lexical',
    details: { flags: flags.map((id) => ({ id, message: id })) },
  }) as MetricResult;

const floor: Assertion = { kind: 'score', metric: 'support', op: '>=', threshold: 0.5 };
const noLead: Assertion = { kind: 'no-flag', flag: 'lead-copy' };
/** An id with everything XML and Markdown must escape, and a control character XML cannot hold. */
const awkwardId = 'a<&"\'>|*_`\u0001b';

function sampleRun(): AssertionRun {
  const run = new AssertionRun([floor, noLead], true);
  run.addRow(1, 'ok-1', [support(0.9), quality([])], 0.25);
  run.addRow(2, awkwardId, [support(0.1), quality(['lead-copy'])], 0.5);
  // No quality estimate: the flag check could not look, so it skips (never passes).
  run.addRow(3, undefined, [support(null, 'n/a')], 0.125);
  run.addBadRow(4, 'row 4: not valid JSON');
  return run;
}

describe('JUnit XML', () => {
  const run = sampleRun();
  const xml = junitXml({
    file: 'data/cases.jsonl',
    assertions: run.assertions,
    rows: run.recorded,
    seconds: 1.5,
    startedAt: new Date('2025-03-04T05:06:07.890Z'),
  });

  it('has one suite per assertion and one case per row, with counts that add up', () => {
    const doc = junitParser.parse(xml) as {
      testsuites: Record<string, string> & { testsuite: Array<Record<string, unknown>> };
    };
    const root = doc.testsuites;
    expect(root).toMatchObject({
      tests: '8',
      failures: '2',
      errors: '2',
      skipped: '2',
      time: '1.500',
    });
    const [first, second] = root.testsuite as Array<
      Record<string, string> & { testcase: Array<Record<string, unknown>> }
    >;
    expect(first).toMatchObject({
      name: 'support ≥ 0.5',
      tests: '4',
      failures: '1',
      errors: '1',
      skipped: '1',
      time: '0.875',
      timestamp: '2025-03-04T05:06:07',
    });
    expect(first!.testcase.map((c) => c.name)).toEqual([
      'ok-1',
      'a<&"\'>|*_`\uFFFDb',
      'row 3',
      'row 4',
    ]);
    expect(first!.testcase.every((c) => c.classname === 'data/cases.jsonl')).toBe(true);
    expect(first!.testcase[0]).not.toHaveProperty('failure');
    expect(first!.testcase[1]!.failure).toEqual({
      '#text': 'support is 0.1, below 0.5',
      message: 'support is 0.1, below 0.5',
      type: 'assertion',
    });
    expect(first!.testcase[2]!.skipped).toEqual({ message: 'support has no score: no source' });
    expect(first!.testcase[3]!.error).toMatchObject({
      message: 'row 4: not valid JSON',
      type: 'row',
    });
    // No row raised the flag: only the bad row is not a pass.
    expect(second).toMatchObject({
      name: 'no lead-copy flag',
      tests: '4',
      failures: '1',
      errors: '1',
      skipped: '1',
    });
    expect(second!.testcase[1]!.failure).toMatchObject({
      message: 'the lead-copy flag is raised',
    });
    expect(second!.testcase[2]!.skipped).toEqual({ message: 'quality-offline was not scored' });
  });

  it.skipIf(!hasXmllint)('is valid against the JUnit schema (xmllint --schema)', () => {
    const dir = tempDir('junit');
    writeFileSync(join(dir, 'junit.xml'), xml);
    const check = spawnSync('xmllint', ['--noout', '--schema', XSD, join(dir, 'junit.xml')], {
      encoding: 'utf8',
    });
    expect(check.stderr).toContain('validates');
    expect(check.status).toBe(0);
    // The schema is strict enough to refuse what it must: a suite without its counts.
    writeFileSync(join(dir, 'bad.xml'), xml.replace(/ failures="\d+"/u, ''));
    expect(
      spawnSync('xmllint', ['--noout', '--schema', XSD, join(dir, 'bad.xml')]).status,
    ).not.toBe(0);
  });
  if (!hasXmllint) {
    it('(xmllint is not installed: the schema check above was skipped; apt-get install libxml2-utils)', () => {});
  }
});

describe('step summary', () => {
  it('escapes user text so that a row id cannot break a table or inject HTML', () => {
    expect(markdownText('a|b <img src=x> *c*\nd')).toBe('a\\|b \\<img src=x\\> \\*c\\* d');
  });

  it('gives the verdict, a table per assertion and the failing rows', () => {
    const run = sampleRun();
    const markdown = stepSummaryMarkdown({
      file: 'cases.jsonl',
      rows: 3,
      badRows: 1,
      rowsWithErrors: 0,
      failed: true,
      assertions: run.tallies,
      baseline: '### Against the baseline b.jsonl',
    });
    expect(markdown).toContain('## SumLens: ❌ failed');
    expect(markdown).toContain(
      'cases.jsonl: 3 row(s) scored, 1 failed an assertion, 1 bad row(s).',
    );
    expect(markdown).toContain('| support ≥ 0.5 | 1 | 1 | 1 | 50.0% |');
    expect(markdown).toContain(
      `| ${markdownText(awkwardId)} | support ≥ 0.5 | support is 0.1, below 0.5 |`,
    );
    expect(markdown).toContain('### Against the baseline b.jsonl');
  });

  it('appends, and stays within what is left of GitHub’s 1 MiB, cutting with a note', () => {
    const dir = tempDir('summary');
    const path = join(dir, 'step.md');
    expect(appendStepSummary(path, '## first\n')).toBeUndefined();
    expect(appendStepSummary(path, '## second\n')).toBeUndefined();
    expect(readFileSync(path, 'utf8')).toBe('## first\n## second\n');
    const long = Array.from({ length: 30_000 }, (_, i) => `| row ${i} | ${'x'.repeat(40)} |`).join(
      '\n',
    );
    expect(appendStepSummary(path, long)).toMatch(/cut to stay under GitHub's 1 MiB/u);
    const size = Buffer.byteLength(readFileSync(path, 'utf8'));
    expect(size).toBeLessThanOrEqual(STEP_SUMMARY_LIMIT);
    expect(size).toBeGreaterThan(STEP_SUMMARY_LIMIT - 200);
    expect(readFileSync(path, 'utf8')).toMatch(/\| row \d+ \| x+ \|\n\n_\(Cut here/u);
    expect(fitMarkdown('short', 10)).toBe('short');
    // A file already at the limit (another tool wrote it) gets nothing, and a warning.
    const full = join(dir, 'full.md');
    writeFileSync(full, 'x'.repeat(STEP_SUMMARY_LIMIT - 50));
    expect(appendStepSummary(full, `## late\n${'y'.repeat(300)}\n`)).toMatch(
      /already at GitHub's 1 MiB limit: nothing was added/u,
    );
    expect(Buffer.byteLength(readFileSync(full, 'utf8'))).toBe(STEP_SUMMARY_LIMIT - 50);
  });
});

describe('regression gate options', () => {
  const refusals: Array<[string, Parameters<typeof gateOptions>[0], RegExp]> = [
    [
      '--fail-on-regression without --baseline',
      { failOn: 'support' },
      /needs --baseline RUN\.json/u,
    ],
    [
      '--margin without --fail-on-regression',
      { baseline: 'b.json', margin: '0.1' },
      /give --fail-on-regression METRIC too/u,
    ],
    [
      'a negative margin',
      { baseline: 'b', failOn: 'support', margin: '-0.1' },
      /--margin -0\.1: give a number ≥ 0/u,
    ],
    [
      'a margin that is not a number',
      { baseline: 'b', failOn: 'support', margin: 'small' },
      /--margin small: give a number ≥ 0/u,
    ],
    [
      'an unknown metric',
      { baseline: 'b', failOn: 'support,suport' },
      /unknown metric\(s\) suport\. Known: /u,
    ],
    ['no metric at all', { baseline: 'b', failOn: ',' }, /name the metric/u],
  ];
  for (const [what, values, message] of refusals) {
    it(`refuses ${what}`, () => expect(() => gateOptions(values)).toThrow(message));
  }

  it('reads the metrics and the margin; --baseline alone compares without a gate', () => {
    expect(gateOptions({ baseline: 'b', failOn: 'support, rouge-1', margin: '0.02' })).toEqual({
      baseline: 'b',
      columns: ['support', 'rouge-1'],
      margin: 0.02,
    });
    expect(gateOptions({ baseline: 'b' })).toEqual({ baseline: 'b', columns: [], margin: 0 });
    expect(gateOptions({})).toBeUndefined();
  });
});

describe('baseline files', () => {
  const line = (row: number, score: number | null, extra: object = {}) =>
    JSON.stringify({
      row,
      id: `c${row}`,
      metrics: { support: { score, status: score === null ? 'n/a' : 'ok', backend: 'glove' } },
      ...extra,
    });

  it('reads an --out file, skipping bad rows and npm’s error object', () => {
    const dir = tempDir('baseline');
    const file = join(dir, 'base.jsonl');
    writeFileSync(
      file,
      [
        line(1, 0.8),
        JSON.stringify({ row: 2, error: 'row 2: bad' }),
        line(3, 0.7),
        '{"error": {"code": 1}}',
      ].join('\n'),
    );
    const side = readBaseline(file);
    expect(side.kind).toBe('score output');
    expect(side.data.results.map((r) => r.row)).toEqual([1, 3]);
    expect([...side.columns]).toEqual(['support']);
    expect(() =>
      checkGateColumns({ baseline: file, columns: ['rouge-1'], margin: 0 }, side, ['rouge-1']),
    ).toThrow(/the baseline .* did not score it \(it has support\)/u);
    expect(() =>
      checkGateColumns({ baseline: file, columns: ['support'], margin: 0 }, side, ['rouge-1']),
    ).toThrow(/this run does not score it; add it to --metrics/u);
  });

  it('refuses a missing file, a summary, and a file that is neither', () => {
    const dir = tempDir('baseline-bad');
    expect(() => readBaseline(join(dir, 'none.json'))).toThrow(/cannot read it \(no such file\)/u);
    writeFileSync(
      join(dir, 'summary.json'),
      JSON.stringify({ description: 'x', metrics: {}, rows: 3 }),
    );
    expect(() => readBaseline(join(dir, 'summary.json'))).toThrow(/is a --summary-json file/u);
    writeFileSync(join(dir, 'text.txt'), 'hello\nworld\n');
    expect(() => readBaseline(join(dir, 'text.txt'))).toThrow(/line 1 is not JSON/u);
    writeFileSync(join(dir, 'export.json'), JSON.stringify({ format: 'sumlens-run', version: 1 }));
    expect(() => readBaseline(join(dir, 'export.json'))).toThrow(/--baseline .*export\.json: /u);
  });

  it('compares without a gate when no metric is gated, and gates when one is', () => {
    const dir = tempDir('baseline-compare');
    const file = join(dir, 'base.jsonl');
    const scores = [0.8, 0.7, 0.9, 0.6, 0.75, 0.85];
    writeFileSync(file, scores.map((s, i) => line(i + 1, s)).join('\n'));
    const baseline = readBaseline(file);
    const candidate = new CandidateSide('cand.jsonl', ['support']);
    scores.forEach((s, i) =>
      candidate.addCase({ row: i + 1, id: `c${i + 1}` }, [support(s - 0.3)]),
    );
    const plain = compareWithBaseline(
      { baseline: file, columns: [], margin: 0 },
      baseline,
      candidate.side(),
    );
    expect(plain.failed).toBe(false);
    expect(plain.text).toContain('6 row pair(s) by id');
    expect(plain.text).toMatch(
      /support\s+6\s+0\.7667\s+0\.4667\s+-0\.3\s+\[-0\.3, -0\.3\]\s+0\.0\d\d\s+0\/0\/6/u,
    );
    expect(plain.text).not.toContain('Regression gate');
    const gated = compareWithBaseline(
      { baseline: file, columns: ['support'], margin: 0.1 },
      baseline,
      candidate.side(),
    );
    expect(gated.failed).toBe(true);
    expect(gated.text).toContain(
      'support: regressed (Δ -0.3, 95% CI [-0.3, -0.3], n = 6): the whole interval is below −0.1.',
    );
    expect(gated.markdown).toContain('**Regression gate** (margin 0.1): ❌ failed');
    const tolerant = compareWithBaseline(
      { baseline: file, columns: ['support'], margin: 0.5 },
      baseline,
      candidate.side(),
    );
    expect(tolerant.failed).toBe(false);
    expect(tolerant.text).toContain('support: no regression');
  });
});

/**
 * Score and a data-set run in the page go through one engine: the Score button's case and every
 * row of a run with an LLM metric reach the same fake workers, which the engine started once. The
 * judge is the real client against the loopback fake provider (its oracle answers every prompt).
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { createBatchRun } from '../../../src/lib/datasets/batch.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import type { CaseRow } from '../../../src/lib/rows/formats.ts';
import { ScoringEngine } from '../../../src/lib/scoring/engine.ts';
import { PageRuns } from '../../../src/lib/state/page-runs.svelte.ts';
import { ScoringSession } from '../../../src/lib/state/scoring.svelte.ts';
import { saveDataset } from '../../../src/lib/storage/datasets.ts';
import { listRunResults } from '../../../src/lib/storage/runs.ts';
import { oracleHandler } from '../../helpers/judge-oracle.ts';
import { FAKE_PROVIDERS, useFakeLlm } from '../support/fake-judge.ts';
import { englishDetector, fakeWorkerSet, FakeWorker } from './_fake-workers.ts';

function caseRow(row: number): CaseRow {
  return {
    row,
    kind: 'case',
    input: {
      source: `The council of town ${row} voted on Monday to close the old bridge. A ferry will run until 2027.`,
      summary: `Town ${row} closed its bridge; a ferry runs until 2027.`,
    },
    human: {},
  };
}

describe('one engine for Score and page runs', () => {
  const fake = useFakeLlm();

  it('scores the Score case and each row of a judged run in the workers it started once', async () => {
    fake().setHandler(oracleHandler(3));
    const reference = new FakeWorker(0.5);
    const workers = fakeWorkerSet({ reference });
    const engine = new ScoringEngine({ startWorkers: workers.start, languages: englishDetector });
    const session = new ScoringSession(engine);

    session.input = {
      source: 'The mayor opened the new library on Friday. It holds forty thousand books.',
      summary: 'A new library with 40,000 books opened.',
      reference: '',
    };
    await session.score();
    expect(session.cards['rouge-l']).toMatchObject({ status: 'ok', result: { score: 0.5 } });

    const openai = FAKE_PROVIDERS.openai;
    session.judge.provider = {
      ...session.judge.provider,
      kind: 'openai',
      model: openai.model,
      baseUrl: fake().url,
    };
    session.judge.keys.set('openai', openai.apiKey!, 'memory');
    const dataset = await saveDataset(
      {
        id: 'ds-shared',
        name: 'shared',
        createdAt: 1,
        kind: 'case',
        mapping: { kind: 'case', human: [] },
        problems: { count: 0, examples: [] },
      },
      [caseRow(1), caseRow(2)],
    );
    const run = await createBatchRun({
      dataset,
      metrics: ['rouge-l', 'vagueness'],
      settings: { metrics: DEFAULT_SETTINGS, judge: DEFAULT_JUDGE_SETTINGS },
      judge: { provider: 'openai', model: openai.model },
      appVersion: 'test',
      id: 'run-shared',
    });
    const outcome = await new PageRuns(session).drive(run, undefined, false, () => {});
    expect(outcome.status).toBe('done');

    expect(workers.starts.count).toBe(1);
    expect(reference.jobs.map((job) => job.input.summary)).toEqual([
      'A new library with 40,000 books opened.',
      'Town 1 closed its bridge; a ferry runs until 2027.',
      'Town 2 closed its bridge; a ferry runs until 2027.',
    ]);
    const stored = await listRunResults(run.id);
    expect(stored.map((r) => r.results.map((m) => [m.id, m.status]).sort())).toEqual([
      [
        ['rouge-l', 'ok'],
        ['vagueness', 'ok'],
      ],
      [
        ['rouge-l', 'ok'],
        ['vagueness', 'ok'],
      ],
    ]);
  });
});

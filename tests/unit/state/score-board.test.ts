/** The board's rows: one per shown metric, its score where its range puts it, the backend kept. */
import { describe, expect, it } from 'vitest';
import { METRICS, metricInfo } from '../../../src/lib/metrics/registry.ts';
import type { MetricResult } from '../../../src/lib/metrics/types.ts';
import { cardsOf, idleCards, runningCards } from '../../../src/lib/state/metric-cards.ts';
import { boardDone, boardRows } from '../../../src/lib/state/score-board.ts';

const CUSTOM = metricInfo('geval-custom');

function result(
  id: MetricResult['id'],
  score: number | null,
  status: MetricResult['status'] = 'ok',
) {
  return {
    id,
    status,
    score,
    explanation: '',
    backend: `backend of ${id}`,
    details: {},
  } as MetricResult;
}

describe('score board rows', () => {
  it('places a score on its range and keeps its backend for the tooltip', () => {
    const { cards } = cardsOf([result('rouge-1', 0.25), result('bleu', 50)]);
    const rows = boardRows([metricInfo('rouge-1'), metricInfo('bleu')], cards, [], CUSTOM);
    expect(rows.map((r) => [r.key, r.score, r.position, r.backend])).toEqual([
      ['rouge-1', '0.250', 0.25, 'backend of rouge-1'],
      ['bleu', '50.0', 0.5, 'backend of bleu'],
    ]);
  });

  it('shows n/a and error without a position, and clamps a score outside its range', () => {
    const { cards } = cardsOf([
      result('rouge-1', null, 'n/a'),
      result('rouge-2', null, 'error'),
      result('token-f1', 1.5),
    ]);
    const rows = boardRows(
      ['rouge-1', 'rouge-2', 'token-f1'].map((id) => metricInfo(id as MetricResult['id'])),
      cards,
      [],
      CUSTOM,
    );
    expect(rows.map((r) => [r.status, r.score, r.position])).toEqual([
      ['n/a', 'n/a', undefined],
      ['error', 'error', undefined],
      ['ok', '1.500', 1],
    ]);
  });

  it('adds a row per user-defined criterion, named by it', () => {
    const custom = {
      ...result('geval-custom', 4),
      details: { criterion: 'Politeness' },
    } as MetricResult;
    const rows = boardRows([], idleCards(), [custom, custom], CUSTOM);
    expect(rows.map((r) => [r.key, r.label])).toEqual([
      ['custom-0', 'Politeness'],
      ['custom-1', 'Politeness'],
    ]);
  });

  it('is done once no row is running', () => {
    const offline = METRICS.filter((m) => m.needs !== 'llm');
    expect(boardDone(boardRows(offline, runningCards(new Set()), [], CUSTOM))).toBe(false);
    expect(boardDone(boardRows(offline, idleCards(), [], CUSTOM))).toBe(true);
  });
});

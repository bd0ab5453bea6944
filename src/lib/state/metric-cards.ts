/**
 * What the single-case cards show, as plain data: a card per metric, the cards of a stored or
 * data-set case, and the judge run's report in the shape the page shows and the shape a case
 * stores. Apart from the scoring session so that opening a stored case and showing a fresh one
 * build cards one way.
 */
import { METRICS } from '../metrics/registry.ts';
import type { MetricId, MetricResult } from '../metrics/types.ts';
import type { StoredJudgeRun } from '../storage/schema.ts';
import type { JudgeRunReport } from './judge.svelte.ts';

export type CardStatus = 'idle' | 'running' | 'ok' | 'n/a' | 'error';

export interface CardState {
  status: CardStatus;
  result?: MetricResult;
}

export function idleCards(): Record<MetricId, CardState> {
  return Object.fromEntries(METRICS.map((m) => [m.id, { status: 'idle' }])) as Record<
    MetricId,
    CardState
  >;
}

/** The cards of a score run that just started: its metrics spin, the judge's only when asked. */
export function runningCards(judgeIds: ReadonlySet<MetricId>): Record<MetricId, CardState> {
  return Object.fromEntries(
    METRICS.map((m) => [
      m.id,
      { status: m.needs !== 'llm' || judgeIds.has(m.id) ? 'running' : 'idle' },
    ]),
  ) as Record<MetricId, CardState>;
}

/** The cards of results already computed; user-defined G-Eval criteria share one id, so each
 * gets a card of its own in `customCards`. */
export function cardsOf(results: readonly MetricResult[]): {
  cards: Record<MetricId, CardState>;
  customCards: MetricResult[];
} {
  const cards = idleCards();
  for (const result of results) {
    if (result.id !== 'geval-custom') cards[result.id] = { status: result.status, result };
  }
  return { cards, customCards: results.filter((r) => r.id === 'geval-custom') };
}

/** Tokens, calls and cost of the judge run whose results are on screen. */
export type ShownJudgeReport = JudgeRunReport['summary'] & { cost?: number | undefined };

/** What a case stores of its judge run: provider and model, never the key. */
export function storedJudgeRun(
  report: ShownJudgeReport,
  provider: { kind: string; model: string },
): StoredJudgeRun {
  return {
    provider: provider.kind,
    model: provider.model,
    usage: report.usage,
    httpCalls: report.httpCalls,
    cachedCalls: report.cachedCalls,
    calls: report.calls,
    rounds: report.rounds,
    ...(report.cost !== undefined ? { cost: report.cost } : {}),
  };
}

/** A stored judge run as the page shows it (what a case does not keep left empty). */
export function shownJudgeReport(stored: StoredJudgeRun): ShownJudgeReport {
  return {
    results: [],
    rounds: stored.rounds,
    calls: stored.calls,
    httpCalls: stored.httpCalls,
    cachedCalls: stored.cachedCalls,
    usage: stored.usage,
    context: { cut: false, removedChars: 0, originalChars: 0, budgetTokens: 0 },
    elapsedMs: 0,
    failures: [],
    cost: stored.cost,
  };
}

/**
 * The rows of the score board above the cards: every shown metric's label, score, status and
 * where the score sits on the metric's range, so a person reads all scores at once. Plain data,
 * so that what the board says is tested without a browser.
 */
import type { MetricInfo } from '../metrics/registry.ts';
import type { MetricId, MetricResult } from '../metrics/types.ts';
import type { CardState, CardStatus } from './metric-cards.ts';
import { formatScore } from '../ui/locale-format.ts';
import { t } from '../i18n/i18n.svelte.ts';
import { metricLabel } from '../i18n/metric-text.svelte.ts';
import { qualityFlagsOf, type QualityFlag } from '../metrics/quality-flags.ts';
import type { Assertion } from '../assertions/assertion.ts';
import { evaluateAssertion, type Outcome } from '../assertions/evaluate.ts';

export interface BoardRow {
  /** Unique on the board (user-defined G-Eval criteria share the id 'geval-custom'). */
  key: string;
  id: MetricId;
  label: string;
  status: CardStatus;
  /** The score as the card shows it, or the status where there is none. */
  score: string;
  /** Where the score sits on the metric's range, 0 to 1; absent without a score. */
  position?: number;
  range: readonly [number, number];
  backend?: string;
  /** The quality estimate's flags (a copied lead, one sentence…); absent where there are none. */
  flags?: QualityFlag[];
  /** The outcome of the checks on this metric's score (fail if any fails); absent without one. */
  check?: Outcome;
  /** Where each check's threshold sits on the range, 0 to 1: the bar's ticks. */
  ticks?: number[];
}

/** The status in the page's language where there is no score (board rows re-derive on a switch). */
function noScore(status: CardStatus): string {
  if (status === 'n/a') return t('common.na');
  if (status === 'error') return t('common.error');
  return status === 'running' ? '…' : '—';
}

function rowOf(
  info: MetricInfo,
  key: string,
  label: string,
  card: CardState,
  assertions: readonly Assertion[] = [],
): BoardRow {
  const result = card.result;
  const score = card.status === 'ok' ? result?.score : null;
  const [low, high] = info.range;
  const row: BoardRow = {
    key,
    id: info.id,
    label,
    status: card.status,
    score:
      score === null || score === undefined ? noScore(card.status) : formatScore(info.id, score),
    range: info.range,
  };
  if (score !== null && score !== undefined && Number.isFinite(score) && high > low) {
    row.position = Math.min(1, Math.max(0, (score - low) / (high - low)));
  }
  if (result?.backend) row.backend = result.backend;
  const flags = card.status === 'ok' ? qualityFlagsOf(result) : [];
  if (flags.length > 0) row.flags = flags;
  const mine = assertions.filter((a) => a.kind === 'score' && a.metric === info.id);
  if (mine.length > 0 && result && card.status !== 'running' && card.status !== 'idle') {
    const outcomes = mine.map((a) => evaluateAssertion(a, [result]).outcome);
    row.check = outcomes.includes('fail') ? 'fail' : outcomes.includes('pass') ? 'pass' : 'skip';
  }
  if (mine.length > 0 && high > low) {
    row.ticks = mine.map((a) =>
      a.kind === 'score' ? Math.min(1, Math.max(0, (a.threshold - low) / (high - low))) : 0,
    );
  }
  return row;
}

/** One row per shown metric, in the cards' order, then one per user-defined criterion. */
export function boardRows(
  metrics: readonly MetricInfo[],
  cards: Readonly<Record<MetricId, CardState>>,
  custom: readonly MetricResult[],
  customInfo: MetricInfo,
  assertions: readonly Assertion[] = [],
): BoardRow[] {
  const rows = metrics.map((info) =>
    rowOf(info, info.id, metricLabel(info.id), cards[info.id], assertions),
  );
  custom.forEach((result, i) => {
    const criterion = (result.details as { criterion?: unknown }).criterion;
    const label =
      typeof criterion === 'string' && criterion ? criterion : metricLabel(customInfo.id);
    rows.push(rowOf(customInfo, `custom-${i}`, label, { status: result.status, result }));
  });
  return rows;
}

/** Whether every row has finished (none idle or running): the board is complete. */
export function boardDone(rows: readonly BoardRow[]): boolean {
  return rows.every((r) => r.status !== 'running');
}

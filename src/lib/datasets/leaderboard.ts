/**
 * Systems ranked per score column, for a data set with several systems per source (SummEval: 12
 * to 16 systems summarise each article): each system's mean over its rows with a percentile
 * bootstrap 95% interval (seeded, paired-bootstrap.ts), highest mean first. Only results scored
 * 'ok' count; a system whose results name another backend than the rest is flagged, since its
 * scores do not compare.
 *
 * Where the rows carry human ratings, each system's mean rating per human reference
 * (human-ratings.ts: each column, and the mean of a group's dimensions) over the same scored rows,
 * and per score column the system-level Kendall τ-b between the metric's system means and the
 * human system means: does the metric order the systems as people do (the question SummEval's
 * system-level correlations answer, Fabbri et al. 2021)? τ-b, since systems can tie.
 */
import type { StoredRunResult } from '../storage/schema.ts';
import { bootstrapMean } from '../stats/paired-bootstrap.ts';
import { scoreKey } from './calibration.ts';
import { COMPARE_BOOTSTRAP, systemsOf, type CompareRow } from './compare.ts';
import { taskColumn } from './run-view.ts';
import { tallyQualityFlags, type FlagTally } from '../metrics/quality-flags.ts';
import { kendallTauB } from '../stats/correlation.ts';
import { bestHumanRef, humanRefs, ratingOf, type HumanRef } from './human-ratings.ts';

/** A row as the leaderboard reads it: its system and source, and its ratings where it has some. */
export type LeaderboardRow = CompareRow & { human?: Readonly<Record<string, number>> };

export interface LeaderboardEntry {
  system: string;
  n: number;
  mean: number | null;
  low: number | null;
  high: number | null;
  /** 1 for the highest mean; systems without a score have none. */
  rank: number | null;
  backend: string;
  /** How many of the system's rows carry each flag of the quality estimate (any column). */
  flags?: FlagTally;
}

export interface LeaderboardColumn {
  column: string;
  entries: LeaderboardEntry[];
  /** Several backends among the systems: their means do not compare. */
  mixedBackends: boolean;
}

/** One score column against one human reference, over the systems. */
export interface SystemAgreement {
  column: string;
  /** The human reference's key (HumanRef.key). */
  human: string;
  /** Kendall τ-b of the systems' metric means against their human means; null below 2 systems. */
  tau: number | null;
  /** Systems with both means. */
  n: number;
}

export interface HumanBoard {
  /** The references, each column then each group's mean. */
  refs: HumanRef[];
  /** The key of the reference that matches best (bestHumanRef). */
  best: string;
  /** Per system (in `systems` order), its mean rating per reference (refs order), null with none. */
  means: { system: string; values: (number | null)[] }[];
  agreement: SystemAgreement[];
}

export interface Leaderboard {
  systems: string[];
  /** Sources with at least two systems. */
  sharedSources: number;
  columns: LeaderboardColumn[];
  /** Human means and agreement, where the rows carry ratings. */
  human?: HumanBoard;
}

function meanOf(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let sum = 0;
  for (const v of values) sum += v;
  return sum / values.length;
}

/** Systems' mean ratings per reference over their scored rows, and τ per column × reference. */
function humanBoard(
  systems: readonly string[],
  scoredRows: ReadonlyMap<string, LeaderboardRow[]>,
  humanColumns: readonly string[],
  columns: readonly LeaderboardColumn[],
): HumanBoard | undefined {
  const best = bestHumanRef(humanColumns);
  if (!best) return undefined;
  const refs = humanRefs(humanColumns);
  if (!refs.some((r) => r.key === best.key)) refs.unshift(best);
  const means = systems.map((system) => ({
    system,
    values: refs.map((ref) =>
      meanOf(
        (scoredRows.get(system) ?? [])
          .map((row) => ratingOf(ref, row.human ?? {}))
          .filter(Number.isFinite),
      ),
    ),
  }));
  const agreement: SystemAgreement[] = [];
  for (const col of columns) {
    const metricMean = new Map(col.entries.map((e) => [e.system, e.mean]));
    refs.forEach((ref, r) => {
      const xs: number[] = [];
      const ys: number[] = [];
      for (const m of means) {
        const x = metricMean.get(m.system);
        const y = m.values[r];
        if (x === null || x === undefined || y === null || y === undefined) continue;
        xs.push(x);
        ys.push(y);
      }
      agreement.push({
        column: col.column,
        human: ref.key,
        tau: kendallTauB(xs, ys),
        n: xs.length,
      });
    });
  }
  return { refs, best: best.key, means, agreement };
}

/** The leaderboard of a run's results, or null when its rows have fewer than two systems. */
export function leaderboard(
  rows: readonly LeaderboardRow[],
  results: readonly StoredRunResult[],
  columns: readonly string[],
  humanColumns: readonly string[] = [],
): Leaderboard | null {
  const systems = systemsOf(rows);
  if (systems.length < 2) return null;
  const byRow = new Map(rows.map((r) => [r.row, r]));
  const perSource = new Map<string, Set<string>>();
  const values = new Map<string, Map<string, number[]>>();
  const backends = new Map<string, Map<string, Set<string>>>();
  const rowResults = new Map<string, StoredRunResult['results'][]>(systems.map((s) => [s, []]));
  const scoredRows = new Map<string, LeaderboardRow[]>(systems.map((s) => [s, []]));
  for (const c of columns) {
    values.set(c, new Map(systems.map((s) => [s, []])));
    backends.set(c, new Map(systems.map((s) => [s, new Set()])));
  }
  const add = (column: string, system: string, score: number, backend: string) => {
    if (!Number.isFinite(score)) return;
    values.get(column)?.get(system)?.push(score);
    backends.get(column)?.get(system)?.add(backend);
  };
  for (const result of results) {
    const row = byRow.get(result.row);
    if (row?.system === undefined) continue;
    rowResults.get(row.system)?.push(result.results);
    scoredRows.get(row.system)?.push(row);
    if (row.group !== undefined) {
      let s = perSource.get(row.group);
      if (!s) perSource.set(row.group, (s = new Set()));
      s.add(row.system);
    }
    if (result.task) {
      const column = taskColumn(result.task.task);
      add(column, row.system, result.task.score, column);
    }
    for (const m of result.results) {
      if (m.status === 'ok' && m.score !== null) add(scoreKey(m), row.system, m.score, m.backend);
    }
  }
  const sharedSources = [...perSource.values()].filter((s) => s.size >= 2).length;
  if (sharedSources === 0) return null;
  const flags = new Map(systems.map((s) => [s, tallyQualityFlags(rowResults.get(s) ?? [])]));
  const board = columns.map((column): LeaderboardColumn => {
    const all = new Set<string>();
    const entries = systems.map((system): LeaderboardEntry => {
      const xs = values.get(column)!.get(system)!;
      const names = backends.get(column)!.get(system)!;
      names.forEach((b) => all.add(b));
      const interval = bootstrapMean(xs, COMPARE_BOOTSTRAP);
      return {
        system,
        n: xs.length,
        mean: interval?.mean ?? null,
        low: interval?.low ?? null,
        high: interval?.high ?? null,
        rank: null,
        backend: [...names].sort().join(' + ') || 'none',
        ...(flags.get(system)!.scored > 0 ? { flags: flags.get(system)! } : {}),
      };
    });
    entries.sort((x, y) => (y.mean ?? -Infinity) - (x.mean ?? -Infinity));
    let rank = 0;
    for (const e of entries) if (e.mean !== null) e.rank = ++rank;
    return { column, entries, mixedBackends: all.size > 1 };
  });
  const human = humanBoard(systems, scoredRows, humanColumns, board);
  return { systems, sharedSources, columns: board, ...(human ? { human } : {}) };
}

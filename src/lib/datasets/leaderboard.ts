/**
 * Systems ranked per score column, for a data set with several systems per source (SummEval: 12
 * to 16 systems summarise each article): each system's mean over its rows with a percentile
 * bootstrap 95% interval (seeded, paired-bootstrap.ts), highest mean first. Only results scored
 * 'ok' count; a system whose results name another backend than the rest is flagged, since its
 * scores do not compare.
 */
import type { StoredRunResult } from '../storage/schema.ts';
import { bootstrapMean } from '../stats/paired-bootstrap.ts';
import { scoreKey } from './calibration.ts';
import { COMPARE_BOOTSTRAP, systemsOf, type CompareRow } from './compare.ts';
import { taskColumn } from './run-view.ts';
import { tallyQualityFlags, type FlagTally } from '../metrics/quality-flags.ts';

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

export interface Leaderboard {
  systems: string[];
  /** Sources with at least two systems. */
  sharedSources: number;
  columns: LeaderboardColumn[];
}

/** The leaderboard of a run's results, or null when its rows have fewer than two systems. */
export function leaderboard(
  rows: readonly CompareRow[],
  results: readonly StoredRunResult[],
  columns: readonly string[],
): Leaderboard | null {
  const systems = systemsOf(rows);
  if (systems.length < 2) return null;
  const byRow = new Map(rows.map((r) => [r.row, r]));
  const perSource = new Map<string, Set<string>>();
  const values = new Map<string, Map<string, number[]>>();
  const backends = new Map<string, Map<string, Set<string>>>();
  const rowResults = new Map<string, StoredRunResult['results'][]>(systems.map((s) => [s, []]));
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
  return {
    systems,
    sharedSources,
    columns: columns.map((column) => {
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
    }),
  };
}

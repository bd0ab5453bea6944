/**
 * Node-only: the SummEval dev files the validity report reads (vendored under
 * tests/fixtures/external/, see SOURCES.md), and the reading of the recorded GPT-4 judge replies.
 * 600 summaries = 50 CNN/DailyMail articles × 12 systems, each rated 1–5 by three experts on
 * coherence, consistency, fluency and relevance.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { externalDataDir } from '../external-data.ts';
import { HUMAN_DIMENSIONS, type HumanDimension } from '../../metrics/validity.ts';
import { mean } from '../../stats/correlation.ts';

export const DEV_FILE = resolve(externalDataDir, 'data/summeval/dev.jsonl');
export const JUDGE_FILE = resolve(externalDataDir, 'data/summeval/gpt4_judge_dev.jsonl');

export interface DevRow {
  id: string;
  model_id: string;
  text: string;
  decoded: string;
  references: string[];
  expert_annotations: Record<HumanDimension, number>[];
}

interface JudgeReply {
  id: string;
  model_id: string;
  dimension: HumanDimension;
  response: string;
}

function readJsonl<T>(file: string): T[] {
  if (!existsSync(file)) {
    throw new Error(
      `${file} is missing: the validity report needs the vendored SummEval data (tests/fixtures/external/SOURCES.md).`,
    );
  }
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** The dev summaries of the first `articles` articles (all of them when undefined). */
export function readDevRows(articles?: number): DevRow[] {
  const all = readJsonl<DevRow>(DEV_FILE);
  const kept = new Set([...new Set(all.map((r) => r.id))].slice(0, articles));
  return all.filter((r) => kept.has(r.id));
}

/** The mean of the three expert ratings per dimension: what every metric is compared against. */
export function expertMeans(row: DevRow): Record<HumanDimension, number> {
  return Object.fromEntries(
    HUMAN_DIMENSIONS.map((d) => [d, mean(row.expert_annotations.map((a) => a[d]))]),
  ) as Record<HumanDimension, number>;
}

/** The last number of a reply once "/5" and "out of 5" denominators are gone ("Final score: 4."). */
export function recordedRating(reply: string): number | null {
  const m = /(\d(?:\.\d+)?)\D*$/u.exec(reply.replace(/\s*(?:\/|out of)\s*5\b/gu, ''));
  return m ? Number(m[1]) : null;
}

/** The recorded judge replies keyed by `judgeReplyKey`; null when the file is not vendored. */
export function readJudgeReplies(): Map<string, string> | null {
  if (!existsSync(JUDGE_FILE)) return null;
  return new Map(
    readJsonl<JudgeReply>(JUDGE_FILE).map((r) => [
      judgeReplyKey(r.id, r.model_id, r.dimension),
      r.response,
    ]),
  );
}

export function judgeReplyKey(article: string, system: string, dimension: HumanDimension): string {
  return `${article}|${system}|${dimension}`;
}

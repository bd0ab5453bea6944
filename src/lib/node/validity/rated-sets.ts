/**
 * Node-only: every human-rated summary data set vendored under tests/fixtures/external/ (see
 * SOURCES.md), read into one shape for leave-one-data-set-out validation. A set's `family` is what
 * that validation leaves out together (both QAGS halves, all SummEdits domains).
 *
 * - SummEval dev: 600 CNN/DailyMail summaries (50 articles × 12 systems), the mean of three expert
 *   ratings 1–5 on each dimension; faithfulness = consistency, coverage = relevance.
 * - QAGS: one model summary per article (235 CNN/DailyMail, 239 XSum), three yes/no worker votes per
 *   summary sentence; the summary's faithfulness is the QAGS paper's summary score (Wang et al. 2020):
 *   the majority vote of each sentence, averaged over the summary's sentences (some third-party
 *   loaders average all the votes instead). The summary text is
 *   its sentences joined by single spaces (the files hold sentences only). Every XSum summary is one
 *   sentence, so qags-xsum is binary. One QAGS CNN/DM article (mturk_cnndm.jsonl line 88) is also a
 *   SummEval dev article.
 * - SummEdits (salesforce/factualNLG): seed summaries and LLM edits of them, each labelled 1
 *   (consistent) or 0 by annotators; group = the seed, so a seed's edits are ranked against each
 *   other. 7 of the 10 domains: billsum and shakespeare were not in the snapshot, and samsum is
 *   left out on purpose — its dialogues are SAMSum's test set, which Yale-LILY/ROSE also annotates,
 *   and ROSE is reserved for checking the project (never for fitting, tuning or tests).
 *
 * FRANK (artidoro/frank) is not here: its snapshot lacks the article and summary texts
 * (data/benchmark_data.json), and its human_annotations.json has only hashes and scores.
 */
import { readFileSync } from 'node:fs';
import { externalPath } from '../external-data.ts';
import { expertMeans, readDevRows } from './summeval.ts';

export type RatedDimension = 'faithfulness' | 'coherence' | 'coverage' | 'fluency';

export interface RatedSummary {
  /** data set key, e.g. 'summeval-dev', 'qags-cnndm', 'qags-xsum', 'summedits-<domain>' */
  dataset: string;
  /** the family that leave-one-data-set-out leaves out together: 'summeval', 'qags', 'summedits' */
  family: string;
  /** source id: summaries of one source are ranked against each other */
  group: string;
  source: string;
  summary: string;
  system?: string;
  /** human ratings, higher = better, on the set's own scale */
  human: Partial<Record<RatedDimension, number>>;
  /** dimensions whose labels are binary (0/1) */
  binary: RatedDimension[];
}

export interface RatedSetInfo {
  family: string;
  description: string;
  licence: string;
  origin: string;
}

/** The SummEdits domains vendored, in the order of summedits/summaries.jsonl. */
export const SUMMEDITS_DOMAINS = [
  'ectsum',
  'news',
  'podcast',
  'qmsumm',
  'sales_call',
  'sales_email',
  'scitldr',
] as const;

const SUMMEDITS_DESCRIPTIONS: Record<(typeof SUMMEDITS_DOMAINS)[number], string> = {
  ectsum: 'earnings-call transcripts (ECTSum)',
  news: 'news articles (2023)',
  podcast: 'podcast transcripts',
  qmsumm: 'meeting transcripts (QMSum)',
  sales_call: 'sales-call transcripts (synthetic)',
  sales_email: 'sales e-mails (synthetic)',
  scitldr: 'scientific papers (SciTLDR)',
};

const SUMMEVAL_ORIGIN =
  'Yale-LILY/SummEval (Fabbri et al. 2021), as prepared by DAMO-NLP-SG/LLM_summeval bd7dde1';
const QAGS_ORIGIN = 'W4ngatang/qags (Wang et al. 2020), data/mturk_*.jsonl';
const SUMMEDITS_ORIGIN =
  'salesforce/factualNLG 0da1dfa (Laban et al. 2023, SummEdits), data/summedits/';

export const RATED_SET_INFO: Record<string, RatedSetInfo> = {
  'summeval-dev': {
    family: 'summeval',
    description:
      'SummEval dev: 50 CNN/DailyMail articles × 12 systems, mean of 3 expert ratings 1–5 (faithfulness = consistency, coherence, coverage = relevance, fluency)',
    licence: 'MIT',
    origin: SUMMEVAL_ORIGIN,
  },
  'qags-cnndm': {
    family: 'qags',
    description:
      'QAGS CNN/DailyMail: 235 articles, one summary each (3 sentences, a few 4); faithfulness = share of sentences judged consistent by a majority of 3 workers',
    licence: 'MIT (articles from CNN/DailyMail, research use)',
    origin: QAGS_ORIGIN,
  },
  'qags-xsum': {
    family: 'qags',
    description:
      'QAGS XSum: 239 articles, one one-sentence summary each; faithfulness = majority of 3 workers (binary)',
    licence: 'MIT (articles from XSum/BBC, research use)',
    origin: QAGS_ORIGIN,
  },
  ...Object.fromEntries(
    SUMMEDITS_DOMAINS.map((domain) => [
      `summedits-${domain}`,
      {
        family: 'summedits',
        description: `SummEdits ${SUMMEDITS_DESCRIPTIONS[domain]}: a seed summary and its LLM edits per document, labelled consistent (1) or not (0)`,
        licence: 'Apache-2.0',
        origin: SUMMEDITS_ORIGIN,
      },
    ]),
  ),
};

export const RATED_FAMILIES = ['summeval', 'qags', 'summedits'] as const;

function readJsonl<T>(...parts: string[]): T[] {
  return readFileSync(externalPath(...parts), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

/** Rows of the first `limit` groups, in order of first appearance (all when undefined). */
function firstGroups(rows: RatedSummary[], limit: number | undefined): RatedSummary[] {
  if (limit === undefined) return rows;
  const kept = new Set([...new Set(rows.map((r) => r.group))].slice(0, limit));
  return rows.filter((r) => kept.has(r.group));
}

function readSummEval(): RatedSummary[] {
  return readDevRows().map((row) => {
    const m = expertMeans(row);
    return {
      dataset: 'summeval-dev',
      family: 'summeval',
      group: row.id,
      source: row.text,
      summary: row.decoded,
      system: row.model_id,
      human: {
        faithfulness: m.consistency,
        coherence: m.coherence,
        coverage: m.relevance,
        fluency: m.fluency,
      },
      binary: [],
    };
  });
}

interface QagsRow {
  article: string;
  summary_sentences: { sentence: string; responses: { worker_id: number; response: string }[] }[];
}

/** The QAGS score of one summary: sentence majority votes, averaged over its sentences. */
export function qagsScore(sentences: QagsRow['summary_sentences']): number {
  if (sentences.length === 0) throw new Error('QAGS summary without sentences');
  const consistent = sentences.filter(
    (s) => 2 * s.responses.filter((r) => r.response === 'yes').length > s.responses.length,
  ).length;
  return consistent / sentences.length;
}

function readQags(part: 'cnndm' | 'xsum'): RatedSummary[] {
  return readJsonl<QagsRow>('data/qags', `mturk_${part}.jsonl`).map((row, i) => ({
    dataset: `qags-${part}`,
    family: 'qags',
    // file and 1-based line, as scripts/order-model names QAGS articles
    group: `${part}:${i + 1}`,
    source: row.article,
    summary: row.summary_sentences.map((s) => s.sentence).join(' '),
    human: { faithfulness: qagsScore(row.summary_sentences) },
    binary: part === 'xsum' ? ['faithfulness'] : [],
  }));
}

interface SummEditsDocument {
  id: string;
  domain: string;
  text: string;
}

interface SummEditsSummary {
  /** upstream id: `<seed>_og` for the seed summary, `<seed>_<n>` for its edits */
  id: string;
  domain: string;
  doc: string;
  label: 0 | 1;
  split: string;
  summary: string;
}

/** The seed of a SummEdits id: everything before its last underscore. */
export function summEditsSeed(id: string): string {
  const cut = id.lastIndexOf('_');
  if (cut <= 0) throw new Error(`SummEdits id without a seed: ${id}`);
  return id.slice(0, cut);
}

/**
 * SummEdits domains that are never read, even from a full upstream copy (`SUMLENS_SHARED`): their
 * documents are in a set reserved for checking the project (SAMSum's test dialogues: Yale-LILY/ROSE).
 */
export const RESERVED_SUMMEDITS_DOMAINS: ReadonlySet<string> = new Set(['samsum']);

function readSummEdits(): RatedSummary[] {
  const documents = new Map(
    readJsonl<SummEditsDocument>('data/summedits/documents.jsonl').map((d) => [d.id, d.text]),
  );
  const rows = readJsonl<SummEditsSummary>('data/summedits/summaries.jsonl').filter(
    (row) => !RESERVED_SUMMEDITS_DOMAINS.has(row.domain),
  );
  return rows.map((row) => {
    const source = documents.get(row.doc);
    if (source === undefined) throw new Error(`SummEdits ${row.id}: no document ${row.doc}`);
    return {
      dataset: `summedits-${row.domain}`,
      family: 'summedits',
      group: summEditsSeed(row.id),
      source,
      summary: row.summary,
      human: { faithfulness: row.label },
      binary: ['faithfulness'],
    };
  });
}

const READERS: Record<(typeof RATED_FAMILIES)[number], () => RatedSummary[]> = {
  summeval: readSummEval,
  qags: () => [...readQags('cnndm'), ...readQags('xsum')],
  summedits: readSummEdits,
};

/**
 * The rated summaries of `families` (all by default), in file order. `limitPerSet` keeps the first
 * that many groups (sources) of each data set, with all their summaries.
 */
export function readRatedSets(
  options: { families?: string[]; limitPerSet?: number } = {},
): RatedSummary[] {
  const families = options.families ?? [...RATED_FAMILIES];
  const out: RatedSummary[] = [];
  for (const family of families) {
    if (!(RATED_FAMILIES as readonly string[]).includes(family)) {
      throw new Error(`Unknown rated-set family "${family}" (known: ${RATED_FAMILIES.join(', ')})`);
    }
    const rows = READERS[family as (typeof RATED_FAMILIES)[number]]();
    const datasets = [...new Set(rows.map((r) => r.dataset))];
    for (const dataset of datasets) {
      out.push(
        ...firstGroups(
          rows.filter((r) => r.dataset === dataset),
          options.limitPerSet,
        ),
      );
    }
  }
  return out;
}

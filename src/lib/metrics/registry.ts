/**
 * One record per metric: label, what it needs, and the one-line meaning the UI shows. Browser-safe
 * metadata only; the calculators live in their own modules and are wired up in `offline.ts`.
 */
import type { MetricId, MetricNeeds } from './types.ts';

export interface MetricInfo {
  id: MetricId;
  label: string;
  needs: MetricNeeds;
  /** One honest line: what the score says, and what it does not. */
  meaning: string;
  /** Paper or tool the variant follows. */
  citation: string;
  /** Score range for display. */
  range: [number, number];
}

export const METRICS: readonly MetricInfo[] = [
  {
    id: 'entity-density',
    label: 'Entity density',
    needs: 'ner',
    meaning:
      'Named entities, dates, numbers and amounts per token, scored against the 0.15 that people preferred in Chain-of-Density; it measures how packed with specifics the summary is, not whether they are right.',
    citation: 'Adams et al. 2023, From Sparse to Dense (Chain of Density)',
    range: [0, 1],
  },
  {
    id: 'coherence',
    label: 'Local coherence',
    needs: 'embedding',
    meaning:
      'Mean cosine similarity of each sentence with the one two places later: it tells whether sentences stay on one topic, not whether people find the summary coherent (on SummEval it does not track expert coherence, Spearman ≈ 0; it ranks an article above its shuffled copy 57% of the time).',
    citation: 'Parola et al. 2023, as used in Meta LCM 2024',
    range: [-1, 1],
  },
  {
    id: 'rouge-1',
    label: 'ROUGE-1',
    needs: 'reference',
    meaning: 'Unigram overlap with the reference summary (F-measure); word overlap, not meaning.',
    citation: 'Lin 2004; Google rouge_score 0.1.2',
    range: [0, 1],
  },
  {
    id: 'rouge-2',
    label: 'ROUGE-2',
    needs: 'reference',
    meaning: 'Bigram overlap with the reference summary (F-measure); rewards shared phrasing.',
    citation: 'Lin 2004; Google rouge_score 0.1.2',
    range: [0, 1],
  },
  {
    id: 'rouge-l',
    label: 'ROUGE-L',
    needs: 'reference',
    meaning:
      'Longest common subsequence with the reference (F-measure); rewards the same words in the same order.',
    citation: 'Lin 2004; Google rouge_score 0.1.2',
    range: [0, 1],
  },
  {
    id: 'rouge-lsum',
    label: 'ROUGE-Lsum',
    needs: 'reference',
    meaning:
      'Summary-level LCS: each reference sentence against the union of LCS hits over all summary sentences (F-measure).',
    citation: 'Lin 2004; Google rouge_score 0.1.2',
    range: [0, 1],
  },
  {
    id: 'bleu',
    label: 'BLEU',
    needs: 'reference',
    meaning:
      'Smoothed sentence BLEU against the reference (0–100, sacrebleu); n-gram precision with a brevity penalty, built for translation.',
    citation: 'Papineni et al. 2002; sacrebleu 2.x (13a, exp smoothing)',
    range: [0, 100],
  },
  {
    id: 'token-f1',
    label: 'Token F1',
    needs: 'reference',
    meaning:
      'Bag-of-words F1 with the reference after SQuAD normalisation (CJK split into words); order is ignored.',
    citation: 'Rajpurkar et al. 2016 (SQuAD); LongBench qa_f1',
    range: [0, 1],
  },
  {
    id: 'summarization',
    label: 'Summarization (F1)',
    needs: 'llm',
    meaning:
      'F-beta of alignment (faithful claims) and coverage (importance-weighted answers to the key questions of the source), judged by your LLM; min() shown beside it.',
    citation:
      'DeepEval SummarizationMetric, repaired as in the seed article (claims judged against the full source)',
    range: [0, 1],
  },
  {
    id: 'alignment',
    label: 'Alignment',
    needs: 'llm',
    meaning:
      'Share of the summary claims that the source supports, judged claim by claim against the full source; unsupported claims count against it unless you switch that off.',
    citation: 'DeepEval SummarizationMetric (alignment), SPEC §3',
    range: [0, 1],
  },
  {
    id: 'coverage',
    label: 'Coverage',
    needs: 'llm',
    meaning:
      'How well the summary answers the key questions of the source, weighted by their importance (1–5): Σ importance·grade/5 / Σ importance.',
    citation: 'DeepEval SummarizationMetric (coverage), with the importances actually used',
    range: [0, 1],
  },
  {
    id: 'vagueness',
    label: 'Specific sentences',
    needs: 'llm',
    meaning:
      'Share of summary sentences that name a concrete point rather than saying what the text “discusses”.',
    citation: 'SPEC §3, sentence vagueness',
    range: [0, 1],
  },
  {
    id: 'repetition-offline',
    label: 'Repetition (offline)',
    needs: 'embedding',
    meaning:
      '1 − the share of words that repeat a phrase of two or more words said earlier in the summary (1 = no repeats); no model. Chosen on SummEval dev, where it tracks expert coherence at summary-level Spearman 0.36 and fluency at 0.33. It sees word-for-word repeats only, not paraphrases, and long texts repeat common word pairs more.',
    citation: 'SumLens; distinct-n after Li et al. 2016, measured on SummEval (Fabbri et al. 2021)',
    range: [0, 1],
  },
  {
    id: 'repetitiveness',
    label: 'No needless repetition',
    needs: 'llm',
    meaning:
      'G-Eval criterion: 1 = the summary never repeats a fact or point without need; probability-weighted, with the spread between samples.',
    citation: 'G-Eval (Liu et al. 2023) with a repetition criterion',
    range: [0, 1],
  },
  {
    id: 'geval-coherence',
    label: 'G-Eval coherence',
    needs: 'llm',
    meaning:
      'The judge’s probability-weighted 1–5 rating of structure and flow (SummEval coherence); G-Eval-4 reached Spearman 0.58 with experts.',
    citation: 'Liu et al. 2023, G-Eval',
    range: [1, 5],
  },
  {
    id: 'geval-consistency',
    label: 'G-Eval consistency',
    needs: 'llm',
    meaning:
      'The judge’s probability-weighted 1–5 rating of factual agreement with the source (SummEval consistency).',
    citation: 'Liu et al. 2023, G-Eval',
    range: [1, 5],
  },
  {
    id: 'geval-fluency',
    label: 'G-Eval fluency',
    needs: 'llm',
    meaning:
      'The judge’s probability-weighted 1–3 rating of grammar and readability (SummEval fluency).',
    citation: 'Liu et al. 2023, G-Eval',
    range: [1, 3],
  },
  {
    id: 'geval-relevance',
    label: 'G-Eval relevance',
    needs: 'llm',
    meaning:
      'The judge’s probability-weighted 1–5 rating of how well the summary keeps the important content (SummEval relevance).',
    citation: 'Liu et al. 2023, G-Eval',
    range: [1, 5],
  },
  {
    id: 'geval-custom',
    label: 'G-Eval (your criteria)',
    needs: 'llm',
    meaning:
      'Your own criteria, each rated on its own scale by the judge with G-Eval probability weighting.',
    citation: 'Liu et al. 2023, G-Eval',
    range: [0, 1],
  },
  {
    id: 'ccai-accuracy',
    label: 'Accuracy (call center)',
    needs: 'llm',
    meaning:
      'Share of the summary points that the judge finds accurate against the source (reuses the alignment claims).',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
  {
    id: 'ccai-adherence',
    label: 'Adherence (call center)',
    needs: 'llm',
    meaning: 'Share of your summary instructions the summary follows; n/a without instructions.',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
  {
    id: 'ccai-completeness',
    label: 'Completeness (call center)',
    needs: 'llm',
    meaning:
      'Share of the source contents your instructions ask for that the summary covers; n/a for categorical sections.',
    citation: 'Google CCAI Insights summarization autoeval',
    range: [0, 1],
  },
];

const byId = new Map(METRICS.map((m) => [m.id, m]));

export function metricInfo(id: MetricId): MetricInfo {
  const info = byId.get(id);
  if (!info) throw new Error(`Unknown metric id: ${id}`);
  return info;
}

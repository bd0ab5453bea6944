/**
 * The reference-based metrics of SPEC §5 for one case, in the shape every metric returns:
 * ROUGE-1/2/L/Lsum (Google rouge_score 0.1.2, F as the score), smoothed sentence BLEU (sacrebleu,
 * 0–100) and token F1 (SQuAD/LongBench). Pure and synchronous, so it runs in a worker or in Node.
 *
 * Choices made here, not in the calculators:
 * - Porter stemming is on by default: the ROUGE baseline in shared/data/reference
 *   (summeval_rouge_correlations.json) was computed with `use_stemmer=True`, as summarisation
 *   papers usually report it. rouge_score's own default is off; pass `useStemmer: false`.
 * - Lsum splits sentences on newlines, as rouge_score does; pasted text without line breaks is one
 *   sentence and Lsum equals L (the explanation says so). `lsumSplitSentences: true` splits with
 *   Intl.Segmenter first, like rouge_score's `split_summaries=True` / the nltk sent_tokenize
 *   recipe, and the backend string records it.
 * - Non-Latin text: ROUGE and BLEU switch to Intl.Segmenter tokens when the pair is mostly in a
 *   script rouge_score would delete (see rouge.ts); token F1 switches to the Chinese/Japanese
 *   variant when either text has CJK. Chinese words for ROUGE and token F1 come from
 *   `wordSegmenter` (jieba once loaded, see jieba.ts; Intl.Segmenter by default). Backends then
 *   name the segmenter that ran: 'squad-f1 (jieba)', 'rouge_score-0.1.2 (porter, jieba)',
 *   '... (intl-segmenter)', or '... (intl-segmenter, jieba unavailable)' when jieba failed to load
 *   (the reason is in the details). BLEU keeps its Intl.Segmenter tokenizer either way.
 */
import { messageOf } from '../../../errors.ts';
import { explained, ref, type MessageRef } from '../../../i18n/message.ts';
import { failed, notApplicable } from '../../results.ts';
import type { CaseInput } from '../../types.ts';
import {
  REFERENCE_METRIC_IDS,
  type ReferenceMetricId,
  type ReferenceMetricResult,
  type ReferenceMetricsOptions,
  type RougeSkippedDetails,
} from './reference-types.ts';
import { sentenceBleu, type BleuTokenize } from './bleu.ts';
import { chooseRougeTokenizer } from './rouge-tokenize.ts';
import {
  rouge,
  type RougeLcsOutcome,
  type RougeResult,
  type RougeScore,
  type RougeTokenizerKind,
  type RougeType,
} from './rouge.ts';
import { segmenterLabel, type WordSegmenter } from '../cjk-words.ts';
import { tokenF1 } from './token-f1.ts';

export {
  REFERENCE_METRIC_IDS,
  type BleuDetails,
  type ReferenceMetricId,
  type ReferenceMetricResult,
  type ReferenceMetricsOptions,
  type RougeDetails,
  type TokenF1Details,
} from './reference-types.ts';

const NO_REFERENCE = ref('lexical.reason.needsReference');
const ROUGE_BACKEND = 'rouge_score-0.1.2';

function rougeBackend(
  stemmed: boolean,
  tokenizer: RougeTokenizerKind,
  lsumSplit = false,
  wordSegmenter: WordSegmenter | null = null,
): string {
  const parts: string[] = [];
  if (stemmed) parts.push('porter');
  if (tokenizer === 'intl-segmenter') {
    parts.push(wordSegmenter ? segmenterLabel(wordSegmenter) : 'intl-segmenter');
  }
  if (lsumSplit) parts.push('sentences: intl-segmenter');
  return parts.length ? `${ROUGE_BACKEND} (${parts.join(', ')})` : ROUGE_BACKEND;
}

function bleuBackend(tokenize: BleuTokenize): string {
  return `sacrebleu-${tokenize}`;
}

/** 'squad-f1', or with the segmentation: 'squad-f1 (jieba)', 'squad-f1 (intl-segmenter)'. */
function f1Backend(segmentationLabel: string): string {
  return segmentationLabel === 'whitespace' ? 'squad-f1' : `squad-f1 (${segmentationLabel})`;
}

/** 0.4712 → "47%"; small shares keep one decimal so they do not read as 0%. */
function share(x: number): MessageRef {
  const v = x * 100;
  return ref(v > 0 && v < 10 ? 'lexical.shareSmall' : 'lexical.share', { share: x });
}

function now(): number {
  return globalThis.performance?.now() ?? Date.now();
}

const ROUGE_IDS = {
  rouge1: 'rouge-1',
  rouge2: 'rouge-2',
  rougeL: 'rouge-l',
  rougeLsum: 'rouge-lsum',
} as const satisfies Record<RougeType, ReferenceMetricId>;

type Explained = ReturnType<typeof explained>;

function rougeNExplanation(n: 1 | 2, s: RougeScore, r: RougeResult): Explained {
  if (r.predictionTokens < n) return explained('lexical.rouge.summaryNoGrams', { n });
  if (r.targetTokens < n) return explained('lexical.rouge.referenceNoGrams', { n });
  return explained('lexical.rouge.nExplanation', {
    n,
    precision: share(s.precision),
    recall: share(s.recall),
    f: s.fmeasure,
  });
}

function lcsExplanation(
  type: 'rougeL' | 'rougeLsum',
  s: RougeScore,
  hits: number,
  r: RougeResult,
): Explained {
  if (r.predictionTokens === 0) return explained('lexical.rouge.summaryNoWords');
  if (r.targetTokens === 0) return explained('lexical.rouge.referenceNoWords');
  const shares = { hits, precision: share(s.precision), recall: share(s.recall), f: s.fmeasure };
  if (type === 'rougeL') return explained('lexical.rouge.lExplanation', shares);
  if (r.lsumSentenceSplit === 'newline' && r.targetSentences <= 1 && r.predictionSentences <= 1) {
    return explained('lexical.rouge.lsumNoLineBreaks', shares);
  }
  return explained('lexical.rouge.lsumExplanation', {
    ...shares,
    summarySentences: r.predictionSentences,
    referenceSentences: r.targetSentences,
  });
}

function rougeResults(
  reference: string,
  summary: string,
  options: ReferenceMetricsOptions,
): ReferenceMetricResult[] {
  const r = rouge(reference, summary, {
    useStemmer: options.useStemmer ?? true,
    tokenizer: options.tokenizer ?? 'auto',
    lsumSplitSentences: options.lsumSplitSentences ?? false,
    lcsCellBudget: options.lcsCellBudget,
    wordSegmenter: options.caseTokenizer?.wordSegmenter ?? options.wordSegmenter,
    segmenterLocale: options.caseTokenizer?.locale,
  });
  // Each type's own time: its counting plus the tokenization it needs (the whole-text tokens that
  // ROUGE-1, -2 and -L share are counted in each, as each would cost that alone).
  const t = r.timings;
  const elapsed: Record<RougeType, number> = {
    rouge1: t.tokenizeMs + t.rouge1Ms,
    rouge2: t.tokenizeMs + t.rouge2Ms,
    rougeL: t.tokenizeMs + t.rougeLMs,
    rougeLsum: t.lsumTokenizeMs + t.rougeLsumMs,
  };
  const base = {
    tokenizer: r.tokenizer,
    ...(r.wordSegmenter ? { wordSegmenter: r.wordSegmenter.name } : {}),
    ...(r.wordSegmenter?.fallbackReason
      ? { segmenterFallbackReason: r.wordSegmenter.fallbackReason }
      : {}),
    stemmed: r.stemmed,
    summaryTokens: r.predictionTokens,
    referenceTokens: r.targetTokens,
    caseTokenizer:
      r.tokenizer === 'rouge_score'
        ? 'rouge_score'
        : r.wordSegmenter
          ? segmenterLabel(r.wordSegmenter)
          : 'intl-segmenter',
  };
  const backend = rougeBackend(r.stemmed, r.tokenizer, false, r.wordSegmenter);
  const out: ReferenceMetricResult[] = [];
  for (const n of [1, 2] as const) {
    const type: RougeType = n === 1 ? 'rouge1' : 'rouge2';
    const s = r[type];
    out.push({
      id: ROUGE_IDS[type],
      status: 'ok',
      score: s.fmeasure,
      ...rougeNExplanation(n, s, r),
      backend,
      details: { kind: 'rouge', rougeType: type, ...s, ...base },
      elapsedMs: elapsed[type],
    });
  }
  for (const type of ['rougeL', 'rougeLsum'] as const) {
    const outcome: RougeLcsOutcome = r[type];
    const lsum = type === 'rougeLsum';
    const b = lsum
      ? rougeBackend(r.stemmed, r.tokenizer, r.lsumSentenceSplit !== 'newline', r.wordSegmenter)
      : backend;
    const sentenceInfo = lsum
      ? {
          sentenceSplit: r.lsumSentenceSplit,
          summarySentences: r.predictionSentences,
          referenceSentences: r.targetSentences,
        }
      : {};
    if (outcome.status === 'n/a') {
      out.push({
        ...notApplicable(ROUGE_IDS[type], b, outcome.reasonRef, {
          kind: 'rouge-skipped',
          rougeType: type,
          cells: outcome.cells,
          budget: outcome.budget,
          ...base,
        } satisfies RougeSkippedDetails),
        elapsedMs: elapsed[type],
      });
      continue;
    }
    out.push({
      id: ROUGE_IDS[type],
      status: 'ok',
      score: outcome.score.fmeasure,
      ...lcsExplanation(type, outcome.score, outcome.hits, r),
      backend: b,
      details: {
        kind: 'rouge',
        rougeType: type,
        ...outcome.score,
        ...base,
        lcsHits: outcome.hits,
        ...sentenceInfo,
      },
      elapsedMs: elapsed[type],
    });
  }
  return out;
}

function bleuResult(
  reference: string,
  summary: string,
  options: ReferenceMetricsOptions,
): ReferenceMetricResult {
  const start = now();
  const tokenizer =
    options.tokenizer && options.tokenizer !== 'auto'
      ? options.tokenizer
      : chooseRougeTokenizer(reference, summary);
  const tokenize: BleuTokenize = tokenizer === 'intl-segmenter' ? 'intl-segmenter' : '13a';
  const caseTokenizer = tokenize === 'intl-segmenter' ? options.caseTokenizer : undefined;
  const b = sentenceBleu(summary, [reference], {
    tokenize,
    ...(caseTokenizer
      ? { segment: (text: string) => caseTokenizer.tokens(text).map((t) => t.text) }
      : {}),
  });
  const tokenizerName = caseTokenizer?.name ?? tokenize;
  const { score: _score, ...stats } = b;
  let explanation: Explained;
  if (b.sysLen === 0) {
    explanation = explained('lexical.bleu.summaryNoTokens');
  } else {
    const counts = {
      score: b.score,
      unigrams: share(b.totals[0] ? b.counts[0] / b.totals[0] : 0),
      bigrams: share(b.totals[1] ? b.counts[1] / b.totals[1] : 0),
      summaryTokens: b.sysLen,
      referenceTokens: b.refLen,
    };
    explanation =
      b.bp < 1
        ? explained('lexical.bleu.explanationPenalty', { ...counts, penalty: b.bp })
        : explained('lexical.bleu.explanation', counts);
  }
  return {
    id: 'bleu',
    status: 'ok',
    score: b.score,
    ...explanation,
    backend:
      tokenizerName === tokenize
        ? bleuBackend(tokenize)
        : `${bleuBackend(tokenize)} (${tokenizerName})`,
    details: {
      kind: 'bleu',
      ...stats,
      tokenize,
      caseTokenizer: tokenizerName,
      smoothing: 'exp',
      effectiveOrder: true,
    },
    elapsedMs: now() - start,
  };
}

function tokenF1Result(
  reference: string,
  summary: string,
  options: ReferenceMetricsOptions,
): ReferenceMetricResult {
  const start = now();
  const caseLanguage = options.caseTokenizer?.language;
  const t = tokenF1(summary, reference, {
    language:
      options.tokenF1Language ??
      (caseLanguage === 'zh' || caseLanguage === 'ja' ? caseLanguage : 'auto'),
    segmenter: options.caseTokenizer?.wordSegmenter ?? options.wordSegmenter,
  });
  const n = t.common.length;
  const explanation =
    t.predictionTokens === 0
      ? explained('lexical.tokenF1.summaryNoTokens')
      : explained('lexical.tokenF1.explanation', {
          common: n,
          summaryTokens: t.predictionTokens,
          referenceTokens: t.referenceTokens,
          precision: share(t.precision),
          recall: share(t.recall),
          f: t.f1,
        });
  return {
    id: 'token-f1',
    status: 'ok',
    score: t.f1,
    ...explanation,
    backend: f1Backend(t.segmentationLabel),
    details: {
      kind: 'token-f1',
      precision: t.precision,
      recall: t.recall,
      f1: t.f1,
      commonTokens: t.common,
      summaryTokens: t.predictionTokens,
      referenceTokens: t.referenceTokens,
      language: t.language,
      segmentation: t.segmentation,
      ...(t.segmenterFallbackReason ? { segmenterFallbackReason: t.segmenterFallbackReason } : {}),
      caseTokenizer: t.segmentationLabel,
    },
    elapsedMs: now() - start,
  };
}

function guarded(
  ids: readonly ReferenceMetricId[],
  backend: string,
  run: () => ReferenceMetricResult[],
): ReferenceMetricResult[] {
  try {
    return run();
  } catch (err) {
    const message = messageOf(err);
    return ids.map((id) => failed(id, backend, message, null));
  }
}

/**
 * ROUGE-1/2/L/Lsum, BLEU and token F1 of `input.summary` against `input.reference`, in the order
 * of REFERENCE_METRIC_IDS. Each is 'n/a' when the reference is missing or blank.
 */
export function scoreReferenceMetrics(
  input: CaseInput,
  options: ReferenceMetricsOptions = {},
): ReferenceMetricResult[] {
  const stemmed = options.useStemmer ?? true;
  const defaultTokenizer: RougeTokenizerKind =
    options.tokenizer === 'intl-segmenter' ? 'intl-segmenter' : 'rouge_score';
  const reference = input.reference ?? '';
  if (reference.trim() === '') {
    return REFERENCE_METRIC_IDS.filter((id) => !options.only || options.only.includes(id)).map(
      (id) => {
        const backend =
          id === 'bleu'
            ? bleuBackend(defaultTokenizer === 'intl-segmenter' ? 'intl-segmenter' : '13a')
            : id === 'token-f1'
              ? f1Backend('whitespace')
              : rougeBackend(
                  stemmed,
                  defaultTokenizer,
                  id === 'rouge-lsum' && !!options.lsumSplitSentences,
                );
        return notApplicable(id, backend, NO_REFERENCE, null);
      },
    );
  }
  const summary = input.summary;
  const wanted = new Set(options.only ?? REFERENCE_METRIC_IDS);
  const rougeIds = ['rouge-1', 'rouge-2', 'rouge-l', 'rouge-lsum'] as const;
  return [
    ...(rougeIds.some((id) => wanted.has(id))
      ? guarded(rougeIds, rougeBackend(stemmed, defaultTokenizer), () =>
          rougeResults(reference, summary, options),
        ).filter((r) => wanted.has(r.id))
      : []),
    ...(wanted.has('bleu')
      ? guarded(['bleu'], bleuBackend('13a'), () => [bleuResult(reference, summary, options)])
      : []),
    ...(wanted.has('token-f1')
      ? guarded(['token-f1'], f1Backend('whitespace'), () => [
          tokenF1Result(reference, summary, options),
        ])
      : []),
  ];
}

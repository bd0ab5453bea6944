import { describe, expect, it } from 'vitest';
import {
  noticeRef,
  noticeText,
  notRunNotice,
  stoppedRunNotice,
} from '../../../src/lib/state/judge-notice.ts';
import { formatMessage, ref } from '../../../src/lib/i18n/message.ts';
import ja from '../../../src/messages/ja/index.ts';
import type { JudgeFailure } from '../../../src/lib/metrics/judge/run.ts';

const failure = (over: Partial<JudgeFailure>): JudgeFailure => ({
  kind: 'auth',
  message: 'OpenAI rejected the API key (401).',
  stage: 'Vagueness: judge the summary',
  metrics: ['vagueness'],
  ...over,
});

describe('the judge notice', () => {
  it('says once that nothing was sent when the judge has problems, and nothing without them', () => {
    expect(notRunNotice([])).toBeUndefined();
    const notice = notRunNotice(['No API key for openai.', 'Pick a model.']);
    expect(notice).toEqual({ kind: 'not-run', message: 'No API key for openai. Pick a model.' });
    expect(noticeText(notice!)).toBe('LLM metrics not run: No API key for openai. Pick a model.');
  });

  it("keeps problems given as messages worded in the reader's language, English text alike", () => {
    const notice = notRunNotice([
      ref('judge.problem.noKey', { provider: 'openai', section: ref('judge.provider.title') }),
      ref('judge.problem.noMetric'),
    ]);
    expect(notice?.message).toBe(
      'No API key for openai: add one under "LLM judge provider". No LLM metric is selected.',
    );
    expect(formatMessage('ja', ja, noticeRef(notice!).key, noticeRef(notice!).values)).toContain(
      'LLM 指標が選ばれていません。',
    );
  });

  it('replaces the cards when every failure is the same run-stopping provider error', () => {
    const notice = stoppedRunNotice([
      failure({}),
      failure({ stage: 'Repetitiveness: judge', metrics: ['repetitiveness'] }),
    ]);
    expect(notice).toEqual({ kind: 'stopped', message: 'OpenAI rejected the API key (401).' });
    expect(noticeText(notice!)).toMatch(/^LLM metrics stopped: OpenAI rejected the API key/);
    expect(stoppedRunNotice([failure({ kind: 'quota', message: 'Out of credit.' })])?.message).toBe(
      'Out of credit.',
    );
  });

  it('leaves failures on their cards when one metric failed on its own or the errors differ', () => {
    expect(stoppedRunNotice([])).toBeUndefined();
    expect(stoppedRunNotice([failure({}), failure({ kind: 'malformed-output' })])).toBeUndefined();
    expect(stoppedRunNotice([failure({ kind: 'other' })])).toBeUndefined();
    expect(stoppedRunNotice([failure({}), failure({ message: 'Another.' })])).toBeUndefined();
    // A rate limit or an outage is retried and may clear: not a verdict on the whole run.
    expect(stoppedRunNotice([failure({ kind: 'rate-limit' })])).toBeUndefined();
  });
});

describe('the notice as a message', () => {
  it('carries the provider error as a ref, worded in the reader language', async () => {
    const { formatMessage } = await import('../../../src/lib/i18n/message.ts');
    const { default: ru } = await import('../../../src/messages/ru/index.ts');
    const { noticeRef } = await import('../../../src/lib/state/judge-notice.ts');
    const errorRef = { key: 'llm.error.keyRejected', values: { who: 'OpenAI' } } as const;
    const notice = stoppedRunNotice([
      {
        kind: 'auth',
        message: 'OpenAI rejected the API key: it is wrong, expired or revoked.',
        messageRef: errorRef,
        stage: 'claims',
        metrics: ['alignment'],
      },
    ]);
    expect(notice?.messageRef).toEqual(errorRef);
    const worded = formatMessage('ru', ru, noticeRef(notice!).key, noticeRef(notice!).values);
    expect(worded).toMatch(/^LLM-метрики остановлены: OpenAI отклонил API-ключ/u);
    expect(noticeText(notice!)).toBe(
      'LLM metrics stopped: OpenAI rejected the API key: it is wrong, expired or revoked. The case keeps this error for each of them.',
    );
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { JudgeSession } from '../../../src/lib/state/judge.svelte.ts';
import { setLocale, tr } from '../../../src/lib/i18n/i18n.svelte.ts';

describe('what stops a data-set run’s judge', () => {
  afterEach(async () => {
    await setLocale('en', false);
  });

  it('leaves out "no LLM metric" by its key, so it holds in every language', async () => {
    const judge = new JudgeSession();
    judge.provider.kind = 'openai';
    judge.metrics = [];
    expect(judge.problemRefs().map((p) => p.key)).toEqual([
      'judge.problem.noKey',
      'judge.problem.noMetric',
    ]);
    expect(judge.runProblemRefs().map((p) => p.key)).toEqual(['judge.problem.noKey']);

    const englishText = tr(judge.runProblemRefs()[0]!);
    await setLocale('ru', false);
    const russian = judge.runProblemRefs().map((p) => tr(p));
    expect(russian).toHaveLength(1);
    expect(russian[0]).not.toBe(englishText);
    expect(russian[0]).toMatch(/\p{Script=Cyrillic}/u);
  });

  it('is empty once the provider needs no key and only the case’s metric choice is missing', () => {
    const judge = new JudgeSession();
    judge.provider.kind = 'openai-compatible';
    judge.provider.baseUrl = 'http://127.0.0.1:11434/v1';
    judge.metrics = [];
    expect(judge.runProblemRefs()).toEqual([]);
    expect(judge.problems()).toEqual(['No LLM metric is selected.']);
  });
});

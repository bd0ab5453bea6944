/**
 * The judge oracle knows the prompts only from the code's prompt list: it recognises a request by
 * matching its system text against each prompt's fixed text, and scripts replies by
 * '<id>@<version>'. An edited prompt (new version) must make replies scripted for the old one
 * fail at once instead of answering a prompt nobody checked them against.
 */
import { describe, expect, it } from 'vitest';
import { createFence } from '../../../src/lib/metrics/judge/fence.ts';
import { builtinCriterion } from '../../../src/lib/metrics/judge/g-eval/criteria.ts';
import { formPrompt, stepsPrompt } from '../../../src/lib/metrics/judge/g-eval/prompts.ts';
import {
  fillInstructions,
  promptKey,
  withReplyLanguage,
  type JudgePrompt,
} from '../../../src/lib/metrics/judge/prompt-kit.ts';
import { JUDGE_PROMPTS } from '../../../src/lib/metrics/judge/prompt-list.ts';
import { REPETITION_CRITERION } from '../../../src/lib/metrics/judge/repetitiveness/repetitiveness.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import { questionsPrompt } from '../../../src/lib/metrics/judge/summarization/prompts.ts';
import { recognisePrompt } from '../../helpers/judge-oracle.ts';
import { checkScript, oracle, ScriptedJudge } from './scripted-judge.ts';

const fence = createFence('s_0a1b2c');

/** A prompt's instructions with every hole given a value of its own name, as the code sends them. */
function rendered(prompt: JudgePrompt): string {
  const holes = [...prompt.instructions.matchAll(/\{\{(\w+)\}\}/gu)].map((m) => m[1]);
  const values = Object.fromEntries(holes.map((name) => [name, `‹${name} value›`]));
  return `${fillInstructions(prompt, values)}\n\n${fence.notice}`;
}

describe('the prompt list', () => {
  it('lists every judge prompt once, each with an id and a positive version', () => {
    const keys = JUDGE_PROMPTS.map(promptKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('summarization.claims@1');
    expect(keys).toContain('g-eval.form@1');
    for (const prompt of JUDGE_PROMPTS) expect(prompt.version).toBeGreaterThan(0);
  });

  it('fills holes in one pass and refuses a missing value', () => {
    const prompt = { id: 't', version: 3, instructions: 'Rate {{what}} on {{scale}}.' };
    expect(fillInstructions(prompt, { what: '{{scale}}', scale: '1–5' })).toBe(
      'Rate {{scale}} on 1–5.',
    );
    expect(() => fillInstructions(prompt, { what: 'it' })).toThrow('t@3: no value for {{scale}}');
  });
});

describe('recognising a request by its prompt', () => {
  it('recognises every listed prompt from its rendered system text, and only that one', () => {
    for (const prompt of JUDGE_PROMPTS) {
      const system = rendered(prompt);
      expect(recognisePrompt(system)?.key).toBe(promptKey(prompt));
      const others = JUDGE_PROMPTS.filter((p) => p !== prompt);
      expect(recognisePrompt(system, others), promptKey(prompt)).toBeUndefined();
    }
  });

  it('reads the values of the holes back (the question count, the criterion)', () => {
    const [system] = questionsPrompt(fence, 'A source.', 7);
    expect(recognisePrompt(system.content)).toEqual({
      key: 'summarization.questions@1',
      values: { count: '7' },
    });
    const criterion = builtinCriterion('fluency', DEFAULT_JUDGE_SETTINGS);
    const [form] = withReplyLanguage(formPrompt(fence, criterion, ['Read.'], 'Src.', 'Sum.'), 'de');
    const found = recognisePrompt(form.content);
    expect(found?.key).toBe('g-eval.form@1');
    expect(found?.values.criterion).toBe(criterion.name);
    expect(found?.values.steps).toBe('1. Read.');
  });

  it('recognises the repetition form, which adds its own lines to the G-Eval form', () => {
    const extra = { instructions: 'List the repeats.', restated: 'List them.' };
    const [form] = formPrompt(fence, REPETITION_CRITERION, ['Look.'], null, 'Sum.', extra);
    expect(recognisePrompt(form.content)?.values.extra).toBe('List the repeats. Then ');
    expect(recognisePrompt(stepsPrompt(REPETITION_CRITERION)[0].content)?.key).toBe(
      'g-eval.steps@1',
    );
  });

  it('does not take a probe or a connection test for a judge prompt', () => {
    expect(recognisePrompt('')).toBeUndefined();
    expect(recognisePrompt('Reply with the number 7.')).toBeUndefined();
  });
});

describe('scripted replies follow the prompt versions', () => {
  const bumped = JUDGE_PROMPTS.map((p) =>
    p.id === 'summarization.claims' ? { ...p, version: p.version + 1 } : p,
  );

  it('fails loudly when a prompt was bumped but its replies were not', () => {
    expect(() => oracle({ prompts: bumped })).toThrow(
      /summarization\.claims@1 is now summarization\.claims@2/u,
    );
  });

  it('accepts replies keyed by the new version', () => {
    const claims = bumped.find((p) => p.id === 'summarization.claims') as JudgePrompt;
    const replies = { [promptKey(claims)]: () => '{"claims": []}' };
    expect(() =>
      checkScript({ ...replies, 'g-eval.form@1': () => 'Final score: 3' }, bumped),
    ).not.toThrow();
  });

  it('names a reply for a prompt the code no longer sends', () => {
    expect(() => checkScript({ 'summarization.outline@1': () => '{}' }, JUDGE_PROMPTS)).toThrow(
      /summarization\.outline@1 is no longer sent/u,
    );
  });

  it('answers a prompt with no script by saying so, not with a guess', async () => {
    const judge = new ScriptedJudge(oracle());
    await expect(
      judge.complete({ messages: [], cacheKey: { prompt: 'hedging.sentences@1' } }),
    ).rejects.toThrow('oracle: no scripted reply for prompt hedging.sentences@1');
  });
});

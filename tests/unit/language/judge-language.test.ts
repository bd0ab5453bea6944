/**
 * The judge is told the texts' language: a zh, ja, ru and id case through every LLM metric, over
 * the real client and the loopback fake provider, on the OpenAI, Anthropic and Gemini wires.
 * Every prompt sent names the language and asks for reasons, claims and questions in it (in the
 * system text and the last user turn, wherever each wire carries them); the replies, written here
 * in that language, are parsed and scored. An English case sends no such instruction, and the
 * language is part of every cache key.
 */
import { describe, expect, it } from 'vitest';
import { MemoryResponseCache } from '../../../src/lib/llm/cache.ts';
import { runJudgeMetrics } from '../../../src/lib/metrics/judge/run.ts';
import { DEFAULT_JUDGE_SETTINGS } from '../../../src/lib/metrics/judge/settings.ts';
import { splitSentences } from '../../../src/lib/metrics/text/tokenize.ts';
import type { CaseInput, JudgeMetricId, MetricResult } from '../../../src/lib/metrics/types.ts';
import { textReply, type RecordedRequest, type Wire } from '../../helpers/fake-llm.ts';
import { promptOfWire, wireMessages } from '../../helpers/judge-oracle.ts';
import { fakeJudge, useFakeLlm, WIRES } from '../support/fake-judge.ts';

interface Fixture {
  name: string;
  input: CaseInput;
  reason: string;
  question: (n: number) => string;
  steps: string[];
  formReasoning: string;
}

const instructions = (decision: string, mood: string) => [
  { name: decision, instruction: decision },
  { name: mood, instruction: mood },
];

const FIXTURES: Record<'zh' | 'ja' | 'ru' | 'id', Fixture> = {
  zh: {
    name: 'Chinese',
    input: {
      language: 'zh',
      source:
        '市议会周一投票决定关闭旧桥。维修费用为四百万欧元。去年工程师在两个桥墩上发现了裂缝。',
      summary: '市议会周一投票决定关闭旧桥。文章讨论了店主的反应。',
      instructions: instructions('说明做出了什么决定。', '整体情绪。'),
    },
    reason: '原文明确说明了这一点。',
    question: (n) => `第${n}句说了什么？`,
    steps: ['阅读原文。', '阅读摘要。', '给出分数。'],
    formReasoning: '摘要条理清楚。',
  },
  ja: {
    name: 'Japanese',
    input: {
      language: 'ja',
      source:
        '市議会は月曜日に古い橋の閉鎖を決めた。修理費は四百万ユーロになる。昨年、技術者が二本の橋脚にひびを見つけた。',
      summary: '市議会は月曜日に古い橋の閉鎖を決めた。記事は店主たちの反応を論じている。',
      instructions: instructions('何が決まったかを述べる。', '全体の雰囲気。'),
    },
    reason: '原文にそう書かれている。',
    question: (n) => `${n}番目の文は何を述べているか？`,
    steps: ['原文を読む。', '要約を読む。', '点数を決める。'],
    formReasoning: '要約は筋が通っている。',
  },
  ru: {
    name: 'Russian',
    input: {
      language: 'ru',
      source:
        'В понедельник городской совет проголосовал за закрытие старого моста. Ремонт стоил бы четыре миллиона евро. В прошлом году инженеры нашли трещины в двух опорах.',
      summary:
        'В понедельник городской совет проголосовал за закрытие старого моста. Статья обсуждает реакцию владельцев магазинов.',
      instructions: instructions('Укажите, что было решено.', 'Общее настроение.'),
    },
    reason: 'Это прямо сказано в источнике.',
    question: (n) => `О чём говорит предложение ${n}?`,
    steps: ['Прочитать источник.', 'Прочитать резюме.', 'Выставить оценку.'],
    formReasoning: 'Резюме написано связно.',
  },
  id: {
    name: 'Indonesian',
    input: {
      language: 'id',
      source:
        'Dewan kota memutuskan menutup jembatan lama pada hari Senin. Perbaikannya akan menelan biaya empat juta euro. Tahun lalu para insinyur menemukan retakan di dua pilar.',
      summary:
        'Dewan kota memutuskan menutup jembatan lama pada hari Senin. Artikel ini membahas reaksi para pemilik toko.',
      instructions: instructions('Sebutkan apa yang diputuskan.', 'Suasana secara umum.'),
    },
    reason: 'Sumber menyatakannya dengan jelas.',
    question: (n) => `Apa isi kalimat ke-${n}?`,
    steps: ['Baca sumber.', 'Baca ringkasan.', 'Tentukan skor.'],
    formReasoning: 'Ringkasan ini runtut.',
  },
};

const METRICS: JudgeMetricId[] = [
  'summarization',
  'alignment',
  'coverage',
  'vagueness',
  'repetitiveness',
  'geval-coherence',
  'geval-consistency',
  'geval-fluency',
  'geval-relevance',
  'geval-custom',
  'ccai-accuracy',
  'ccai-adherence',
  'ccai-completeness',
];

/** The text inside a fenced block of the user turn: `<tag id="…">…</tag>`. */
function block(req: RecordedRequest, tag: string): string {
  const user = wireMessages(req).find((m) => m.role === 'user')?.content ?? '';
  return new RegExp(`<${tag} id="[^"]+">\\n?([\\s\\S]*?)\\n?</${tag}>`, 'u').exec(user)?.[1] ?? '';
}

function numbered(text: string): string[] {
  return text
    .split('\n')
    .map((l) => /^\d+\.\s*(.*)$/u.exec(l)?.[1])
    .filter((l): l is string => l !== undefined);
}

/** Replies in the fixture's language, in the shape each SumLens prompt asks for. */
function replyIn(f: Fixture) {
  return (req: RecordedRequest) => {
    const prompt = promptOfWire(req);
    const system = wireMessages(req).find((m) => m.role === 'system')?.content ?? '';
    const json = (v: unknown) => textReply(req, JSON.stringify(v));
    const source = block(req, 'source');
    switch (prompt) {
      case undefined:
        return textReply(req, '7');
      case 'summarization.claims@1':
        return json({ claims: splitSentences(block(req, 'summary')).map((s) => s.text) });
      case 'summarization.verdicts@1':
        return json({
          verdicts: numbered(block(req, 'claims')).map((claim, i) => ({
            claim: i + 1,
            verdict: source.includes(claim) ? 'supported' : 'unsupported',
            reason: f.reason,
            quote: source.includes(claim) ? claim : '',
          })),
        });
      case 'summarization.questions@1': {
        const count = Number(/Write (\d+) open-ended questions/u.exec(system)?.[1] ?? 0);
        return json({
          questions: splitSentences(source)
            .slice(0, count)
            .map((s, i) => ({
              question: f.question(i + 1),
              answer: s.text,
              quote: s.text,
              importance: 3,
            })),
        });
      }
      case 'summarization.answers@1': {
        const sentences = splitSentences(block(req, 'summary')).map((s) => s.text);
        return json({
          answers: numbered(block(req, 'questions')).map((_, i) => ({
            question: i + 1,
            answer: sentences[i] ?? 'idk',
          })),
        });
      }
      case 'summarization.grades@1': {
        const items = block(req, 'answers')
          .split('\n')
          .filter((l) => /^\d+\. Question:/u.test(l));
        return json({
          grades: items.map((_, i) => ({ question: i + 1, grade: 4, reason: f.reason })),
        });
      }
      case 'vagueness.sentences@1':
        return json({
          sentences: numbered(block(req, 'sentences')).map((_, i) => ({
            sentence: i + 1,
            vague: i === 1,
            reason: f.reason,
          })),
        });
      case 'g-eval.steps@1':
        return json({ steps: f.steps });
      case 'g-eval.form@1':
        return textReply(req, `${f.formReasoning}\nFinal score: 3`);
      case 'ccai.adherence@1':
        return json({
          questions: numbered(block(req, 'questions')).map((_, i) => ({
            question: i + 1,
            reasoning: f.reason,
            is_addressed: true,
          })),
        });
      case 'ccai.completeness@1':
        return json({
          instructions: numbered(block(req, 'instructions')).map((_, i) => ({
            instruction: i + 1,
            contents: [
              {
                source_content: splitSentences(source)[0]?.text ?? '',
                summary_content: '',
                is_covered: true,
              },
            ],
          })),
        });
      default:
        throw new Error(`no ${f.name} reply for ${prompt}`);
    }
  };
}

type Language = keyof typeof FIXTURES;

/** Every fixture on every wire: 12 runs of a few milliseconds each over the loopback. */
const CASES: Array<[Wire, Language]> = WIRES.flatMap((wire) =>
  (Object.keys(FIXTURES) as Language[]).map((code): [Wire, Language] => [wire, code]),
);

describe('the judge in the texts’ language', () => {
  const fake = useFakeLlm();

  const settings = {
    ...DEFAULT_JUDGE_SETTINGS,
    gevalMethod: 'greedy' as const,
    customCriteria: [
      {
        name: 'Clarity',
        description: 'How clear the summary is to a reader.',
        scale: [1, 5] as [number, number],
      },
    ],
  };

  async function run(wire: Wire, input: CaseInput, cache = new MemoryResponseCache()) {
    const judge = fakeJudge(fake(), wire, { cache });
    const results: MetricResult[] = [];
    await runJudgeMetrics(input, {
      metrics: METRICS,
      settings,
      judge,
      onResult: (r) => results.push(r),
    });
    return results;
  }

  it.each(CASES)(
    '%s wire, %s: every prompt names the language, every metric scores',
    async (wire, code) => {
      const f = FIXTURES[code];
      fake().setHandler(replyIn(f));
      const results = await run(wire, f.input);
      const instruction = `The source is in ${f.name} (${code}). Write every reason, claim and question in ${f.name}`;
      const prompts = fake().requests.filter((r) => promptOfWire(r) !== undefined);
      expect(prompts.every((r) => r.wire === wire)).toBe(true);
      expect(new Set(prompts.map(promptOfWire)).size).toBeGreaterThanOrEqual(10);
      for (const req of prompts) {
        const messages = wireMessages(req);
        expect(messages.find((m) => m.role === 'system')?.content, promptOfWire(req)).toContain(
          instruction,
        );
        expect(messages.at(-1)?.content, promptOfWire(req)).toContain(instruction);
      }
      const problems = results.filter((r) => r.status !== 'ok').map((r) => `${r.id}: ${r.reason}`);
      expect(problems).toEqual([]);
      expect(results.map((r) => r.id).sort()).toEqual([...METRICS].sort());
      // The replies' own words reach the details.
      const alignment = results.find((r) => r.id === 'alignment')!;
      expect(JSON.stringify(alignment.details)).toContain(f.reason);
      expect(alignment.score).toBe(0.5);
      // 3 on the 1–5 custom scale, normalised to 0–1.
      expect(results.find((r) => r.id === 'geval-custom')!.score).toBe(0.5);
      expect(results.find((r) => r.id === 'geval-coherence')!.score).toBe(3);
      expect(results.find((r) => r.id === 'vagueness')!.score).toBe(0.5);
    },
  );

  it.each(WIRES)(
    '%s wire: sends no language instruction for English, and keys the cache by language',
    async (wire) => {
      fake().setHandler(replyIn(FIXTURES.zh));
      const cache = new MemoryResponseCache();
      await run(wire, { ...FIXTURES.zh.input, language: 'en' }, cache);
      const english = fake().requests.length;
      expect(english).toBeGreaterThan(0);
      for (const req of fake().requests) {
        expect(JSON.stringify(req.body)).not.toContain('Write every reason');
      }
      // The same texts in Chinese are asked again, not answered from the English cache.
      await run(wire, FIXTURES.zh.input, cache);
      expect(fake().requests.length).toBeGreaterThan(english);
    },
  );
});

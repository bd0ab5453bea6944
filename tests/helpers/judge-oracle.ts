/**
 * A sensible judge behind the fake provider's wire: it recognises which SumLens prompt a request
 * carries (from its system text: the cache key never travels on the wire) and answers the way the
 * in-memory scripted judge does. Used by the client-flow unit test and the end-to-end tests, on
 * every wire format.
 */
import type { JudgeRequest } from '../../src/lib/llm/types.ts';
import { textReply, type RecordedRequest } from './fake-llm.ts';
import { ScriptedJudge, oracle } from '../unit/judge/scripted-judge.ts';

const SIGNATURES: Array<[RegExp, string]> = [
  [/split a summary into atomic factual claims/u, 'summarization.claims@1'],
  [/check claims against a source document/u, 'summarization.verdicts@1'],
  [/key questions that a good summary/u, 'summarization.questions@1'],
  [/answer questions using the text of a summary/u, 'summarization.answers@1'],
  [/grade answers against reference answers/u, 'summarization.grades@1'],
  [/sentences of a summary for vagueness/u, 'vagueness.sentences@1'],
  [/evaluation procedures/u, 'g-eval.steps@1'],
  [/follows the instructions it was written under/u, 'ccai.adherence@1'],
  [/contains what its instructions ask for/u, 'ccai.completeness@1'],
  [/rate the summary on one criterion|rate it on one criterion/u, 'g-eval.form@1'],
];

type PartText = { text?: string };

/** The chat messages a wire request carries, whatever its format. */
export function wireMessages(req: RecordedRequest): JudgeRequest['messages'] {
  if (req.wire === 'anthropic') {
    const turns = (req.body.messages as Array<{ role: string; content: unknown }>).map((m) => ({
      role: m.role as 'user' | 'assistant',
      content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content),
    }));
    const system =
      typeof req.body.system === 'string' ? req.body.system : JSON.stringify(req.body.system ?? '');
    return [{ role: 'system', content: system }, ...turns];
  }
  if (req.wire === 'gemini') {
    const text = (parts: PartText[] | undefined) => (parts ?? []).map((p) => p.text ?? '').join('');
    const system = text(req.body.systemInstruction?.parts as PartText[] | undefined);
    const turns = (req.body.contents as Array<{ role?: string; parts?: PartText[] }>).map((c) => ({
      role: (c.role === 'model' ? 'assistant' : 'user') as 'user' | 'assistant',
      content: text(c.parts),
    }));
    return [{ role: 'system', content: system }, ...turns];
  }
  return req.body.messages;
}

/** Prompt id of a wire request, or undefined (the capability probe, a connection test). */
export function promptOfWire(req: RecordedRequest): string | undefined {
  const messages = wireMessages(req);
  const system = messages.find((m) => m.role === 'system')?.content ?? '';
  return SIGNATURES.find(([re]) => re.test(system))?.[1];
}

/** The fake server's handler: every G-Eval form is answered with `gevalScore`. */
export function oracleHandler(gevalScore: number) {
  const answer = oracle({ gevalScore });
  const judge = new ScriptedJudge(answer);
  return async (req: RecordedRequest) => {
    const messages = wireMessages(req);
    const system = messages.find((m) => m.role === 'system')?.content ?? '';
    const prompt = promptOfWire(req);
    if (!prompt) return textReply(req, '7');
    const count = Number(/Write (\d+) open-ended questions/u.exec(system)?.[1] ?? 0);
    const reply = await answer({ messages, cacheKey: { prompt, count } }, judge);
    const first = Array.isArray(reply) ? reply[0] : reply;
    return textReply(req, typeof first === 'string' ? first : first.text);
  };
}

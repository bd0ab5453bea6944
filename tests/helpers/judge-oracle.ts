/**
 * A sensible judge behind the fake provider's wire: it recognises which SumLens prompt a request
 * was rendered from by matching its system text against every prompt the code lists (the cache key
 * never travels on the wire), and answers the way the in-memory scripted judge does. Used by the
 * client-flow unit test and the end-to-end tests, on every wire format.
 */
import type { JudgeRequest } from '../../src/lib/llm/types.ts';
import { JUDGE_PROMPTS } from '../../src/lib/metrics/judge/prompt-list.ts';
import { promptKey, type JudgePrompt } from '../../src/lib/metrics/judge/prompt-kit.ts';
import { textReply, type RecordedRequest } from './fake-llm.ts';
import { ScriptedJudge, oracle } from '../unit/judge/scripted-judge.ts';

/** A prompt recognised in a request: its `'<id>@<version>'` and the values its holes were given. */
export interface RecognisedPrompt {
  key: string;
  values: Record<string, string>;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/**
 * The prompt's instructions as a pattern: the fixed text verbatim, each `{{hole}}` any text (the
 * same text where a hole repeats). The system message is the instructions, then optionally the
 * data notice and the reply-language line after a blank line.
 */
function instructionsPattern(prompt: JudgePrompt): RegExp {
  const seen = new Set<string>();
  const parts = prompt.instructions.split(/\{\{(\w+)\}\}/u).map((part, i) => {
    if (i % 2 === 0) return escapeRegExp(part);
    if (seen.has(part)) return `\\k<${part}>`;
    seen.add(part);
    return `(?<${part}>[\\s\\S]*?)`;
  });
  return new RegExp(`^${parts.join('')}(?:\\n\\n[\\s\\S]*)?$`, 'u');
}

/** Which listed prompt a system text was rendered from, or undefined (a probe, a connection test). */
export function recognisePrompt(
  system: string,
  prompts: readonly JudgePrompt[] = JUDGE_PROMPTS,
): RecognisedPrompt | undefined {
  for (const prompt of prompts) {
    const match = instructionsPattern(prompt).exec(system);
    if (match) return { key: promptKey(prompt), values: { ...match.groups } };
  }
  return undefined;
}

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

/** Prompt key of a wire request, or undefined (the capability probe, a connection test). */
export function promptOfWire(req: RecordedRequest): string | undefined {
  return recognisePrompt(systemOf(req))?.key;
}

function systemOf(req: RecordedRequest): string {
  return wireMessages(req).find((m) => m.role === 'system')?.content ?? '';
}

/** The fake server's handler: every G-Eval form is answered with `gevalScore`. */
export function oracleHandler(gevalScore: number) {
  const answer = oracle({ gevalScore });
  const judge = new ScriptedJudge(answer);
  return async (req: RecordedRequest) => {
    const messages = wireMessages(req);
    const prompt = recognisePrompt(systemOf(req));
    if (!prompt) return textReply(req, '7');
    const reply = await answer(
      { messages, cacheKey: { prompt: prompt.key, ...prompt.values } },
      judge,
    );
    const first = Array.isArray(reply) ? reply[0] : reply;
    return textReply(req, typeof first === 'string' ? first : first.text);
  };
}

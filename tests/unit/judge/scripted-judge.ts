/**
 * An in-memory Judge for the metric tests: no network, no key. Replies are decided by a responder
 * that inspects the request (which prompt, which fenced data); `oracle` answers every SumLens prompt
 * sensibly from the data it is shown. The judge records every call with start/end ticks (to count
 * sequential rounds), emulates a content-addressed cache on `cacheKey`, and validates JSON replies
 * against the request's zod schema the way the real client does (LlmError 'malformed-output').
 */
import {
  LlmError,
  type Capabilities,
  type Judge,
  type JsonOutputSpec,
  type JudgeChoice,
  type JudgeRequest,
  type JudgeResponse,
  type TokenLogprob,
} from '../../../src/lib/llm/types.ts';
import { splitSentences } from '../../../src/lib/metrics/text/tokenize.ts';
import { GEVAL_FORM_PROMPT } from '../../../src/lib/metrics/judge/g-eval/prompts.ts';
import { JUDGE_PROMPTS } from '../../../src/lib/metrics/judge/prompt-list.ts';
import { promptKey, type JudgePrompt } from '../../../src/lib/metrics/judge/prompt-kit.ts';

export type ReplyChoice = string | { text: string; logprobs?: TokenLogprob[] };
/** One reply, or one per choice (n samples). */
export type Reply = ReplyChoice | ReplyChoice[];
export type Responder = (request: JudgeRequest, judge: ScriptedJudge) => Reply | Promise<Reply>;

export interface RecordedCall {
  request: JudgeRequest;
  /** The cacheKey's `prompt` (e.g. 'summarization.claims@1'). */
  prompt: string;
  start: number;
  end: number;
  fromCache: boolean;
}

export const LOGPROB_CAPS: Capabilities = {
  logprobs: true,
  maxTopLogprobs: 20,
  n: true,
  jsonSchema: true,
  temperature: 'any',
  source: 'table',
};

export const NO_LOGPROB_CAPS: Capabilities = {
  logprobs: false,
  maxTopLogprobs: 0,
  n: false,
  jsonSchema: true,
  temperature: 'any',
  source: 'table',
};

/** The `prompt` field of a request's cacheKey. */
export function promptOf(request: JudgeRequest): string {
  const key = request.cacheKey as { prompt?: unknown } | undefined;
  return typeof key?.prompt === 'string' ? key.prompt : '';
}

/** The fenced blocks of a request's user turn, by tag (`<tag id="s_xxxxxx">…</tag>`). */
export function blocks(request: JudgeRequest): Record<string, string> {
  const user = request.messages.find((m) => m.role === 'user')?.content ?? '';
  const out: Record<string, string> = {};
  for (const m of user.matchAll(/<(\w+) id="(s_[0-9a-f]{6})">\n([\s\S]*?)\n<\/\1>/gu)) {
    out[m[1]] = m[3];
  }
  return out;
}

/** The items of a numbered block ("1. a\n2. b"). */
export function numberedItems(block: string | undefined): string[] {
  return (block ?? '')
    .split('\n')
    .map((line) => /^\d+\.\s(.*)$/u.exec(line)?.[1])
    .filter((s): s is string => s !== undefined);
}

export class ScriptedJudge implements Judge {
  readonly provider = 'openai' as const;
  readonly model: string;
  readonly calls: RecordedCall[] = [];
  httpCalls = 0;
  capabilityCalls = 0;
  private tick = 0;
  private readonly cache = new Map<string, JudgeResponse>();

  constructor(
    private readonly responder: Responder,
    private readonly options: {
      caps?: Capabilities;
      model?: string;
      /** Milliseconds a call takes (default: a few, varying, so calls interleave). */
      delay?: (request: JudgeRequest) => number;
      cache?: boolean;
    } = {},
  ) {
    this.model = options.model ?? 'scripted-1';
  }

  /** Calls that reached the "provider" (not served from the cache). */
  get liveCalls(): RecordedCall[] {
    return this.calls.filter((c) => !c.fromCache);
  }

  async capabilities(): Promise<Capabilities> {
    this.capabilityCalls++;
    return this.options.caps ?? NO_LOGPROB_CAPS;
  }

  async complete(request: JudgeRequest): Promise<JudgeResponse> {
    const record: RecordedCall = {
      request,
      prompt: promptOf(request),
      start: this.tick++,
      end: -1,
      fromCache: false,
    };
    this.calls.push(record);
    const key =
      this.options.cache !== false && request.cacheKey !== undefined
        ? JSON.stringify([
            this.provider,
            this.model,
            request.cacheKey,
            request.json?.name ?? null,
            request.temperature ?? 0,
            request.n ?? 1,
            request.topLogprobs ?? null,
          ])
        : undefined;
    const hit = key ? this.cache.get(key) : undefined;
    if (hit) {
      record.fromCache = true;
      record.end = this.tick++;
      return { ...structuredClone(hit), calls: 0, fromCache: true };
    }
    const wait = this.options.delay?.(request) ?? 1 + (this.calls.length % 3);
    await new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(t);
        reject(new LlmError('cancelled', 'The request was cancelled.'));
      };
      const t = setTimeout(() => {
        request.signal?.removeEventListener('abort', onAbort);
        resolve();
      }, wait);
      request.signal?.addEventListener('abort', onAbort, { once: true });
    });
    if (request.signal?.aborted) throw new LlmError('cancelled', 'The request was cancelled.');
    const reply = await this.responder(request, this);
    const list = Array.isArray(reply) ? reply : [reply];
    const n = request.n ?? 1;
    const choices: JudgeChoice[] = Array.from({ length: n }, (_, i) => {
      const c = list[i % list.length];
      return typeof c === 'string'
        ? { text: c, finishReason: 'stop' as const }
        : { text: c.text, finishReason: 'stop' as const, logprobs: c.logprobs };
    });
    this.httpCalls++;
    record.end = this.tick++;
    const response: JudgeResponse = {
      provider: this.provider,
      model: this.model,
      choices,
      usage: { input: 100, output: 10 * n },
      calls: 1,
      fromCache: false,
    };
    if (key) this.cache.set(key, structuredClone(response));
    return response;
  }

  async completeJson<T>(
    request: JudgeRequest & { json: JsonOutputSpec<T> },
  ): Promise<{ value: T; response: JudgeResponse }> {
    const response = await this.complete(request);
    const text = response.choices[0]?.text ?? '';
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new LlmError('malformed-output', `The reply is not JSON: ${text.slice(0, 60)}`);
    }
    const parsed = request.json.schema.safeParse(raw);
    if (!parsed.success) {
      throw new LlmError('malformed-output', 'The reply does not match the expected structure.');
    }
    return { value: parsed.data, response };
  }

  /**
   * How many sequential rounds the calls took: a call's depth is 1 + the deepest call that had
   * ended before it started.
   */
  sequentialDepth(): number {
    const depth = new Map<RecordedCall, number>();
    const sorted = [...this.calls].sort((a, b) => a.start - b.start);
    for (const c of sorted) {
      let d = 1;
      for (const prev of sorted) {
        if (prev.end >= 0 && prev.end < c.start) d = Math.max(d, (depth.get(prev) ?? 1) + 1);
      }
      depth.set(c, d);
    }
    return Math.max(0, ...depth.values());
  }
}

/** A G-Eval form reply ending in the score line. */
export function formReply(score: number, reasoning = 'Reasoning in one sentence.'): string {
  return `${reasoning}\nFinal score: ${score}`;
}

/** What a scripted reply is given: the request, its fenced blocks and its cache key. */
export interface ScriptedCall {
  request: JudgeRequest;
  blocks: Record<string, string>;
  cacheKey: Record<string, unknown>;
}

/** Replies by prompt, keyed `'<id>@<version>'` as the code's prompt list names them. */
export type ReplyScript = Readonly<Record<string, (call: ScriptedCall) => Reply>>;

const json = (v: unknown) => JSON.stringify(v);

/**
 * Sensible replies to every SumLens prompt, from the data it is shown: claims = summary sentences;
 * a claim is supported (quoting itself) when the source contains it, else unsupported; questions =
 * the first source sentences; the summary answers a question when it contains the question's
 * answer; grades 5; vague = mentions "discusses"/"describes"; adherence and completeness all met.
 * G-Eval forms are answered by `oracle` with the score it is given.
 */
const SENSIBLE_REPLIES: ReplyScript = {
  'summarization.claims@1': ({ blocks: b }) =>
    json({ claims: splitSentences(b.summary ?? '').map((s) => s.text) }),
  'summarization.verdicts@1': ({ blocks: b }) => {
    const source = b.source ?? '';
    return json({
      verdicts: numberedItems(b.claims).map((claim, i) => {
        const found = source.includes(claim);
        return {
          claim: i + 1,
          verdict: found ? 'supported' : 'unsupported',
          reason: found ? 'The source states it.' : 'The source does not mention it.',
          quote: found ? claim : '',
        };
      }),
    });
  },
  'summarization.questions@1': ({ blocks: b, cacheKey }) => {
    const sentences = splitSentences(b.source ?? '').slice(0, Number(cacheKey.count));
    return json({
      questions: sentences.map((s, i) => ({
        question: `What does sentence ${i + 1} say?`,
        answer: s.text,
        quote: s.text,
        importance: (i % 5) + 1,
      })),
    });
  },
  'summarization.answers@1': ({ blocks: b }) => {
    // The question number i asks for source sentence i; answer it when the summary holds it.
    const summarySentences = splitSentences(b.summary ?? '').map((s) => s.text);
    return json({
      answers: numberedItems(b.questions).map((q, i) => {
        const n = Number(/sentence (\d+)/u.exec(q)?.[1] ?? 0);
        return { question: i + 1, answer: summarySentences[n - 1] ?? 'idk' };
      }),
    });
  },
  'summarization.grades@1': ({ blocks: b }) => {
    const items = (b.answers ?? '').split('\n').filter((l) => /^\d+\. /u.test(l));
    return json({
      grades: items.map((_, i) => ({ question: i + 1, grade: 5, reason: 'Same facts.' })),
    });
  },
  'vagueness.sentences@1': ({ blocks: b }) =>
    json({
      sentences: numberedItems(b.sentences).map((s, i) => ({
        sentence: i + 1,
        vague: /\b(discusses|describes)\b/u.test(s),
        reason: 'Checked.',
      })),
    }),
  'g-eval.steps@1': () =>
    json({ steps: ['Read the source.', 'Read the summary.', 'Pick the score.'] }),
  'ccai.adherence@1': ({ blocks: b }) =>
    json({
      questions: numberedItems(b.questions).map((_, i) => ({
        question: i + 1,
        reasoning: 'Followed.',
        is_addressed: true,
      })),
    }),
  'ccai.completeness@1': ({ blocks: b }) => {
    const source = splitSentences(b.source ?? '')[0]?.text ?? '';
    return json({
      instructions: numberedItems(b.instructions).map((_, i) => ({
        instruction: i + 1,
        contents: [{ source_content: source, summary_content: '', is_covered: true }],
      })),
    });
  },
};

/**
 * Fails loudly when a script answers a prompt the code no longer sends: a prompt whose text was
 * edited has a new version, and the replies written for the old text must be checked against the
 * new one and keyed by the new version.
 */
export function checkScript(script: ReplyScript, prompts: readonly JudgePrompt[]): void {
  const current = new Set(prompts.map(promptKey));
  const stale = Object.keys(script).filter((key) => !current.has(key));
  if (stale.length === 0) return;
  const now = stale.map((key) => {
    const id = key.slice(0, key.lastIndexOf('@'));
    const prompt = prompts.find((p) => p.id === id);
    return prompt ? `${key} is now ${promptKey(prompt)}` : `${key} is no longer sent`;
  });
  throw new Error(
    `The judge oracle scripts replies for prompts the code does not send (${now.join('; ')}): ` +
      'check each reply against the prompt as it reads now and key it by its new version.',
  );
}

/**
 * Answers every SumLens prompt from the data it is shown (SENSIBLE_REPLIES), G-Eval forms with
 * `gevalScore`; `replies` adds or replaces scripts (a new metric's prompts). Which prompt a call
 * carries is the cache key's `'<id>@<version>'`, as the code rendered it.
 */
export function oracle(
  options: {
    gevalScore?: number;
    replies?: ReplyScript;
    /** The prompts the code sends (default: every registered metric's). */
    prompts?: readonly JudgePrompt[];
  } = {},
): Responder {
  const script: ReplyScript = {
    ...SENSIBLE_REPLIES,
    [promptKey(GEVAL_FORM_PROMPT)]: () => formReply(options.gevalScore ?? 4),
    ...options.replies,
  };
  checkScript(script, options.prompts ?? JUDGE_PROMPTS);
  return (request) => {
    const prompt = promptOf(request);
    const reply = Object.hasOwn(script, prompt) ? script[prompt] : undefined;
    if (!reply) throw new Error(`oracle: no scripted reply for prompt ${prompt || '(none)'}`);
    return reply({
      request,
      blocks: blocks(request),
      cacheKey: request.cacheKey as Record<string, unknown>,
    });
  };
}

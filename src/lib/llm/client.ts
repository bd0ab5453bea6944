/**
 * The LLM client's entry point: the Judge (judge.ts) over the sampler (sampling.ts) and the HTTP
 * transport with its retries and timeouts (transport.ts), and the settings page's connection
 * test. Importers outside src/lib/llm use this path.
 */
import { scrub } from './answers.ts';
import { createJudge, type JudgeOptions } from './judge.ts';
import type { LlmErrorKind, ProviderConfig } from './types.ts';
import { english, ref, type MessageRef } from '../i18n/message.ts';

export { createJudge } from './judge.ts';
export { DEFAULT_MAX_ATTEMPTS, backoffDelay, defaultSleep } from './backoff.ts';

export interface ConnectionResult {
  ok: boolean;
  /** The model the server says answered (may be a dated version of the configured name). */
  model: string;
  message: string;
  /** The same message for the page to word in the reader's language. */
  messageRef?: MessageRef;
  /** Why it failed, for the UI to pick a hint. */
  kind?: LlmErrorKind;
}

/** One tiny call for the settings page's "Test connection" button. */
export async function testConnection(
  config: ProviderConfig,
  options: JudgeOptions & { signal?: AbortSignal } = {},
): Promise<ConnectionResult> {
  try {
    const judge = createJudge(config, {
      maxAttempts: 2,
      timeoutMs: 30_000,
      ...options,
      cache: undefined,
    });
    const res = await judge.complete({
      messages: [{ role: 'user', content: 'Reply with the word OK.' }],
      maxTokens: 16,
      signal: options.signal,
    });
    return connected(res.model);
  } catch (e) {
    const err = scrub(e, config.apiKey, config.kind);
    // The API answered, just not with text (a reasoning model spent 16 tokens thinking): the key,
    // the model and the connection all work.
    if (['truncated', 'refusal', 'content-filter', 'malformed-output'].includes(err.kind)) {
      return connected(config.model);
    }
    return {
      ok: false,
      model: config.model,
      message: err.message,
      ...(err.messageRef ? { messageRef: err.messageRef } : {}),
      kind: err.kind,
    };
  }
}

function connected(model: string): ConnectionResult {
  return {
    ok: true,
    model,
    message: english('llm.test.connected', { model }),
    messageRef: ref('llm.test.connected', { model }),
  };
}

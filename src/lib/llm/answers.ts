/**
 * The errors a caller sees: an answer that cannot be used says why (refused, filtered, cut off,
 * empty), and every error leaving the client has the key and every key shape removed.
 */
import { isMessageRef, type MessageRef, type MessageValues } from '../i18n/message.ts';
import { messageOf } from '../errors.ts';
import { CapabilityError, wordedError, type ErrorContext } from './errors.ts';
import { redact } from './redact.ts';
import { LlmError, type JudgeChoice, type ProviderConfig } from './types.ts';

/** A ref's interpolated texts (a server's words among them) with the key redacted too. */
function redactRef(
  message: MessageRef | undefined,
  apiKey: string | undefined,
): MessageRef | undefined {
  if (!message?.values) return message;
  const values: MessageValues = {};
  for (const [name, value] of Object.entries(message.values)) {
    values[name] =
      typeof value === 'string'
        ? redact(value, [apiKey])
        : isMessageRef(value)
          ? (redactRef(value, apiKey) ?? value)
          : value;
  }
  return { key: message.key, values };
}

/** Same error with the key (and every known key shape) removed from its message. */
export function scrub(
  e: unknown,
  apiKey: string | undefined,
  provider: ProviderConfig['kind'],
): LlmError {
  if (e instanceof CapabilityError) {
    const out = new CapabilityError(e.param, redact(e.message, [apiKey]), {
      status: e.status,
      provider: e.provider ?? provider,
      messageRef: redactRef(e.messageRef, apiKey),
    });
    out.spent = e.spent;
    return out;
  }
  if (e instanceof LlmError) {
    return new LlmError(e.kind, redact(e.message, [apiKey]), {
      status: e.status,
      provider: e.provider ?? provider,
      retryAfterMs: e.retryAfterMs,
      spent: e.spent,
      messageRef: redactRef(e.messageRef, apiKey),
    });
  }
  const message = redact(messageOf(e), [apiKey]);
  return wordedError('bad-request', 'llm.error.unexpected', { message }, { provider });
}

/** A request with no usable answer at all becomes an error that says why. */
export function assertUsable(choices: JudgeChoice[], ctx: ErrorContext): void {
  const usable = choices.some(
    (c) =>
      c.text.trim() !== '' && c.finishReason !== 'refusal' && c.finishReason !== 'content_filter',
  );
  if (usable) return;
  throw finishError(choices[0], ctx);
}

/** A truncated reply may still "repair" into valid-looking JSON: never trust it (§2.4). */
export function jsonUsable(choice: JudgeChoice | undefined): choice is JudgeChoice {
  return (
    !!choice &&
    choice.text.trim() !== '' &&
    choice.finishReason !== 'length' &&
    choice.finishReason !== 'refusal' &&
    choice.finishReason !== 'content_filter'
  );
}

export function finishError(choice: JudgeChoice | undefined, ctx: ErrorContext): LlmError {
  const opts = { provider: ctx.provider, status: 200 };
  const who = { who: ctx.name, model: ctx.model };
  if (!choice) return wordedError('malformed-output', 'llm.error.noAnswer', who, opts);
  const reply = choice.text.trim();
  switch (choice.finishReason) {
    case 'refusal':
      return reply
        ? wordedError(
            'refusal',
            'llm.error.refusedQuoted',
            { ...who, reply: reply.slice(0, 200) },
            opts,
          )
        : wordedError('refusal', 'llm.error.refused', who, opts);
    case 'content_filter':
      return wordedError('content-filter', 'llm.error.answerFiltered', who, opts);
    case 'length':
      return wordedError(
        'truncated',
        reply ? 'llm.error.truncated' : 'llm.error.budgetSpent',
        who,
        opts,
      );
    default:
      return wordedError('malformed-output', 'llm.error.emptyAnswer', who, opts);
  }
}

/**
 * The errors a caller sees: an answer that cannot be used says why (refused, filtered, cut off,
 * empty), and every error leaving the client has the key and every key shape removed.
 */
import { isMessageRef, type MessageRef, type MessageValues } from '../i18n/message.ts';
import { messageOf } from '../errors.ts';
import { CapabilityError, type ErrorContext } from './errors.ts';
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
  const message = messageOf(e);
  return new LlmError('bad-request', redact(`Unexpected error: ${message}`, [apiKey]), {
    provider,
  });
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
  if (!choice) return new LlmError('malformed-output', `${ctx.name} returned no answer.`, opts);
  const quoted = choice.text.trim() ? `: "${choice.text.trim().slice(0, 200)}"` : '.';
  switch (choice.finishReason) {
    case 'refusal':
      return new LlmError('refusal', `${ctx.model} refused to answer${quoted}`, opts);
    case 'content_filter':
      return new LlmError(
        'content-filter',
        `${ctx.name}'s content filter blocked the answer. The item cannot be scored by this provider.`,
        opts,
      );
    case 'length':
      return new LlmError(
        'truncated',
        choice.text.trim()
          ? `${ctx.model}'s answer was cut off at the output-token limit. Raise the max tokens.`
          : `${ctx.model} used its whole output budget before answering (thinking or reasoning tokens count against it). Raise the max tokens.`,
        opts,
      );
    default:
      return new LlmError('malformed-output', `${ctx.model} returned an empty answer.`, opts);
  }
}

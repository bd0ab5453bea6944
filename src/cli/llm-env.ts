/**
 * The LLM judge for the command line, from environment variables (never from arguments, so the
 * key stays out of shell history and process lists):
 *
 *   SUMLENS_LLM_PROVIDER   a provider kind: openai | anthropic | gemini | openai-compatible
 *   SUMLENS_LLM_MODEL      the model id (required)
 *   SUMLENS_LLM_API_KEY    the key (optional for openai-compatible local servers)
 *   SUMLENS_LLM_BASE_URL   another host (required for openai-compatible)
 *
 * The key is never printed: `describeProvider` leaves it out, and `scrubSecrets` removes it from
 * any text the CLI writes.
 */
import { providerRecord } from '../lib/llm/providers/registry.ts';
import { redact } from '../lib/llm/redact.ts';
import { PROVIDER_KINDS, type ProviderConfig, type ProviderKind } from '../lib/llm/types.ts';

export { PROVIDER_KINDS };

function isProviderKind(value: string): value is ProviderKind {
  return (PROVIDER_KINDS as readonly string[]).includes(value);
}

export const LLM_ENV = {
  provider: 'SUMLENS_LLM_PROVIDER',
  model: 'SUMLENS_LLM_MODEL',
  apiKey: 'SUMLENS_LLM_API_KEY',
  baseUrl: 'SUMLENS_LLM_BASE_URL',
} as const;

export type LlmEnv = { config: ProviderConfig } | { error: string } | null;

/** The provider the environment configures: null when none, an error when half-configured. */
export function providerFromEnv(env: NodeJS.ProcessEnv = process.env): LlmEnv {
  const kind = env[LLM_ENV.provider]?.trim();
  if (!kind) return null;
  if (!isProviderKind(kind)) {
    return {
      error: `${LLM_ENV.provider}=${kind} is not a provider. Use one of ${PROVIDER_KINDS.join(', ')}.`,
    };
  }
  const model = env[LLM_ENV.model]?.trim();
  if (!model) return { error: `${LLM_ENV.provider} is set: set ${LLM_ENV.model} too.` };
  const apiKey = env[LLM_ENV.apiKey]?.trim() || undefined;
  const baseUrl = env[LLM_ENV.baseUrl]?.trim() || undefined;
  const record = providerRecord(kind);
  if (record.baseUrlRequired && !baseUrl) {
    return { error: `${kind} needs ${LLM_ENV.baseUrl} (e.g. http://localhost:11434).` };
  }
  // With a base URL of its own (a gateway, a test server) the key may be left out.
  if (record.keyRequired && !apiKey && !baseUrl) {
    return { error: `${kind} needs ${LLM_ENV.apiKey}.` };
  }
  return {
    config: {
      kind,
      model,
      ...(apiKey ? { apiKey } : {}),
      ...(baseUrl ? { baseUrl } : {}),
    },
  };
}

/** "openai/gpt-4.1-mini at http://…", without the key. */
export function describeProvider(config: ProviderConfig): string {
  return `${config.kind}/${config.model}${config.baseUrl ? ` at ${config.baseUrl}` : ''}`;
}

/** `text` with the configured key and anything shaped like a key replaced by `<redacted>`. */
export function scrubSecrets(text: string, config?: ProviderConfig): string {
  return redact(text, [config?.apiKey]);
}

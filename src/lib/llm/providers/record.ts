/**
 * The shape of one provider record (src/lib/llm/providers/registry.ts): everything the app knows
 * about a provider kind, so that the settings, the CSP, key redaction, "Forget all keys", the
 * price table, the CLI and the client all read the same list instead of naming providers again.
 *
 * Type-only: the registry imports the adapters, and modules the adapters use must not import the
 * registry back (its table is built when the module loads).
 */
import type { PriceEntry } from '../prices.ts';
import type { ProviderConfig } from '../types.ts';
import type { HttpRequest, ProviderAdapter } from './shared.ts';

/** Hosts one provider (or one family of OpenAI-compatible servers) answers on. */
export interface KnownHosts {
  /** A short stable id: the provider kind, or the server family ('azure', 'groq', 'local'). */
  id: string;
  /** For messages and the README: "OpenAI", "Azure OpenAI". */
  name: string;
  /** The base URL the settings propose, where one fits everyone (Azure has one per resource). */
  baseUrl?: string;
  /** CSP source expressions (scheme://host[:port], or *.host) that let the page reach it. */
  connectSrc: readonly string[];
}

/**
 * A shape the provider issues keys in, for redaction (src/lib/llm/redact.ts says which texts each
 * kind removes and why):
 * - 'prefixed': a prefix no word starts with (`sk-proj-`): 16+ key characters after it are a key;
 * - 'random': a short prefix (`sk-`, `gsk_`): only when what follows looks machine-made;
 * - 'fixed': a prefix and exactly this many key characters (`AIza` + 35);
 * - 'jwt': a bearer token such as an Azure AD access token.
 */
export type KeyShape =
  | { kind: 'prefixed'; prefix: string }
  | { kind: 'random'; prefix: string; chars: 'key' | 'alphanumeric'; minLength: number }
  | { kind: 'fixed'; prefix: string; length: number }
  | { kind: 'jwt' };

/** A provider's embedding endpoint (provider embeddings in src/lib/metrics/semantic). */
export interface EmbeddingsApi {
  defaultModel: string;
  /** Inputs per request the API accepts (both known APIs take at least 100). */
  batchSize: number;
  request(config: ProviderConfig, baseUrl: string, model: string, texts: string[]): HttpRequest;
  /** The vectors in input order; fewer than asked when the body is not what the API sends. */
  vectors(body: unknown): number[][];
}

/**
 * How structured output travels: 'strict-object' (OpenAI structured outputs: an object at the
 * root, `strict: true` where the schema allows), 'object' (an object at the root as given:
 * Anthropic's tool input), 'any' (any root: Gemini's responseJsonSchema).
 */
export type JsonSchemaSupport = 'strict-object' | 'object' | 'any';

/** A seed price-table row for this provider (src/lib/llm/prices.ts). */
export type ModelPrice = Omit<PriceEntry, 'provider'>;

export interface ProviderRecord {
  /** In the settings' provider list. */
  label: string;
  /** In sentences: "choose OpenAI, Google Gemini or an OpenAI-compatible server". */
  name: string;
  /** The base URL the settings start with. */
  defaultBaseUrl: string;
  /** No base URL fits everyone (the compatible servers): a request without one is refused. */
  baseUrlRequired: boolean;
  /** False where local servers take no key at all. */
  keyRequired: boolean;
  /** What the settings propose for a new provider choice. */
  defaultModel: string;
  /** Everything the CSP's connect-src must allow for this provider. */
  hosts: readonly KnownHosts[];
  /** Key shapes to redact from every message, export and report. */
  keyShapes: readonly KeyShape[];
  /** Request building, response reading and error mapping (the shared table plus its own rules). */
  adapter: ProviderAdapter;
  jsonSchema: JsonSchemaSupport;
  /** Undefined: the provider has no embedding API. */
  embeddings: EmbeddingsApi | undefined;
  prices: readonly ModelPrice[];
  /**
   * Where a remembered key lives: `sumlens.key.<id>` in sessionStorage or localStorage. Stored
   * data: never rename one.
   */
  keyStorageId: string;
}

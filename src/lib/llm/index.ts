/** The LLM judge layer's public surface. */
export * from './types.ts';
export {
  createJudge,
  testConnection,
  type ConnectionResult,
  type JudgeOptions,
  type Sleep,
} from './client.ts';
export { cacheKeyFor, MemoryResponseCache, type ResponseCache } from './cache.ts';
export {
  contextWindow,
  flavorOf,
  resetCapabilityCache,
  staticCapabilities,
  type CapabilityStore,
  type Flavor,
} from './capabilities.ts';
export { CapabilityError, type CapabilityParam } from './errors.ts';
export { bareToken, probability, scoreDistribution, tokenText } from './logprobs.ts';
export { parseJsonReply, parseJsonLoose } from './parse-json.ts';
export { redact, redactHeaders, redactValue } from './redact.ts';
export { PROVIDERS, byKind, providerRecord, providerRecords } from './providers/registry.ts';
export type { KnownHosts, KeyShape, ProviderRecord } from './providers/record.ts';

/**
 * What each provider+model accepts (PROVIDERS.md §0, §12.3): the static table (traits.ts),
 * corrected by one probe per provider+model and by refusals met this session (probe.ts), and
 * where a config sends its requests (base-url.ts). One import path for all of it.
 */
export { DEFAULT_BASE_URL, baseUrlOf, hostOf } from './base-url.ts';
export {
  capabilitiesFromTraits,
  contextWindow,
  flavorOf,
  staticCapabilities,
  tableTraits,
  type Traits,
} from './traits.ts';
export {
  currentTraits,
  learnRefusal,
  probeCapabilities,
  resetCapabilityCache,
  type CapabilityStore,
} from './probe.ts';

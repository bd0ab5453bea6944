/** The adapter of a provider kind, from its record (registry.ts). */
import type { ProviderKind } from '../types.ts';
import { PROVIDERS } from './registry.ts';
import type { ProviderAdapter } from './shared.ts';

export function adapterFor(kind: ProviderKind): ProviderAdapter {
  return PROVIDERS[kind].adapter;
}

/**
 * Runtime knowledge of what a provider+model accepts: one tiny logprob probe per provider+model
 * (shared by concurrent callers, kept in memory and in a CapabilityStore), and every "this model
 * does not accept X" error the client meets, remembered for the rest of the session. Both
 * override the static table (traits.ts).
 */
import { hostOf } from './base-url.ts';
import { CapabilityError } from './errors.ts';
import type { ParsedCompletion, WireCall } from './providers/shared.ts';
import { capabilitiesFromTraits, tableTraits, type Traits } from './traits.ts';
import { LlmError, type Capabilities, type ProviderConfig } from './types.ts';

/** Optional persistence for probe results (the app backs it with IndexedDB). */
export interface CapabilityStore {
  get(key: string): Promise<Capabilities | undefined>;
  set(key: string, capabilities: Capabilities): Promise<void>;
}

/** Provider + host + model: never the key. */
export function capabilityKey(config: ProviderConfig): string {
  let host: string;
  try {
    host = hostOf(config);
  } catch {
    host = '?';
  }
  return `${config.kind}|${host}|${config.model}`;
}

type Learned = Partial<
  Pick<Traits, 'logprobs' | 'maxTopLogprobs' | 'maxN' | 'json' | 'temperature' | 'thinkingConfig'>
>;

const probed = new Map<string, Capabilities>();
const probing = new Map<string, Promise<Capabilities>>();
const learned = new Map<string, Learned>();

/** Table, overridden by a finished probe, overridden by refusals met this session. */
export function currentTraits(config: ProviderConfig): Traits {
  const key = capabilityKey(config);
  let t = tableTraits(config);
  const p = probed.get(key);
  if (p)
    t = {
      ...t,
      logprobs: p.logprobs,
      maxTopLogprobs: p.logprobs ? p.maxTopLogprobs : 0,
      source: 'probe',
    };
  return { ...t, ...learned.get(key) };
}

/** Remember that the model refused a parameter, so later calls stop sending it. */
export function learnRefusal(config: ProviderConfig, patch: Learned): void {
  const key = capabilityKey(config);
  learned.set(key, { ...learned.get(key), ...patch });
}

/** Forget probes and refusals (tests; a "re-check capabilities" button). */
export function resetCapabilityCache(): void {
  probed.clear();
  probing.clear();
  learned.clear();
}

export type ProbeSend = (call: WireCall, signal?: AbortSignal) => Promise<ParsedCompletion>;

const PROBE_MESSAGES = [{ role: 'user' as const, content: 'Reply with the digit 7' }];

/** Kinds that mean the probe itself could not run: surface them instead of guessing. */
const FATAL_PROBE_KINDS = new Set(['auth', 'permission', 'quota', 'model-not-found', 'cancelled']);

async function runProbe(
  config: ProviderConfig,
  send: ProbeSend,
  signal?: AbortSignal,
): Promise<Capabilities | undefined> {
  const table = tableTraits(config);
  const unsupported: Capabilities = {
    ...capabilitiesFromTraits(table),
    logprobs: false,
    maxTopLogprobs: 0,
    source: 'probe',
  };
  const ks = [20, 5, 1];
  let temperature: number | undefined = currentTraits(config).temperature === 'any' ? 0 : undefined;
  for (let i = 0; i < ks.length;) {
    const k = ks[i];
    try {
      const res = await send(
        { messages: PROBE_MESSAGES, maxTokens: 1, temperature, n: 1, topLogprobs: k },
        signal,
      );
      const lp = res.choices[0]?.logprobs;
      if (!lp || lp.length === 0) return unsupported;
      const returned = lp[0].top.length;
      return {
        ...capabilitiesFromTraits(table),
        logprobs: true,
        maxTopLogprobs: returned > 0 ? Math.min(k, returned) : k,
        source: 'probe',
      };
    } catch (e) {
      if (e instanceof CapabilityError) {
        if (e.param === 'top_logprobs') {
          i++;
          continue;
        }
        if (e.param === 'logprobs') return unsupported;
        if (e.param === 'temperature' && temperature !== undefined) {
          learnRefusal(config, { temperature: 'default-only' });
          temperature = undefined;
          continue;
        }
      }
      if (e instanceof LlmError && FATAL_PROBE_KINDS.has(e.kind)) throw e;
      // Transient or unrelated failures: keep the table, and let a later call probe again.
      return undefined;
    }
  }
  return unsupported;
}

/**
 * Table plus, where §12.3 allows, one probe per provider+model (shared by concurrent callers,
 * kept in memory and in `store`).
 */
export async function probeCapabilities(
  config: ProviderConfig,
  send: ProbeSend,
  options: { signal?: AbortSignal; store?: CapabilityStore } = {},
): Promise<Capabilities> {
  const key = capabilityKey(config);
  const current = () => capabilitiesFromTraits(currentTraits(config));
  if (!tableTraits(config).probe || probed.has(key)) return current();
  let pending = probing.get(key);
  if (!pending) {
    pending = (async () => {
      const stored = await options.store?.get(key).catch(() => undefined);
      const result = stored ?? (await runProbe(config, send, options.signal));
      if (result) {
        probed.set(key, result);
        if (!stored) await options.store?.set(key, result).catch(() => undefined);
      }
      return current();
    })().finally(() => probing.delete(key));
    probing.set(key, pending);
  }
  return pending;
}

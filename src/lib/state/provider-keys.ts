/**
 * API keys, kept in memory by default. "Remember" is opt-in and says where: until the tab closes
 * (sessionStorage) or on this device (localStorage, in plain text: anyone with this browser
 * profile, or a malicious extension, can read it; use a key with a spend limit). Keys never enter
 * logs, errors, history, exports or cache keys; this module is the only place that holds them.
 */
import { providerRecord } from '../llm/providers/registry.ts';
import { PROVIDER_KINDS, type ProviderKind } from '../llm/types.ts';

export type KeyPersistence = 'memory' | 'session' | 'device';

/** The choices, in the order the settings list them (their wording is in judge.key.persistence.*). */
export const KEY_PERSISTENCES: readonly KeyPersistence[] = ['memory', 'session', 'device'];

const PREFIX = 'sumlens.key.';

/** Where a provider's remembered key lives in session- and localStorage (its record says). */
function storageKey(provider: ProviderKind): string {
  return PREFIX + providerRecord(provider).keyStorageId;
}

type StorageLike = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

function storageFor(kind: Exclude<KeyPersistence, 'memory'>): StorageLike | undefined {
  try {
    return kind === 'session' ? globalThis.sessionStorage : globalThis.localStorage;
  } catch {
    return undefined;
  }
}

export class KeyStore {
  readonly #memory = new Map<ProviderKind, string>();
  readonly #storages: Record<Exclude<KeyPersistence, 'memory'>, () => StorageLike | undefined>;

  constructor(storages: Partial<Record<Exclude<KeyPersistence, 'memory'>, StorageLike>> = {}) {
    this.#storages = {
      session: () => storages.session ?? storageFor('session'),
      device: () => storages.device ?? storageFor('device'),
    };
  }

  /** The key for a provider: memory first, then a remembered copy. */
  get(provider: ProviderKind): string | undefined {
    const inMemory = this.#memory.get(provider);
    if (inMemory) return inMemory;
    for (const where of ['session', 'device'] as const) {
      const stored = this.#storages[where]()?.getItem(storageKey(provider));
      if (stored) {
        this.#memory.set(provider, stored);
        return stored;
      }
    }
    return undefined;
  }

  /** Where the provider's key currently lives ('memory' also when there is none). */
  persistence(provider: ProviderKind): KeyPersistence {
    if (this.#storages.device()?.getItem(storageKey(provider))) return 'device';
    if (this.#storages.session()?.getItem(storageKey(provider))) return 'session';
    return 'memory';
  }

  /** Sets the key and where it is kept; an empty key forgets it everywhere. */
  set(provider: ProviderKind, key: string, persistence: KeyPersistence): void {
    this.forget(provider);
    const trimmed = key.trim();
    if (!trimmed) return;
    this.#memory.set(provider, trimmed);
    if (persistence !== 'memory')
      this.#storages[persistence]()?.setItem(storageKey(provider), trimmed);
  }

  /**
   * Moves the provider's key to where the user now wants it kept: choosing "Only in memory" after
   * "On this device" must take it out of localStorage at once, or the next load reads it back as
   * a device key against the user's last choice.
   */
  keep(provider: ProviderKind, persistence: KeyPersistence): void {
    const key = this.get(provider);
    if (key) this.set(provider, key, persistence);
  }

  /**
   * Every key this store holds, for any provider, in memory or remembered: the secrets an export
   * or a report redacts literally (src/lib/llm/redact.ts), whatever their shape.
   */
  held(): string[] {
    const keys = new Set<string>();
    for (const provider of PROVIDER_KINDS) {
      const key = this.get(provider);
      if (key) keys.add(key);
    }
    return [...keys];
  }

  forget(provider: ProviderKind): void {
    this.#memory.delete(provider);
    for (const where of ['session', 'device'] as const) {
      this.#storages[where]()?.removeItem(storageKey(provider));
    }
  }

  /** "Forget all keys": every provider in the registry, so none can be missed. */
  forgetAll(): void {
    for (const provider of PROVIDER_KINDS) {
      this.forget(provider);
    }
  }
}

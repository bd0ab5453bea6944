/**
 * The provider records: each one is complete, and every list that used to name the providers by
 * hand (CSP hosts, redacted key shapes, the keys "Forget all keys" clears, the kinds the CLI
 * accepts, the settings' lists, the seed prices) now has every provider in it.
 */
import { describe, expect, it } from 'vitest';
import { providerFromEnv, LLM_ENV } from '../../../src/cli/llm-env.ts';
import {
  BUILT_IN_CONNECT_SRC,
  DEFAULT_BASE_URLS,
  connectAllowed,
} from '../../../src/lib/llm/hosts.ts';
import { DEFAULT_PRICE_TABLE, priceEntrySchema } from '../../../src/lib/llm/prices.ts';
import { adapterFor } from '../../../src/lib/llm/providers/index.ts';
import type { KeyShape } from '../../../src/lib/llm/providers/record.ts';
import { PROVIDERS, providerRecords } from '../../../src/lib/llm/providers/registry.ts';
import { REDACTED, redact } from '../../../src/lib/llm/redact.ts';
import { PROVIDER_KINDS } from '../../../src/lib/llm/types.ts';
import {
  DEFAULT_MODELS,
  PROVIDER_LABELS,
  judgeProviderSchema,
} from '../../../src/lib/state/judge-prefs.ts';
import { KeyStore } from '../../../src/lib/state/provider-keys.ts';
import { memoryStorage } from '../../helpers/stored.ts';

const PAGE = new URL('http://127.0.0.1:4173/');

/** A well-formed key of this shape, made up here (never a real one). */
function sampleKey(shape: KeyShape): string {
  const body = 'Ab3dEf5hIj7lMn9pQr1tUv3xWz5b7d9f1h3j5l7n9p1';
  switch (shape.kind) {
    case 'prefixed':
      return `${shape.prefix}${body.slice(0, 24)}`;
    case 'random':
      return `${shape.prefix}${body.slice(0, Math.max(shape.minLength, 24))}`;
    case 'fixed':
      return `${shape.prefix}${body.slice(0, shape.length)}`;
    case 'jwt':
      return 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJl';
  }
}

describe('the provider records', () => {
  it('has one record per kind, in PROVIDER_KINDS order', () => {
    expect(Object.keys(PROVIDERS)).toEqual([...PROVIDER_KINDS]);
    expect(providerRecords().map(([kind]) => kind)).toEqual([...PROVIDER_KINDS]);
  });

  it.each(providerRecords())('%s is complete', (kind, record) => {
    expect(record.label.trim()).not.toBe('');
    expect(record.name.trim()).not.toBe('');
    expect(record.defaultModel.trim()).not.toBe('');
    expect(() => new URL(record.defaultBaseUrl)).not.toThrow();
    expect(record.hosts.length).toBeGreaterThan(0);
    for (const hosts of record.hosts) expect(hosts.connectSrc.length).toBeGreaterThan(0);
    expect(record.keyShapes.length).toBeGreaterThan(0);
    expect(typeof record.adapter.buildRequest).toBe('function');
    expect(typeof record.adapter.parseResponse).toBe('function');
    expect(typeof record.adapter.classifyError).toBe('function');
    expect(adapterFor(kind)).toBe(record.adapter);
    expect(['strict-object', 'object', 'any']).toContain(record.jsonSchema);
    if (record.embeddings) {
      expect(record.embeddings.defaultModel.trim()).not.toBe('');
      expect(record.embeddings.batchSize).toBeGreaterThan(0);
    }
    for (const price of record.prices) {
      expect(priceEntrySchema.safeParse({ provider: kind, ...price }).success).toBe(true);
    }
    expect(record.keyStorageId.trim()).not.toBe('');
  });

  it('keeps key-storage ids distinct (a shared one would let one key overwrite another)', () => {
    const ids = providerRecords().map(([, r]) => r.keyStorageId);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('every derived list has every provider', () => {
  it.each(providerRecords())("connect-src allows %s's hosts and default base URL", (_k, record) => {
    for (const hosts of record.hosts) {
      for (const source of hosts.connectSrc) expect(BUILT_IN_CONNECT_SRC).toContain(source);
      if (hosts.baseUrl)
        expect(connectAllowed(hosts.baseUrl, BUILT_IN_CONNECT_SRC, PAGE)).toBe(true);
    }
    expect(connectAllowed(record.defaultBaseUrl, BUILT_IN_CONNECT_SRC, PAGE)).toBe(true);
  });

  it.each(providerRecords())('redaction removes every key shape of %s', (_k, record) => {
    for (const shape of record.keyShapes) {
      const key = sampleKey(shape);
      expect(redact(`the server said: ${key} is wrong`)).toBe(
        `the server said: ${REDACTED} is wrong`,
      );
    }
  });

  it('"Forget all keys" clears every provider, wherever its key was kept', () => {
    const session = memoryStorage();
    const device = memoryStorage();
    const keys = new KeyStore({ session, device });
    PROVIDER_KINDS.forEach((kind, i) =>
      keys.set(kind, `key-for-${kind}-0123456789`, i % 2 ? 'session' : 'device'),
    );
    expect(session.data.size + device.data.size).toBe(PROVIDER_KINDS.length);
    expect(keys.held()).toHaveLength(PROVIDER_KINDS.length);
    keys.forgetAll();
    expect(session.data.size + device.data.size).toBe(0);
    for (const kind of PROVIDER_KINDS) expect(keys.get(kind)).toBeUndefined();
  });

  it.each([...PROVIDER_KINDS])('the CLI accepts %s', (kind) => {
    const env = {
      [LLM_ENV.provider]: kind,
      [LLM_ENV.model]: 'some-model',
      [LLM_ENV.apiKey]: 'k',
      [LLM_ENV.baseUrl]: 'http://127.0.0.1:11434',
    };
    expect(providerFromEnv(env)).toEqual({
      config: { kind, model: 'some-model', apiKey: 'k', baseUrl: 'http://127.0.0.1:11434' },
    });
  });

  it.each([...PROVIDER_KINDS])('the settings offer %s with a label, model and base URL', (kind) => {
    expect(PROVIDER_LABELS[kind]).toBe(PROVIDERS[kind].label);
    expect(DEFAULT_MODELS[kind]).toBe(PROVIDERS[kind].defaultModel);
    expect(DEFAULT_BASE_URLS[kind]).toBe(PROVIDERS[kind].defaultBaseUrl);
    const prefs = {
      kind,
      model: DEFAULT_MODELS[kind],
      baseUrl: DEFAULT_BASE_URLS[kind],
      concurrency: 4,
      timeoutSec: 120,
    };
    expect(judgeProviderSchema.safeParse(prefs).success).toBe(true);
  });

  it("seeds the price table with every record's prices, in table order", () => {
    expect(DEFAULT_PRICE_TABLE.entries).toEqual(
      providerRecords().flatMap(([provider, r]) => r.prices.map((p) => ({ provider, ...p }))),
    );
  });
});

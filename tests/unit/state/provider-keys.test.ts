/** Keys stay in memory unless the user opts in, and "forget" removes every copy. */
import { describe, expect, it } from 'vitest';
import { KeyStore } from '../../../src/lib/state/provider-keys.ts';
import { memoryStorage } from '../../helpers/stored.ts';

describe('KeyStore', () => {
  it('keeps a key in memory only, by default', () => {
    const session = memoryStorage();
    const device = memoryStorage();
    const keys = new KeyStore({ session, device });
    keys.set('openai', '  sk-test-123  ', 'memory');
    expect(keys.get('openai')).toBe('sk-test-123');
    expect(keys.persistence('openai')).toBe('memory');
    expect(session.data.size + device.data.size).toBe(0);
    expect(new KeyStore({ session, device }).get('openai')).toBeUndefined();
  });

  it('remembers on opt-in, where the user chose, and forgets every copy', () => {
    const session = memoryStorage();
    const device = memoryStorage();
    const keys = new KeyStore({ session, device });
    keys.set('anthropic', 'sk-ant-1', 'device');
    expect(new KeyStore({ session, device }).get('anthropic')).toBe('sk-ant-1');
    expect(keys.persistence('anthropic')).toBe('device');
    keys.set('anthropic', 'sk-ant-2', 'session');
    expect(device.data.size).toBe(0);
    expect(keys.persistence('anthropic')).toBe('session');
    keys.set('gemini', 'AIza-x', 'device');
    keys.forgetAll();
    expect(session.data.size + device.data.size).toBe(0);
    expect(keys.get('anthropic')).toBeUndefined();
  });

  it('lists every key it holds, for exports to redact: memory and remembered, each once', () => {
    const session = memoryStorage();
    const device = memoryStorage();
    new KeyStore({ session, device }).set('gemini', 'AIza-remembered-key', 'device');
    const keys = new KeyStore({ session, device });
    expect(keys.held()).toEqual(['AIza-remembered-key']);
    keys.set('openai', 'sk-in-memory-only', 'memory');
    keys.set('anthropic', 'sk-ant-in-this-tab', 'session');
    keys.set('openai-compatible', 'sk-in-memory-only', 'memory');
    expect(keys.held().sort()).toEqual([
      'AIza-remembered-key',
      'sk-ant-in-this-tab',
      'sk-in-memory-only',
    ]);
    keys.forgetAll();
    expect(keys.held()).toEqual([]);
  });
});

describe('KeyStore.keep', () => {
  it('moves a remembered key where the user now wants it, at once and for the next load', () => {
    const session = memoryStorage();
    const device = memoryStorage();
    const keys = new KeyStore({ session, device });
    keys.set('openai', 'sk-device-then-memory', 'device');
    keys.keep('openai', 'memory');
    expect(device.data.size + session.data.size).toBe(0);
    expect(keys.persistence('openai')).toBe('memory');
    expect(keys.get('openai')).toBe('sk-device-then-memory');
    // A reload: a new store over the same storages finds nothing.
    expect(new KeyStore({ session, device }).get('openai')).toBeUndefined();

    keys.keep('openai', 'session');
    expect(keys.persistence('openai')).toBe('session');
    expect(device.data.size).toBe(0);
    keys.keep('openai', 'device');
    expect(session.data.size).toBe(0);
    expect(new KeyStore({ session, device }).get('openai')).toBe('sk-device-then-memory');
  });

  it('does nothing when no key is set', () => {
    const session = memoryStorage();
    const device = memoryStorage();
    const keys = new KeyStore({ session, device });
    keys.keep('anthropic', 'device');
    expect(device.data.size + session.data.size).toBe(0);
  });
});

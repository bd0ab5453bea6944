/** Settings and the model source are remembered, and a bad stored value never breaks start-up. */
import { describe, expect, it } from 'vitest';
import {
  PREFERENCES_KEY,
  loadPreferences,
  savePreferences,
} from '../../../src/lib/state/preferences.ts';
import { DEFAULT_SETTINGS } from '../../../src/lib/metrics/settings.ts';
import { DEFAULT_MODEL_SOURCE } from '../../../src/lib/models/source.ts';

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
    data,
  };
}

describe('preferences', () => {
  it('round-trips a transformer choice and a hub source', () => {
    const storage = memoryStorage();
    const settings = structuredClone(DEFAULT_SETTINGS);
    settings.backends.ner = {
      kind: 'transformer',
      model: 'Xenova/bert-base-NER',
      device: 'webgpu',
      dtype: 'q8',
    };
    const models = {
      kind: 'hub' as const,
      hubUrl: 'https://huggingface.co',
      approvedDownloads: ['Xenova/bert-base-NER'],
    };
    expect(savePreferences({ settings, models }, storage)).toBe(true);
    expect(loadPreferences(storage)).toEqual({ settings, models });
  });

  it('starts from the defaults with nothing stored, or with unreadable JSON', () => {
    const defaults = { settings: DEFAULT_SETTINGS, models: DEFAULT_MODEL_SOURCE };
    expect(loadPreferences(memoryStorage())).toEqual(defaults);
    expect(loadPreferences(memoryStorage({ [PREFERENCES_KEY]: '{not json' }))).toEqual(defaults);
    expect(loadPreferences(undefined)).toEqual(defaults);
  });

  it('completes settings saved by an older version and drops only the part that is invalid', () => {
    const storage = memoryStorage({
      [PREFERENCES_KEY]: JSON.stringify({
        settings: { density: { target: 0.2, width: 0.1 } },
        models: { kind: 'hub', hubUrl: 'javascript:alert(1)', approvedDownloads: [] },
      }),
    });
    const loaded = loadPreferences(storage);
    expect(loaded.settings.density).toEqual({ target: 0.2, width: 0.1 });
    expect(loaded.settings.backends).toEqual(DEFAULT_SETTINGS.backends);
    expect(loaded.models).toEqual(DEFAULT_MODEL_SOURCE);
  });

  it('moves a GloVe choice saved before USE-lite became the default to USE-lite, once', () => {
    const old = structuredClone(DEFAULT_SETTINGS);
    old.backends.embedding = { kind: 'glove' };
    const storage = memoryStorage({
      [PREFERENCES_KEY]: JSON.stringify({ settings: old, models: DEFAULT_MODEL_SOURCE }),
    });
    const loaded = loadPreferences(storage);
    expect(loaded.settings.backends.embedding).toEqual(DEFAULT_SETTINGS.backends.embedding);
    expect(loaded.settings.density).toEqual(old.density);

    // GloVe picked again after the migration is saved at the new version and stays.
    loaded.settings.backends.embedding = { kind: 'glove' };
    savePreferences(loaded, storage);
    expect(JSON.parse(storage.data.get(PREFERENCES_KEY)!).settingsVersion).toBe(2);
    expect(loadPreferences(storage).settings.backends.embedding).toEqual({ kind: 'glove' });
  });

  it('keeps a transformer embedding choice saved before the version existed', () => {
    const old = structuredClone(DEFAULT_SETTINGS);
    old.backends.embedding = {
      kind: 'transformer',
      model: 'Xenova/all-MiniLM-L6-v2',
      device: 'wasm',
      dtype: 'q8',
    };
    const storage = memoryStorage({ [PREFERENCES_KEY]: JSON.stringify({ settings: old }) });
    expect(loadPreferences(storage).settings.backends.embedding).toEqual(old.backends.embedding);
  });

  it('refuses a model id that could walk out of /models/', () => {
    const storage = memoryStorage({
      [PREFERENCES_KEY]: JSON.stringify({
        settings: {
          backends: {
            embedding: {
              kind: 'transformer',
              model: '../../etc/passwd',
              device: 'auto',
              dtype: 'auto',
            },
            ner: { kind: 'compromise' },
          },
        },
      }),
    });
    expect(loadPreferences(storage).settings.backends.embedding).toEqual(
      DEFAULT_SETTINGS.backends.embedding,
    );
  });

  it('reports a storage that refuses writes instead of throwing', () => {
    const full = {
      getItem: () => null,
      setItem: () => {
        throw new DOMException('quota', 'QuotaExceededError');
      },
    };
    expect(
      savePreferences({ settings: DEFAULT_SETTINGS, models: DEFAULT_MODEL_SOURCE }, full),
    ).toBe(false);
  });
});

/**
 * The choices a user makes once and expects remembered: metric settings (which model computes
 * coherence and density) and where models come from. Stored in localStorage: small, not sensitive,
 * and needed synchronously at start-up. Never API keys (those have their own opt-in store).
 */
import { z } from 'zod';
import { defaultStorage } from '../local-storage.ts';
import {
  metricSettingsSchema,
  migrateSavedSettings,
  SETTINGS_VERSION,
  withDefaults,
} from '../metrics/settings.ts';
import type { MetricSettings } from '../metrics/settings.ts';
import { DEFAULT_MODEL_SOURCE, modelSourceSchema } from '../models/source.ts';
import type { ModelSource } from '../models/source.ts';

export const PREFERENCES_KEY = 'sumlens.preferences.v1';

export interface Preferences {
  settings: MetricSettings;
  models: ModelSource;
}

const storedSchema = z.object({
  settings: z.unknown().optional(),
  models: z.unknown().optional(),
  settingsVersion: z.number().optional(),
});

/**
 * Whatever was saved, each part validated on its own: a part that no longer validates (an older
 * version, a hand edit) falls back to its defaults without dropping the other part.
 */
export function loadPreferences(storage = defaultStorage()): Preferences {
  let raw: unknown;
  try {
    raw = JSON.parse(storage?.getItem(PREFERENCES_KEY) ?? 'null');
  } catch {
    raw = null;
  }
  const stored = storedSchema.safeParse(raw ?? {});
  const parts = stored.success ? stored.data : {};
  const settings = metricSettingsSchema.safeParse(
    withDefaults(
      migrateSavedSettings(
        parts.settings as Partial<MetricSettings> | undefined,
        parts.settingsVersion,
      ),
    ),
  );
  const models = modelSourceSchema.safeParse(parts.models);
  return {
    settings: settings.success ? settings.data : withDefaults(undefined),
    models: models.success ? models.data : structuredClone(DEFAULT_MODEL_SOURCE),
  };
}

/** Returns false when the browser refuses to store (quota, privacy mode); the app goes on. */
export function savePreferences(preferences: Preferences, storage = defaultStorage()): boolean {
  try {
    storage?.setItem(
      PREFERENCES_KEY,
      JSON.stringify({ ...preferences, settingsVersion: SETTINGS_VERSION }),
    );
    return storage !== undefined;
  } catch {
    return false;
  }
}

/**
 * Registers the service worker built by vite-plugin-pwa (see pwa.config.ts) and tells the page
 * what it can honestly say: "works offline" once a worker has finished installing (its install
 * step is the precache of the app shell: a worker is active only if every precached file was
 * stored) and the sentence encoder the settings pick is in Cache Storage (the default one is not
 * precached but kept by the embedding worker as it loads it: default-encoder.ts), and "a new
 * version is ready" when an update waits. Nothing is shown where service workers are unsupported
 * or in dev (no service worker is built there).
 *
 * An update never reloads the page by itself: the new worker waits until the user presses Reload
 * in the notice, or until every tab of the old version is closed (then the next visit gets it).
 */
import { registerSW } from 'virtual:pwa-register';
import { DEFAULT_SETTINGS, type EmbeddingBackendChoice } from '../metrics/settings.ts';
import { filesCached, offlineEncoderFiles } from './default-encoder.ts';

export const pwa = $state({
  /**
   * The app shell and the chosen encoder's files are in Cache Storage: it loads and scores without
   * a network.
   */
  offlineReady: false,
  /** A new version is installed and waiting for this page's consent. */
  needRefresh: false,
});

let updateServiceWorker: (() => Promise<void>) | undefined;
let reloadRequested = false;
/** The service worker is active: its precache (the app shell) is complete. */
let shellCached = false;
let encoderChoice: EmbeddingBackendChoice = DEFAULT_SETTINGS.backends.embedding;
let check = 0;

/**
 * Decides "works offline" again: when the service worker has installed, and when the page has
 * loaded an encoder or the settings pick another (`choice`). The latest call wins.
 */
export async function refreshOfflineReady(choice?: EmbeddingBackendChoice): Promise<void> {
  if (choice) encoderChoice = choice;
  const current = ++check;
  if (!shellCached) return;
  const files = offlineEncoderFiles(encoderChoice);
  const ready =
    files === undefined ||
    (await filesCached(files, new URL(import.meta.env.BASE_URL, location.origin).href).catch(
      () => false,
    ));
  if (current === check) pwa.offlineReady = ready;
}

function shellReady(): void {
  shellCached = true;
  void refreshOfflineReady();
}

export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator)) return;
  updateServiceWorker = registerSW({
    immediate: true,
    onRegisteredSW(_url, registration) {
      // A worker that is already active finished its precache on an earlier visit.
      if (registration?.active) shellReady();
    },
    onOfflineReady() {
      shellReady();
    },
    onNeedRefresh() {
      pwa.needRefresh = true;
    },
    onNeedReload() {
      // The new version took control because another tab asked for it: keep the notice up and
      // leave the reload to this tab's user (their text may be mid-edit). When this tab asked,
      // applyUpdate's own listener reloads.
      if (!reloadRequested) pwa.needRefresh = true;
    },
    onRegisterError(error: unknown) {
      console.warn('SumLens: the offline service worker could not be registered.', error);
    },
  });
}

/**
 * Activates the waiting version and reloads into it once it controls the page. workbox-window's own
 * reload covers only pages that were controlled when they registered, not a first visit's page
 * (claimed later), so this listens for the controller change itself. If another tab already
 * activated the new version, nothing is waiting any more: just reload.
 */
export async function applyUpdate(): Promise<void> {
  reloadRequested = true;
  const registration = await navigator.serviceWorker.getRegistration();
  if (!registration?.waiting) {
    window.location.reload();
    return;
  }
  navigator.serviceWorker.addEventListener('controllerchange', () => window.location.reload(), {
    once: true,
  });
  await updateServiceWorker?.();
}

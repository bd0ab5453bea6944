/**
 * Where the canary key shows besides its credential header: the requests the fake received
 * (bodies, URLs, other headers), every open page's DOM (input values included), the console,
 * the origin's storage (every IndexedDB database and store, localStorage and sessionStorage,
 * Cache Storage, the origin private file system) and every file the page offered for download,
 * read back from disk. The one place the user may have put it: the entry of local- or
 * sessionStorage that holds the key itself, when the user chose "On this device" or "Until the
 * tab closes".
 */
import { readFileSync } from 'node:fs';
import type { FaultPage, KeyPersistence, SavedFile } from './page.ts';
import { domText, storagePlaces } from './page.ts';
import type { LeakSighting } from './report.ts';
import type { SuiteEnv } from './harness.ts';

/** Where the user chose to keep the key, besides memory. */
export interface KeyChoice {
  local?: boolean;
  session?: boolean;
}

export interface LeakSearch {
  /** Count only what came after this mark (requests, console lines). */
  since?: { sightings: number; console: number };
  /** Search the origin's storage. */
  storage?: boolean;
  /** The page's key setting: "device" allows the key's own localStorage entry, "session" its
   * sessionStorage entry. */
  persistence?: KeyPersistence | undefined;
  /** Where else the user put the key (a scenario that changed the setting says). */
  allowed?: KeyChoice;
  /** Downloads, searched on disk. */
  files?: readonly SavedFile[];
}

/** The strings that give the key away: the key, and its last 12 characters (a masked key
 * that keeps that much says too much). */
export function keyNeedles(key: string): string[] {
  return [key, key.slice(-12)];
}

/** Storage places holding the key that the user did not choose. */
export function unchosen(
  places: ReadonlyArray<{ where: string; exact: boolean }>,
  allowed: KeyChoice,
): LeakSighting[] {
  return places
    .filter(
      (p) =>
        !(
          p.exact &&
          ((p.where.startsWith('localStorage:') && allowed.local) ||
            (p.where.startsWith('sessionStorage:') && allowed.session))
        ),
    )
    .map((p) => ({ where: p.where.split(':')[0]!, detail: p.where }));
}

export async function keyLeaks(
  env: SuiteEnv,
  fp: FaultPage,
  key: string | undefined,
  search: LeakSearch,
): Promise<LeakSighting[]> {
  if (!key) return [];
  const needles = keyNeedles(key);
  const has = (text: string) => needles.some((n) => text.includes(n));
  const since = search.since ?? { sightings: 0, console: 0 };
  const out: LeakSighting[] = env.fault.canarySightings
    .slice(since.sightings)
    .map((s) => ({ ...s }));
  const pages = fp.context.pages().filter((p) => !p.isClosed());
  for (const page of pages) {
    if (has(await domText(page).catch(() => ''))) out.push({ where: 'DOM', detail: page.url() });
  }
  const lines = fp.consoleAll.slice(since.console).filter(has);
  if (lines.length) out.push({ where: 'console', detail: `${lines.length} lines` });
  if (search.storage && pages[0]) {
    const allowed: KeyChoice = {
      local: search.persistence === 'device' || search.allowed?.local === true,
      session: search.persistence === 'session' || search.allowed?.session === true,
    };
    out.push(...unchosen(await storagePlaces(pages[0], needles), allowed));
  }
  for (const file of search.files ?? []) {
    const onDisk = file.paths.some((path) => {
      try {
        const bytes = readFileSync(path);
        return needles.some((n) => bytes.includes(n));
      } catch {
        return false;
      }
    });
    if (onDisk || has(file.text)) out.push({ where: 'export', detail: file.what });
  }
  return out;
}

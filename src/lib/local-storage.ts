/**
 * The page's localStorage, for the small choices kept on this device (preferences, checks).
 * Undefined where the browser refuses it: some privacy modes throw on access.
 */
export type StorageLike = Pick<Storage, 'getItem' | 'setItem'>;

export function defaultStorage(): StorageLike | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

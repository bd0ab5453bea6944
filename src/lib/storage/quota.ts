/**
 * The storage meter and what happens when the disk budget runs out.
 *
 * Browsers give each origin a quota (navigator.storage.estimate); IndexedDB writes past it fail
 * with a `QuotaExceededError` (Firefox: `NS_ERROR_DOM_QUOTA_REACHED`), usually as the abort error
 * of the transaction. Nothing may be lost silently: every write of the data-set and run modules
 * turns such a failure into a `StorageFullError` whose message names what was not saved and what
 * to do, and the batch runner pauses the run on it (the unsaved row is scored again on resume).
 * `persist()` asks the browser not to evict the data under storage pressure.
 */
import { englishRef, ref, type MessageRef } from '../i18n/message.ts';
import { formatBytes } from '../ui/format.ts';

export interface StorageEstimateInfo {
  /** False where the browser has no StorageManager (old browsers, some private windows). */
  supported: boolean;
  /** Bytes used by this origin (IndexedDB, caches, model files), when known. */
  usage: number | null;
  /** Bytes this origin may use, when known. */
  quota: number | null;
  /** usage / quota, 0–1, when both are known. */
  fraction: number | null;
  /** Whether the browser promised not to evict this origin's data, when known. */
  persisted: boolean | null;
}

/** The parts of `navigator.storage` used here (a test passes a fake). */
export interface StorageManagerLike {
  estimate?(): Promise<{ usage?: number; quota?: number }>;
  persist?(): Promise<boolean>;
  persisted?(): Promise<boolean>;
}

function defaultManager(): StorageManagerLike | undefined {
  return (globalThis as { navigator?: { storage?: StorageManagerLike } }).navigator?.storage;
}

/** Usage and quota of this origin; never throws. */
export async function storageEstimate(
  manager: StorageManagerLike | undefined = defaultManager(),
): Promise<StorageEstimateInfo> {
  if (!manager?.estimate) {
    return { supported: false, usage: null, quota: null, fraction: null, persisted: null };
  }
  let usage: number | null = null;
  let quota: number | null = null;
  try {
    const estimate = await manager.estimate();
    usage = typeof estimate.usage === 'number' ? estimate.usage : null;
    quota = typeof estimate.quota === 'number' ? estimate.quota : null;
  } catch {
    // Unknown figures rather than a broken meter.
  }
  let persisted: boolean | null;
  try {
    persisted = manager.persisted ? await manager.persisted() : null;
  } catch {
    persisted = null;
  }
  const fraction = usage !== null && quota !== null && quota > 0 ? usage / quota : null;
  return { supported: true, usage, quota, fraction, persisted };
}

/**
 * Asks the browser to keep this origin's data under storage pressure. Returns whether it agreed,
 * or null where the API does not exist. Browsers may answer without asking the user (Chrome
 * decides from engagement; Firefox shows a prompt).
 */
export async function requestPersistence(
  manager: StorageManagerLike | undefined = defaultManager(),
): Promise<boolean | null> {
  if (!manager?.persist) return null;
  try {
    return await manager.persist();
  } catch {
    return false;
  }
}

/** Bytes in words, up to GB (a quota is often tens of GB). */
export function formatStorageBytes(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  return formatBytes(bytes);
}

/** The meter's one line: "12.3 MB of 9.5 GB used (0.1%)". */
export function describeEstimate(info: StorageEstimateInfo): string {
  return englishRef(describeEstimateRef(info));
}

/**
 * The meter's line as a message, for the page to word in the reader's language (the byte figures
 * come formatted, their units being the same in every language the page speaks).
 */
export function describeEstimateRef(info: StorageEstimateInfo): MessageRef {
  if (!info.supported) return ref('datasets.storage.unsupported');
  if (info.usage === null || info.quota === null) return ref('datasets.storage.unknown');
  const kept =
    info.persisted === true ? 'persisted' : info.persisted === false ? 'evictable' : 'unknown';
  const figures = {
    usage: formatStorageBytes(info.usage),
    quota: formatStorageBytes(info.quota),
    kept,
  };
  return info.fraction === null
    ? ref('datasets.storage.used', figures)
    : ref('datasets.storage.usedShare', { ...figures, share: info.fraction });
}

/** Above this share of the quota the meter warns before the writes start failing. */
export const NEAR_QUOTA_FRACTION = 0.9;

export function isNearQuota(info: StorageEstimateInfo): boolean {
  return info.fraction !== null && info.fraction >= NEAR_QUOTA_FRACTION;
}

/**
 * Whether an error (or the error it wraps, or an aborted transaction's error) says the storage
 * quota was hit.
 */
export function isQuotaExceeded(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    if (typeof e !== 'object') return false;
    const { name, code, message } = e as { name?: unknown; code?: unknown; message?: unknown };
    if (name === 'QuotaExceededError' || name === 'NS_ERROR_DOM_QUOTA_REACHED') return true;
    // Legacy DOMException code of QUOTA_EXCEEDED_ERR.
    if (code === 22 && name !== undefined) return true;
    if (typeof message === 'string' && /quota/iu.test(message) && /exceed|reach/iu.test(message)) {
      return true;
    }
    if (e instanceof StorageFullError) return true;
    e = (e as { cause?: unknown; error?: unknown }).cause ?? (e as { error?: unknown }).error;
  }
  return false;
}

/** The browser's storage is full: `what` names what was not saved. */
export class StorageFullError extends Error {
  readonly what: string;
  constructor(what: string, options?: { cause?: unknown }) {
    super(
      `${what} The browser's storage for this app is full. Free space by deleting old runs or data sets under Data sets (or old cases in the history), or allow more storage in the browser's site settings, then try again.`,
      options,
    );
    this.name = 'StorageFullError';
    this.what = what;
  }
}

/** A storage write failed for another reason; `what` names what was not saved. */
export class StorageWriteError extends Error {
  readonly what: string;
  constructor(what: string, error: unknown) {
    super(`${what} (${storageFailureReason(error)})`, {
      cause: error,
    });
    this.name = 'StorageWriteError';
    this.what = what;
  }
}

/**
 * Turns a failed write into an error a person can act on: a StorageFullError for a quota error,
 * a StorageWriteError naming `what` otherwise. Errors already described pass through.
 */
export function describeStorageError(error: unknown, what: string): Error {
  if (error instanceof StorageFullError || error instanceof StorageWriteError) return error;
  if (isQuotaExceeded(error)) return new StorageFullError(what, { cause: error });
  return new StorageWriteError(what, error);
}

/**
 * Why IndexedDB refused, from an error, the error it wraps (`cause`) or an aborted transaction's
 * (`error`). Browsers often leave the message empty (Chrome's AbortError, the QuotaExceededError
 * of some versions), and an empty reason after "not saved:" tells the user nothing; an aborted
 * transaction's own message ("The transaction was aborted") says less than the error inside it.
 * So: a specific error's message, else what its name means, else any message, else a sentence.
 */
export function storageFailureReason(error: unknown): string {
  const chain: { name?: string; message?: string }[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 5; depth++) {
    if (typeof e !== 'object') {
      const text = String(e).trim();
      if (text !== '') chain.push({ message: text });
      break;
    }
    const { message, name } = e as { message?: unknown; name?: unknown };
    chain.push({
      ...(typeof name === 'string' && name !== '' ? { name } : {}),
      ...(typeof message === 'string' && message.trim() !== '' ? { message: message.trim() } : {}),
    });
    e = (e as { cause?: unknown }).cause ?? (e as { error?: unknown }).error;
  }
  const specific = chain.filter((c) => c.name !== undefined && !GENERIC_NAMES.has(c.name));
  const reason =
    specific.find((c) => c.message)?.message ??
    specific.map((c) => NAMED_REASONS[c.name!] ?? `${c.name}, with no message`)[0] ??
    chain.find((c) => c.message)?.message;
  if (reason !== undefined) return reason;
  return chain.some((c) => c.name === 'AbortError')
    ? 'the browser aborted the storage transaction without saying why'
    : "the browser's storage refused the write without giving a reason";
}

const GENERIC_NAMES = new Set(['Error', 'AbortError', 'DOMException']);

/** What IndexedDB's DOMException names mean for someone whose case was not stored. */
const NAMED_REASONS: Record<string, string> = {
  QuotaExceededError: "the browser's storage for this site is full",
  InvalidStateError:
    'the database connection was closed (another tab may have upgraded it); reload the page',
  VersionError: "another tab opened a newer version of this app's database; reload the page",
  UnknownError:
    "the browser's storage failed without saying why (the disk may be full or the browser profile damaged)",
  DataCloneError: 'the record holds data the browser cannot store',
  TransactionInactiveError: 'the storage transaction ended before the write (a bug in SumLens)',
  ReadOnlyError: 'the storage transaction was read-only (a bug in SumLens)',
  NotFoundError: "the app's database is missing a store; reload the page",
};

/**
 * The single-case page's line when a scored case could not be stored: what happened and what to
 * do, never an empty reason. `estimate` (storageEstimate's) adds the figures to a full storage.
 */
export function unsavedCaseMessage(error: unknown, estimate?: StorageEstimateInfo): string {
  if (isQuotaExceeded(error)) {
    const figures =
      estimate && estimate.usage !== null && estimate.quota !== null
        ? ` (${formatStorageBytes(estimate.usage)} used of ${formatStorageBytes(estimate.quota)})`
        : '';
    return `Scored, but not saved: the browser's storage for this site is full${figures}. Delete old data sets or runs under Data sets, or clear the history (History → Delete all), then score again.`;
  }
  const reason = storageFailureReason(error);
  return `Scored, but not saved: ${reason}${/[.!?)]$/u.test(reason) ? '' : '.'}`;
}

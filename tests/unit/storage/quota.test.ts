import { describe, expect, it } from 'vitest';
import {
  describeEstimate,
  describeStorageError,
  formatStorageBytes,
  isNearQuota,
  isQuotaExceeded,
  requestPersistence,
  storageEstimate,
  storageFailureReason,
  StorageFullError,
  StorageWriteError,
  unsavedCaseMessage,
  type StorageEstimateInfo,
} from '../../../src/lib/storage/quota.ts';

const GB = 1024 ** 3;

describe('storage estimate', () => {
  it('reads usage, quota and persistence', async () => {
    const info = await storageEstimate({
      estimate: async () => ({ usage: 50 * 1024 * 1024, quota: 10 * GB }),
      persisted: async () => true,
    });
    expect(info).toEqual({
      supported: true,
      usage: 50 * 1024 * 1024,
      quota: 10 * GB,
      fraction: (50 * 1024 * 1024) / (10 * GB),
      persisted: true,
    });
    expect(describeEstimate(info)).toBe('50.0 MB of 10.0 GB used (0.5%). Stored persistently.');
    expect(isNearQuota(info)).toBe(false);
  });

  it('says so when the browser has no StorageManager or the figures fail', async () => {
    const none = await storageEstimate(undefined);
    expect(none.supported).toBe(false);
    expect(describeEstimate(none)).toMatch(/does not report/u);
    const broken = await storageEstimate({
      estimate: () => Promise.reject(new Error('no')),
      persisted: () => Promise.reject(new Error('no')),
    });
    expect(broken).toMatchObject({ supported: true, usage: null, quota: null, persisted: null });
    expect(describeEstimate(broken)).toBe('Storage use is not known.');
  });

  it('warns near the quota and mentions eviction when not persisted', async () => {
    const info = await storageEstimate({
      estimate: async () => ({ usage: 95, quota: 100 }),
      persisted: async () => false,
    });
    expect(isNearQuota(info)).toBe(true);
    expect(describeEstimate(info)).toBe(
      '95 B of 100 B used (95.0%). The browser may clear it when the disk runs low.',
    );
  });

  it('asks for persistence', async () => {
    expect(await requestPersistence({ persist: async () => true })).toBe(true);
    expect(await requestPersistence({ persist: () => Promise.reject(new Error('x')) })).toBe(false);
    expect(await requestPersistence({})).toBeNull();
  });

  it('formats bytes up to GB', () => {
    expect(formatStorageBytes(512)).toBe('512 B');
    expect(formatStorageBytes(3 * 1024 * 1024)).toBe('3.0 MB');
    expect(formatStorageBytes(2.5 * GB)).toBe('2.5 GB');
  });
});

describe('quota errors', () => {
  it('recognises the browsers’ quota errors, also wrapped', () => {
    expect(isQuotaExceeded(new DOMException('full', 'QuotaExceededError'))).toBe(true);
    expect(isQuotaExceeded({ name: 'NS_ERROR_DOM_QUOTA_REACHED' })).toBe(true);
    expect(isQuotaExceeded({ name: 'Error', code: 22 })).toBe(true);
    expect(
      isQuotaExceeded(
        new Error('write failed', { cause: new DOMException('', 'QuotaExceededError') }),
      ),
    ).toBe(true);
    expect(isQuotaExceeded({ error: { name: 'QuotaExceededError' } })).toBe(true);
    expect(isQuotaExceeded(new Error('Quota exceeded for origin'))).toBe(true);
    expect(isQuotaExceeded(new DOMException('aborted', 'AbortError'))).toBe(false);
    expect(isQuotaExceeded(new Error('constraint failed'))).toBe(false);
    expect(isQuotaExceeded(null)).toBe(false);
    expect(isQuotaExceeded('QuotaExceededError')).toBe(false);
  });

  it('turns a quota error into a message that names what was not saved and what to do', () => {
    const error = describeStorageError(
      new DOMException('full', 'QuotaExceededError'),
      'The results of row 12 were not saved.',
    );
    expect(error).toBeInstanceOf(StorageFullError);
    expect((error as StorageFullError).what).toBe('The results of row 12 were not saved.');
    expect(error.message).toMatch(/^The results of row 12 were not saved\. The browser's storage/u);
    expect(error.message).toMatch(/deleting old runs or data sets/u);
    expect(describeStorageError(error, 'other')).toBe(error);
  });

  it('names what was not saved for other write failures too', () => {
    const error = describeStorageError(new Error('constraint'), 'Row 3 was not saved.');
    expect(error).toBeInstanceOf(StorageWriteError);
    expect(error.message).toBe('Row 3 was not saved. (constraint)');
  });
});

describe('a scored case that could not be saved', () => {
  const full: StorageEstimateInfo = {
    supported: true,
    usage: 9.9 * GB,
    quota: 10 * GB,
    fraction: 0.99,
    persisted: false,
  };
  const FULL =
    "Scored, but not saved: the browser's storage for this site is full (9.9 GB used of 10.0 GB). Delete old data sets or runs under Data sets, or clear the history (History → Delete all), then score again.";

  it('a QuotaExceededError says the storage is full, with the figures, and what to do', () => {
    // Chrome's own message, and the empty one some versions give.
    for (const message of ['The quota has been exceeded.', '']) {
      expect(unsavedCaseMessage(new DOMException(message, 'QuotaExceededError'), full)).toBe(FULL);
    }
    // Without figures (no StorageManager) the rest still stands.
    expect(unsavedCaseMessage(new DOMException('', 'QuotaExceededError'))).toBe(
      FULL.replace(' (9.9 GB used of 10.0 GB)', ''),
    );
  });

  it('a transaction AbortError carrying a quota error, and a wrapped one, are "full" too', () => {
    const aborted = Object.assign(new DOMException('', 'AbortError'), {
      error: new DOMException('', 'QuotaExceededError'),
    });
    expect(unsavedCaseMessage(aborted, full)).toBe(FULL);
    const wrapped = new Error('', { cause: new DOMException('', 'QuotaExceededError') });
    expect(unsavedCaseMessage(wrapped, full)).toBe(FULL);
    expect(unsavedCaseMessage({ name: 'NS_ERROR_DOM_QUOTA_REACHED', message: '' }, full)).toBe(
      FULL,
    );
  });

  it('an error with an empty message still gets a reason after the colon', () => {
    expect(unsavedCaseMessage(new Error(''))).toBe(
      "Scored, but not saved: the browser's storage refused the write without giving a reason.",
    );
    expect(unsavedCaseMessage(new DOMException('', 'AbortError'))).toBe(
      'Scored, but not saved: the browser aborted the storage transaction without saying why.',
    );
    expect(unsavedCaseMessage(new DOMException('', 'InvalidStateError'))).toBe(
      'Scored, but not saved: the database connection was closed (another tab may have upgraded it); reload the page.',
    );
    expect(unsavedCaseMessage(new DOMException('', 'SomeNewError'))).toBe(
      'Scored, but not saved: SomeNewError, with no message.',
    );
    for (const nothing of [undefined, null, '', {}]) {
      expect(unsavedCaseMessage(nothing)).toMatch(/^Scored, but not saved: \S.*\.$/u);
    }
  });

  it('a plain Error gives its message; an aborted transaction the error inside it', () => {
    expect(unsavedCaseMessage(new Error('Key already exists in the object store'))).toBe(
      'Scored, but not saved: Key already exists in the object store.',
    );
    expect(unsavedCaseMessage(new Error('Disk I/O failed.'))).toBe(
      'Scored, but not saved: Disk I/O failed.',
    );
    const aborted = Object.assign(
      new DOMException(
        'The transaction was aborted, so the request cannot be fulfilled.',
        'AbortError',
      ),
      { error: new DOMException('Key already exists in the object store.', 'ConstraintError') },
    );
    expect(unsavedCaseMessage(aborted)).toBe(
      'Scored, but not saved: Key already exists in the object store.',
    );
  });

  it('other write errors name a reason too, never "()"', () => {
    expect(new StorageWriteError('Row 3 was not saved.', new Error('')).message).toBe(
      "Row 3 was not saved. (the browser's storage refused the write without giving a reason)",
    );
    expect(storageFailureReason(new DOMException('', 'DataCloneError'))).toBe(
      'the record holds data the browser cannot store',
    );
  });
});

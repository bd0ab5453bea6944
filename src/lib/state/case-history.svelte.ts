/**
 * The saved cases the history list shows, and the storage error the page shows above the form:
 * one place words that error, so that its text and its message never disagree, and a case stored
 * after a failed save clears the failure it reported.
 */
import { english, ref, type MessageRef } from '../i18n/message.ts';
import { deleteAllCases, deleteCase, getCase, listHistory, saveCase } from '../storage/cases.ts';
import type { HistoryEntry, StoredCase } from '../storage/schema.ts';
import { isQuotaExceeded, storageEstimate, unsavedCaseMessage } from '../storage/quota.ts';

export class CaseHistory {
  entries = $state.raw<HistoryEntry[]>([]);
  storageError = $state<string | undefined>();
  /** The storage error as a message, where it has one (else the page shows the text as is). */
  storageErrorRef = $state.raw<MessageRef | undefined>();
  /** The "Scored, but not saved" message last shown, so that a later save can clear it. */
  #unsavedMessage: string | undefined;

  async reload(): Promise<void> {
    this.entries = await listHistory();
  }

  /** A saved case; when it is gone (another tab deleted it), says so and lists what is left. */
  async read(id: string): Promise<StoredCase | undefined> {
    const stored = await getCase(id);
    if (!stored) {
      this.setStorageError(ref('runs.history.caseGone'));
      await this.reload();
    }
    return stored;
  }

  setStorageError(error: string | MessageRef | undefined): void {
    if (error === undefined || typeof error === 'string') {
      this.storageError = error;
      this.storageErrorRef = undefined;
    } else {
      this.storageError = english(error.key, error.values);
      this.storageErrorRef = error;
    }
  }

  /**
   * Stores a scored case first in the list; undefined when it could not be stored. The cards keep
   * their scores then: only the history entry is missing, and the message says why.
   */
  async save(stored: StoredCase): Promise<HistoryEntry | undefined> {
    try {
      const entry = await saveCase(stored);
      this.entries = [entry, ...this.entries.filter((h) => h.id !== entry.id)];
      // The last case's failure is over once a case is stored (space was freed, as it said).
      if (this.storageError === this.#unsavedMessage) this.setStorageError(undefined);
      return entry;
    } catch (error) {
      const estimate = isQuotaExceeded(error) ? await storageEstimate() : undefined;
      this.#unsavedMessage = unsavedCaseMessage(error, estimate);
      this.setStorageError(this.#unsavedMessage);
      return undefined;
    }
  }

  async remove(id: string): Promise<void> {
    await deleteCase(id);
    this.entries = this.entries.filter((h) => h.id !== id);
  }

  async removeAll(): Promise<void> {
    await deleteAllCases();
    this.entries = [];
  }
}

/** What the CLI's exit status says (README, "Command line"), for a run and for `merge` alike. */
export const EXIT = {
  /** Every row read and scored, no metric in error. */
  ok: 0,
  /** The file was gone through, but a row could not be read or scored, a metric ended in error,
   * no row at all could be read, or a result file could not be written at the end. */
  failed: 1,
  /** Nothing or not everything was scored: a usage or setup error (an option, the file's format
   * or mapping, a result path that cannot be written, the provider's variables), or a provider
   * error every later row would meet (a dead key, no access, no quota left, an unknown model). */
  stopped: 2,
} as const;

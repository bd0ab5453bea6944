/**
 * The CLI's result files (--out, --summary-json): checked before any row is scored, so that a
 * path the run could never write costs nothing; and replaced only by a run that went through
 * every row. Until then the rows go to FILE.partial in the same folder, renamed over FILE at the
 * end, so an interrupted or stopped run leaves the previous FILE as it was and its own rows
 * beside it.
 */
import {
  closeSync,
  createWriteStream,
  openSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

/** A result file the run cannot write: the option, the path and the reason, in one sentence. */
export class OutputPathError extends Error {}

const REASONS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOENT: 'its folder does not exist',
  ENOTDIR: 'a part of its folder is a file',
  EISDIR: 'it is a folder',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is used up',
};

/** Why an fs call failed, in words ("permission denied"), for a line that names the file. */
export function reasonOf(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return (e.code && REASONS[e.code]) ?? e.message;
}

/** Why a file could not be read: a missing file is not a missing folder, as for a write. */
export function readReasonOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : reasonOf(error);
}

/**
 * Throws an OutputPathError unless `path` can be replaced by a file written beside it. Tried for
 * real rather than asked of access(): root, read-only mounts and ACLs then answer as the write at
 * the end would. An existing file must itself be writable: a read-only result file is one its
 * owner asked to keep.
 */
export function checkWritable(option: string, path: string): void {
  const fail = (reason: string) =>
    new OutputPathError(`${option} ${path}: cannot write there (${reason}). Nothing was scored.`);
  try {
    if (statSync(path).isDirectory()) throw fail(REASONS.EISDIR!);
    closeSync(openSync(path, 'r+'));
  } catch (error) {
    if (error instanceof OutputPathError) throw error;
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw fail(reasonOf(error));
  }
  const probe = join(dirname(resolve(path)), `.${basename(path)}.${process.pid}.probe`);
  try {
    closeSync(openSync(probe, 'wx'));
    rmSync(probe, { force: true });
  } catch (error) {
    throw fail(reasonOf(error));
  }
}

/** Writes `text` beside `path` and renames it over, so `path` is whole or as it was. */
export function replaceFile(path: string, text: string): void {
  const temp = `${path}.partial`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}

/** --out: the rows go to FILE.partial, renamed over FILE once the run is complete. */
export class ResultFile {
  readonly partial: string;
  readonly stream: WriteStream;

  constructor(readonly path: string) {
    this.partial = `${path}.partial`;
    // Opened here, so a folder that turned unwritable since the check fails before any row.
    this.stream = createWriteStream('', { fd: openSync(this.partial, 'w') });
  }

  private close(): Promise<void> {
    if (this.stream.closed || this.stream.destroyed) return Promise.resolve();
    return new Promise((done) => this.stream.end(done));
  }

  /** The run went through every row: FILE becomes its output. */
  async commit(): Promise<void> {
    await this.close();
    renameSync(this.partial, this.path);
  }

  /** The run stopped short: FILE stays as it was, the rows so far stay in FILE.partial. */
  async keepPartial(): Promise<void> {
    await this.close();
  }
}

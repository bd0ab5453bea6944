/**
 * The shapes models:fetch works with: its options and reporter, each file's result, a model's
 * result and the manifest written beside a fetched model.
 */

export interface Reporter {
  /** One finished line: a file done, a note, a model's header. */
  line(text: string): void;
  /** Bytes received so far for a file being downloaded; called often, so throttle. */
  progress?(file: string, received: number, total: number | undefined): void;
}

export interface FetchOptions {
  /** Models go to `<outDir>/<owner>/<name>/`. */
  outDir: string;
  endpoint?: string;
  revision?: string;
  dtypes?: readonly string[];
  /** More repository files to fetch, each required. */
  extraFiles?: readonly string[];
  force?: boolean;
  /** Sent as `Authorization: Bearer …` to the endpoint's origin only, never to a CDN, never logged. */
  token?: string;
  /** Extra attempts after a network error, a timeout, a truncated body, a 429 or a 5xx. */
  retries?: number;
  /** Wait before the first retry; doubles each time. */
  retryDelayMs?: number;
  /** Give up on an attempt that receives nothing for this long. */
  idleTimeoutMs?: number;
  reporter?: Reporter;
}

export type FileOutcome = 'downloaded' | 'up to date';

export interface FileResult {
  path: string;
  outcome: FileOutcome;
  size: number;
  sha256: string;
}

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface FetchManifest {
  schema: 1;
  modelId: string;
  revision: string;
  /** The commit the revision resolved to (`X-Repo-Commit`), when the hub said. */
  commit?: string;
  endpointHost: string;
  fetchedAt: string;
  dtypes: string[];
  files: ManifestFile[];
  /** Optional files the repository does not have (404), so a verifier does not look for them. */
  absent: string[];
}

export interface ModelResult {
  modelId: string;
  dir: string;
  ok: boolean;
  files: FileResult[];
  absent: string[];
  /** One message per failed file, each naming the file. */
  errors: string[];
  manifest?: FetchManifest;
}

/**
 * One file from the hub: streamed into `<file>.part`, checked against the size and SHA-256 the hub
 * announces, renamed when complete; retried after errors that may pass (network, timeout, 429,
 * 5xx). A local copy that already matches is not downloaded again.
 */
import { messageOf } from '../../errors.ts';
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { displayUrl, formatSeconds } from './options.ts';
import type { FetchOptions, FileOutcome, Reporter } from './types.ts';

const USER_AGENT = 'sumlens-models-fetch/1';
const MAX_REDIRECTS = 10;

type FailureKind = 'http' | 'network' | 'timeout' | 'integrity';

/** A failed request, with enough to explain it; `retryable` for the kinds that may pass next time. */
export class DownloadError extends Error {
  override name = 'DownloadError';
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly url: string,
    readonly status?: number,
    readonly errorCode?: string,
    readonly hubMessage?: string,
  ) {
    super(message);
  }

  get retryable(): boolean {
    if (this.kind === 'http') return this.status === 429 || (this.status ?? 0) >= 500;
    return true;
  }
}

export interface RequestContext {
  endpoint: URL;
  token?: string;
  idleTimeoutMs: number;
}

export interface Fetched {
  outcome: FileOutcome;
  size: number;
  sha256: string;
  commit?: string;
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function localSize(path: string): number | undefined {
  try {
    const st = statSync(path);
    return st.isFile() ? st.size : undefined;
  } catch {
    return undefined;
  }
}

/** `X-Linked-Etag` is the LFS object's SHA-256 for weights; other ETags are not content hashes. */
function linkedSha256(headers: Headers): string | undefined {
  const etag = headers.get('x-linked-etag')?.replace(/^W\//, '').replace(/"/g, '');
  return etag && /^[0-9a-f]{64}$/.test(etag) ? etag : undefined;
}

function headerNumber(headers: Headers, name: string): number | undefined {
  const value = headers.get(name);
  if (value === null || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value);
}

function networkMessage(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code ?? (error as { code?: string }).code;
  const detail = cause?.message ?? messageOf(error);
  const hint =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? ': cannot resolve the host; is this machine online, and is --endpoint right?'
      : code === 'ECONNREFUSED'
        ? ': connection refused; is --endpoint right?'
        : '';
  return `${code && !detail.includes(code) ? `${code} ` : ''}${detail}${hint}`;
}

/**
 * One attempt: follows redirects by hand (to read the hub's `X-Linked-*` headers on the way, and to
 * keep the token away from other hosts), skips the download when the local copy matches, otherwise
 * streams into `<dest>.part` and renames it once size and hash check out.
 */
async function downloadOnce(
  ctx: RequestContext,
  url: URL,
  dest: string,
  file: string,
  force: boolean,
  reporter: Reporter | undefined,
): Promise<Fetched> {
  const controller = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, ctx.idleTimeoutMs);
  };
  const fail = (current: URL, error: unknown): DownloadError => {
    if (error instanceof DownloadError) return error;
    if (timedOut) {
      return new DownloadError(
        `no data for ${formatSeconds(ctx.idleTimeoutMs)} from ${displayUrl(current)}`,
        'timeout',
        displayUrl(current),
      );
    }
    return new DownloadError(
      `network error for ${displayUrl(current)}: ${networkMessage(error)}`,
      'network',
      displayUrl(current),
    );
  };

  const have = force ? undefined : localSize(dest);
  let localSha: string | undefined;
  /** Hashes the local copy at most once, with the idle timer off: a big file takes seconds. */
  const hashLocal = async (): Promise<string> => {
    if (localSha === undefined) {
      clearTimeout(timer);
      localSha = await sha256File(dest);
      arm();
    }
    return localSha;
  };
  let current = url;
  let expectedSha: string | undefined;
  let commit: string | undefined;
  let response: Response | undefined;
  try {
    arm();
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = {
        'User-Agent': USER_AGENT,
        // Sizes are compared with Content-Length, which must then be the size of the file itself.
        'Accept-Encoding': 'identity',
      };
      if (ctx.token && current.origin === ctx.endpoint.origin) {
        headers.Authorization = `Bearer ${ctx.token}`;
      }
      try {
        response = await fetch(current, {
          headers,
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (error) {
        throw fail(current, error);
      }
      commit ??= response.headers.get('x-repo-commit') ?? undefined;
      expectedSha ??= linkedSha256(response.headers);
      if (response.status < 300 || response.status >= 400) break;

      const location = response.headers.get('location');
      await response.body?.cancel();
      if (!location) {
        throw new DownloadError(
          `HTTP ${response.status} without a Location from ${displayUrl(current)}`,
          'http',
          displayUrl(current),
          response.status,
        );
      }
      // The hub announces an LFS file's size and hash before sending to the CDN: a local copy that
      // matches needs no request there at all.
      const linkedSize = headerNumber(response.headers, 'x-linked-size');
      if (have !== undefined && linkedSize === have) {
        const sha256 = await hashLocal();
        if (expectedSha === undefined || expectedSha === sha256) {
          return { outcome: 'up to date', size: have, sha256, commit };
        }
      }
      if (hop >= MAX_REDIRECTS) {
        throw new DownloadError(
          `more than ${MAX_REDIRECTS} redirects from ${displayUrl(url)}`,
          'http',
          displayUrl(url),
          response.status,
        );
      }
      current = new URL(location, current);
    }

    if (!response.ok) {
      const status = response.status;
      const errorCode = response.headers.get('x-error-code') ?? undefined;
      const hubMessage = response.headers.get('x-error-message')?.slice(0, 300) ?? undefined;
      await response.body?.cancel();
      throw new DownloadError(
        `HTTP ${status}`,
        'http',
        displayUrl(current),
        status,
        errorCode,
        hubMessage,
      );
    }

    const total = headerNumber(response.headers, 'content-length');
    if (have !== undefined && total === have) {
      const sha256 = await hashLocal();
      if (expectedSha === undefined || expectedSha === sha256) {
        await response.body?.cancel();
        return { outcome: 'up to date', size: have, sha256, commit };
      }
    }

    await mkdir(dirname(dest), { recursive: true });
    const part = `${dest}.part`;
    const hash = createHash('sha256');
    let received = 0;
    const handle = await open(part, 'w');
    try {
      if (response.body) {
        const reader = response.body.getReader();
        for (;;) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (error) {
            throw fail(current, error);
          }
          if (chunk.done) break;
          arm();
          hash.update(chunk.value);
          received += chunk.value.byteLength;
          await handle.write(chunk.value);
          reporter?.progress?.(file, received, total);
        }
      }
      await handle.close();
      if (total !== undefined && received !== total) {
        throw new DownloadError(
          `incomplete download from ${displayUrl(current)}: ${received} of ${total} bytes`,
          'network',
          displayUrl(current),
        );
      }
      const sha256 = hash.digest('hex');
      if (expectedSha !== undefined && sha256 !== expectedSha) {
        throw new DownloadError(
          `SHA-256 mismatch for ${displayUrl(current)}: got ${sha256}, the hub announced ${expectedSha}`,
          'integrity',
          displayUrl(current),
        );
      }
      await rename(part, dest);
      return { outcome: 'downloaded', size: received, sha256, commit };
    } catch (error) {
      await handle.close().catch(() => undefined);
      await rm(part, { force: true });
      throw error;
    }
  } finally {
    clearTimeout(timer);
  }
}

export async function download(
  ctx: RequestContext,
  url: URL,
  dest: string,
  file: string,
  options: Required<Pick<FetchOptions, 'force' | 'retries' | 'retryDelayMs'>>,
  reporter: Reporter | undefined,
): Promise<Fetched> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await downloadOnce(ctx, url, dest, file, options.force, reporter);
    } catch (error) {
      if (!(error instanceof DownloadError) || !error.retryable || attempt >= options.retries) {
        throw error;
      }
      const wait = options.retryDelayMs * 2 ** attempt;
      const what = error.kind === 'http' ? `HTTP ${error.status}` : error.message;
      reporter?.line(`  retry       ${file} in ${formatSeconds(wait)} (${what})`);
      await new Promise((ok) => setTimeout(ok, wait));
    }
  }
}

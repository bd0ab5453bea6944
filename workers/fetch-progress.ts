import { cachedFetch, isEncoded } from '../src/lib/pwa/cached-fetch.ts';

/**
 * Fetches a same-origin asset while reporting bytes received, for the model progress bar; with a
 * cache name, from that Cache Storage cache when it holds the file, into it when not.
 */
export async function fetchWithProgress(
  url: URL,
  onProgress: (loaded: number, total: number | undefined) => void,
  /** The npm script that writes the file, for the message when it is missing. */
  generatedBy = 'npm run assets',
  cacheName?: string,
  /** The file's size where the caller knows it (a manifest): the total when the header cannot say. */
  expectedBytes?: number,
): Promise<ArrayBuffer> {
  const response = cacheName ? await cachedFetch(url, cacheName) : await fetch(url);
  if (!response.ok) {
    throw new Error(
      `Could not load ${url.pathname} (HTTP ${response.status}). Run "${generatedBy}" to generate it.`,
    );
  }
  // A compressed answer's Content-Length counts the encoded bytes, and the reader gets decoded ones.
  const totalHeader = isEncoded(response) ? NaN : Number(response.headers.get('content-length'));
  const total = Number.isFinite(totalHeader) && totalHeader > 0 ? totalHeader : expectedBytes;
  if (!response.body) return response.arrayBuffer();
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.byteLength;
    onProgress(loaded, total);
  }
  const bytes = new Uint8Array(loaded);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes.buffer;
}

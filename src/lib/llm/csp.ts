/**
 * The one Content-Security-Policy: the app's own files only, WASM compilation for ONNX Runtime and
 * jieba, workers from the app (and blob: URLs), and connections to the page itself, the model hub,
 * the known LLM provider APIs and loopback (src/lib/llm/hosts.ts), plus whatever a self-hoster
 * added with SUMLENS_CONNECT_SRC; nothing else, so even injected script could not send a key or a
 * text elsewhere. No 'unsafe-eval': zod runs jitless (src/lib/zod-config.ts).
 *
 * It is delivered twice. The HTTP header (dev and preview servers; static hosts must send it, see
 * README → Self-hosting) is the real one: a worker started from a URL gets its policy from its own
 * response, not from the page's meta tag, and `frame-ancestors` works only in a header. index.html
 * carries a copy in a meta tag, without `frame-ancestors` (browsers ignore it there and warn), for
 * hosts that send no header at all.
 */
import { connectSrcSources } from './hosts.ts';

export type PolicyDelivery = 'header' | 'meta';

export function contentSecurityPolicy(
  delivery: PolicyDelivery,
  connectSrc: readonly string[] = connectSrcSources(),
): string {
  return [
    "default-src 'self'",
    "script-src 'self' 'wasm-unsafe-eval'",
    "worker-src 'self' blob:",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    `connect-src ${connectSrc.join(' ')}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    // No page may frame the app (clickjacking the key field or the Score button).
    ...(delivery === 'header' ? ["frame-ancestors 'none'"] : []),
  ].join('; ');
}

/**
 * Key hygiene (PROVIDERS.md §15.2): provider error bodies sometimes echo the key (OpenAI's 401
 * prints a masked one), and anything we stringify may end up in a bug report or an export, so every
 * message leaving the LLM layer goes through here.
 */

export const REDACTED = '<redacted>';

// Order matters: the longer, more specific prefixes must win over the bare `sk-` rule so that the
// whole token (including `sk-ant-…`'s second dash) is replaced, not just a fragment of it.
const KEY_PATTERNS: Array<[RegExp, string]> = [
  [/\bsk-ant-[A-Za-z0-9_-]+/g, REDACTED],
  [/\bsk-or-[A-Za-z0-9_-]+/g, REDACTED],
  // OpenAI's 401 echoes a masked key such as `sk-abc...wxyz` or `sk-proj-****wxyz`: take the mask
  // and the tail too, or the visible fragments would still hint at the key.
  [/\bsk-[A-Za-z0-9_-]{3,}(?:(?:\.\.\.|…|\*+)[A-Za-z0-9_-]*)?/g, REDACTED],
  [/\bgsk_[A-Za-z0-9_-]+/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{10,}/g, REDACTED],
  [/\b(Bearer)\s+[^\s"',]{8,}/gi, `$1 ${REDACTED}`],
  [/([?&](?:key|api[-_]?key)=)[^&\s"']+/gi, `$1${REDACTED}`],
];

/** Literal secrets shorter than this are too likely to collide with ordinary words ("ollama"). */
const MIN_LITERAL_SECRET = 8;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Replaces known key shapes and the given secrets (e.g. the configured key) in `text`. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  let out = text;
  for (const secret of secrets) {
    if (secret && secret.length >= MIN_LITERAL_SECRET) {
      out = out.replace(new RegExp(escapeRegExp(secret), 'g'), REDACTED);
    }
  }
  for (const [pattern, replacement] of KEY_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/** Deep copy with every string redacted: for anything that is logged, exported or stringified. */
export function redactValue<T>(value: T, secrets: ReadonlyArray<string | undefined> = []): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v, secrets);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, inner] of Object.entries(v)) out[k] = walk(inner);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}

/** Header names that carry credentials, for request logs (lower case). */
export const AUTH_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key'] as const;

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = (AUTH_HEADERS as readonly string[]).includes(name.toLowerCase()) ? REDACTED : value;
  }
  return out;
}

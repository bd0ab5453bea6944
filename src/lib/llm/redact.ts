/**
 * Key hygiene (PROVIDERS.md §15.2): provider error bodies sometimes echo the key (OpenAI's 401
 * prints a masked one), and anything we stringify may end up in a bug report or an export, so every
 * message leaving the LLM layer goes through here, and so does a run's JSON export.
 *
 * What is removed, and nothing broader (summaries, claims and quotes pass through here too, and a
 * redacted word changes what a claim says):
 *
 * 1. The exact keys in use (`secrets`: the configured key, or every key the page holds), wherever
 *    they appear, when at least `MIN_LITERAL_SECRET` characters long ("ollama" is a word too), and
 *    also JSON-escaped, URL-encoded or base64-encoded (`secretSpellings`). Provider answers get
 *    this step alone (`literalRedactor`, applied where they arrive: transport.ts, batch/wire.ts).
 * 2. Well-formed key shapes, as the providers issue them (each provider's record in
 *    providers/registry.ts lists its shapes; the rules below are built from those lists):
 *    - OpenAI: `sk-` + 48 alphanumerics (legacy user keys); `sk-proj-…` (project keys, ~160
 *      characters of [A-Za-z0-9_-]), `sk-svcacct-…` (service accounts), `sk-admin-…` (admin keys),
 *      `sk-None-…` (older user keys). Rule: after a distinctive prefix (`sk-proj-`, `sk-svcacct-`,
 *      `sk-admin-`, `sk-None-`, `sk-ant-`, `sk-or-v1-`) 16 or more key characters; after a bare
 *      `sk-`, 20 or more that look random (below).
 *    - Anthropic: `sk-ant-api03-…` (API keys, ~108 characters in all) and `sk-ant-admin01-…`
 *      (admin keys): the `sk-ant-` prefix rule above.
 *    - OpenRouter: `sk-or-v1-` + 64 hex digits: the `sk-or-v1-` prefix rule above.
 *    - Groq: `gsk_` + 52 alphanumerics. Rule: `gsk_` + 20 or more alphanumerics that look random.
 *    - Google (Gemini): `AIza` + exactly 35 of [0-9A-Za-z_-] (39 in all).
 *    - JWTs (`eyJ….eyJ….…`, base64url JSON header and payload), e.g. Azure AD bearer tokens.
 *    - A masked echo of any of these, as OpenAI's 401 "Incorrect API key provided: sk-abc...wxyz"
 *      or "sk-proj-****wxyz": the prefix, the visible head, the mask (`...`, `…`, or three or more
 *      `*`) and the tail all go, since the text is about a key. A `*` mask or a distinctive prefix
 *      is enough; after a bare `sk-`/`gsk_`/`AIza`, an ellipsis counts as a mask only with a tail
 *      and either a digit or capital in head or tail, or the word "key" shortly before ("trained
 *      with sk-learn...then" stays).
 *    - `Bearer <token>` when the token looks like a credential: a JWT, or 20+ characters of an
 *      RFC 6750 token that look random ("Bearer bonds", "bearer instruments", "the bearer of bad
 *      news" stay). After a credential header name (`Authorization:`, `x-api-key:`, `api-key:`,
 *      `x-goog-api-key:`) 8+ characters with a digit or mixed case are enough.
 *    - `?key=…` / `&api_key=…` / `api-key=` query parameters in URLs (the parameter name stays).
 *
 * "Look random": some piece of the token between separators (- _ . ~ + / =) is 8+ characters long
 * and has digits and letters, or a capital after its first letter. Real keys always do; words and
 * hyphenated compounds ("sk-learn", "risk-free", "sk-learn-0-24-release-notes") do not.
 */

import type { KeyShape } from './providers/record.ts';
import { providerRecords } from './providers/registry.ts';

export const REDACTED = '<redacted>';

/** Literal secrets shorter than this are too likely to collide with ordinary words ("ollama"). */
export const MIN_LITERAL_SECRET = 8;

/** Header names that carry credentials, for request logs (lower case). */
export const AUTH_HEADERS = ['authorization', 'x-api-key', 'api-key', 'x-goog-api-key'] as const;

/** A piece of 8+ characters with digits and letters, or a capital after its first character. */
function randomPiece(piece: string): boolean {
  if (piece.length < 8) return false;
  const letters = /[A-Za-z]/u.test(piece);
  if (letters && /\d/u.test(piece)) return true;
  return /[a-z]/u.test(piece) && /[A-Z]/u.test(piece.slice(1));
}

/** Whether a token looks machine-made rather than a word or a hyphenated compound. */
function looksRandom(token: string): boolean {
  return token.split(/[-_.~+/=]+/u).some(randomPiece);
}

/** Digits, or both cases: enough after a credential header name. */
function digitOrMixedCase(token: string): boolean {
  return /\d/u.test(token) || (/[a-z]/u.test(token) && /[A-Z]/u.test(token));
}

/** Not preceded by a key character: "task-sk-1" or "my_gsk_x" do not start a key. */
const START = String.raw`(?<![A-Za-z0-9_-])`;
/** Not followed by a key character: the whole token or nothing. */
const END = String.raw`(?![A-Za-z0-9_-])`;
const KEY_CHARS = '[A-Za-z0-9_-]';
const JWT = String.raw`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`;
const WHOLE_JWT = new RegExp(`^${JWT}$`, 'u');
/** RFC 6750 b64token. */
const TOKEN = String.raw`[A-Za-z0-9._~+/-]+=*`;

type Rule = [RegExp, (match: string, ...groups: string[]) => string];

const SHAPES: readonly KeyShape[] = providerRecords().flatMap(([, record]) => record.keyShapes);

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');
}

/** Longest first, so that `sk-proj-` wins over `sk-` in an alternation. */
function alternation(prefixes: readonly string[]): string {
  return [...new Set(prefixes)]
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join('|');
}

const DISTINCT = SHAPES.flatMap((s) => (s.kind === 'prefixed' ? [s.prefix] : []));
const ALL_PREFIXES = SHAPES.flatMap((s) => (s.kind === 'jwt' ? [] : [s.prefix]));

/** The key-shape rules of the providers' records, in the order: distinct, random, fixed, JWT. */
function keyShapeRules(): Rule[] {
  const rules: Rule[] = [];
  if (DISTINCT.length > 0) {
    rules.push([
      new RegExp(`${START}(?:${alternation(DISTINCT)})${KEY_CHARS}{16,}${END}`, 'gu'),
      () => REDACTED,
    ]);
  }
  for (const shape of SHAPES) {
    if (shape.kind !== 'random') continue;
    const chars = shape.chars === 'key' ? KEY_CHARS : '[A-Za-z0-9]';
    rules.push([
      new RegExp(
        `${START}${escapeRegExp(shape.prefix)}(${chars}{${shape.minLength},})${END}`,
        'gu',
      ),
      (match, body) => (looksRandom(body) ? REDACTED : match),
    ]);
  }
  for (const shape of SHAPES) {
    if (shape.kind !== 'fixed') continue;
    rules.push([
      new RegExp(`${START}${escapeRegExp(shape.prefix)}${KEY_CHARS}{${shape.length}}${END}`, 'gu'),
      () => REDACTED,
    ]);
  }
  if (SHAPES.some((s) => s.kind === 'jwt')) {
    rules.push([new RegExp(`${START}${JWT}`, 'gu'), () => REDACTED]);
  }
  return rules;
}

const RULES: Rule[] = [
  // Masked echoes first: otherwise the head alone could match a key rule and leave the tail.
  [
    new RegExp(
      String.raw`${START}(${alternation(ALL_PREFIXES)})(${KEY_CHARS}{0,16}?)(\.{3}|…|\*{3,})([A-Za-z0-9]{0,8})${END}`,
      'gu',
    ),
    (match, prefix, head, mask, tail, offset: unknown, whole: unknown) => {
      if (mask.startsWith('*') || DISTINCT.includes(prefix)) return REDACTED;
      if (tail.length < 2) return match;
      if (/[\dA-Z]/u.test(head + tail)) return REDACTED;
      const before = (whole as string).slice(
        Math.max(0, (offset as number) - 40),
        offset as number,
      );
      return /\bkey\b/iu.test(before) ? REDACTED : match;
    },
  ],
  ...keyShapeRules(),
  // `Authorization: Bearer x`, `x-api-key: x`: the header name says the value is a credential.
  [
    new RegExp(
      String.raw`\b(${AUTH_HEADERS.join('|')})(\s*[:=]\s*)((?:Bearer|Basic|Token)\s+)?(${TOKEN})`,
      'giu',
    ),
    (match, name, sep, scheme = '', token) =>
      token.length >= 8 && digitOrMixedCase(token) ? `${name}${sep}${scheme}${REDACTED}` : match,
  ],
  [
    new RegExp(String.raw`\b(Bearer)(\s+)(${TOKEN})`, 'giu'),
    (match, word, space, token) =>
      WHOLE_JWT.test(token) || (token.length >= 20 && looksRandom(token))
        ? `${word}${space}${REDACTED}`
        : match,
  ],
  [/([?&](?:key|api[-_]?key)=)[^&\s"'#]+/giu, (_match, name) => `${name}${REDACTED}`],
];

/** Quick test for text that no rule can touch (most strings of a run). */
const MAYBE = new RegExp(
  [...ALL_PREFIXES.map(escapeRegExp), 'eyJ', 'bearer', 'key', 'authorization'].join('|'),
  'iu',
);

/** Standard base64 of some bytes (btoa: the same in pages, workers and Node). */
function base64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/**
 * The spellings a secret travels in besides itself: JSON-escaped (PHP escapes `/` as well),
 * URL-encoded, and base64, standard and URL-safe. A key base64-encoded inside a longer text (a
 * gateway's token blob, a data URL) sits at one of three byte alignments, and only the characters
 * fed by its own bytes are the same in every blob: each alignment's run of those is a spelling.
 */
export function secretSpellings(secret: string): string[] {
  const spellings = new Set([secret]);
  const json = JSON.stringify(secret).slice(1, -1);
  spellings.add(json);
  spellings.add(json.replaceAll('/', '\\/'));
  spellings.add(encodeURIComponent(secret));
  const bytes = new TextEncoder().encode(secret);
  for (let lead = 0; lead < 3; lead++) {
    const padded = new Uint8Array(lead + bytes.length);
    padded.set(bytes, lead);
    const core = base64(padded).slice(
      Math.ceil((lead * 8) / 6),
      Math.floor(((lead + bytes.length) * 8) / 6),
    );
    spellings.add(core);
    spellings.add(core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return [...spellings].filter((s) => s.length >= MIN_LITERAL_SECRET);
}

/**
 * Removes the given secrets, in every spelling of `secretSpellings`, and nothing else: for text
 * that must keep everything that is not a key (a provider's answers, which quote the source).
 */
export function literalRedactor(
  secrets: ReadonlyArray<string | undefined> = [],
): (text: string) => string {
  // Longest first, so that a key containing another is removed whole.
  const literals = [
    ...new Set(
      secrets
        .filter((s): s is string => typeof s === 'string' && s.length >= MIN_LITERAL_SECRET)
        .flatMap(secretSpellings),
    ),
  ].sort((a, b) => b.length - a.length);
  return (text) => {
    let out = text;
    for (const secret of literals) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    return out;
  };
}

/** A function that redacts `secrets` and the key shapes above in a string. */
export function redactor(
  secrets: ReadonlyArray<string | undefined> = [],
): (text: string) => string {
  const literal = literalRedactor(secrets);
  return (text) => {
    let out = literal(text);
    if (!MAYBE.test(out)) return out;
    for (const [pattern, replace] of RULES) {
      out = out.replace(pattern, replace as (substring: string, ...args: unknown[]) => string);
    }
    return out;
  };
}

/** Replaces known key shapes and the given secrets (e.g. the configured key) in `text`. */
export function redact(text: string, secrets: ReadonlyArray<string | undefined> = []): string {
  return redactor(secrets)(text);
}

/** Deep copy with every string redacted: for anything that is logged, exported or stringified. */
export function redactValue<T>(value: T, secrets: ReadonlyArray<string | undefined> = []): T {
  const clean = redactor(secrets);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return clean(v);
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

export function redactHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    out[name] = (AUTH_HEADERS as readonly string[]).includes(name.toLowerCase()) ? REDACTED : value;
  }
  return out;
}

/**
 * Realistic fake API keys for the redaction tests, from a seeded generator (mulberry32) so that
 * every run sees the same ones. None of them is, or was, a real key.
 */

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const URLSAFE = `${ALNUM}_-`;
export const HEX = '0123456789abcdef';

/** `pick(alphabet, n)`: n characters drawn from `alphabet`, the same ones for the same seed. */
export function keyChars(seed: number): (alphabet: string, n: number) => string {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return (alphabet, n) =>
    Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
}

/** One key of every shape src/lib/llm/redact.ts lists, drawn from `seed`. */
export function fakeKeys(seed: number) {
  const pick = keyChars(seed);
  return {
    'OpenAI legacy': `sk-${pick(ALNUM, 48)}`,
    'OpenAI project': `sk-proj-${pick(URLSAFE, 156)}`,
    'OpenAI service account': `sk-svcacct-${pick(URLSAFE, 120)}`,
    'OpenAI admin': `sk-admin-${pick(URLSAFE, 100)}`,
    'Anthropic API': `sk-ant-api03-${pick(URLSAFE, 93)}AA`,
    'Anthropic admin': `sk-ant-admin01-${pick(URLSAFE, 93)}AA`,
    OpenRouter: `sk-or-v1-${pick(HEX, 64)}`,
    Groq: `gsk_${pick(ALNUM, 52)}`,
    Google: `AIza${pick(URLSAFE, 35)}`,
    JWT: `eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.${pick(URLSAFE, 43)}`,
  };
}

/**
 * Getting a JSON value out of a model's reply. Structured outputs usually give clean JSON, but the
 * JSON-in-text path (local servers, DeepSeek, providers without schemas) sees prose around it,
 * code fences, Python-ish literals, trailing commas and replies cut short. We extract, repair
 * leniently, then let zod decide: the schema is the only judge of validity.
 */
import type { z } from 'zod';

export type JsonParseResult<T> =
  | { ok: true; value: T; repaired: boolean }
  | { ok: false; stage: 'parse' | 'schema'; issues: string };

/** Strips ``` fences and returns the first balanced JSON object/array (or the unclosed rest). */
export function extractJsonText(text: string): string | undefined {
  let body = text.trim();
  const fence = /```[a-zA-Z0-9_-]*\s*\n?([\s\S]*?)(?:```|$)/.exec(body);
  if (fence && /[[{]/.test(fence[1])) body = fence[1];
  const start = body.search(/[[{]/);
  if (start < 0) return undefined;
  const stack: string[] = [];
  let quote: string | undefined;
  for (let i = start; i < body.length; i++) {
    const ch = body[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = undefined;
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{' || ch === '[') stack.push(ch);
    else if (ch === '}' || ch === ']') {
      stack.pop();
      if (stack.length === 0) return body.slice(start, i + 1);
    }
  }
  return body.slice(start);
}

const MISSING = Symbol('missing');

class Lenient {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): unknown {
    const value = this.value();
    return value === MISSING ? undefined : value;
  }

  private ws(): void {
    for (;;) {
      while (this.i < this.s.length && /\s/.test(this.s[this.i])) this.i++;
      // Comments appear when models imitate JS object literals.
      if (this.s.startsWith('//', this.i)) {
        const nl = this.s.indexOf('\n', this.i);
        this.i = nl < 0 ? this.s.length : nl + 1;
      } else if (this.s.startsWith('/*', this.i)) {
        const end = this.s.indexOf('*/', this.i + 2);
        this.i = end < 0 ? this.s.length : end + 2;
      } else return;
    }
  }

  private value(): unknown {
    this.ws();
    const ch = this.s[this.i];
    if (ch === undefined) return MISSING;
    if (ch === '{') return this.object();
    if (ch === '[') return this.array();
    if (ch === '"' || ch === "'") return this.string();
    if (/[-+.\d]/.test(ch)) return this.number();
    const word = this.word();
    if (word === '') {
      this.i++;
      return MISSING;
    }
    const literals: Record<string, unknown> = {
      true: true,
      false: false,
      null: null,
      True: true,
      False: false,
      None: null,
    };
    return word in literals ? literals[word] : word;
  }

  private word(): string {
    const m = /^[A-Za-z_$][\w$-]*/.exec(this.s.slice(this.i));
    if (!m) return '';
    this.i += m[0].length;
    return m[0];
  }

  private number(): unknown {
    const m = /^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/.exec(this.s.slice(this.i));
    if (!m) {
      this.i++;
      return MISSING;
    }
    this.i += m[0].length;
    return Number(m[0]);
  }

  private string(): string {
    const quote = this.s[this.i++];
    let out = '';
    while (this.i < this.s.length) {
      const ch = this.s[this.i++];
      if (ch === quote) return out;
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const esc = this.s[this.i++];
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f' };
      if (esc === 'u' && /^[0-9a-fA-F]{4}/.test(this.s.slice(this.i))) {
        out += String.fromCharCode(parseInt(this.s.slice(this.i, this.i + 4), 16));
        this.i += 4;
      } else if (esc !== undefined) out += simple[esc] ?? esc;
    }
    return out; // unterminated: the reply was cut inside a string
  }

  private key(): string | typeof MISSING {
    this.ws();
    const ch = this.s[this.i];
    if (ch === '"' || ch === "'") return this.string();
    if (ch !== undefined && /[\d-]/.test(ch)) {
      const n = this.number();
      return n === MISSING ? MISSING : String(n);
    }
    const word = this.word();
    return word === '' ? MISSING : word;
  }

  private object(): Record<string, unknown> {
    this.i++;
    const out: Record<string, unknown> = {};
    for (;;) {
      this.ws();
      const ch = this.s[this.i];
      if (ch === undefined) return out;
      if (ch === '}') {
        this.i++;
        return out;
      }
      if (ch === ',') {
        this.i++;
        continue;
      }
      const key = this.key();
      if (key === MISSING) {
        this.i++;
        continue;
      }
      this.ws();
      if (this.s[this.i] === ':' || this.s[this.i] === '=') this.i++;
      else if (this.i >= this.s.length) return out; // cut after a key: drop the half pair
      const value = this.value();
      if (value === MISSING) return out;
      out[key] = value;
    }
  }

  private array(): unknown[] {
    this.i++;
    const out: unknown[] = [];
    for (;;) {
      this.ws();
      const ch = this.s[this.i];
      if (ch === undefined) return out;
      if (ch === ']') {
        this.i++;
        return out;
      }
      if (ch === ',') {
        this.i++;
        continue;
      }
      const value = this.value();
      if (value !== MISSING) out.push(value);
    }
  }
}

/** Parses a reply's JSON strictly if possible, else leniently. `undefined` when there is none. */
export function parseJsonLoose(text: string): { value: unknown; repaired: boolean } | undefined {
  const extracted = extractJsonText(text);
  if (extracted === undefined) return undefined;
  try {
    return { value: JSON.parse(extracted), repaired: false };
  } catch {
    try {
      const value = new Lenient(extracted).parse();
      return value === undefined ? undefined : { value, repaired: true };
    } catch {
      // Absurd nesting overflows the recursive parser: that is "no usable JSON", not a crash.
      return undefined;
    }
  }
}

/** Strict-mode schemas turn optional fields into nullable ones; zod's `.optional()` wants them
 * absent, so a null is retried as "not given". */
function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== null) out[k] = dropNulls(v);
    return out;
  }
  return value;
}

/** Zod issues in plain words, e.g. `score: expected number, received string`. */
export function describeIssues(error: z.ZodError, max = 5): string {
  const lines = error.issues.slice(0, max).map((issue) => {
    const where = issue.path.length ? issue.path.map(String).join('.') : '(top level)';
    // zod says "expected array, received undefined" for a field the reply left out.
    const message = issue.message
      .replace(/^Invalid input: /, '')
      .replace(/^expected (.+), received undefined$/u, 'missing (expected $1)');
    return `${where}: ${message}`;
  });
  const more = error.issues.length - max;
  return lines.join('; ') + (more > 0 ? `; and ${more} more` : '');
}

export function parseJsonReply<T>(text: string, schema: z.ZodType<T>): JsonParseResult<T> {
  const parsed = parseJsonLoose(text);
  if (!parsed) {
    return { ok: false, stage: 'parse', issues: 'the reply contains no JSON object or array' };
  }
  const first = schema.safeParse(parsed.value);
  if (first.success) return { ok: true, value: first.data, repaired: parsed.repaired };
  const second = schema.safeParse(dropNulls(parsed.value));
  if (second.success) return { ok: true, value: second.data, repaired: true };
  return { ok: false, stage: 'schema', issues: describeIssues(first.error) };
}

/**
 * Key hygiene (PROVIDERS.md §15.2): every key shape and the configured key itself vanish from
 * messages and logged values.
 */
import { describe, expect, it } from 'vitest';
import { redact, redactHeaders, redactValue, REDACTED } from '../../../src/lib/llm/redact.ts';
import { KEYS } from './_support.ts';

describe('redact', () => {
  it.each(Object.entries(KEYS).filter(([name]) => name !== 'custom'))(
    'removes a %s key by shape',
    (_name, key) => {
      const out = redact(`The key ${key} is not valid.`);
      expect(out).not.toContain(key);
      expect(out).not.toContain(key.slice(0, 12));
      expect(out).toContain(REDACTED);
    },
  );

  it("removes OpenAI's masked echo, Bearer headers and ?key= parameters", () => {
    expect(redact('Incorrect API key provided: sk-abc...wxyz. You can')).toBe(
      `Incorrect API key provided: ${REDACTED}. You can`,
    );
    expect(redact('Incorrect API key provided: sk-proj-****************wxyz.')).toBe(
      `Incorrect API key provided: ${REDACTED}.`,
    );
    expect(redact('Authorization: Bearer abcdefgh12345678')).toBe(
      `Authorization: Bearer ${REDACTED}`,
    );
    expect(redact('GET /v1beta/models/x?key=AIzaSomething&alt=json')).toBe(
      `GET /v1beta/models/x?key=${REDACTED}&alt=json`,
    );
  });

  it('removes the configured key even when it has no known shape', () => {
    expect(redact(`token ${KEYS.custom} rejected`, [KEYS.custom])).toBe(
      `token ${REDACTED} rejected`,
    );
  });

  it('leaves ordinary words alone', () => {
    const text = 'The task-force asked for a risk-free Bearer auth plan; ollama is running.';
    expect(redact(text, ['ollama'])).toBe(text);
  });

  it('redacts values and headers for logs', () => {
    expect(redactValue({ a: [`x ${KEYS.openai}`], n: 1 })).toEqual({ a: [`x ${REDACTED}`], n: 1 });
    expect(
      redactHeaders({
        Authorization: 'Bearer x',
        'x-api-key': 'k',
        'X-Goog-Api-Key': 'g',
        accept: '*/*',
      }),
    ).toEqual({
      Authorization: REDACTED,
      'x-api-key': REDACTED,
      'X-Goog-Api-Key': REDACTED,
      accept: '*/*',
    });
  });
});

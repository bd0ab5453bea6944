/**
 * Key hygiene (PROVIDERS.md §15.2): every key shape and the configured key itself vanish from
 * messages and logged values, and nothing else does: claims and quotes go through here too.
 */
import { describe, expect, it } from 'vitest';
import {
  literalRedactor,
  redact,
  redactHeaders,
  redactor,
  redactValue,
  REDACTED,
} from '../../../src/lib/llm/redact.ts';
import { fakeKeys } from '../../helpers/fake-keys.ts';
import { KEYS } from './_support.ts';

const { JWT, ...FAKE } = fakeKeys(20260104);

describe('redact: must redact', () => {
  it.each(Object.entries(KEYS).filter(([name]) => name !== 'custom'))(
    'removes the test %s key by shape',
    (_name, key) => {
      const out = redact(`The key ${key} is not valid.`);
      expect(out).toBe(`The key ${REDACTED} is not valid.`);
    },
  );

  it.each(Object.entries(FAKE))('removes a realistic %s key in a sentence', (_name, key) => {
    for (const text of [
      `The key ${key} is not valid.`,
      `"${key}"`,
      `key=${key}, retry`,
      `(${key})`,
      key,
    ]) {
      const out = redact(text);
      expect(out).not.toContain(key.slice(0, 14));
      expect(out).not.toContain(key.slice(-8));
      expect(out).toBe(text.replace(key, REDACTED));
    }
  });

  it.each([
    [
      'Incorrect API key provided: sk-abc...wxyz. You can find your API key at …',
      `Incorrect API key provided: ${REDACTED}. You can find your API key at …`,
    ],
    [
      'Incorrect API key provided: sk-proj-****************wxyz.',
      `Incorrect API key provided: ${REDACTED}.`,
    ],
    ['Incorrect API key provided: sk-proj-****wxyz', `Incorrect API key provided: ${REDACTED}`],
    [
      'Incorrect API key provided: sk-abc123********wxyz.',
      `Incorrect API key provided: ${REDACTED}.`,
    ],
    ['got sk-ant-api03-…x9Zq from the header', `got ${REDACTED} from the header`],
    ['the echoed sk-Ab3…wxyz was refused', `the echoed ${REDACTED} was refused`],
    ['Groq says gsk_***abcd is wrong', `Groq says ${REDACTED} is wrong`],
    ['masked AIza...Qx is wrong', `masked ${REDACTED} is wrong`],
  ])('removes the masked echo in %j', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it.each([
    ['Authorization: Bearer abcdefgh12345678', `Authorization: Bearer ${REDACTED}`],
    [`authorization: Bearer ${JWT}`, `authorization: Bearer ${REDACTED}`],
    [`sent Bearer ${JWT} upstream`, `sent Bearer ${REDACTED} upstream`],
    [`a bare token ${JWT}.`, `a bare token ${REDACTED}.`],
    [
      'Bearer ghp_16C7e42F292c6912E7710c838347Ae178B4a was rejected',
      `Bearer ${REDACTED} was rejected`,
    ],
    [`Bearer ${FAKE['OpenAI project']}`, `Bearer ${REDACTED}`],
    ['x-api-key: local-Secret-42xyz', `x-api-key: ${REDACTED}`],
    [
      'GET /v1beta/models/x?key=AIzaSomething&alt=json',
      `GET /v1beta/models/x?key=${REDACTED}&alt=json`,
    ],
    ['https://h/v1?alt=json&api_key=abc', `https://h/v1?alt=json&api_key=${REDACTED}`],
  ])('removes the credential in %j', (text, expected) => {
    expect(redact(text)).toBe(expected);
  });

  it('removes the keys in use even when they have no known shape, longest first', () => {
    expect(redact(`token ${KEYS.custom} rejected`, [KEYS.custom])).toBe(
      `token ${REDACTED} rejected`,
    );
    const inner = 'local-secret';
    const outer = 'local-secret-token-99';
    expect(redact(`${outer} / ${inner}`, [inner, outer, undefined])).toBe(
      `${REDACTED} / ${REDACTED}`,
    );
    // A secret with regular-expression characters is taken literally.
    expect(redact('pw a.b*c+d?e(f) and axbxcxd', ['a.b*c+d?e(f)'])).toBe(
      `pw ${REDACTED} and axbxcxd`,
    );
  });
});

describe('redact: must keep', () => {
  it.each([
    'The model was trained with sk-learn and evaluated on SummEval.',
    "sk-learn's API is stable; sk-learn-0-24-2-release-notes-for-users mentions it.",
    'trained with sk-learn...then fine-tuned',
    'We used sk-learn…',
    'See task-sk-1, task-sk-12345678901234567890abcdef and risk-free rates.',
    'The gsk_test fixture and gsk_pipeline_training_data stay.',
    'Dr. AIzawa and AIzaki wrote about it.',
    'Bearer bonds rose 3% after the announcement.',
    'The bank issued bearer instruments to investors.',
    'He was the bearer of bad news.',
    'Bearer Municipal-Bonds-Outperformed-Treasuries in 2024.',
    'Authorization: Bearer token is the usual scheme.',
    'The task-force asked for a risk-free Bearer auth plan; ollama is running.',
    'Keys look like sk-... in the docs.',
    'The header "Bearer <redacted>" was sent.',
  ])('keeps %j', (text) => {
    expect(redact(text, ['ollama', 'short'])).toBe(text);
  });

  it('does not redact literal secrets shorter than 8 characters', () => {
    expect(redact('ollama says hello', ['ollama'])).toBe('ollama says hello');
    expect(redact('the key abcdefgh', ['abcdefgh'])).toBe(`the key ${REDACTED}`);
  });

  it('a redactor can be reused for many strings', () => {
    const clean = redactor([KEYS.custom]);
    expect(clean(`a ${KEYS.custom}`)).toBe(`a ${REDACTED}`);
    expect(clean('trained with sk-learn')).toBe('trained with sk-learn');
    expect(clean(`b ${FAKE.Groq}`)).toBe(`b ${REDACTED}`);
  });
});

describe('redactValue and redactHeaders', () => {
  it('redacts values and headers for logs', () => {
    expect(redactValue({ a: [`x ${KEYS.openai}`], n: 1 })).toEqual({ a: [`x ${REDACTED}`], n: 1 });
    expect(
      redactValue({ claims: ['trained with sk-learn', `leak ${KEYS.custom}`], ok: true, z: null }, [
        KEYS.custom,
      ]),
    ).toEqual({ claims: ['trained with sk-learn', `leak ${REDACTED}`], ok: true, z: null });
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

describe('literalRedactor: the keys in their other spellings, for provider answers', () => {
  const key = 'gw/Canary+Compat=3e7a';
  const b64 = (text: string) => Buffer.from(text).toString('base64');

  it('removes a key JSON-escaped, URL-encoded, and base64-encoded at any alignment', () => {
    const clean = literalRedactor([key]);
    expect(clean(`"${key.replaceAll('/', '\\/')}"`)).toBe(`"${REDACTED}"`);
    expect(clean(`?token=${encodeURIComponent(key)}&x=1`)).toBe(`?token=${REDACTED}&x=1`);
    for (const lead of ['', 'a', 'ab', 'abc', 'user:']) {
      for (const encoded of [b64(lead + key), b64(lead + key).replaceAll('+', '-')]) {
        const out = clean(`blob ${encoded} end`);
        expect(out, `${lead}|${encoded}`).toContain(REDACTED);
        // What is left is the lead's characters and the few at each end that the key shares with
        // its neighbours.
        const left = out.replace(`blob `, '').replace(' end', '').split(REDACTED);
        expect(left.join('').length).toBeLessThanOrEqual(Math.ceil(lead.length * 1.34) + 8);
      }
    }
  });

  it('leaves everything that is not one of the given keys, key shapes included', () => {
    const clean = literalRedactor([key, 'short']);
    const text = `The source quotes ${KEYS.openai} and a short word; ${b64('unrelated text')}.`;
    expect(clean(text)).toBe(text);
  });
});

/**
 * Getting JSON out of replies: fences, prose, the common breakage models produce, then zod as the
 * only judge of validity.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  extractJsonText,
  parseJsonLoose,
  parseJsonReply,
} from '../../../src/lib/llm/parse-json.ts';

const Verdict = z.object({ reasoning: z.string(), score: z.number().int().min(1).max(5) });

describe('extractJsonText', () => {
  it('takes the first balanced object, ignoring prose and fences', () => {
    expect(
      extractJsonText('Sure! Here it is:\n```json\n{"a": {"b": [1]}}\n```\nHope that helps {x}'),
    ).toBe('{"a": {"b": [1]}}');
    expect(extractJsonText('The verdict is {"s": "a } inside"} and {"t": 1}')).toBe(
      '{"s": "a } inside"}',
    );
    expect(extractJsonText('[1, 2] then {"a": 1}')).toBe('[1, 2]');
    expect(extractJsonText('no json here')).toBeUndefined();
  });

  it('returns the unclosed rest of a truncated reply', () => {
    expect(extractJsonText('{"a": [1, 2')).toBe('{"a": [1, 2');
  });
});

describe('parseJsonLoose repairs', () => {
  it.each([
    ['trailing commas', '{"a": 1, "b": [1, 2,],}', { a: 1, b: [1, 2] }],
    ['single quotes', "{'a': 'it\\'s', 'b': 2}", { a: "it's", b: 2 }],
    ['unquoted keys', '{reasoning: "ok", score: 4}', { reasoning: 'ok', score: 4 }],
    ['Python literals', "{'ok': True, 'n': None, 'f': False}", { ok: true, n: null, f: false }],
    ['truncated brackets', '{"a": {"b": [1, 2', { a: { b: [1, 2] } }],
    [
      'truncated inside a string',
      '{"a": 1, "reason": "the summary is',
      { a: 1, reason: 'the summary is' },
    ],
    ['truncated after a key', '{"a": 1, "b":', { a: 1 }],
    ['comments', '{\n // the score\n "score": 3 /* final */\n}', { score: 3 }],
    ['missing commas', '{"a": 1 "b": 2}', { a: 1, b: 2 }],
    ['escapes', '{"a": "line\\nnext \\u00e9"}', { a: 'line\nnext é' }],
  ])('%s', (_label, text, expected) => {
    expect(parseJsonLoose(text)?.value).toEqual(expected);
  });

  it('leaves valid JSON untouched and unrepaired', () => {
    expect(parseJsonLoose('{"a": [1, {"b": null}]}')).toEqual({
      value: { a: [1, { b: null }] },
      repaired: false,
    });
  });
});

describe('parseJsonReply', () => {
  it('validates with zod after repair', () => {
    const r = parseJsonReply("```\n{reasoning: 'fine', score: 4,}\n```", Verdict);
    expect(r).toEqual({ ok: true, value: { reasoning: 'fine', score: 4 }, repaired: true });
  });

  it('reports zod issues in plain words', () => {
    const r = parseJsonReply('{"reasoning": "x", "score": "high"}', Verdict);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.stage).toBe('schema');
      expect(r.issues).toBe('score: expected number, received string');
    }
    // A field the reply left out is "missing", not "received undefined".
    const missing = parseJsonReply('{"reasoning": "fine"}', Verdict);
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.issues).toBe('score: missing (expected number)');
  });

  it('says when there is no JSON at all', () => {
    const r = parseJsonReply('I would rate it a four.', Verdict);
    expect(r).toEqual({
      ok: false,
      stage: 'parse',
      issues: 'the reply contains no JSON object or array',
    });
  });

  it('accepts null for an optional field (strict schemas make optional fields nullable)', () => {
    const schema = z.object({ a: z.number(), note: z.string().optional() });
    expect(parseJsonReply('{"a": 1, "note": null}', schema)).toMatchObject({
      ok: true,
      value: { a: 1 },
    });
  });
});

describe('hostile input', () => {
  it('survives absurd nesting', () => {
    expect(parseJsonLoose('['.repeat(200_000))).toBeUndefined();
  });
});

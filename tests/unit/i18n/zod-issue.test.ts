/**
 * A schema's complaint is said in the reader's language, as a clause after the field: zod's own
 * English ("Too small: expected number to be >=1") never reaches the page.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { loadWords } from '../../../src/lib/datasets/export/words.ts';
import { parseRunExport } from '../../../src/lib/datasets/export/json.ts';
import { englishRef, type MessageRef } from '../../../src/lib/i18n/message.ts';
import { SaidError } from '../../../src/lib/i18n/said-error.ts';
import { zodIssueRef } from '../../../src/lib/i18n/zod-issue.ts';
import { parseInstructions } from '../../../src/lib/input/instructions.ts';

const ru = await loadWords('ru');
const ja = await loadWords('ja');
const words = (w: typeof ru, m: MessageRef) => w(m.key, m.values);

function issueOf(schema: z.ZodType, value: unknown) {
  const checked = schema.safeParse(value);
  if (checked.success) throw new Error('expected a failure');
  return zodIssueRef(checked.error.issues[0]!);
}

describe('zodIssueRef', () => {
  it('words the common checks in English, Russian and Japanese', () => {
    const cases: Array<[z.ZodType, unknown, string, string]> = [
      [z.number().min(1), 0, 'must be at least 1', 'должно быть не меньше 1'],
      [z.number().gt(0), 0, 'must be more than 0', 'должно быть больше 0'],
      [z.number().max(30), 31, 'must be at most 30', 'должно быть не больше 30'],
      [z.number().lt(2), 2, 'must be less than 2', 'должно быть меньше 2'],
      [z.string(), 5, 'must be text', 'должно быть текстом'],
      [z.number(), 'x', 'must be a number', 'должно быть числом'],
      [
        z.string().min(1),
        '',
        'must have at least 1 character',
        'должно содержать не менее 1 символа',
      ],
      [
        z.string().min(5),
        '',
        'must have at least 5 characters',
        'должно содержать не менее 5 символов',
      ],
      [
        z.array(z.string()).max(2),
        ['a', 'b', 'c'],
        'must have at most 2 items',
        'должно содержать не более 2 элементов',
      ],
      [
        z.enum(['openai', 'gemini']),
        'x',
        'must be one of "openai", "gemini"',
        'должно быть одним из: "openai", "gemini"',
      ],
      [z.url(), 'not a url', 'is not a valid web address', 'не является допустимым веб-адресом'],
      [
        z.strictObject({ a: z.number() }),
        { a: 1, b: 2 },
        'has an unknown key: "b"',
        'содержит неизвестный ключ: "b"',
      ],
    ];
    for (const [schema, value, english, russian] of cases) {
      const message = issueOf(schema, value);
      expect(englishRef(message)).toBe(english);
      expect(words(ru, message)).toBe(russian);
      expect(words(ja, message)).not.toMatch(/must|valid|unknown/u);
    }
  });

  it('keeps a refinement’s own words', () => {
    const message = issueOf(
      z.string().refine((s) => s.includes('{'), 'needs a placeholder'),
      'plain',
    );
    expect(englishRef(message)).toBe('needs a placeholder');
  });
});

describe('where the page shows a schema’s complaint', () => {
  it('the instructions JSON names the item and the problem in the reader’s language', () => {
    const parse = parseInstructions('[{"name": "Decision", "instruction": 3}]');
    expect(parse.problems).toHaveLength(1);
    const message = parse.problemRefs[0]!;
    expect(parse.problems[0]).toBe('Instructions JSON: item 0.instruction must be text.');
    expect(englishRef(message)).toBe(parse.problems[0]);
    expect(words(ru, message)).toContain('должно быть текстом');
  });

  it('a broken run export is refused with a message, not zod’s English', () => {
    const refusal = (text: string) => {
      try {
        parseRunExport(text);
      } catch (error) {
        expect(error).toBeInstanceOf(SaidError);
        return (error as SaidError).said;
      }
      throw new Error('expected a refusal');
    };
    expect(words(ru, refusal('not json'))).toMatch(/^Этот файл не в формате JSON/u);
    expect(words(ja, refusal('{"format":"other"}'))).toContain('SumLens');
    const invalid = refusal('{"format":"sumlens-run"}');
    expect(englishRef(invalid)).toMatch(/^This run export cannot be imported: \S+ must be/u);
    expect(words(ru, invalid)).toMatch(/^Этот экспорт запуска нельзя импортировать: \S+ должно/u);
  });
});

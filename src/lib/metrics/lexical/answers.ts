/**
 * Answers as TinyEval/LongBench prediction files hold them, and the rule that scores a
 * prediction against several of them: the best answer counts (SQuAD; TinyEval's published
 * numbers, see shared/data/reference/tinyeval_repro.json, where upstream eval.py passes the whole
 * list and scores 0).
 */

/** Score against several acceptable answers: the best one counts (TinyEval, SQuAD). */
export function maxOverAnswers(
  prediction: string,
  answers: readonly string[],
  score: (prediction: string, answer: string) => number,
): { score: number; perAnswer: number[] } {
  const perAnswer = answers.map((a) => score(prediction, a));
  return { score: perAnswer.length ? Math.max(...perAnswer) : 0, perAnswer };
}

/**
 * Answers as stored in prediction files: normally a list of strings, sometimes a whole list
 * serialised as one string ("['a', 'b']" from Python's str(list), or JSON). Anything else is
 * kept as a single answer.
 */
export function parseAnswers(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => parseAnswers(v));
  if (typeof value !== 'string')
    return value === null || value === undefined ? [] : [String(value)];
  const trimmed = value.trim();
  if (trimmed.startsWith('[') && trimmed.endsWith(']')) {
    const parsed = parseListLiteral(trimmed);
    if (parsed) return parsed;
  }
  return [value];
}

/** A JSON array or a Python list literal of string literals; null when it is neither. */
function parseListLiteral(text: string): string[] | null {
  try {
    const json: unknown = JSON.parse(text);
    if (Array.isArray(json) && json.every((v) => typeof v === 'string')) return json as string[];
  } catch {
    // Not JSON; try Python's repr below.
  }
  const items: string[] = [];
  const re = /\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*(,|\])/gsy;
  re.lastIndex = 1;
  if (/^\[\s*\]$/.test(text)) return [];
  for (;;) {
    const m = re.exec(text);
    if (!m) return null;
    items.push(unescapePython(m[1] ?? m[2]));
    if (m[3] === ']') return re.lastIndex === text.length ? items : null;
  }
}

function unescapePython(s: string): string {
  return s.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|.)/gs, (_, e: string) => {
    switch (e[0]) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case 'x':
      case 'u':
      case 'U':
        return e.length > 1 ? String.fromCodePoint(parseInt(e.slice(1), 16)) : e;
      default:
        return e;
    }
  });
}

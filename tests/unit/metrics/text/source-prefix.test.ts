import { describe, expect, it } from 'vitest';
import { computeMetrics } from '../../../../src/lib/metrics/offline.ts';
import { DEFAULT_SETTINGS } from '../../../../src/lib/metrics/settings.ts';
import type { MetricResult } from '../../../../src/lib/metrics/types.ts';
import {
  LEXICAL_SOURCE_CHARS,
  sourcePrefix,
  sourcePrefixNote,
} from '../../../../src/lib/metrics/text/source-prefix.ts';
import { SOURCE_SENTENCE_CAP } from '../../../../src/lib/metrics/semantic/source-sentences.ts';
import { loadGloveEmbedder } from '../../../../src/lib/node/load-glove.ts';
import { readDevRows } from '../../../../src/lib/node/validity/summeval.ts';

describe('sourcePrefix', () => {
  it('keeps a source within the limit whole and says nothing', () => {
    expect(sourcePrefix('A short source.', 100)).toEqual({
      text: 'A short source.',
      truncated: false,
    });
    expect(sourcePrefixNote(sourcePrefix('A short source.', 100))).toBeUndefined();
  });

  it('cuts a longer source at the last whitespace before the limit, never inside a word', () => {
    const prefix = sourcePrefix('alpha beta gamma delta', 13);
    expect(prefix).toEqual({ text: 'alpha beta', truncated: true });
  });
});

describe('a 300,000-word source', () => {
  const dev = readDevRows();
  let source = '';
  for (let i = 0; source.split(/\s+/u).length < 300_000; i++)
    source += dev[(i * 12) % 600].text + '\n';

  it('is compared by the lexical source metrics on its first characters, and the results say so; the encoder metrics embed only the first sentences', async () => {
    const results: MetricResult[] = [];
    const embedded: number[] = [];
    const glove = loadGloveEmbedder();
    await computeMetrics(
      ['extractiveness', 'source-coverage', 'quality-offline', 'support'],
      { source, summary: dev[0].decoded, reference: '' },
      DEFAULT_SETTINGS,
      {
        embedder: async () => ({
          backend: glove.backend,
          embed: (sentences: readonly string[], signal?: AbortSignal) => {
            embedded.push(sentences.length);
            return glove.embed(sentences, signal);
          },
        }),
      },
      (r) => results.push(r),
    );
    for (const id of ['extractiveness', 'source-coverage', 'quality-offline']) {
      const result = results.find((r) => r.id === id)!;
      expect(result.status).toBe('ok');
      expect(result.notes?.join(' ')).toMatch(
        new RegExp(`longer than ${LEXICAL_SOURCE_CHARS.toLocaleString('en')} characters`, 'u'),
      );
    }
    expect(results.find((r) => r.id === 'support')?.status).toBe('ok');
    expect(Math.max(...embedded)).toBe(SOURCE_SENTENCE_CAP);
  }, 120_000);
});

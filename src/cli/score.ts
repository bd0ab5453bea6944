/**
 * `npm run score -- FILE.jsonl [--out FILE] [--no-stemmer] [--lsum-sentences] [--metrics id,id]`
 *
 * Scores rows `{source, summary, reference?}` with the same metric modules the browser runs and
 * writes one JSON line per row. A bad row gets an error line naming it; the others go on.
 */
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { computeMetrics } from '../lib/metrics/offline.ts';
import { DEFAULT_SETTINGS } from '../lib/metrics/settings.ts';
import { OFFLINE_METRIC_IDS } from '../lib/metrics/types.ts';
import type { MetricId, MetricResult } from '../lib/metrics/types.ts';
import { CompromiseRecognizer } from '../lib/metrics/semantic/compromise-ner.ts';
import { validateCase } from '../lib/input/validate-case.ts';
import { loadGloveEmbedder } from '../lib/node/load-glove.ts';
import { loadJiebaNode } from '../lib/metrics/lexical/jieba.ts';
import { lazy } from '../lib/lazy.ts';

const rowSchema = z.object({
  source: z.string({ error: 'is missing or not a string' }),
  summary: z.string({ error: 'is missing or not a string' }),
  reference: z.string().nullish(),
});

const USAGE =
  'usage: npm run score -- FILE.jsonl [--out FILE] [--no-stemmer] [--lsum-sentences] [--metrics id,id]';

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      'no-stemmer': { type: 'boolean', default: false },
      'lsum-sentences': { type: 'boolean', default: false },
      metrics: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help || positionals.length !== 1) {
    console.error(USAGE);
    return values.help ? 0 : 2;
  }
  const file = positionals[0]!;
  if (file !== '-' && !existsSync(file)) {
    console.error(`No such file: ${file}`);
    return 2;
  }
  // The offline metrics: the LLM judge runs in the page with the user's key, not from this CLI.
  const known = new Set<string>(OFFLINE_METRIC_IDS);
  const ids = (values.metrics?.split(',').map((s) => s.trim()) ?? [...known]) as MetricId[];
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    console.error(`Unknown metric id(s): ${unknown.join(', ')}. Known: ${[...known].join(', ')}`);
    return 2;
  }
  const settings = {
    ...DEFAULT_SETTINGS,
    rouge: {
      useStemmer: !values['no-stemmer'],
      lsumSplitSentences: values['lsum-sentences'] ?? false,
      tokenizer: DEFAULT_SETTINGS.rouge.tokenizer,
    },
  };
  const backends = {
    embedder: lazy(async () => loadGloveEmbedder()),
    recognizer: lazy(async () => new CompromiseRecognizer()),
    wordSegmenter: lazy(async () => loadJiebaNode()),
  };
  const out = values.out ? createWriteStream(values.out) : process.stdout;
  const input = file === '-' ? process.stdin : createReadStream(file, 'utf8');
  const lines = createInterface({ input, crlfDelay: Infinity });

  let row = 0;
  let scored = 0;
  let failedRows = 0;
  for await (const line of lines) {
    row++;
    if (!line.trim()) continue;
    const write = (record: object) => out.write(JSON.stringify({ row, ...record }) + '\n');
    let parsedJson: unknown;
    try {
      parsedJson = JSON.parse(line);
    } catch (error) {
      failedRows++;
      write({ error: `row ${row}: not valid JSON (${(error as Error).message})` });
      continue;
    }
    const parsed = rowSchema.safeParse(parsedJson);
    if (!parsed.success) {
      failedRows++;
      const issue = parsed.error.issues[0];
      write({
        error: `row ${row}: ${issue?.path.join('.') || 'row'} ${issue?.message ?? ''}`.trim(),
      });
      continue;
    }
    const caseInput = {
      source: parsed.data.source,
      summary: parsed.data.summary,
      ...(parsed.data.reference ? { reference: parsed.data.reference } : {}),
    };
    const blocking = validateCase(caseInput).filter((p) => p.blocking);
    if (blocking.length > 0) {
      failedRows++;
      write({ error: `row ${row}: ${blocking.map((p) => p.message).join(' ')}` });
      continue;
    }
    const results: MetricResult[] = [];
    await computeMetrics(ids, caseInput, settings, backends, (r) => results.push(r));
    const metrics: Record<string, object> = {};
    for (const r of results) {
      metrics[r.id] = {
        score: r.score,
        ...(r.raw === undefined ? {} : { raw: r.raw }),
        status: r.status,
        backend: r.backend,
        ...(r.reason ? { reason: r.reason } : {}),
      };
    }
    write({ metrics });
    scored++;
  }
  if (out !== process.stdout) await new Promise<void>((resolve) => out.end(resolve));
  console.error(`scored ${scored} row(s), ${failedRows} bad row(s)`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);

/**
 * Shards end to end (issue 30, part 3): 36 SummEval dev rows and a broken line, scored once whole
 * and once as three shards merged, must give the same --out, byte for byte, and the same summary,
 * assertions included; case rows without ids split by "row N" and merge the same way. Every set of
 * files that is not the N shards of one run is refused by merge with a line that says why, and
 * nothing is written.
 */
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { readDevRows } from '../../../src/lib/node/validity/summeval.ts';
import { shardOfId, type ShardRecord } from '../../../src/cli/shard.ts';
import { runMerge } from '../../../src/cli/merge.ts';
import { casesFile, jsonLines, runCli, tempDir, type CliResult } from './_cli.ts';

const METRICS = ['--metrics', 'rouge-1,rouge-l,bleu,token-f1'];
const CHECKS = ['--assert', 'rouge-1:0.4'];

const read = (file: string) => readFileSync(file, 'utf8');
const sortedLines = (file: string) => read(file).split('\n').filter(Boolean).sort();
const record = (out: string) => JSON.parse(read(`${out}.shard.json`)) as ShardRecord;

/** runMerge in this process: its stderr lines and exit status. */
async function merge(args: string[]): Promise<{ status: number; stderr: string }> {
  const lines: string[] = [];
  const spy = vi.spyOn(console, 'error').mockImplementation((...parts: unknown[]) => {
    lines.push(parts.join(' '));
  });
  try {
    return { status: await runMerge(args), stderr: lines.join('\n') };
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => vi.restoreAllMocks());

describe('npm run score --shard I/N, then merge', () => {
  const dir = tempDir('shard');
  const input = join(dir, 'summeval.jsonl');
  const wholeOut = join(dir, 'whole.jsonl');
  const wholeSummary = join(dir, 'whole.summary.json');
  const shardOut = (i: number, name = 'shard') => join(dir, `${name}.${i}.jsonl`);
  const outs = [1, 2, 3].map((i) => shardOut(i));
  const mergedOut = join(dir, 'merged.jsonl');
  const mergedSummary = join(dir, 'merged.summary.json');
  let whole: CliResult;
  let shards: CliResult[];
  let merged: CliResult;

  beforeAll(async () => {
    const lines = readDevRows(3).map((row) => JSON.stringify(row));
    expect(lines).toHaveLength(36);
    // Row 10 cannot be read: a {row, error} line, counted as a bad row by the shard that owns it.
    lines.splice(9, 0, '{"id": "broken"');
    writeFileSync(input, lines.join('\n') + '\n');
    // The same rows with one summary changed: another input.
    const other = join(dir, 'other.jsonl');
    writeFileSync(other, lines.join('\n').replace('"decoded":"', '"decoded":"Changed. ') + '\n');
    [whole, ...shards] = await Promise.all([
      runCli([input, ...METRICS, ...CHECKS, '--out', wholeOut, '--summary-json', wholeSummary]),
      ...outs.map((out, i) =>
        runCli([input, ...METRICS, ...CHECKS, '--shard', `${i + 1}/3`, '--out', out]),
      ),
      runCli([other, ...METRICS, '--shard', '2/3', '--out', shardOut(2, 'other')]),
      runCli([input, ...METRICS, '--no-stemmer', '--shard', '2/3', '--out', shardOut(2, 'stem')]),
      runCli([input, ...METRICS, '--shard', '2/4', '--out', shardOut(2, 'four')]),
    ]);
    merged = await runCli([
      'merge',
      ...outs,
      ...CHECKS,
      '--out',
      mergedOut,
      '--summary-json',
      mergedSummary,
    ]);
  }, 180_000);

  it('merges into the output of one run over the whole file, byte for byte', () => {
    expect(merged.stderr).toContain(`Merged 3 shard(s) of ${input} into ${mergedOut}.`);
    expect(sortedLines(mergedOut)).toEqual(sortedLines(wholeOut));
    // In file order too, as a run writes them.
    expect(read(mergedOut)).toBe(read(wholeOut));
    expect(jsonLines(read(mergedOut))).toHaveLength(37);
    expect(jsonLines(read(mergedOut))[9]).toMatchObject({ row: 10, error: expect.any(String) });
  });

  it('recomputes the summary, assertions included, as the whole run computed it', () => {
    expect(JSON.parse(read(mergedSummary))).toEqual(JSON.parse(read(wholeSummary)));
    expect(read(mergedSummary)).toBe(read(wholeSummary));
    const summary = JSON.parse(read(mergedSummary)) as {
      rows: number;
      badRows: number;
      assertions: { rows: number };
    };
    expect(summary).toMatchObject({ rows: 36, badRows: 1, assertions: { rows: 36 } });
    // A bad row and rows below the ROUGE-1 floor fail the run, whole or merged.
    expect(whole.status).toBe(1);
    expect(merged.status).toBe(whole.status);
  });

  it('gives each row to the shard its id names, once', () => {
    const seen = new Set<number>();
    outs.forEach((out, i) => {
      for (const line of jsonLines(read(out))) {
        const row = line.row as number;
        const id = typeof line.id === 'string' ? line.id : `row ${row}`;
        expect(shardOfId(id, 3)).toBe(i + 1);
        expect(seen.has(row)).toBe(false);
        seen.add(row);
      }
    });
    expect(seen.size).toBe(37);
    // Every shard went through its rows; some of each fail the ROUGE-1 floor.
    expect(shards.slice(0, 3).map((s) => s.status)).toEqual([1, 1, 1]);
  });

  it('leaves beside each output what the merge checks', () => {
    const r = record(outs[0]!);
    expect(r).toMatchObject({
      format: 'sumlens-shard',
      version: 1,
      shard: { index: 1, count: 3 },
      input: {
        file: input,
        sha256: createHash('sha256').update(readFileSync(input)).digest('hex'),
        bytes: readFileSync(input).length,
      },
      scoring: { metrics: ['rouge-1', 'rouge-l', 'bleu', 'token-f1'] },
      counts: { lines: jsonLines(read(outs[0]!)).length },
      summary: { format: 'jsonl', kind: 'summeval' },
      out: { sha256: createHash('sha256').update(readFileSync(outs[0]!)).digest('hex') },
    });
    expect(record(outs[1]!).scoring).toEqual(r.scoring);
  });

  it("writes the rows' assertions from the merge's own checks", async () => {
    const plain = join(dir, 'plain.jsonl');
    const result = await merge([...outs, '--out', plain]);
    expect(result.stderr).toContain(
      'The shards checked assertions on their rows; the merge was given none',
    );
    const lines = jsonLines(read(plain));
    expect(lines.some((l) => 'assertions' in l)).toBe(false);
    const asserted = jsonLines(read(mergedOut));
    expect(lines).toEqual(asserted.map(({ assertions: _, ...rest }) => rest));
  });

  describe('refuses, writing nothing', () => {
    const refusedOut = join(dir, 'refused.jsonl');
    const refused = async (args: string[], message: string) => {
      const result = await merge([...args, '--out', refusedOut]);
      expect(result.stderr).toBe(message);
      expect(result.status).toBe(2);
      expect(existsSync(refusedOut)).toBe(false);
    };
    const [one, two, three] = outs as [string, string, string];

    it('shards of another input', async () => {
      const sha = (file: string) =>
        createHash('sha256').update(readFileSync(file)).digest('hex').slice(0, 12);
      const other = join(dir, 'other.jsonl');
      await refused(
        [one, shardOut(2, 'other'), three],
        `${shardOut(2, 'other')} is a shard of another input than ${one}: ${other} (${readFileSync(other).length} bytes, SHA-256 ${sha(other)}…) vs ${input} (${readFileSync(input).length} bytes, SHA-256 ${sha(input)}…).`,
      );
    });

    it('a shard scored with other options, naming them', async () => {
      await refused(
        [one, shardOut(2, 'stem'), three],
        `${shardOut(2, 'stem')} was scored with other options than ${one}: settings.rouge.useStemmer true vs false.`,
      );
    });

    it('a shard of another N', async () => {
      await refused(
        [one, shardOut(2, 'four'), three],
        `${shardOut(2, 'four')} is shard 2/4 but ${one} is shard 1/3: the shards of one run are split into the same N.`,
      );
    });

    it('missing shards, listed', async () => {
      await refused([three], `Missing shard(s) 1/3, 2/3 of ${input}: a merge needs all 3.`);
      await refused([one, three], `Missing shard(s) 2/3 of ${input}: a merge needs all 3.`);
    });

    it('the same shard twice', async () => {
      await refused([one, two, three, two], `${two} is given twice: give each shard once.`);
      const copy = join(dir, 'copy.jsonl');
      copyFileSync(two, copy);
      copyFileSync(`${two}.shard.json`, `${copy}.shard.json`);
      await refused(
        [one, two, three, copy],
        `${two} and ${copy} are both shard 2/3: give each shard once.`,
      );
    });

    it('a file that is not a shard output', async () => {
      await refused(
        [one, two, three, wholeOut],
        `${wholeOut} is not a shard's output: ${wholeOut}.shard.json is missing (npm run score -- FILE --shard I/N --out ${wholeOut} writes it).`,
      );
      await refused(
        [one, `${two}.shard.json`, three],
        `${two}.shard.json is a shard's record: give its --out file, ${two}.`,
      );
      const notJson = join(dir, 'not-json.jsonl');
      writeFileSync(notJson, '');
      writeFileSync(`${notJson}.shard.json`, '{"format": "sumlens-run"}');
      await refused(
        [notJson],
        `${notJson}.shard.json is not a shard's record of this version of SumLens (format "sumlens-shard", version 1).`,
      );
    });

    it('an output changed since its shard run', async () => {
      const edited = join(dir, 'edited.jsonl');
      writeFileSync(edited, read(one).replace('"row":', '"row": '));
      copyFileSync(`${one}.shard.json`, `${edited}.shard.json`);
      await refused(
        [edited, two, three],
        `${edited} is not the output its shard run wrote (its SHA-256 differs from the one in ${edited}.shard.json): run shard 1/3 again.`,
      );
    });

    it('an --out that is one of the shards', async () => {
      const result = await merge([one, two, three, '--out', two]);
      expect(result.stderr).toBe(
        `${two} is one of the shards being merged: write the merged results elsewhere.`,
      );
      expect(result.status).toBe(2);
    });

    it('an assertion on a metric the shards did not score', async () => {
      await refused(
        [one, two, three, '--assert', 'rouge-2:0.2'],
        'The assertion "rouge-2 ≥ 0.2" needs rouge-2, which the shards did not score (they scored rouge-1, rouge-l, bleu, token-f1).',
      );
    });
  });
});

describe('case rows without ids', () => {
  it('split by "row N" and merge into the whole run', async () => {
    const dir = tempDir('shard-cases');
    const input = casesFile(dir, 12);
    const args = [input, '--metrics', 'repetition-offline,extractiveness'];
    const outs = [1, 2].map((i) => join(dir, `out.${i}.jsonl`));
    const [whole, ...shards] = await Promise.all([
      runCli([...args, '--out', join(dir, 'whole.jsonl')]),
      ...outs.map((out, i) => runCli([...args, '--shard', `${i + 1}/2`, '--out', out])),
    ]);
    expect([whole.status, ...shards.map((s) => s.status)]).toEqual([0, 0, 0]);
    outs.forEach((out, i) => {
      for (const line of jsonLines(read(out))) {
        expect(line.id).toBeUndefined();
        expect(shardOfId(`row ${line.row as number}`, 2)).toBe(i + 1);
      }
    });
    const result = await merge([...outs, '--out', join(dir, 'merged.jsonl')]);
    expect(result.status).toBe(0);
    expect(read(join(dir, 'merged.jsonl'))).toBe(read(join(dir, 'whole.jsonl')));
  }, 120_000);
});

describe('shards of the sentence-encoder metrics', () => {
  it('merge into the whole run byte for byte, although each shard embeds its sources anew', async () => {
    const dir = tempDir('shard-encoder');
    const input = join(dir, 'summeval.jsonl');
    // 2 articles × 12 summaries: every shard holds rows of both sources, so each shard embeds a
    // source beside other summaries than the whole run did. One sentence per graph run keeps the
    // vectors, and so the scores, the same bits.
    writeFileSync(
      input,
      readDevRows(2)
        .map((row) => JSON.stringify(row))
        .join('\n') + '\n',
    );
    const args = [input, '--metrics', 'coherence,support,redundancy,source-order'];
    // each run its own vector cache: nothing is shared between them but the model
    const run = (name: string, extra: string[]) =>
      runCli([
        ...args,
        ...extra,
        '--vector-cache',
        join(dir, `cache-${name}`),
        '--out',
        join(dir, `${name}.jsonl`),
      ]);
    const [whole, one, two] = await Promise.all([
      run('whole', []),
      run('s1', ['--shard', '1/2']),
      run('s2', ['--shard', '2/2']),
    ]);
    expect([whole.status, one.status, two.status]).toEqual([0, 0, 0]);
    const result = await merge([
      join(dir, 's1.jsonl'),
      join(dir, 's2.jsonl'),
      '--out',
      join(dir, 'merged.jsonl'),
    ]);
    expect(result.status).toBe(0);
    const lines = jsonLines(read(join(dir, 'whole.jsonl')));
    expect(lines).toHaveLength(24);
    expect(JSON.stringify(lines[0])).toMatch(/use-lite int8 · /u);
    expect(read(join(dir, 'merged.jsonl'))).toBe(read(join(dir, 'whole.jsonl')));
  }, 240_000);
});

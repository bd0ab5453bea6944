/**
 * A 50 MB JSONL file, generated here in a temp dir, streams through the parser in 1 MB chunks
 * with memory bounded by a chunk and a batch, not by the file: rows are counted and dropped, and
 * the heap must not grow by anything near the file's size.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createReadStream, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatasetParser } from '../../../src/lib/datasets/parse/parser.ts';

const dir = mkdtempSync(join(tmpdir(), 'sumlens-large-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TARGET_BYTES = 50 * 1024 * 1024;

function writeLargeJsonl(path: string): { rows: number; bad: number } {
  const words = 'the council approved a new park in leeds on monday and it will open in 2027'.split(
    ' ',
  );
  const parts: string[] = [];
  let bytes = 0;
  let rows = 0;
  let bad = 0;
  while (bytes < TARGET_BYTES) {
    rows++;
    let line: string;
    if (rows % 10_000 === 0) {
      line = '{"source": "a broken row';
      bad++;
    } else {
      const source = Array.from({ length: 160 }, (_, i) => words[(rows + i) % words.length]).join(
        ' ',
      );
      line = JSON.stringify({
        id: `r${rows}`,
        source,
        summary: source.slice(0, 200),
        reference: source.slice(100, 300),
        rating: rows % 5,
      });
    }
    parts.push(line);
    bytes += line.length + 1;
  }
  writeFileSync(path, parts.join('\n') + '\n');
  return { rows, bad };
}

describe('a 50 MB JSONL file', () => {
  it('streams in 1 MB chunks: every row counted, bad rows named, the heap stays small', async () => {
    const path = join(dir, 'large.jsonl');
    const expected = writeLargeJsonl(path);
    const size = statSync(path).size;
    expect(size).toBeGreaterThanOrEqual(TARGET_BYTES);

    const parser = new DatasetParser({ fileName: 'large.jsonl', totalBytes: size });
    let rows = 0;
    const problems: number[] = [];
    let lastId = '';
    const baseline = process.memoryUsage().heapUsed;
    let peak = 0;
    const take = (batch: { rows: { id?: string }[]; problems: { row: number }[] }) => {
      rows += batch.rows.length;
      if (batch.rows.length > 0) lastId = batch.rows[batch.rows.length - 1]!.id ?? '';
      for (const p of batch.problems) problems.push(p.row);
    };
    for await (const chunk of createReadStream(path, { highWaterMark: 1024 * 1024 })) {
      take(parser.push(chunk as Buffer));
      peak = Math.max(peak, process.memoryUsage().heapUsed - baseline);
    }
    const last = parser.end();
    take(last);

    expect(rows + problems.length).toBe(expected.rows);
    expect(problems).toHaveLength(expected.bad);
    expect(problems.every((row) => row % 10_000 === 0)).toBe(true);
    expect(lastId).toBe(`r${expected.rows - (expected.rows % 10_000 === 0 ? 1 : 0)}`);
    expect(last.summary).toMatchObject({ rows, problems: expected.bad, bytes: size });
    expect(last.summary.detected.description).toMatch(/^Cases \(source, summary, reference\): /u);
    // Holding the file's rows would take well over its 50 MB; the parser keeps a chunk and a row.
    expect(peak).toBeLessThan(size);
  }, 120_000);
});

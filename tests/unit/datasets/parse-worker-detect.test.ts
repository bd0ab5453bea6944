/**
 * The parse worker's `detect` job with a fake worker scope: it reads only the first records of a
 * large file, answers with the detection and a sample even when the proposed mapping cannot work,
 * reads a small file whole for its row count, reports a file with no readable row, reads UTF-16,
 * refuses a binary file before any sample, and is validated and cancelled like `parse`.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sharedPath } from '../../helpers/shared.ts';
import { isCancelled } from '../../../src/lib/workers/rpc.ts';
import { chunkedBlob, detectSample, endlessBlob, parseWorker } from './_parse-worker.ts';
import { DETECT_SAMPLE } from '../../../src/lib/datasets/detect/dataset.ts';
import { PREVIEW_CHARS } from '../../../src/lib/datasets/mapping/sample.ts';

const dev = new Uint8Array(readFileSync(sharedPath('data/summeval/dev.jsonl')));

describe('dataset-parse worker: detect', () => {
  it('reads only the first records of a large file and sends the detection with a sample', async () => {
    const { blob, pulled } = chunkedBlob(dev, 64 * 1024);
    const reply = await detectSample({ file: blob, fileName: 'dev.jsonl' });
    expect(pulled.bytes).toBeLessThan(dev.byteLength / 4);
    expect(reply.detected).toMatchObject({ kind: 'summeval', confidence: 1, mappingProblems: [] });
    const { sample } = reply;
    expect(sample.fileRecords).toBeUndefined();
    expect(sample.records).toBe(DETECT_SAMPLE);
    expect(sample.preview.map((p) => p.row)).toEqual([1, 2, 3]);
    const text = sample.preview[0]!.record.text as string;
    expect(text.length).toBe(PREVIEW_CHARS + 1);
    expect(text.endsWith('…')).toBe(true);
    expect(sample.profiles.decoded).toEqual({ filled: 50, numeric: 0, structured: 0 });
    expect(sample.proposals.summeval).toEqual(reply.detected.mapping);
    expect(structuredClone(reply)).toEqual(reply);
  });

  it('a file read whole in its first chunk is counted, while the checks keep to the sample', async () => {
    const reply = await detectSample({ file: new Blob([dev]), fileName: 'dev.jsonl' });
    expect(reply.sample).toMatchObject({ records: DETECT_SAMPLE, fileRecords: 600 });
    expect(reply.sample.profiles.text!.filled).toBe(DETECT_SAMPLE);
    expect(reply.detected.description).toMatch(/^SummEval records: 600 rows/u);
    // The page words the description in the reader's language from its ref.
    expect(reply.detected.descriptionRef).toMatchObject({ key: expect.any(String) });
  });

  it('answers for a file whose columns cannot be mapped, read whole with its row count', async () => {
    const csv = [
      'article_body,model_output,gold_summary,grader_a',
      '"The council approved a park, on Monday.",A park was approved.,The council approved a park.,4',
      'Rain closed the road.,A road closed.,Rain shut the road.,3',
      '"broken,row',
    ].join('\n');
    const reply = await detectSample({ file: new Blob([csv]), fileName: 'ratings.csv' });
    expect(reply.detected).toMatchObject({ format: 'csv', kind: 'case', confidence: 0 });
    expect(reply.detected.mappingProblems.length).toBeGreaterThan(0);
    expect(reply.detected.columns).toEqual([
      'article_body',
      'model_output',
      'gold_summary',
      'grader_a',
    ]);
    expect(reply.sample).toMatchObject({ fileRecords: 2, records: 2 });
    expect(reply.sample.preview.map((p) => p.row)).toEqual([2, 3]);
    expect(reply.sample.preview[0]!.record.article_body).toBe(
      'The council approved a park, on Monday.',
    );
    expect(reply.sample.profiles.grader_a).toEqual({ filled: 2, numeric: 2, structured: 0 });
  });

  it('a file without a readable row gives an empty sample with its bad rows', async () => {
    const reply = await detectSample({ file: new Blob(['{"a": 1\n{"b":\n']), fileName: 'x.jsonl' });
    expect(reply.sample.records).toBe(0);
    expect(reply.sample.problems.map((p) => p.row)).toEqual([1, 2]);
    expect(reply.sample.problems[0]!.reason).toMatch(/^row 1: not valid JSON/u);
  });

  it('a UTF-16 file is detected and previewed as its text, split mid code unit', async () => {
    const csv = 'source,summary\r\nDie Größe des Parks.,Größe 😀\r\n北京市的公园。,公园。\r\n';
    const bytes = new Uint8Array(Buffer.from('\ufeff' + csv, 'utf16le'));
    const { blob } = chunkedBlob(bytes, 7);
    const reply = await detectSample({ file: blob, fileName: 'cases.csv' });
    expect(reply.detected).toMatchObject({ kind: 'case', format: 'csv', encoding: 'UTF-16LE' });
    expect(reply.detected.columns).toEqual(['source', 'summary']);
    expect(reply.sample.preview.map((p) => p.record)).toEqual([
      { source: 'Die Größe des Parks.', summary: 'Größe 😀' },
      { source: '北京市的公园。', summary: '公园。' },
    ]);
  });

  it('a PNG renamed .jsonl is an error naming it binary, with no sample, and reading stops', async () => {
    const png = new Uint8Array(1024 * 1024);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const { blob, pulled } = chunkedBlob(png, 64 * 1024);
    const { client, replies } = parseWorker();
    await expect(client.call('detect', { file: blob, fileName: 'photo.jsonl' })).rejects.toThrow(
      'photo.jsonl is a binary file (it looks like a PNG image), not text: SumLens reads JSONL, JSON or CSV.',
    );
    expect(replies.map((r) => (r as { kind: string }).kind)).toEqual(['error']);
    expect(pulled.bytes).toBeLessThanOrEqual(2 * 64 * 1024);
  });

  it('rejects a malformed detect request, and cancels one by id', async () => {
    const { client } = parseWorker();
    await expect(client.call('detect', { file: new Blob(['']), maxRowChars: 0 })).rejects.toThrow(
      /^Malformed request to the file reader worker \(detect\): maxRowChars/u,
    );

    // Lines that are never records: detection never has its sample, so only cancel ends it.
    const { blob } = endlessBlob('{not json}\n');
    const controller = new AbortController();
    let progressed = false;
    const job = client.call(
      'detect',
      { file: blob },
      { signal: controller.signal, onProgress: () => (progressed = true) },
    );
    while (!progressed) await new Promise((r) => setTimeout(r, 1));
    controller.abort();
    await expect(job).rejects.toSatisfy(isCancelled);
  });
});

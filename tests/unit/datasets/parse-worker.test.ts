/**
 * The parse worker's protocol with a fake worker scope: a Blob streamed in, progress, one
 * detection, rows in batches, bad rows, done; errors with the detection when nothing can map;
 * UTF-16 read to the same rows as UTF-8; a binary file refused with no rows; malformed requests;
 * cancel by id.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { sharedPath } from '../../helpers/shared.ts';
import { chunkedBlob, fakeParseScope } from './_parse-worker.ts';

const dev = readFileSync(sharedPath('data/summeval/dev.jsonl'));

describe('dataset-parse worker', () => {
  it('streams a file: progress, detected, rows in batches, done with the summary', async () => {
    const { replies, send, until } = fakeParseScope();
    const file = new Blob([dev]);
    send({ type: 'parse', id: 'j1', file, fileName: 'dev.jsonl', batchSize: 250 });
    await until((r) => r.type === 'done' || r.type === 'error');
    const types = replies.map((r) => r.type);
    expect(types.filter((t) => t === 'detected')).toHaveLength(1);
    expect(types.indexOf('detected')).toBeLessThan(types.indexOf('rows'));
    const batches = replies.filter((r) => r.type === 'rows');
    expect(batches.map((b) => b.rows.length)).toEqual([250, 250, 100]);
    expect(batches.flatMap((b) => b.rows).map((r) => r.row)).toEqual(
      Array.from({ length: 600 }, (_, i) => i + 1),
    );
    const progress = replies.filter((r) => r.type === 'progress');
    expect(progress.at(-1)).toEqual({
      type: 'progress',
      id: 'j1',
      bytes: dev.byteLength,
      total: dev.byteLength,
    });
    const done = replies.at(-1)!;
    expect(done).toMatchObject({
      type: 'done',
      id: 'j1',
      cancelled: false,
      summary: { rows: 600, problems: 0 },
    });
    // Replies are plain data: they survive structured cloning.
    expect(structuredClone(batches[0])).toEqual(batches[0]);
  });

  it('bad rows arrive as problems; a file that cannot be mapped is an error with the detection', async () => {
    const { replies, send, until } = fakeParseScope();
    const text = '{"source":"S.","summary":"A."}\nnot json\n{"source":"S.","summary":"B."}\n';
    send({ type: 'parse', id: 'j2', file: new Blob([text]) });
    await until((r) => r.type === 'done');
    expect(replies.filter((r) => r.type === 'problems').flatMap((r) => r.problems)).toEqual([
      { row: 2, reason: expect.stringMatching(/^row 2: not valid JSON/u) },
    ]);

    send({ type: 'parse', id: 'j3', file: new Blob(['{"question":"Q?"}\n']) });
    await until((r) => r.type === 'error' && r.id === 'j3');
    const error = replies.find((r) => r.type === 'error' && r.id === 'j3');
    expect(error).toMatchObject({ detected: { columns: ['question'], confidence: 0 } });

    // The same file with a mapping from the user loads.
    send({
      type: 'parse',
      id: 'j4',
      file: new Blob(['{"question":"Q?","reply":"R."}\n']),
      mapping: { kind: 'case', source: 'question', summary: 'reply' },
    });
    await until((r) => r.type === 'done' && r.id === 'j4');
    expect(replies.flatMap((r) => (r.type === 'rows' && r.id === 'j4' ? r.rows : []))).toHaveLength(
      1,
    );
  });

  it('a UTF-16BE copy of dev.jsonl loads the same 600 rows, its summary naming UTF-16BE', async () => {
    const rowsOf = async (id: string, file: Blob) => {
      const { replies, send, until } = fakeParseScope();
      send({ type: 'parse', id, file, fileName: 'dev.jsonl' });
      const end = await until((r) => r.type === 'done' || r.type === 'error');
      return { end, rows: replies.flatMap((r) => (r.type === 'rows' ? r.rows : [])) };
    };
    const be = new Uint8Array(Buffer.from('\ufeff' + dev.toString('utf8'), 'utf16le').swap16());
    // 64 KB + 1: every chunk after the first starts in the middle of a code unit.
    const utf16 = await rowsOf('u16', chunkedBlob(be, 64 * 1024 + 1).blob);
    const utf8 = await rowsOf('u8', new Blob([dev]));
    expect(utf16.end).toMatchObject({
      type: 'done',
      summary: { rows: 600, problems: 0, encoding: 'UTF-16BE', bytes: be.byteLength },
    });
    expect(utf8.end).toMatchObject({ type: 'done', summary: { encoding: 'UTF-8' } });
    expect(utf16.rows).toEqual(utf8.rows);
  });

  it('a PNG renamed .jsonl is one error naming it binary: no detection, no rows', async () => {
    const { replies, send, until } = fakeParseScope();
    const png = new Uint8Array(300 * 1024);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    png.fill(0x7b, 8); // "{{{…": text after the header must not make it a JSON file
    send({ type: 'parse', id: 'png', file: new Blob([png]), fileName: 'photo.jsonl' });
    await until((r) => r.type === 'error' || r.type === 'done');
    expect(replies).toEqual([
      {
        type: 'error',
        id: 'png',
        message:
          'photo.jsonl is a binary file (it looks like a PNG image), not text: SumLens reads JSONL, JSON or CSV.',
      },
    ]);
  });

  it('rejects a malformed request, and cancels a job by id', async () => {
    const { replies, send, until } = fakeParseScope();
    send({ type: 'parse', id: 'bad', file: 'not a blob' });
    expect(replies[0]).toMatchObject({ type: 'error', id: 'bad' });
    expect((replies[0] as { message: string }).message).toMatch(
      /^Malformed request to the parse worker: file/u,
    );

    // A stream that never ends unless cancelled.
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(
          new TextEncoder().encode('{"source":"S.","summary":"A."}\n'.repeat(100)),
        );
      },
    });
    const blob = new Blob(['']);
    Object.defineProperty(blob, 'stream', { value: () => endless });
    send({ type: 'parse', id: 'c1', file: blob });
    await until((r) => r.type === 'rows' && r.id === 'c1');
    send({ type: 'cancel', id: 'c1' });
    await until((r) => r.type === 'done' && r.id === 'c1');
    expect(replies.find((r) => r.type === 'done' && r.id === 'c1')).toEqual({
      type: 'done',
      id: 'c1',
      cancelled: true,
    });
    expect(pulls).toBeGreaterThan(0);
  });
});

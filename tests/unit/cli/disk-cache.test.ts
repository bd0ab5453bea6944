/**
 * The CLI's judge cache file and batch spool: answers read back from the file by their place in
 * it (memory holds the index, not the answers), the last line per key wins, a line cut off by a
 * killed run costs only that answer and the next one starts on a line of its own; a round's
 * requests wait in a spool file that holds each once and is gone once cleared.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  FileCapabilityStore,
  FileMissSpool,
  JsonlResponseCache,
} from '../../../src/cli/disk-cache.ts';
import type { JudgeResponse } from '../../../src/lib/llm/types.ts';

const answer = (text: string): JudgeResponse => ({
  provider: 'openai',
  model: 'gpt-4.1-mini',
  choices: [{ text, finishReason: 'stop' }],
  usage: { input: 10, output: 2 },
  calls: 1,
  fromCache: false,
});
const textOf = (response: JudgeResponse | undefined) => response?.choices[0]?.text;

describe('JsonlResponseCache', () => {
  it('reads answers back by their place in the file, in this process and the next', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sumlens-cache-')), 'judge', 'responses.jsonl');
    const cache = new JsonlResponseCache(file);
    // Multi-byte text: places are byte offsets, not string indices.
    const texts = Array.from(
      { length: 3_000 },
      (_, i) => `réponse ${i} — 答え ${'x'.repeat(i % 97)}`,
    );
    for (const [i, text] of texts.entries()) await cache.set(`k${i}`, answer(text));
    await cache.set('k7', answer('the last line wins'));
    await cache.delete('k8');
    expect(cache.size).toBe(2_999);
    expect(textOf(await cache.get('k2999'))).toBe(texts[2999]);
    expect(textOf(await cache.get('k7'))).toBe('the last line wins');
    expect(await cache.get('k8')).toBeUndefined();
    // A reader cannot change what is stored.
    const hit = (await cache.get('k1'))!;
    hit.choices[0]!.text = 'changed';
    expect(textOf(await cache.get('k1'))).toBe(texts[1]);
    cache.close();

    const again = new JsonlResponseCache(file);
    expect(again.size).toBe(2_999);
    for (const i of [0, 1, 500, 1234, 2998])
      expect(textOf(await again.get(`k${i}`))).toBe(texts[i]);
    expect(textOf(await again.get('k7'))).toBe('the last line wins');
    expect(await again.get('k8')).toBeUndefined();
    again.close();
  });

  it('a last line cut off by a killed run costs only that answer', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sumlens-cache-')), 'responses.jsonl');
    const cache = new JsonlResponseCache(file);
    await cache.set('whole', answer('kept'));
    cache.close();
    appendFileSync(file, '{"key":"cut","response":{"text":"half an ans');

    const reopened = new JsonlResponseCache(file);
    expect(reopened.size).toBe(1);
    expect(await reopened.get('cut')).toBeUndefined();
    await reopened.set('next', answer('after the cut'));
    reopened.close();

    const lines = readFileSync(file, 'utf8').split('\n');
    expect(JSON.parse(lines.at(-2)!)).toEqual({ key: 'next', response: answer('after the cut') });
    const third = new JsonlResponseCache(file);
    expect(textOf(await third.get('whole'))).toBe('kept');
    expect(textOf(await third.get('next'))).toBe('after the cut');
    third.close();
  });
});

describe('JsonlResponseCache shared by two runs', () => {
  it('each finds its own answers while the other appends to the same file', async () => {
    // The default cache serves every run started in a folder: two terminals, one file.
    const file = join(mkdtempSync(join(tmpdir(), 'sumlens-cache-')), 'responses.jsonl');
    const a = new JsonlResponseCache(file);
    const b = new JsonlResponseCache(file);
    for (let i = 0; i < 50; i++) {
      await a.set(`a${i}`, answer(`from a ${i} ${'x'.repeat(i)}`));
      await b.set(`b${i}`, answer(`from b ${i}`));
    }
    for (let i = 0; i < 50; i++) {
      expect(textOf(await a.get(`a${i}`))).toBe(`from a ${i} ${'x'.repeat(i)}`);
      expect(textOf(await b.get(`b${i}`))).toBe(`from b ${i}`);
    }
    // What the other run stored is a miss here (asked again), never another key's answer.
    expect(await a.get('b3')).toBeUndefined();
    a.close();
    b.close();
    const both = new JsonlResponseCache(file);
    expect(both.size).toBe(100);
    expect(textOf(await both.get('b49'))).toBe('from b 49');
    both.close();
  });
});

describe('FileCapabilityStore', () => {
  it('keeps the probe result beside the cache for the next run', async () => {
    const cacheFile = join(mkdtempSync(join(tmpdir(), 'sumlens-cache-')), 'judge', 'r.jsonl');
    const store = new FileCapabilityStore(cacheFile);
    expect(await store.get('openai|api.openai.com|gpt-4.1-mini')).toBeUndefined();
    const probed = {
      logprobs: true,
      maxTopLogprobs: 20,
      n: true,
      jsonSchema: true,
      temperature: 'any' as const,
      source: 'probe' as const,
    };
    await store.set('openai|api.openai.com|gpt-4.1-mini', probed);
    await store.set('gemini|x|y', { ...probed, logprobs: false, maxTopLogprobs: 0 });
    const next = new FileCapabilityStore(cacheFile);
    expect(await next.get('openai|api.openai.com|gpt-4.1-mini')).toEqual(probed);
    expect((await next.get('gemini|x|y'))?.logprobs).toBe(false);
    expect(store.file).toBe(join(dirname(cacheFile), 'capabilities.json'));
  });
});

describe('FileMissSpool', () => {
  it('holds each request once, in order, in a file that is gone once cleared', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-spool-'));
    const spool = new FileMissSpool(join(dir, 'responses.jsonl'));
    const lines = Array.from({ length: 1_000 }, (_, i) => ({
      customId: `sl-${i}`,
      body: {
        messages: [{ role: 'user', content: `Rate summary ${i}: « ${'é'.repeat(i % 7)} »` }],
      },
    }));
    for (const line of lines) spool.add(line);
    spool.add(lines[3]!);
    expect(spool.size).toBe(1_000);
    expect(spool.has('sl-999')).toBe(true);
    expect(spool.has('sl-1000')).toBe(false);
    expect(existsSync(spool.file)).toBe(true);
    const read = [];
    for await (const line of spool.lines()) read.push(line);
    expect(read).toEqual(lines);

    await spool.clear();
    expect(spool.size).toBe(0);
    expect(existsSync(spool.file)).toBe(false);
    const none = [];
    for await (const line of spool.lines()) none.push(line);
    expect(none).toEqual([]);
  });

  it("removes the spool files of killed runs, and keeps a live run's and other files", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-spool-'));
    // A process that has exited: its spool file is what a SIGKILL leaves behind.
    const gone = spawnSync(process.execPath, ['-e', '0']).pid;
    const alive = process.ppid;
    for (const name of [
      `batch-spool-${gone}.jsonl`,
      `batch-spool-${alive}.jsonl`,
      'batch-spool-notes.jsonl',
      'responses.jsonl',
    ]) {
      writeFileSync(join(dir, name), '{}\n');
    }
    const spool = new FileMissSpool(join(dir, 'responses.jsonl'));
    expect(existsSync(join(dir, `batch-spool-${gone}.jsonl`))).toBe(true);
    spool.add({ customId: 'sl-1', body: { messages: [] } });
    expect(existsSync(join(dir, `batch-spool-${gone}.jsonl`))).toBe(false);
    expect(existsSync(join(dir, `batch-spool-${alive}.jsonl`))).toBe(true);
    expect(existsSync(join(dir, 'batch-spool-notes.jsonl'))).toBe(true);
    expect(readFileSync(join(dir, 'responses.jsonl'), 'utf8')).toBe('{}\n');
    expect(existsSync(spool.file)).toBe(true);
  });
});

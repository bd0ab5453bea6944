/**
 * The pieces of a shard run: `--shard I/N` read or refused in words that say the fix, the row → shard
 * function pinned to the formula docs/sharding.md gives (so another tool can predict it), its
 * spread, and the split of a batch's items, where a problem kept beside its row follows the row.
 */
import { describe, expect, it } from 'vitest';
import { Readable } from 'node:stream';
import { createHash } from 'node:crypto';
import {
  InputFingerprint,
  parseShardOption,
  shardItems,
  shardOfId,
} from '../../../src/cli/shard.ts';

describe('--shard I/N', () => {
  it('reads I and N, I counting from 1', () => {
    expect(parseShardOption('1/3', 'out.jsonl')).toEqual({ index: 1, count: 3 });
    expect(parseShardOption('3/3', 'out.jsonl')).toEqual({ index: 3, count: 3 });
    expect(parseShardOption('1/1', 'out.jsonl')).toEqual({ index: 1, count: 1 });
  });

  it.each([
    ['3/2', '--shard 3/2: there is no shard 3 of 2; I is 1 to 2.'],
    [
      '0/2',
      '--shard 0/2: shards count from 1 (1/2 to 2/2); from a 0-based index such as JOB_COMPLETION_INDEX, give $((INDEX+1))/2.',
    ],
    ['x', '--shard x: give I/N, the I-th of N shards with I from 1 to N (e.g. --shard 1/4).'],
    ['1/0', '--shard 1/0: N, the number of shards, must be at least 1.'],
    [
      '1/2/3',
      '--shard 1/2/3: give I/N, the I-th of N shards with I from 1 to N (e.g. --shard 1/4).',
    ],
    ['-1/2', '--shard -1/2: give I/N, the I-th of N shards with I from 1 to N (e.g. --shard 1/4).'],
  ])('refuses %s', (text, message) => {
    expect(() => parseShardOption(text, 'out.jsonl')).toThrow(message);
  });

  it('needs --out, beside which the record goes', () => {
    expect(() => parseShardOption('1/2', undefined)).toThrow(
      "--shard 1/2 needs --out FILE: the merge reads each shard's rows and the record written beside them (FILE.shard.json).",
    );
  });
});

describe('the shard of a row', () => {
  it("is 1 + the first 48 bits of the id's SHA-256 mod N, as Python's hashlib computes it", () => {
    // int(hashlib.sha256(id.encode()).hexdigest()[:12], 16) % N + 1, run in Python.
    expect(shardOfId('row 1', 3)).toBe(2);
    expect(shardOfId('x', 3)).toBe(3);
    expect(shardOfId('x', 7)).toBe(4);
    expect(shardOfId('dm-test-8764fb95bfad8ee849274873a92fb8d6b400eee2|M11', 7)).toBe(5);
  });

  it('spreads ids evenly', () => {
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 4000; i++) counts[shardOfId(`case-${i}`, 4) - 1]!++;
    for (const n of counts) expect(n).toBeGreaterThan(900);
  });

  it('splits a batch by id, a row without one by "row N", a kept problem with its row', () => {
    const items = [
      { row: 1, id: 'a' },
      { row: 2 },
      { row: 3, id: 'b' },
      // A rating left out of row 3: said on stderr by the shard that scores row 3.
      { row: 3, reason: 'row 3: rating is not a number', kept: true },
      // A row that could not be read: it has only its number.
      { row: 4, reason: 'row 4: not valid JSON' },
    ];
    const keys = ['a', 'row 2', 'b', 'b', 'row 4'];
    const shards = [1, 2, 3].map((index) => shardItems(items, { index, count: 3 }));
    expect(shards.flat()).toHaveLength(items.length);
    items.forEach((item, i) => {
      expect(shards[shardOfId(keys[i]!, 3) - 1]).toContain(item);
    });
  });
});

describe('the input fingerprint', () => {
  it('is the SHA-256 of the bytes read, which pass through unchanged', async () => {
    const bytes = Buffer.from('{"source": "a", "summary": "b"}\n'.repeat(1000));
    const fingerprint = new InputFingerprint();
    const chunks: Buffer[] = [];
    for await (const chunk of fingerprint.tap(
      Readable.from([bytes.subarray(0, 7), bytes.subarray(7)]),
    )) {
      chunks.push(chunk as Buffer);
    }
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(fingerprint.digest('in.jsonl')).toEqual({
      file: 'in.jsonl',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      bytes: bytes.length,
    });
  });

  it("passes the source's read error to the reader", async () => {
    const failing = new Readable({
      read() {
        this.destroy(
          Object.assign(new Error('EISDIR: illegal operation on a directory'), { code: 'EISDIR' }),
        );
      },
    });
    const read = async () => {
      for await (const _ of new InputFingerprint().tap(failing)) void _;
    };
    await expect(read()).rejects.toThrow('EISDIR');
  });
});

/**
 * `npm run score` on worker threads writes what the serial run writes, byte for byte: the same
 * rows in the same order, the same scores to the last bit, on real SummEval rows (3 articles × 12
 * systems, so rows share sources, in the file's order, where an article's rows are far apart).
 * Each run gets an empty vector cache of its own, so both encode every sentence.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readDevRows } from '../../../src/lib/node/validity/summeval.ts';
import { jsonLines, runCli, tempDir, type CliResult } from './_cli.ts';

describe('npm run score --workers', () => {
  const dir = tempDir('cli-workers');
  const file = join(dir, 'summeval.jsonl');
  const cacheOf = (name: string) => join(dir, `vectors-${name}`);
  let serial: CliResult;
  let parallel: CliResult;

  beforeAll(async () => {
    const rows = readDevRows(3);
    writeFileSync(file, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
    serial = await runCli([file, '--workers', '1', '--vector-cache', cacheOf('serial')]);
    parallel = await runCli([file, '--workers', '3', '--vector-cache', cacheOf('parallel')]);
  }, 240_000);

  it('scores on worker threads what the main thread scores, in the same order', () => {
    expect(serial.status, serial.stderr).toBe(0);
    expect(parallel.status, parallel.stderr).toBe(0);
    expect(parallel.stderr).toContain('Offline metrics: 3 worker threads.');
    expect(serial.stderr).not.toContain('worker threads');
    const lines = jsonLines(serial.stdout);
    expect(lines).toHaveLength(36);
    expect(lines.map((l) => l.row)).toEqual(Array.from({ length: 36 }, (_, i) => i + 1));
    const coherence = (lines[0]!.metrics as Record<string, { backend: string }>)['coherence']!;
    expect(coherence.backend).toMatch(/^use-lite int8 · /u);
    expect(parallel.stdout).toBe(serial.stdout);
  });

  it('leaves one vector cache file, written by the main thread only, as the serial run does', () => {
    const [serialFiles, parallelFiles] = ['serial', 'parallel'].map((name) =>
      readdirSync(cacheOf(name)),
    );
    expect(parallelFiles).toEqual(serialFiles);
    expect(serialFiles).toHaveLength(1);
    const size = (name: string) => readFileSync(join(cacheOf(name), serialFiles![0]!)).length;
    // Every sentence once: workers sending the same vector twice would make it longer.
    expect(size('parallel')).toBe(size('serial'));
  });

  it('refuses a worker count that is not a whole number ≥ 1, or an unknown encoder runtime', async () => {
    const none = await runCli([file, '--workers', '0']);
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('--workers 0: give a whole number, 1 or more.');
    const gpu = await runCli([file, '--encoder-runtime', 'cuda']);
    expect(gpu.status).toBe(2);
    expect(gpu.stderr).toContain('--encoder-runtime cuda: use auto, native, wasm.');
  });
});

/**
 * Ctrl-C without --cache: the CLI stops sending, waits for the requests already sent, keeps every
 * answer it bought in its default cache, leaves the previous --out as it was with its own rows in
 * FILE.partial, says how to resume and exits 130; the same command run again asks nothing twice.
 * A run with no --cache at all keeps its answers too; --no-cache keeps nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeLlm, type FakeLlm } from '../../helpers/fake-llm.ts';
import { oracleHandler } from '../../helpers/judge-oracle.ts';
import {
  casesFile,
  jsonLines,
  providerEnv,
  requestShape,
  runCli,
  startCli,
  tempDir,
  until,
} from './_cli.ts';

const KEY = 'sk-interrupt-test-0123456789abcdef';
/** The CLI's judge sends at most this many requests at once (DEFAULT_CONCURRENCY). */
const CONCURRENCY = 4;
const ROWS = 40;
const OLD_OUT = '{"row":1,"from":"the run before"}\n';

let fake: FakeLlm | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function answering(delayMs = 0): Promise<FakeLlm> {
  const answer = oracleHandler(4);
  const started = await startFakeLlm();
  started.setHandler(async (req) => ({ ...(await answer(req)), delayMs }));
  return started;
}

describe('npm run score, interrupted', () => {
  it('Ctrl-C: stops sending, keeps --out and the rows so far beside it, exits 130; a rerun buys nothing twice', async () => {
    // Slow answers, so that the signal lands with requests under way.
    fake = await answering(40);
    const dir = tempDir('interrupt');
    const file = casesFile(dir, ROWS);
    const out = join(dir, 'out.jsonl');
    writeFileSync(out, OLD_OUT);
    const args = [file, '--metrics', 'alignment,coverage', '--out', out];
    const env = providerEnv('openai', fake.url, KEY);

    const first = startCli(args, { cwd: dir, env });
    await until(() => fake!.requests.length >= 20, '20 requests');
    const atSignal = fake.requests.length;
    first.child.kill('SIGINT');
    const stopped = await first.done;

    expect(stopped.status, stopped.stderr).toBe(130);
    expect(fake.requests.length - atSignal).toBeLessThanOrEqual(CONCURRENCY);
    expect(readFileSync(out, 'utf8')).toBe(OLD_OUT);
    const partial = `${out}.partial`;
    const rows = jsonLines(readFileSync(partial, 'utf8'));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(ROWS);
    expect(rows.map((r) => r.row)).toEqual(rows.map((_, i) => i + 1));
    expect(stopped.stderr).toContain(partial);
    expect(stopped.stderr).toMatch(/Interrupted \(SIGINT\)/u);
    expect(stopped.stderr).toMatch(/run the same command again/u);
    expect(stopped.stdout + stopped.stderr).not.toContain(KEY);
    expect(existsSync(join(dir, '.cache', 'judge', 'responses.jsonl'))).toBe(true);

    const bought = new Set(fake.requests.map((q) => requestShape(q.body)));
    fake.reset();
    const again = await runCli(args, { cwd: dir, env });
    expect(again.status, again.stderr).toBe(0);
    expect(fake.requests.filter((q) => bought.has(requestShape(q.body)))).toEqual([]);
    expect(fake.requests.length).toBeGreaterThan(0);
    const all = jsonLines(readFileSync(out, 'utf8'));
    expect(all.map((r) => r.row)).toEqual(Array.from({ length: ROWS }, (_, i) => i + 1));
    expect(existsSync(partial)).toBe(false);
  }, 120_000);

  it('keeps the answers without --cache, and --no-cache keeps none', async () => {
    fake = await answering();
    const dir = tempDir('default-cache');
    const file = casesFile(dir, 3);
    const env = providerEnv('openai', fake.url, KEY);
    const args = [file, '--metrics', 'alignment'];

    const first = await runCli(args, { cwd: dir, env });
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain(`Judge cache: ${join('.cache', 'judge', 'responses.jsonl')}`);
    const sent = fake.requests.length;
    expect(sent).toBeGreaterThan(0);
    const second = await runCli(args, { cwd: dir, env });
    expect(second.status, second.stderr).toBe(0);
    expect(fake.requests.length).toBe(sent);
    expect(second.stdout).toBe(first.stdout);

    const elsewhere = tempDir('no-cache');
    const uncached = await runCli([...args, '--no-cache'], { cwd: elsewhere, env });
    expect(uncached.status, uncached.stderr).toBe(0);
    expect(fake.requests.length).toBe(2 * sent);
    expect(existsSync(join(elsewhere, '.cache'))).toBe(false);

    const help = await runCli(['--help']);
    expect(help.stderr).toMatch(/--no-cache/u);
    expect(help.stderr).toContain(join('.cache', 'judge', 'responses.jsonl'));
  }, 60_000);
});

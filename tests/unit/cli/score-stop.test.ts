/**
 * A provider error that every later row would meet too (a dead key, an exhausted quota) stops the
 * CLI as it pauses a run in the page: exit code 2, one line with the provider's reason and no key,
 * no more requests than were already under way, the rows finished so far written, and the answers
 * already bought kept in the cache so that the same command, run again once the key works, goes on
 * where it stopped. Interactive runs on the OpenAI and Anthropic wire formats, and batch runs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fakeError, startFakeLlm, type FakeLlm, type Wire } from '../../helpers/fake-llm.ts';
import { oracleHandler } from '../../helpers/judge-oracle.ts';
import { casesFile, jsonLines, providerEnv, requestShape, runCli, tempDir } from './_cli.ts';

const KEY = 'sk-stop-test-0123456789abcdefghij';
/** The CLI's judge sends at most this many requests at once (DEFAULT_CONCURRENCY). */
const CONCURRENCY = 4;
const METRICS = 'alignment,coverage,vagueness';
/**
 * The provider starts refusing at this request (0-based): the three metrics ask 6 calls a row,
 * 3 of them at once, so two rows are done and the third is under way.
 */
const FIRST_FATAL = 14;

const FATAL = {
  openai: {
    'bad-key': /Incorrect API key provided/u,
    quota: /exceeded your current quota/u,
  },
  anthropic: {
    'bad-key': /invalid x-api-key/u,
    quota: /credit balance is too low/u,
  },
} as const;

type Kind = keyof (typeof FATAL)['openai'];

let fake: FakeLlm | undefined;
let server: Server | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
  if (server) await new Promise((done) => server!.close(done));
  server = undefined;
});

describe('npm run score stops on a run-wide provider error', () => {
  describe.each(['openai', 'anthropic'] as const)('%s wire, interactive', (wire) => {
    it.each(['bad-key', 'quota'] as const)(
      '%s mid-run: exit 2, no request after the ones under way, and a rerun resumes',
      async (kind: Kind) => {
        const answer = oracleHandler(4);
        /** Where the first refused request is among all requests. */
        let firstFatal: number | undefined;
        const bought = new Set<string>();
        fake = await startFakeLlm();
        fake.setHandler(async (req) => {
          const at = fake!.requests.indexOf(req);
          if (at >= FIRST_FATAL) {
            firstFatal ??= at;
            return fakeError(wire as Wire, kind);
          }
          const shape = requestShape(req.body);
          // A little wait, so that the row's parallel calls are under way when the error lands.
          // Bought means delivered: a request the CLI gave up at the stop was never paid for.
          return {
            ...(await answer(req)),
            delayMs: 20,
            onSent: (delivered: boolean) => {
              if (delivered) bought.add(shape);
            },
          };
        });
        const dir = tempDir('stop');
        const file = casesFile(dir, 12);
        const env = providerEnv(wire, fake.url, KEY);
        const run = await runCli([file, '--metrics', METRICS], { cwd: dir, env });

        expect(run.status, run.stderr).toBe(2);
        const sentAfter = fake.requests.length - (firstFatal! + 1);
        expect(sentAfter).toBeLessThanOrEqual(CONCURRENCY);
        const stop = run.stderr.split('\n').filter((l) => /^Stopped/u.test(l));
        expect(stop).toHaveLength(1);
        expect(stop[0]).toMatch(FATAL[wire][kind]);
        expect(stop[0]).toMatch(/run the same command again/u);
        expect(run.stdout + run.stderr).not.toContain(KEY);
        expect(run.stdout + run.stderr).not.toContain(KEY.slice(3, 20));
        // Only whole rows before the failing one, every metric scored.
        const rows = jsonLines(run.stdout);
        expect(rows.length).toBeGreaterThanOrEqual(1);
        expect(rows.map((r) => r.row)).toEqual(rows.map((_, i) => i + 1));
        for (const r of rows) {
          for (const m of Object.values(r.metrics as Record<string, { status: string }>)) {
            expect(m.status).toBe('ok');
          }
        }

        // The key works again: the same command goes on and asks nothing it already bought.
        fake.reset();
        fake.setHandler(answer);
        const again = await runCli([file, '--metrics', METRICS], { cwd: dir, env });
        expect(again.status, again.stderr).toBe(0);
        expect(jsonLines(again.stdout)).toHaveLength(12);
        expect(fake.requests.filter((q) => bought.has(requestShape(q.body)))).toEqual([]);
      },
      120_000,
    );
  });

  it.each([
    ['openai', 'bad-key'],
    ['anthropic', 'quota'],
  ] as const)(
    '--batch %s, %s: exit 2 with the reason, at once',
    async (wire, kind) => {
      // The batch endpoints (file upload, job creation) answer as the provider would.
      let requests = 0;
      server = createServer((_req, res) => {
        requests++;
        const reply = fakeError(wire, kind);
        res.writeHead(reply.status ?? 400, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply.body).replaceAll('{{key}}', KEY));
      });
      await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const dir = tempDir('stop-batch');
      const file = casesFile(dir, 5);
      const run = await runCli(
        [file, '--metrics', 'alignment', '--batch', wire, '--poll-interval', '0.05'],
        { cwd: dir, env: providerEnv(wire, url, KEY) },
      );
      expect(run.status, run.stderr).toBe(2);
      const stop = run.stderr.split('\n').filter((l) => /^Stopped/u.test(l));
      expect(stop).toHaveLength(1);
      expect(stop[0]).toMatch(FATAL[wire][kind]);
      expect(run.stdout + run.stderr).not.toContain(KEY);
      expect(requests).toBeLessThanOrEqual(CONCURRENCY);
    },
    60_000,
  );
});

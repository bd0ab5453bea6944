import { describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { OFFLINE_METRIC_IDS } from '../../../src/lib/metrics/registry.ts';
import { repoRoot } from '../../helpers/shared.ts';

const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'src/cli/score.ts');

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [tsx, cli, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('npm run score', () => {
  it('writes one JSON line per row; bad rows name their row and the rest go on', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-cli-'));
    const file = join(dir, 'cases.jsonl');
    const good = {
      // One source sentence per summary sentence, so source order has an order to compare.
      source:
        'The council approved a new park in Leeds on Monday. The park will open in 2027. Local residents welcomed the decision.',
      summary:
        'Leeds council approved a park on Monday. The park opens in 2027. Residents welcomed it.',
      reference: 'Leeds will get a new park in 2027.',
    };
    writeFileSync(
      file,
      [
        JSON.stringify(good),
        '{"source": "broken json',
        JSON.stringify({ source: 'only a source' }),
        '',
        JSON.stringify({ source: 'A source.', summary: '   ' }),
        JSON.stringify({ ...good, reference: null }),
      ].join('\n'),
    );
    const out = join(dir, 'out.jsonl');
    // Bad rows: the rest are scored, and the exit status says not all were.
    expect(run([file, '--out', out]).status).toBe(1);
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.row)).toEqual([1, 2, 3, 5, 6]);

    const first = lines[0]!.metrics as Record<string, Record<string, unknown>>;
    // The default is every offline metric in the registry.
    expect(Object.keys(first).sort()).toEqual([...OFFLINE_METRIC_IDS].sort());
    for (const metric of Object.values(first)) {
      expect(metric.status).toBe('ok');
      expect(typeof metric.score).toBe('number');
      expect(metric.backend).toBeTruthy();
    }
    expect(typeof first['entity-density']!.raw).toBe('number');
    // No two-word phrase of the summary is said twice ("park" alone does not count).
    expect(first['repetition-offline']).toMatchObject({ score: 1, raw: 0 });

    expect(lines[1]!.error).toMatch(/^row 2: not valid JSON/u);
    expect(lines[2]!.error).toBe("row 3: no summary text in column 'summary'");
    expect(lines[3]!.error).toBe("row 5: no summary text in column 'summary'");
    const noReference = lines[4]!.metrics as Record<string, Record<string, unknown>>;
    expect(noReference['rouge-1']).toMatchObject({ status: 'n/a', score: null });
    expect(noReference['coherence']!.status).toBe('ok');
  });

  it('refuses an unknown metric id with the list of known ones', () => {
    const r = run(['-', '--metrics', 'rouge-9']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/Unknown metric id\(s\): rouge-9/u);
  });

  /** Many small rows, scored with one cheap metric: far more output than a pipe holds. */
  function manyRows(count: number): string {
    const dir = mkdtempSync(join(tmpdir(), 'sumlens-cli-pipe-'));
    const file = join(dir, 'cases.jsonl');
    const rows = Array.from({ length: count }, (_, i) =>
      JSON.stringify({
        source: `Report ${i}: the council met on Monday and approved the budget.`,
        summary: `The council approved budget ${i}.`,
        reference: `Council approved the budget ${i} on Monday.`,
      }),
    );
    writeFileSync(file, rows.join('\n') + '\n');
    return file;
  }

  function start(file: string) {
    const child = spawn(process.execPath, [tsx, cli, file, '--metrics', 'rouge-1'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
    return { child, stderr: () => stderr };
  }

  async function until(check: () => boolean, what: string): Promise<void> {
    for (let waited = 0; !check(); waited += 50) {
      if (waited > 30_000) throw new Error(`timed out waiting for ${what}`);
      await sleep(50);
    }
  }

  it('waits for a slow reader instead of queueing every line in memory', async () => {
    const rows = 6_000;
    const { child, stderr } = start(manyRows(rows));
    const exited = once(child, 'exit');
    // Nobody reads stdout yet: the pipe fills after a few hundred lines.
    await until(() => stderr().includes('(confidence'), 'the data set to be recognised');
    // Scoring 6,000 rows of ROUGE-1 takes well under a second; a CLI that ignored back-pressure
    // would have scored them all, queued the lines, and printed its summary by now.
    await sleep(2_000);
    expect(stderr()).not.toContain('row(s) scored');

    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
    const [code] = await exited;
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(rows);
    expect((JSON.parse(lines.at(-1)!) as { row: number }).row).toBe(rows);
    expect(stderr()).toContain(`${rows} row(s) scored`);
  }, 60_000);

  it('stops quietly when the reader goes away (`| head -1`)', async () => {
    const { child, stderr } = start(manyRows(6_000));
    const exited = once(child, 'exit');
    child.stdout.once('data', () => child.stdout.destroy());
    const [code] = await exited;
    expect(code).toBe(0);
    expect(stderr()).not.toMatch(/EPIPE|Unhandled|at .*score/);
    expect(stderr()).not.toContain('row(s) scored');
  }, 60_000);
});

import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { OFFLINE_METRIC_IDS } from '../../../src/lib/metrics/registry.ts';
import { repoRoot } from '../../helpers/shared.ts';

const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'src/cli/score.ts');

function run(args: string[]): { stdout: string; stderr: string } {
  const stdout = execFileSync(process.execPath, [tsx, cli, ...args], {
    cwd: repoRoot,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { stdout, stderr: '' };
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
    run([file, '--out', out]);
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
    expect(() => run(['-', '--metrics', 'rouge-9'])).toThrow(/Unknown metric id\(s\): rouge-9/u);
  });
});

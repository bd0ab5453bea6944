/**
 * What `npm run score` makes of files the import has to be careful with: a CSV with a stray quote
 * (every other row scored, the bad one named), Windows-1252 text (decoded, and said so), and rows
 * that share an id (both scored, the duplicate named on stderr).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../../helpers/shared.ts';
import { brokenCsv } from '../datasets/_csv.ts';
import { windows1252 } from '../datasets/_encodings.ts';

const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'src/cli/score.ts');
const run = promisify(execFile);

const dir = mkdtempSync(join(tmpdir(), 'sumlens-cli-import-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Scores `content` as the file `name` with one cheap reference-free metric. */
async function score(name: string, content: string | Uint8Array) {
  const path = join(dir, name);
  writeFileSync(path, content);
  let code = 0;
  let stdout: string;
  let stderr: string;
  try {
    ({ stdout, stderr } = await run(
      process.execPath,
      [tsx, cli, path, '--metrics', 'extractiveness'],
      { cwd: repoRoot, maxBuffer: 64 * 1024 * 1024 },
    ));
  } catch (error) {
    // A bad row may make the exit status say so; the lines are what is checked here.
    ({ code, stdout, stderr } = error as { code: number; stdout: string; stderr: string });
  }
  const lines = stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { row: number; id?: string; error?: string; metrics?: object });
  return { code, lines, stderr };
}

describe('npm run score: import trouble', () => {
  it('a 1,000-row CSV with an unclosed quote in row 4: 999 results and the bad row named', async () => {
    const { lines } = await score('broken.csv', brokenCsv(1000, 4, 'unquoted'));
    expect(lines).toHaveLength(1000);
    const errors = lines.filter((l) => l.error !== undefined);
    expect(errors).toEqual([
      {
        row: 4,
        error: expect.stringMatching(/^row 4: the quote that opens column 'source' \("Source 4/u),
      },
    ]);
    const results = lines.filter((l) => l.metrics);
    expect(results).toHaveLength(999);
    for (const line of results) expect(line.id).toBe(String(line.row));
  }, 60_000);

  const cases = [
    ['Herr Müller sagt, das Café ist geöffnet.', 'Müller: Café offen.'],
    ['A naïve reading of the résumé.', 'Naïve résumé.'],
    ['Der Eintritt kostet 5 €.', 'Eintritt 5 €.'],
    ['Crème brûlée à la française.', 'Crème brûlée.'],
    ['Ein Café für Müller.', 'Café für Müller.'],
  ];
  it.each([
    ['cases.csv', ['source,summary', ...cases.map(([s, a]) => `"${s}",${a}`)].join('\r\n')],
    [
      'cases.jsonl',
      cases.map(([source, summary]) => JSON.stringify({ source, summary })).join('\n'),
    ],
  ])(
    'a Windows-1252 %s: 5 rows scored, the encoding said on stderr',
    async (name, text) => {
      const { code, lines, stderr } = await score(name, windows1252(text));
      expect(code).toBe(0);
      expect(lines.map((l) => l.row)).toEqual(
        name.endsWith('.csv') ? [2, 3, 4, 5, 6] : [1, 2, 3, 4, 5],
      );
      for (const line of lines) {
        expect(line.error).toBeUndefined();
        expect(line.metrics).toMatchObject({ extractiveness: { status: 'ok' } });
      }
      expect(stderr).toMatch(/, Windows-1252 text \(confidence/u);
      expect(stderr).toMatch(/warning: not UTF-8: read as Windows-1252 \(Latin-1\)/u);
    },
    60_000,
  );

  it('rows that share an id: each scored under its own row, the repeat named on stderr', async () => {
    const rows = [
      { id: 'a1', source: 'The council approved a park.', summary: 'The council approved a park.' },
      { id: 'a2', source: 'Rain is expected on Monday.', summary: 'Rain on Monday.' },
      { id: 'a1', source: 'The museum opens in May.', summary: 'Tickets will cost ten euros.' },
    ];
    const { lines, stderr } = await score(
      'dup.jsonl',
      rows.map((r) => JSON.stringify(r)).join('\n'),
    );
    expect(lines.map((l) => [l.row, l.id])).toEqual([
      [1, 'a1'],
      [2, 'a2'],
      [3, 'a1'],
    ]);
    const score1 = (lines[0]!.metrics as Record<string, { score: number }>).extractiveness.score;
    const score3 = (lines[2]!.metrics as Record<string, { score: number }>).extractiveness.score;
    expect(score1).not.toBe(score3);
    expect(stderr).toContain(
      "row 3: the id 'a1' is also the id of row 1: both rows are kept and scored apart",
    );
  }, 60_000);
});

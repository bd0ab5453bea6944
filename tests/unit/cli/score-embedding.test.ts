/** `npm run score` scores the embedding metrics with the page's default, USE-lite; --embedding glove keeps GloVe. */
import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from '../../helpers/shared.ts';

const tsx = resolve(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const cli = resolve(repoRoot, 'src/cli/score.ts');

function coherenceOf(args: string[]): { backend: string; status: string } {
  const dir = mkdtempSync(join(tmpdir(), 'sumlens-cli-embedding-'));
  const file = join(dir, 'case.jsonl');
  writeFileSync(
    file,
    JSON.stringify({
      source: 'The council approved a new park in Leeds on Monday. It will open in 2027.',
      summary:
        'Leeds council approved a park on Monday. The park opens in 2027. Residents cheered.',
    }),
  );
  const stdout = execFileSync(
    process.execPath,
    [tsx, cli, file, '--metrics', 'coherence', '--vector-cache', join(dir, 'vectors'), ...args],
    { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const line = JSON.parse(stdout.trim()) as {
    metrics: Record<string, { backend: string; status: string }>;
  };
  return line.metrics['coherence']!;
}

describe('npm run score --embedding', () => {
  it('uses USE-lite by default (on onnxruntime-node, or its WASM build when asked) and GloVe when asked', () => {
    expect(coherenceOf([])).toMatchObject({
      status: 'ok',
      backend: 'use-lite int8 · CPU (onnxruntime-node)',
    });
    expect(coherenceOf(['--encoder-runtime', 'wasm']).backend).toBe('use-lite int8 · WASM');
    expect(coherenceOf(['--precision', 'fp32']).backend).toBe('use-lite · CPU (onnxruntime-node)');
    expect(coherenceOf(['--embedding', 'glove']).backend).toMatch(/^glove/u);
  }, 120_000);

  it('refuses an unknown encoder', () => {
    expect(() => coherenceOf(['--embedding', 'word2vec'])).toThrow(
      /--embedding word2vec: use use-lite, glove/u,
    );
  });
});

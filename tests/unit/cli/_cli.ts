/**
 * The CLI as `npm run score` runs it (`node --import tsx src/cli/score.ts`), started from any
 * folder: the tests that count requests run it in a folder of their own, so its default answer
 * cache (`.cache/judge/` under the current folder) is theirs alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { repoRoot } from '../../helpers/shared.ts';

export const CLI = resolve(repoRoot, 'src/cli/score.ts');
// By URL: `--import tsx` would be looked up from the child's folder, which is not the repository.
const TSX = pathToFileURL(resolve(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href;

export interface CliResult {
  /** The exit code, or 128 + the signal's number when a signal ended it (as a shell reports). */
  status: number;
  stdout: string;
  stderr: string;
}

export interface CliRun {
  child: ChildProcess;
  done: Promise<CliResult>;
  stdout(): string;
  stderr(): string;
}

export interface CliOptions {
  cwd?: string;
  /** Added to the environment, which has no SUMLENS_LLM_* of its own. */
  env?: Record<string, string>;
  /** Run as this user and group (a root test process checks a permission as anyone else would). */
  uid?: number;
}

export function startCli(args: string[], options: CliOptions = {}): CliRun {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SUMLENS_LLM_')),
  );
  const child = spawn(process.execPath, ['--import', TSX, CLI, ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...clean, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr!.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const done = new Promise<CliResult>((resolveRun) =>
    child.on('close', (code, signal) =>
      resolveRun({
        status: code ?? 128 + (signal ? constants.signals[signal] : 0),
        stdout,
        stderr,
      }),
    ),
  );
  return { child, done, stdout: () => stdout, stderr: () => stderr };
}

export const runCli = (args: string[], options?: CliOptions): Promise<CliResult> =>
  startCli(args, options).done;

/** Polls `check` every 20 ms: tests wait on what happened, never on a guessed delay. */
export async function until(check: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const started = Date.now(); !check(); await sleep(20)) {
    if (Date.now() - started > ms) throw new Error(`timed out waiting for ${what}`);
  }
}

export function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function tempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), `sumlens-${prefix}-`));
}

/**
 * A request body as the same request has it in every run: without the fence id drawn per call
 * (metrics/judge/fence.ts), so two runs' requests compare equal when they ask the same.
 */
export function requestShape(body: unknown): string {
  return JSON.stringify(body).replace(/\bs_[0-9a-f]{6}\b/gu, 's_');
}

/** `n` cases, each with its own words ("Report 7."), so a request names its row. */
export function casesFile(dir: string, n: number, name = 'cases.jsonl'): string {
  const file = join(dir, name);
  const rows = Array.from({ length: n }, (_, i) =>
    JSON.stringify({
      source: `Report ${i}. The council approved a new park in Leeds on Monday. The park will open in 2027.`,
      summary: `Report ${i}. Leeds council approved a park on Monday. It opens in 2026.`,
    }),
  );
  writeFileSync(file, rows.join('\n') + '\n');
  return file;
}

/** The provider variables of a run against a loopback fake. */
export function providerEnv(kind: string, url: string, key: string): Record<string, string> {
  return {
    SUMLENS_LLM_PROVIDER: kind,
    SUMLENS_LLM_MODEL: kind === 'anthropic' ? 'claude-sonnet-4-5' : 'gpt-4.1-mini',
    SUMLENS_LLM_API_KEY: key,
    SUMLENS_LLM_BASE_URL: url,
  };
}

/**
 * Downloads transformers.js models from the Hugging Face hub (or a mirror) into
 * `public/models/<owner>/<name>/`, so the app can run them with no network: on a machine that has
 * internet, before an offline demo or a deployment to a static host.
 *
 * Per model: config.json, tokenizer.json and tokenizer_config.json (required), the optional JSON
 * files transformers.js reads when present, and the ONNX weights of each dtype asked for, with their
 * external-data files. Files stream into `<file>.part` and are renamed when complete and checked, so
 * an interrupted run never leaves a truncated file under the real name. A file whose local copy
 * already has the size (and, for weights, the SHA-256) the hub announces is not downloaded again.
 * Each model folder gets `.sumlens-fetch.json` (sizes, SHA-256, revision, commit) so a host with no
 * network can check its copy with `--verify`.
 *
 * Usage: see USAGE below, or `npm run models:fetch -- --help`.
 *
 * This is the CLI (arguments, output, exit status); the downloader it drives is
 * src/lib/node/models-fetch/.
 */
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  DEFAULT_DTYPES,
  DEFAULT_ENDPOINT,
  DEFAULT_OUT_DIR,
  DEFAULT_REVISION,
  DTYPE_WEIGHTS,
  MANIFEST_NAME,
  UsageError,
  formatBytes,
  modelIdProblem,
  normaliseEndpoint,
  parseDtypes,
  repoFileProblem,
} from '../src/lib/node/models-fetch/options.ts';
import type { FetchOptions, ModelResult, Reporter } from '../src/lib/node/models-fetch/types.ts';
import { fetchModel } from '../src/lib/node/models-fetch/fetch-model.ts';
import { verifyModel } from '../src/lib/node/models-fetch/verify.ts';

export const USAGE = `Usage: npm run models:fetch -- <owner/name>... [options]

Downloads transformers.js models from the Hugging Face hub into <out>/<owner>/<name>/ so that
SumLens can run them with no network (self-hosted under /models/).

Options:
  --dtype LIST      weights to fetch, comma-separated or repeated (default: ${DEFAULT_DTYPES.join(',')})
                    ${Object.entries(DTYPE_WEIGHTS)
                      .map(([d, f]) => `${d}=${f.slice('onnx/'.length)}`)
                      .join(' ')}
  --out DIR         destination folder (default: public/models)
  --revision REV    branch, tag or commit (default: ${DEFAULT_REVISION})
  --endpoint URL    hub or mirror (default: $HF_ENDPOINT or ${DEFAULT_ENDPOINT})
  --file PATH       also fetch this file of the repository (required; repeatable)
  --force           download again even when the local copy is complete
  --verify          check local copies against their ${MANIFEST_NAME}; no network
  -h, --help        show this help

Environment:
  HF_TOKEN          access token for gated or private models (sent only to the endpoint's host)
  HF_ENDPOINT       hub or mirror URL, overridden by --endpoint

Exit status: 0 when every model is complete, 1 when any failed, 2 on a usage error.

Example:
  npm run models:fetch -- Xenova/all-MiniLM-L6-v2 Xenova/bert-base-NER --dtype q8
`;

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Live progress (rewritten in place) only on a terminal; one line per file otherwise. */
  isTTY: boolean;
}

const processIo: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  isTTY: Boolean(process.stderr.isTTY),
};

interface CliArgs {
  modelIds: string[];
  help: boolean;
  verify: boolean;
  options: FetchOptions;
}

export function parseCliArgs(argv: readonly string[], env: NodeJS.ProcessEnv): CliArgs {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        dtype: { type: 'string', multiple: true },
        out: { type: 'string' },
        revision: { type: 'string' },
        endpoint: { type: 'string' },
        file: { type: 'string', multiple: true },
        force: { type: 'boolean' },
        verify: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  const help = values.help ?? false;
  if (!help && positionals.length === 0) throw new UsageError('no model id given');
  const problems = positionals.map(modelIdProblem).filter((p): p is string => p !== undefined);
  if (problems.length > 0) throw new UsageError(problems.join('\n'));
  const endpoint = values.endpoint ?? (env.HF_ENDPOINT || DEFAULT_ENDPOINT);
  normaliseEndpoint(endpoint);
  for (const file of values.file ?? []) {
    const problem = repoFileProblem(file);
    if (problem) throw new UsageError(problem);
  }
  return {
    modelIds: [...new Set(positionals)],
    help,
    verify: values.verify ?? false,
    options: {
      outDir: values.out ? resolve(values.out) : DEFAULT_OUT_DIR,
      endpoint,
      revision: values.revision ?? DEFAULT_REVISION,
      dtypes: parseDtypes(values.dtype ?? DEFAULT_DTYPES),
      extraFiles: values.file ?? [],
      force: values.force ?? false,
      token: env.HF_TOKEN || undefined,
    },
  };
}

function cliReporter(io: CliIo): Reporter {
  let live = false;
  let lastDraw = 0;
  return {
    line(text) {
      if (live) io.stderr('\r\x1b[K');
      live = false;
      io.stdout(`${text}\n`);
    },
    progress(file, received, total) {
      if (!io.isTTY) return;
      const now = Date.now();
      if (now - lastDraw < 100 && received !== total) return;
      lastDraw = now;
      live = true;
      const of = total ? `/${formatBytes(total)}  ${Math.floor((received / total) * 100)}%` : '';
      io.stderr(`\r\x1b[K  ...         ${file}  ${formatBytes(received)}${of}`);
    },
  };
}

/** The whole CLI, minus process.exit: returns the exit status. */
export async function main(
  argv: readonly string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
  io: CliIo = processIo,
): Promise<number> {
  let args: CliArgs;
  try {
    args = parseCliArgs(argv, env);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr(`models:fetch: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    io.stdout(USAGE);
    return 0;
  }
  const reporter = cliReporter(io);

  if (args.verify) {
    let failed = 0;
    for (const modelId of args.modelIds) {
      const verified = await verifyModel(modelId, args.options.outDir);
      if (verified.ok) {
        const files = verified.manifest?.files ?? [];
        const bytes = files.reduce((sum, f) => sum + f.size, 0);
        reporter.line(`ok      ${modelId}  ${files.length} files, ${formatBytes(bytes)}`);
      } else {
        failed++;
        reporter.line(`FAILED  ${modelId}`);
        for (const problem of verified.problems) io.stderr(`  ${modelId}: ${problem}\n`);
      }
    }
    return failed > 0 ? 1 : 0;
  }

  const results: ModelResult[] = [];
  for (const modelId of args.modelIds) {
    try {
      results.push(await fetchModel(modelId, { ...args.options, reporter }));
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
      io.stderr(`models:fetch: ${error.message}\n`);
      return 2;
    }
  }

  const failed = results.filter((r) => !r.ok);
  reporter.line('');
  reporter.line(
    `Summary: ${results.length} model${results.length === 1 ? '' : 's'}, ${failed.length} failed`,
  );
  for (const r of results) {
    if (r.ok) {
      const bytes = r.files.reduce((sum, f) => sum + f.size, 0);
      const downloaded = r.files.filter((f) => f.outcome === 'downloaded').length;
      reporter.line(
        `  ok      ${r.modelId}  ${r.files.length} files, ${formatBytes(bytes)} (${downloaded} downloaded, ${r.files.length - downloaded} up to date)`,
      );
    } else {
      reporter.line(`  FAILED  ${r.modelId}`);
      for (const e of r.errors) io.stderr(`  ${e}\n`);
    }
  }
  if (failed.length === 0 && results.length > 0) {
    const out = relative(process.cwd(), args.options.outDir) || '.';
    reporter.line(
      `Serve ${out}/ as /models/ (the app's local model path); check a copy offline with --verify.`,
    );
  }
  return failed.length > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 1;
    },
  );
}

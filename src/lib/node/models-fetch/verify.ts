/**
 * Offline verification: a fetched model folder against its manifest (every file there, same size,
 * same SHA-256), for a host with no network.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { MANIFEST_NAME, UsageError, modelIdProblem, repoFileProblem } from './options.ts';
import type { FetchManifest } from './types.ts';
import { localSize, sha256File } from './download.ts';
import { modelDir } from './fetch-model.ts';

export interface VerifyResult {
  modelId: string;
  dir: string;
  ok: boolean;
  problems: string[];
  manifest?: FetchManifest;
}

/** Checks a fetched model folder against its manifest: every file there, same size, same SHA-256. */
export async function verifyModel(modelId: string, outDir: string): Promise<VerifyResult> {
  const idProblem = modelIdProblem(modelId);
  if (idProblem) throw new UsageError(idProblem);
  const dir = modelDir(outDir, modelId);
  const result: VerifyResult = { modelId, dir, ok: false, problems: [] };
  const manifestPath = resolve(dir, MANIFEST_NAME);
  if (!existsSync(manifestPath)) {
    result.problems.push(`${MANIFEST_NAME} missing: fetch the model with models:fetch first`);
    return result;
  }
  let manifest: FetchManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as FetchManifest;
  } catch {
    result.problems.push(`${MANIFEST_NAME} is not valid JSON`);
    return result;
  }
  result.manifest = manifest;
  for (const file of manifest.files ?? []) {
    if (repoFileProblem(file.path)) {
      result.problems.push(`${file.path}: not a valid path`);
      continue;
    }
    const path = resolve(dir, ...file.path.split('/'));
    const size = localSize(path);
    if (size === undefined) result.problems.push(`${file.path}: missing`);
    else if (size !== file.size) {
      result.problems.push(`${file.path}: ${size} bytes, expected ${file.size}`);
    } else if ((await sha256File(path)) !== file.sha256) {
      result.problems.push(`${file.path}: SHA-256 differs from the manifest`);
    }
  }
  result.ok = result.problems.length === 0;
  return result;
}

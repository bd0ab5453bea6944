/**
 * transformers.js in a worker: where models and the ONNX Runtime files come from, which device
 * runs them, and one lazy pipeline per task, keyed by source + model + device + dtype and disposed
 * when the user picks another (a model holds hundreds of MB of GPU or WASM memory).
 */
import { messageOf } from '../src/lib/errors.ts';
import { ref, type MessageRef } from '../src/lib/i18n/message.ts';
import { loadingStage } from '../src/lib/workers/loading-stage.ts';
import type { BackendNote } from '../src/lib/metrics/semantic/backends.ts';
import { env, pipeline } from '@huggingface/transformers';
import type { ModelSource } from '../src/lib/models/source.ts';
import { isDownloadApproved } from '../src/lib/models/source.ts';
import { catalogModel, downloadBytes } from '../src/lib/models/catalog.ts';
import type { ModelDtype, ModelTask } from '../src/lib/models/catalog.ts';
import type { TransformerBackendChoice } from '../src/lib/metrics/settings.ts';
import { deviceLabel, resolveDevice } from './gpu-adapter.ts';
import type { DeviceResolution, ResolvedDevice } from './gpu-adapter.ts';
import type { ProgressReporter } from './host.ts';
import { formatBytes } from '../src/lib/ui/format.ts';

/** ONNX Runtime's wasm build is served by the app itself (`npm run assets` copies it). */
const ORT_DIR = `${import.meta.env.BASE_URL}vendor/ort/`;
export const MODELS_PATH = `${import.meta.env.BASE_URL}models/`;

export type { DeviceResolution, ResolvedDevice } from './gpu-adapter.ts';
export { deviceLabel, resolveDevice };

export function resolveDtype(
  choice: TransformerBackendChoice['dtype'],
  device: ResolvedDevice,
): ModelDtype {
  if (choice !== 'auto') return choice;
  return device === 'webgpu' ? 'fp32' : 'q8';
}

function configureEnvironment(source: ModelSource): void {
  env.backends.onnx.wasm!.wasmPaths = {
    mjs: `${ORT_DIR}ort-wasm-simd-threaded.asyncify.mjs`,
    wasm: `${ORT_DIR}ort-wasm-simd-threaded.asyncify.wasm`,
  };
  // transformers.js would otherwise re-serve the ORT glue from a blob: URL, which the app's
  // Content-Security-Policy (script-src 'self') rightly refuses; the service worker keeps these
  // files for offline use instead.
  env.useWasmCache = false;
  env.localModelPath = MODELS_PATH;
  env.allowLocalModels = source.kind === 'self-hosted';
  env.allowRemoteModels = source.kind === 'hub';
  env.remoteHost = source.hubUrl.endsWith('/') ? source.hubUrl : `${source.hubUrl}/`;
  // Hub downloads persist in Cache Storage ("transformers-cache"); self-hosted files are cached by
  // the service worker instead, so they are not stored twice.
  env.useBrowserCache = source.kind === 'hub';
}

export interface LoadedPipeline<P> {
  pipe: P;
  model: string;
  device: DeviceResolution;
  dtype: ModelDtype;
  /** "transformers.js Xenova/all-MiniLM-L6-v2 · q8 · WASM" */
  backend: string;
  notes: BackendNote[];
}

interface Slot {
  key: string;
  loading: Promise<LoadedPipeline<unknown>>;
}

const slots = new Map<ModelTask, Slot>();

/** Keeps one bar per file: transformers.js reports initiate/download/progress/done per file. */
function forwardProgress(report: ProgressReporter, model: string, verb: MessageRef) {
  const stage = loadingStage(verb);
  return (info: { status: string; file?: string; loaded?: number; total?: number }): void => {
    if (!info.file) return;
    const file = `${model}/${info.file}`;
    switch (info.status) {
      case 'initiate':
      case 'download':
        report({ ...stage, file });
        return;
      case 'progress':
        report({
          ...stage,
          file,
          ...(info.loaded !== undefined ? { loaded: info.loaded } : {}),
          ...(info.total ? { total: info.total } : {}),
        });
        return;
      case 'done':
        report({
          ...loadingStage(ref('models.stage.loaded')),
          file,
          ...(info.total ? { loaded: info.total, total: info.total } : {}),
        });
        return;
      default:
        return;
    }
  };
}

/**
 * The pipeline for `task` with the user's choice, loading it on first use and warming it up (the
 * first run compiles WebGPU shaders). A different choice disposes the previous pipeline first.
 */
export async function loadPipeline<P>(
  task: ModelTask,
  choice: TransformerBackendChoice,
  source: ModelSource,
  report: ProgressReporter,
  warmUp: (pipe: P) => Promise<unknown>,
): Promise<LoadedPipeline<P>> {
  const device = await resolveDevice(choice.device);
  const dtype = resolveDtype(choice.dtype, device.device);
  const key = [task, source.kind, source.hubUrl, choice.model, device.device, dtype].join('|');
  const current = slots.get(task);
  if (current?.key === key) return (await current.loading) as LoadedPipeline<P>;

  if (current) {
    slots.delete(task);
    await current.loading.then(
      (loaded) => (loaded.pipe as { dispose?: () => Promise<void> }).dispose?.(),
      () => undefined,
    );
  }

  if (!isDownloadApproved(source, choice.model)) {
    const size = downloadBytes(choice.model, dtype);
    throw new Error(
      `Downloading ${choice.model} (${dtype}${size ? `, about ${formatBytes(size)}` : ''}) from the model hub needs your go-ahead in Settings first.`,
    );
  }

  const loading = (async (): Promise<LoadedPipeline<P>> => {
    configureEnvironment(source);
    const verb = ref(source.kind === 'hub' ? 'models.stage.downloading' : 'models.stage.loading');
    const pipe = (await pipeline(task, choice.model, {
      device: device.device,
      dtype,
      progress_callback: forwardProgress(report, choice.model, verb),
    })) as unknown as P;
    const label = deviceLabel(device);
    report(loadingStage(ref('models.stage.warmingUp', { model: choice.model, device: label })));
    await warmUp(pipe);
    const notes: BackendNote[] = device.note ? [device.note] : [];
    if (catalogModel(choice.model)?.testOnly) {
      notes.push(ref('semantic.model.testOnly', { model: choice.model }));
    }
    return {
      pipe,
      model: choice.model,
      device,
      dtype,
      backend: `transformers.js ${choice.model} · ${dtype} · ${label}`,
      notes,
    };
  })();
  slots.set(task, { key, loading });
  try {
    return await loading;
  } catch (error) {
    if (slots.get(task)?.key === key) slots.delete(task);
    throw explainLoadError(error, choice.model, source);
  }
}

/**
 * transformers.js's errors say what broke, not what to do. The commonest one on a static host is a
 * model that is not there: an SPA fallback answers its config.json with index.html, and the error
 * is a JSON parse failure on "<!doctype".
 */
export function explainLoadError(error: unknown, model: string, source: ModelSource): Error {
  const message = messageOf(error);
  const where =
    source.kind === 'self-hosted'
      ? `${MODELS_PATH}${model}/ (put it there with \`npm run models:fetch -- ${model}\`)`
      : `${source.hubUrl}/${model}`;
  if (/<!doctype|Unexpected token '<'/iu.test(message)) {
    return new Error(
      `the server answered a file of ${model} with a web page, not the file: is the model at ${where}?`,
    );
  }
  if (/Could not locate file|404/u.test(message)) {
    return new Error(`${message.replace(/\.$/u, '')}; is the model at ${where}?`);
  }
  return error instanceof Error ? error : new Error(message);
}

/**
 * Device and dtype resolution for the model workers, and the fallback that keeps a case scorable
 * when a model cannot load. `navigator.gpu` is stubbed: Node has no WebGPU.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withFallback } from '../../../workers/fallback.ts';
import { englishRef } from '../../../src/lib/i18n/message.ts';
import type { SentenceEmbedder } from '../../../src/lib/metrics/semantic/backends.ts';

async function freshPipelines(gpu: unknown) {
  vi.resetModules();
  vi.stubGlobal('navigator', { gpu });
  return import('../../../workers/pipelines.ts');
}

afterEach(() => vi.unstubAllGlobals());

describe('resolveDevice', () => {
  it('uses WASM without WebGPU, with a note only where WebGPU was asked for', async () => {
    const { resolveDevice } = await freshPipelines(undefined);
    // "auto" planned on WASM here: a note would repeat the backend line on every card.
    expect(await resolveDevice('auto')).toEqual({ device: 'wasm', fallbackAdapter: false });
    const forced = await resolveDevice('webgpu');
    expect(forced).toMatchObject({
      device: 'wasm',
      note: { key: 'semantic.device.webgpuMissing' },
    });
    expect(englishRef(forced.note!)).toBe('WebGPU is not available in this browser: using WASM.');
  });

  it('uses a hardware adapter for auto and webgpu', async () => {
    const { resolveDevice, deviceLabel } = await freshPipelines({
      requestAdapter: async () => ({ info: { isFallbackAdapter: false } }),
    });
    const auto = await resolveDevice('auto');
    expect(auto).toEqual({ device: 'webgpu', fallbackAdapter: false });
    expect(deviceLabel(auto)).toBe('WebGPU');
    expect(await resolveDevice('wasm')).toEqual({ device: 'wasm', fallbackAdapter: false });
  });

  it('prefers WASM over a software adapter unless WebGPU is forced', async () => {
    const { resolveDevice, deviceLabel } = await freshPipelines({
      requestAdapter: async () => ({ isFallbackAdapter: true }),
    });
    expect(await resolveDevice('auto')).toEqual({ device: 'wasm', fallbackAdapter: false });
    const forced = await resolveDevice('webgpu');
    expect(forced).toMatchObject({ device: 'webgpu', fallbackAdapter: true });
    expect(deviceLabel(forced)).toBe('WebGPU (software adapter)');
  });

  it('treats a failing adapter request like no WebGPU', async () => {
    const { resolveDevice } = await freshPipelines({
      requestAdapter: async () => {
        throw new Error('GPU process crashed');
      },
    });
    expect((await resolveDevice('auto')).device).toBe('wasm');
  });

  it('picks fp32 on WebGPU and q8 on WASM for auto, and honours an explicit dtype', async () => {
    const { resolveDtype } = await freshPipelines(undefined);
    expect(resolveDtype('auto', 'webgpu')).toBe('fp32');
    expect(resolveDtype('auto', 'wasm')).toBe('q8');
    expect(resolveDtype('fp16', 'wasm')).toBe('fp16');
  });
});

describe('loadPipeline without consent', () => {
  it('refuses a hub download the user has not agreed to, naming the size', async () => {
    const { loadPipeline } = await freshPipelines(undefined);
    await expect(
      loadPipeline(
        'feature-extraction',
        { kind: 'transformer', model: 'Xenova/all-MiniLM-L6-v2', device: 'wasm', dtype: 'q8' },
        { kind: 'hub', hubUrl: 'https://huggingface.co', approvedDownloads: [] },
        () => {},
        async () => {},
      ),
    ).rejects.toThrow(/all-MiniLM-L6-v2 \(q8, about 22\.\d MB\).*go-ahead/u);
  });
});

describe('withFallback', () => {
  const builtIn: SentenceEmbedder = {
    backend: 'glove',
    embed: async (s) => s.map(() => new Float32Array(2)),
  };

  it('returns the preferred backend when it loads', async () => {
    const model: SentenceEmbedder = { ...builtIn, backend: 'model' };
    expect(
      (
        await withFallback(
          async () => model,
          async () => builtIn,
          String,
        )
      ).backend,
    ).toBe('model');
  });

  it('falls back with a note, leaving the shared built-in backend untouched', async () => {
    const used = await withFallback(
      async () => {
        throw new Error('404 onnx/model.onnx');
      },
      async () => builtIn,
      (e) => `model failed: ${(e as Error).message}`,
    );
    expect(used.backend).toBe('glove');
    expect(used.notes).toEqual(['model failed: 404 onnx/model.onnx']);
    expect(builtIn.notes).toBeUndefined();
    expect(await used.embed(['a'])).toHaveLength(1);
  });
});

describe('explainLoadError', () => {
  const selfHosted = {
    kind: 'self-hosted' as const,
    hubUrl: 'https://huggingface.co',
    approvedDownloads: [],
  };

  it('turns an SPA fallback page into "the model is not hosted here"', async () => {
    const { explainLoadError } = await freshPipelines(undefined);
    const error = explainLoadError(
      new SyntaxError(`Unexpected token '<', "<!doctype "... is not valid JSON`),
      'Xenova/bert-base-NER',
      selfHosted,
    );
    expect(error.message).toMatch(/answered a file of Xenova\/bert-base-NER with a web page/u);
    expect(error.message).toMatch(/\/models\/Xenova\/bert-base-NER\/.*models:fetch/u);
  });

  it('adds where the model was looked for to a missing-file error, and passes others through', async () => {
    const { explainLoadError } = await freshPipelines(undefined);
    const missing = explainLoadError(
      new Error(
        'Could not locate file: "https://huggingface.co/a/b/resolve/main/onnx/model_fp16.onnx".',
      ),
      'a/b',
      { ...selfHosted, kind: 'hub' },
    );
    expect(missing.message).toMatch(
      /model_fp16\.onnx".*; is the model at https:\/\/huggingface\.co\/a\/b\?/u,
    );
    const other = new Error('out of memory');
    expect(explainLoadError(other, 'a/b', selfHosted)).toBe(other);
  });
});

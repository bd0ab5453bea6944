/**
 * Which device a model runs on: WebGPU when the browser has a hardware adapter, WASM otherwise.
 * Shared by transformers.js (pipelines.ts) and the TF.js sentence encoder, apart from both so that
 * neither library is bundled for the other's sake. The adapter is probed once per worker.
 */
import { ref, type MessageRef } from '../src/lib/i18n/message.ts';
import type { DeviceChoice } from '../src/lib/metrics/settings.ts';

export type ResolvedDevice = 'webgpu' | 'wasm';

export interface DeviceResolution {
  device: ResolvedDevice;
  /** Set when the adapter is software (SwiftShader): correct but slower than WASM. */
  fallbackAdapter: boolean;
  /** What the user should know ("WebGPU is not available here: using WASM."). */
  note?: MessageRef;
}

interface GpuAdapterLike {
  isFallbackAdapter?: boolean;
  info?: { isFallbackAdapter?: boolean; description?: string; vendor?: string };
}

interface GpuLike {
  requestAdapter(options?: { powerPreference?: string }): Promise<GpuAdapterLike | null>;
}

let adapterProbe: Promise<GpuAdapterLike | null> | undefined;

function probeAdapter(): Promise<GpuAdapterLike | null> {
  adapterProbe ??= (async () => {
    const gpu = (navigator as Navigator & { gpu?: GpuLike }).gpu;
    if (!gpu) return null;
    try {
      return await gpu.requestAdapter({ powerPreference: 'high-performance' });
    } catch {
      return null;
    }
  })();
  return adapterProbe;
}

export async function resolveDevice(choice: DeviceChoice): Promise<DeviceResolution> {
  if (choice === 'wasm') return { device: 'wasm', fallbackAdapter: false };
  const adapter = await probeAdapter();
  // With "auto", WASM without a GPU is the plan, not news: the backend line says WASM, and the
  // settings say why once; a note would repeat it on every embedding card. A user who asked for
  // WebGPU is told on each result that it did not run there.
  if (!adapter) {
    return {
      device: 'wasm',
      fallbackAdapter: false,
      ...(choice === 'webgpu' ? { note: ref('semantic.device.webgpuMissing') } : {}),
    };
  }
  const fallbackAdapter = Boolean(adapter.info?.isFallbackAdapter ?? adapter.isFallbackAdapter);
  if (fallbackAdapter && choice === 'auto') return { device: 'wasm', fallbackAdapter: false };
  return {
    device: 'webgpu',
    fallbackAdapter,
    ...(fallbackAdapter ? { note: ref('semantic.device.softwareAdapter') } : {}),
  };
}

export function deviceLabel(resolution: DeviceResolution): string {
  if (resolution.device === 'wasm') return 'WASM';
  return resolution.fallbackAdapter ? 'WebGPU (software adapter)' : 'WebGPU';
}

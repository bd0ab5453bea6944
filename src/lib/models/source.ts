/**
 * Where transformer models come from. Self-hosted (the default) reads `/models/<id>/` from the
 * app's own origin and never touches the network beyond it; the hub downloads from huggingface.co
 * (or a mirror) into the browser's cache, and only models the user agreed to download, after
 * seeing their size.
 */
import { z } from 'zod';
import { isValidModelId } from './catalog.ts';
import { MODEL_HUB_HOSTS } from '../llm/hosts.ts';

/** The hub's own address (its hosts are in the CSP's connect-src: src/lib/llm/hosts.ts). */
export const DEFAULT_HUB_URL = MODEL_HUB_HOSTS.baseUrl;

export const modelSourceSchema = z.object({
  kind: z.enum(['self-hosted', 'hub']),
  /** The hub or a mirror serving `<id>/resolve/<revision>/<file>`. */
  hubUrl: z.url({ protocol: /^https?$/ }),
  /** Model ids the user agreed to download (size shown first). */
  approvedDownloads: z.array(z.string()),
});

export type ModelSource = z.infer<typeof modelSourceSchema>;

export const DEFAULT_MODEL_SOURCE: ModelSource = {
  kind: 'self-hosted',
  hubUrl: DEFAULT_HUB_URL,
  approvedDownloads: [],
};

export function isDownloadApproved(source: ModelSource, model: string): boolean {
  return source.kind === 'self-hosted' || source.approvedDownloads.includes(model);
}

export { isValidModelId };

/**
 * Formats with no language in them, safe in workers (storage quota, model downloads). Those in the
 * page's language are in locale-format.ts: it reads the language rune, which a worker lacks.
 */

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/**
 * A backend name short enough for a history chip but still telling backends apart:
 * "transformers.js Xenova/all-MiniLM-L6-v2 · q8 · WASM" → "all-MiniLM-L6-v2 q8 WASM",
 * "compromise-14.17 (+dates)" → "compromise-14.17".
 */
export function shortBackend(backend: string): string {
  const model = /^transformers\.js (?:[^/\s]+\/)?(\S+) · (\S+) · (.+)$/u.exec(backend);
  if (model) return `${model[1]} ${model[2]} ${model[3]!.replace(/ \(software adapter\)/u, '')}`;
  return backend.split(' ')[0] ?? backend;
}

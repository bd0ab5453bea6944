import type { Catalog } from './catalog-en.ts';

/**
 * One locale's namespace files as one catalog, without the files' "@review" marks. Each locale's
 * index.ts globs its own folder, so a new namespace file needs no list to be kept in step.
 */
export function mergeCatalog(files: Record<string, Record<string, string>>): Catalog {
  const out: Record<string, string> = {};
  for (const messages of Object.values(files)) {
    for (const [key, text] of Object.entries(messages)) if (!key.startsWith('@')) out[key] = text;
  }
  return out as Catalog;
}

// The id catalog: one chunk, loaded when the reader picks the language (see i18n.svelte.ts).
import { mergeCatalog } from '../../lib/i18n/merge-catalog.ts';

export default mergeCatalog(
  import.meta.glob<Record<string, string>>('./*.json', { eager: true, import: 'default' }),
);

// The ru catalog: one chunk, loaded when the reader picks the language (see i18n.svelte.ts).
import { mergeCatalog } from '../../lib/i18n/merge-catalog.ts';

export default mergeCatalog(
  // untranslated.json lists keys for translators (npm run i18n:metrics); it is not a catalog.
  import.meta.glob<Record<string, string>>(['./*.json', '!./untranslated.json'], {
    eager: true,
    import: 'default',
  }),
);

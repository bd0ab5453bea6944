/**
 * A message as it crosses to the page (src/lib/i18n/message.ts's MessageRef), for the workers'
 * schemas: a schema without it has zod drop the ref, and the page can show only the English text.
 */
import { z } from 'zod';
import type { MessageRef } from '../i18n/message.ts';

// Keys are checked where they are worded (an unknown key is shown as itself), not on the wire.
export const messageRefSchema = z.object({
  key: z.string(),
  values: z.record(z.string(), z.unknown()).optional(),
});

/** The same, typed as the MessageRef the page words. */
export const typedMessageRefSchema = messageRefSchema.transform((wire) => wire as MessageRef);

/**
 * What the generic detail view shows of a details object it knows nothing about: its plain fields
 * (numbers, strings, booleans) as label/value lines, lists as their length. Nested objects are left
 * out: a metric whose details need more than a few lines asks for its own view in its record.
 */
import { english, ref, type MessageRef } from '../../lib/i18n/message.ts';

export interface GenericField {
  /** The field name in words ("wordCount" → "word count"). */
  label: string;
  /** The value in English (tests, logs). */
  value: string;
  /** Where the value is words rather than data (yes/no, a count of items): the page words it. */
  valueRef?: MessageRef;
}

const MAX_TEXT = 300;

function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    .replace(/[-_]+/gu, ' ')
    .toLowerCase();
}

function worded(message: MessageRef): Pick<GenericField, 'value' | 'valueRef'> {
  return { value: english(message.key, message.values), valueRef: message };
}

function shown(value: unknown): Pick<GenericField, 'value' | 'valueRef'> | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return { value: String(value) };
    return { value: Number.isInteger(value) ? String(value) : value.toFixed(3) };
  }
  if (typeof value === 'string') {
    return { value: value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT - 1)}…` : value };
  }
  if (typeof value === 'boolean') {
    return worded(ref(value ? 'details.generic.yes' : 'details.generic.no'));
  }
  if (value === null) return { value: '—' };
  if (Array.isArray(value)) return worded(ref('details.generic.items', { count: value.length }));
  return undefined;
}

/** The fields of `details` worth a line, in the object's own order. */
export function genericFields(details: unknown): GenericField[] {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return [];
  const fields: GenericField[] = [];
  for (const [name, value] of Object.entries(details)) {
    const text = shown(value);
    if (text !== undefined) fields.push({ label: words(name), ...text });
  }
  return fields;
}

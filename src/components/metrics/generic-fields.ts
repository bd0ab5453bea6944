/**
 * What the generic detail view shows of a details object it knows nothing about: its plain fields
 * (numbers, strings, booleans) as label/value lines, lists as their length. Nested objects are left
 * out: a metric whose details need more than a few lines asks for its own view in its record.
 */

export interface GenericField {
  /** The field name in words ("wordCount" → "word count"). */
  label: string;
  value: string;
}

const MAX_TEXT = 300;

function words(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    .replace(/[-_]+/gu, ' ')
    .toLowerCase();
}

function shown(value: unknown): string | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    return Number.isInteger(value) ? String(value) : value.toFixed(3);
  }
  if (typeof value === 'string') {
    return value.length > MAX_TEXT ? `${value.slice(0, MAX_TEXT - 1)}…` : value;
  }
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (value === null) return '—';
  if (Array.isArray(value)) return `${value.length} item${value.length === 1 ? '' : 's'}`;
  return undefined;
}

/** The fields of `details` worth a line, in the object's own order. */
export function genericFields(details: unknown): GenericField[] {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return [];
  const fields: GenericField[] = [];
  for (const [name, value] of Object.entries(details)) {
    const text = shown(value);
    if (text !== undefined) fields.push({ label: words(name), value: text });
  }
  return fields;
}

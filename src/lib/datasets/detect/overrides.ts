/**
 * The CLI's `--map COLUMN=FIELD` changes to a proposed mapping: parsing one, and applying a list.
 */
import {
  MAPPING_TEXT_FIELDS,
  type ColumnMapping,
  type MappingTextField,
} from '../../rows/formats.ts';

/**
 * One change to a proposed mapping, as the CLI's `--map COLUMN=FIELD` writes it: FIELD is a
 * mapping field (`summary`), `human` or `human:NAME` (a rating column), `fields.NAME` (a prompt
 * template field) or `ignore` (the column plays no part).
 */
export interface MappingOverride {
  column: string;
  field: string;
}

const TEXT_FIELDS = new Set<string>(MAPPING_TEXT_FIELDS);

/** Parses `COLUMN=FIELD`; throws with the accepted fields when FIELD is unknown. */
export function parseMappingOverride(spec: string): MappingOverride {
  const eq = spec.lastIndexOf('=');
  const column = eq > 0 ? spec.slice(0, eq).trim() : '';
  const field = eq > 0 ? spec.slice(eq + 1).trim() : '';
  if (!column || !field) throw new Error(`--map wants COLUMN=FIELD, not '${spec}'.`);
  if (
    !TEXT_FIELDS.has(field) &&
    field !== 'ignore' &&
    !/^human(?::.+)?$/u.test(field) &&
    !/^fields\.\w+$/u.test(field)
  ) {
    throw new Error(
      `--map ${spec}: unknown field '${field}'. Fields: ${MAPPING_TEXT_FIELDS.join(', ')}, human, human:NAME, fields.NAME, ignore.`,
    );
  }
  return { column, field };
}

/** The mapping with the overrides applied in order (a column leaves any role it had). */
export function applyMappingOverrides(
  mapping: ColumnMapping,
  overrides: readonly MappingOverride[],
): ColumnMapping {
  const m: ColumnMapping = { ...mapping, human: [...(mapping.human ?? [])] };
  if (mapping.fields) m.fields = { ...mapping.fields };
  for (const { column, field } of overrides) {
    for (const key of MAPPING_TEXT_FIELDS) if (m[key] === column) delete m[key];
    m.human = (m.human ?? []).filter((h) => h.column !== column);
    if (m.fields) {
      for (const [name, c] of Object.entries(m.fields)) if (c === column) delete m.fields[name];
    }
    if (field === 'ignore') continue;
    if (field.startsWith('human')) {
      m.human.push({ column, name: field.includes(':') ? field.slice(6) : column });
    } else if (field.startsWith('fields.')) {
      m.fields = { ...m.fields, [field.slice(7)]: column };
    } else {
      m[field as MappingTextField] = column;
    }
  }
  return m;
}

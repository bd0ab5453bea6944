/**
 * The preview rows as a mapping reads them, through the same `toRow` as the import, so the user
 * sees what each field gets (or why a row would be rejected) before the file is read.
 */
import { requiredFieldsOf } from '../detect/propose.ts';
import { plural } from '../detect/describe.ts';
import { toRow } from '../parse/rows.ts';
import {
  isCaseRow,
  type ColumnMapping,
  type DatasetRow,
  type MappingTextField,
} from '../../rows/formats.ts';
import { FIELD_LABELS, KIND_FIELDS } from './fields.ts';
import { cutText, type DatasetSample, type PreviewValue } from './sample.ts';

/** Characters of a preview cell as the page shows it. */
const CELL_CHARS = 160;

export interface PreviewTable {
  /**
   * Column headings: the mapped fields of the kind, the prompt fields of prediction rows
   * (`{context}`), then "Ratings" when there are any.
   */
  headings: string[];
  rows: Array<{ row: number; cells: string[] } | { row: number; problem: string }>;
}

function cell(text: string | undefined): string {
  if (text === undefined || text.trim() === '') return '—';
  return cutText(text.replace(/\s+/gu, ' ').trim(), CELL_CHARS);
}

/** What a built row holds for one field, in words. */
function fieldText(r: DatasetRow, field: MappingTextField): string | undefined {
  if (field === 'id') return r.id;
  if (field === 'group') return r.group;
  if (field === 'system') return r.system;
  if (isCaseRow(r)) {
    const input = r.input;
    switch (field) {
      case 'source':
        return input.source;
      case 'summary':
        return input.summary;
      case 'reference':
        if (input.reference === undefined) return undefined;
        return r.references && r.references.length > 1
          ? `${input.reference} (+${plural(r.references.length - 1, 'more reference')})`
          : input.reference;
      case 'instructions':
        return input.instructions?.map((s) => s.name).join(', ');
      default:
        return undefined;
    }
  }
  const input = r.input;
  switch (field) {
    case 'prediction':
      return input.prediction;
    case 'answers':
    case 'output':
      return input.answers.join(' | ');
    case 'allClasses':
      return input.allClasses ? plural(input.allClasses.length, 'label') : undefined;
    case 'length':
      return input.length === undefined ? undefined : String(input.length);
    case 'instruction':
      return input.fields?.instruction;
    case 'input':
      return input.fields?.input;
    default:
      return undefined;
  }
}

const RATINGS = 'Ratings';

/** A preview value as it reads in a cell (lists and objects as JSON). */
function rawText(value: PreviewValue | undefined): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** A rating as it reads in a cell ("quality 3.50"). */
function ratingText(name: string, value: number): string {
  return `${name} ${Number.isInteger(value) ? value : value.toFixed(2)}`;
}

/**
 * The preview rows as `mapping` reads them: what each field gets, or why a row would be rejected.
 * While a required field has no column, rows cannot be built: the cells show the mapped columns'
 * values as they are, and the missing field says so, so the user sees what each column holds.
 */
export function previewTable(sample: DatasetSample, mapping: ColumnMapping): PreviewTable {
  const required = new Set<MappingTextField>(requiredFieldsOf(mapping));
  const fields = KIND_FIELDS[mapping.kind].filter(
    (f) => mapping[f] !== undefined || required.has(f),
  );
  const unmapped = fields.some((f) => mapping[f] === undefined);
  // SFT rows show their template fields as the instruction and input already.
  const prompt = mapping.kind === 'prediction' ? Object.entries(mapping.fields ?? {}) : [];
  const human = mapping.human ?? [];
  const withRatings = human.length > 0;
  const headings = [
    ...fields.map((f) => FIELD_LABELS[f]),
    ...prompt.map(([name]) => `{${name}}`),
    ...(withRatings ? [RATINGS] : []),
  ];
  const rows = sample.preview.map(({ row, record }) => {
    if (unmapped) {
      const cells = fields.map((f) => {
        const column = mapping[f];
        return column === undefined ? '(choose a column)' : cell(rawText(record[column]));
      });
      const promptCells = prompt.map(([, column]) => cell(rawText(record[column])));
      const ratings = human.map((h) => `${h.name} ${rawText(record[h.column]) ?? '—'}`).join(' · ');
      return { row, cells: [...cells, ...promptCells, ...(withRatings ? [cell(ratings)] : [])] };
    }
    const built = toRow(record, row, mapping);
    if ('reason' in built) return { row, problem: `row ${row}: ${built.reason}` };
    const r = built.row;
    const ratings = Object.entries(r.human)
      .map(([name, v]) => ratingText(name, v))
      .join(' · ');
    const promptFields: Record<string, string> = isCaseRow(r) ? {} : (r.input.fields ?? {});
    return {
      row,
      cells: [
        ...fields.map((f) => cell(fieldText(r, f))),
        ...prompt.map(([name]) => cell(promptFields[name])),
        ...(withRatings ? [cell(ratings)] : []),
      ],
    };
  });
  return { headings, rows };
}

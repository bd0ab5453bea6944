/**
 * The annotator's controller: which row and dimension are shown, the ratings as typed (stored with
 * their row the moment they are typed, shown at once and undone when the write fails), the keys
 * that rate and move, and changes to the rating dimensions. Apart from AnnotateView so that the
 * rules can be tested without a DOM; the view keeps only focus, scrolling and the help panel.
 */
import { messageOf } from '../errors.ts';
import { tr } from '../i18n/i18n.svelte.ts';
import { ref, type MessageRef } from '../i18n/message.ts';
import {
  dimensionsOf,
  isRating,
  ratingColumn,
  type AnnotationDimension,
} from '../storage/annotations/dimensions.ts';
import {
  annotationProgress,
  getRow,
  listRowRatings,
  nextUnrated,
  type RowRatings,
} from '../storage/annotations/read.ts';
import {
  addDimension,
  clearRating,
  removeDimension,
  setRating,
  updateDimension,
} from '../storage/annotations/write.ts';
import { getDataset } from '../storage/datasets.ts';
import type { StoredDataset } from '../storage/schema.ts';
import { isCaseRow, type CaseRow } from '../rows/formats.ts';

const ALL_RATED = ref('datasets.annotate.allRated');

export interface AnnotateOptions {
  /** The data set as the list passes it (a fresh record after each refresh, the same id). */
  dataset: () => StoredDataset;
  /** After every stored change (a rating, the dimensions), so that lists and runs catch up. */
  onchange: () => void;
  /** After the highlighted dimension changed: the view moves the keyboard focus to it. */
  onfocus?: (dimension: number) => Promise<void> | void;
}

export class AnnotateController {
  loading = $state(true);
  dimensions = $state.raw<AnnotationDimension[]>([]);
  rows = $state.raw<RowRatings[]>([]);
  index = $state(0);
  focused = $state(0);
  /** The texts of the row shown, once read. */
  current = $state.raw<CaseRow | undefined>();
  /** What the last action did, as a message: worded in the page's language when read. */
  #status = $state.raw<MessageRef | undefined>();
  /** A message, or an error's own words (storage's, the browser's), shown as they are. */
  #error = $state.raw<MessageRef | string | undefined>();
  /** Ratings typed but not yet stored; a reload waits for none. */
  pending = $state(0);

  readonly names = $derived(this.dimensions.map((d) => d.name));
  readonly entry = $derived(this.rows[this.index]);
  readonly progress = $derived(annotationProgress(this.rows, this.names));

  readonly #options: AnnotateOptions;
  /** A newer row's read wins over a slower read of an older one. */
  #reading = 0;

  constructor(options: AnnotateOptions) {
    this.#options = options;
  }

  get status(): string {
    return this.#status ? tr(this.#status) : '';
  }

  get error(): string | undefined {
    const error = this.#error;
    return typeof error === 'object' ? tr(error) : error;
  }

  get datasetId(): string {
    return this.#options.dataset().id;
  }

  /** Reads the dimensions and ratings, and starts at the first row not fully rated. */
  async load(): Promise<void> {
    try {
      const fresh = await getDataset(this.datasetId);
      this.dimensions = dimensionsOf(fresh ?? this.#options.dataset());
      this.rows = await listRowRatings(this.datasetId);
      const first = nextUnrated(this.rows, this.names);
      this.index = Math.max(0, first);
      this.focused = first < 0 ? 0 : this.firstUnratedDimension(first);
      this.#status =
        first < 0 && this.rows.length > 0
          ? ALL_RATED
          : first > 0
            ? ref('datasets.annotate.resuming', { row: String(this.rows[this.index].row) })
            : undefined;
    } catch (e) {
      this.#error = messageOf(e);
    } finally {
      this.loading = false;
    }
    await this.focusDimension(this.focused);
  }

  /** Reads the texts of a row; true when this read is the one shown (no newer one overtook it). */
  async readRow(row: number): Promise<boolean> {
    const ticket = ++this.#reading;
    try {
      const stored = await getRow(this.datasetId, row);
      if (ticket !== this.#reading) return false;
      this.current = stored && isCaseRow(stored) ? stored : undefined;
      if (!stored) this.#error = ref('datasets.annotate.rowUnreadable', { row: String(row) });
      return true;
    } catch (e) {
      if (ticket === this.#reading) this.#error = messageOf(e);
      return false;
    }
  }

  firstUnratedDimension(rowIndex: number): number {
    const ratings = this.rows[rowIndex]?.ratings ?? {};
    const i = this.names.findIndex((n) => !isRating(ratings[n]));
    return i < 0 ? 0 : i;
  }

  /** Moves the highlight to a dimension's scale (the view then moves the keyboard focus). */
  async focusDimension(i: number): Promise<void> {
    this.focused = Math.max(0, Math.min(this.dimensions.length - 1, i));
    await this.#options.onfocus?.(this.focused);
  }

  #replaceRatings(rowIndex: number, ratings: Record<string, number>): void {
    this.rows = this.rows.map((r, i) => (i === rowIndex ? { ...r, ratings } : r));
  }

  /** Stores a rating (or clears it with null); shown at once, undone on failure. */
  async store(rowIndex: number, dimension: string, value: number | null): Promise<void> {
    const target = this.rows[rowIndex];
    if (!target) return;
    const before = target.ratings[dimension];
    const { [dimension]: _old, ...rest } = target.ratings;
    this.#replaceRatings(rowIndex, value === null ? rest : { ...rest, [dimension]: value });
    this.#error = undefined;
    this.pending++;
    try {
      if (value === null) await clearRating(this.datasetId, target.row, dimension);
      else await setRating(this.datasetId, target.row, dimension, value);
      this.#status =
        value === null
          ? ref('datasets.annotate.cleared', { row: String(target.row), dimension })
          : ref('datasets.annotate.rated', { row: String(target.row), dimension, value });
      this.#options.onchange();
    } catch (e) {
      // Undo only if nothing newer was typed for the same rating meanwhile.
      const now = this.rows[rowIndex].ratings[dimension];
      if (now === (value ?? undefined)) {
        const { [dimension]: _failed, ...others } = this.rows[rowIndex].ratings;
        this.#replaceRatings(
          rowIndex,
          before === undefined ? others : { ...others, [dimension]: before },
        );
      }
      this.#error = messageOf(e);
    } finally {
      this.pending--;
    }
  }

  async goTo(i: number, dimension = this.focused): Promise<void> {
    if (i < 0 || i >= this.rows.length) {
      this.#status = ref(i < 0 ? 'datasets.annotate.firstRow' : 'datasets.annotate.lastRow');
      return;
    }
    this.index = i;
    await this.focusDimension(dimension);
  }

  /** A rating typed for the highlighted dimension; the highlight moves on to the next one. */
  async rateByKey(value: number): Promise<void> {
    const dimension = this.dimensions[this.focused];
    if (!this.entry || !dimension) return;
    void this.store(this.index, dimension.name, value);
    if (this.focused < this.dimensions.length - 1) await this.focusDimension(this.focused + 1);
    else if (this.index < this.rows.length - 1) await this.goTo(this.index + 1, 0);
    else await this.focusDimension(this.focused);
  }

  async nextUnratedRow(): Promise<void> {
    const i = nextUnrated(this.rows, this.names, this.index);
    if (i < 0) {
      this.#status = ALL_RATED;
      return;
    }
    await this.goTo(i, this.firstUnratedDimension(i));
  }

  /** A click picks the value; clicking the chosen value again clears it. */
  click(dimIndex: number, value: number): void {
    const dimension = this.dimensions[dimIndex];
    const entry = this.entry;
    if (!entry || !dimension) return;
    this.focused = dimIndex;
    void this.store(
      this.index,
      dimension.name,
      entry.ratings[dimension.name] === value ? null : value,
    );
  }

  /** The rating and moving keys; false for a key the annotator does not take. */
  key(key: string): boolean {
    const count = this.dimensions.length;
    if (key >= '1' && key <= '5' && key.length === 1) void this.rateByKey(Number(key));
    else if (key === '0' || key === 'Backspace' || key === 'Delete') {
      const dimension = this.dimensions[this.focused];
      if (dimension) void this.store(this.index, dimension.name, null);
    } else if (key === 'ArrowDown') void this.focusDimension((this.focused + 1) % count);
    else if (key === 'ArrowUp') void this.focusDimension((this.focused - 1 + count) % count);
    else if (key === 'ArrowRight' || key === 'j') void this.goTo(this.index + 1);
    else if (key === 'ArrowLeft' || key === 'k') void this.goTo(this.index - 1);
    else if (key === 'n') void this.nextUnratedRow();
    else return false;
    return true;
  }

  /** Goes to the row with this number; false (with the error said) when there is none. */
  jump(wanted: number | null): boolean {
    const rows = this.rows;
    const i = wanted === null ? -1 : rows.findIndex((r) => r.row === wanted);
    if (i < 0) {
      const first = rows[0]?.row;
      const last = rows.at(-1)?.row;
      const gaps = first !== undefined && last !== undefined && rows.length < last - first + 1;
      this.#error = ref('datasets.annotate.noSuchRow', {
        row: wanted === null ? ref('datasets.annotate.emptyRow') : String(wanted),
        first: first === undefined ? '—' : String(first),
        last: last === undefined ? '—' : String(last),
        gaps: gaps ? 'yes' : 'no',
      });
      return false;
    }
    this.#error = undefined;
    void this.goTo(i);
    return true;
  }

  // ---- Dimensions ----

  ratingsCount(name: string): number {
    return this.rows.reduce((n, r) => n + (isRating(r.ratings[name]) ? 1 : 0), 0);
  }

  /** Runs a change of the dimensions, then re-reads the ratings (a rename moves them). */
  async #changeDimensions(work: () => Promise<AnnotationDimension[]>): Promise<boolean> {
    this.#error = undefined;
    try {
      const focusedName = this.names[this.focused];
      this.dimensions = await work();
      this.rows = await listRowRatings(this.datasetId);
      const keep = this.dimensions.findIndex((d) => d.name === focusedName);
      this.focused = keep < 0 ? 0 : keep;
      this.#options.onchange();
      return true;
    } catch (e) {
      this.#error = messageOf(e);
      return false;
    }
  }

  async addDimension(name: string, guide: string): Promise<boolean> {
    const added = await this.#changeDimensions(() => addDimension(this.datasetId, name, guide));
    if (added) {
      this.#status = ref('datasets.annotate.dimensionAdded', {
        name: this.dimensions.at(-1)?.name ?? '',
      });
    }
    return added;
  }

  async saveDimension(name: string, edit: { name: string; guide: string }): Promise<boolean> {
    const saved = await this.#changeDimensions(() => updateDimension(this.datasetId, name, edit));
    if (saved) this.#status = ref('datasets.annotate.dimensionSaved', { name });
    return saved;
  }

  async removeDimension(name: string, deleteRatings: boolean): Promise<boolean> {
    const removed = await this.#changeDimensions(() =>
      removeDimension(this.datasetId, name, { deleteRatings }),
    );
    if (removed) {
      this.#status = deleteRatings
        ? ref('datasets.annotate.dimensionRemovedWithRatings', { name })
        : ref('datasets.annotate.dimensionRemoved', { name, column: ratingColumn(name) });
    }
    return removed;
  }
}

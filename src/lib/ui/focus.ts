/** Focus rules the page's announcements share. */

const TEXT_INPUT_TYPES = new Set([
  'text',
  'search',
  'email',
  'url',
  'tel',
  'password',
  'number',
  'date',
  'time',
]);

/**
 * Whether `el` takes typed text (a text area, a text-like input, an editable element): the page
 * never moves the focus out of one, since the user may be typing there.
 */
export function isTextEntry(el: Element | null): boolean {
  if (!el) return false;
  if (el instanceof HTMLTextAreaElement) return true;
  if (el instanceof HTMLInputElement) return TEXT_INPUT_TYPES.has(el.type);
  return el instanceof HTMLElement && el.isContentEditable;
}

/** What opened a disclosure from elsewhere on the page (a score board row opens a card's detail). */
const openers = new WeakMap<Element, HTMLElement>();

/** Records that `opener` opened `target`, so that closing `target` can give the focus back. */
export function rememberOpener(target: Element, opener: HTMLElement): void {
  openers.set(target, opener);
}

/** The element that opened `target` (once: it is forgotten), if it is still on the page. */
export function takeOpener(target: Element): HTMLElement | undefined {
  const opener = openers.get(target);
  openers.delete(target);
  return opener?.isConnected ? opener : undefined;
}

/**
 * Escape on an open `<details>` folds it and returns the focus to what opened it (or its own
 * summary), as a dialog would; a `<details>` alone only folds on its summary.
 */
export function closeDetailsOnEscape(event: KeyboardEvent): void {
  const details = event.currentTarget;
  if (event.key !== 'Escape' || !(details instanceof HTMLDetailsElement) || !details.open) return;
  event.preventDefault();
  event.stopPropagation();
  const opener = takeOpener(details);
  details.open = false;
  (opener ?? details.querySelector<HTMLElement>(':scope > summary'))?.focus();
}

/**
 * Opens a metric's card from elsewhere on the page (a score board row, a verdict finding): the
 * card's detail opens, takes the focus, and Escape there gives it back to the opener.
 */
import { rememberOpener } from './focus.ts';

export function openCard(key: string, opener: HTMLElement): void {
  const card = document.getElementById(`card-${key}`);
  if (!card) return;
  const more = card.querySelector('details');
  if (more) {
    more.open = true;
    rememberOpener(more, opener);
    more.querySelector<HTMLElement>(':scope > summary')?.focus({ preventScroll: true });
  }
  const smooth = !window.matchMedia('(prefers-reduced-motion: reduce)').matches;
  card.scrollIntoView({ block: 'start', behavior: smooth ? 'smooth' : 'auto' });
}
